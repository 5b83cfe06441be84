"""Where does the two-magnitude network leave the population model?  (A diagnostic for
notes/gaussian_second_layer.md, section 6.)

For the layers +-1 and (1, 2) w.p. (1/2, 1/2) at tanh/tanh, psi2 = 1, lambda = 0.1,
eta_scale = 6, one network per seed (``helpers.draw``; run k draws from
``helpers.named_seed(SEED, f"d={d}", f"psi1={psi1:g}", f"run={k}")``, ``SEED =
helpers.named_seed(BASE_SEED, "gaussian_layer_diagnostics")``, the same for both layers, so
their W0, signs and data are the same), the risk of ridge on the features of W1 and of four
modifications of it (each on the run's ridge set and 4096 test points; the random matrices
of the modifications from the run's stream ``"variants"``):

* ``theory spike``: the network's component along v replaced by xi_i r v (theory's r);
* ``isotropic bulk``: the part orthogonal to v replaced by fresh Gaussian columns of the same
  norms (the network's component along v kept);
* ``rotated bulk``: the part orthogonal to v rotated by one random orthogonal map (its Gram
  matrix kept, its relation to the teacher and the data lost);
* ``independent slope``: the step computed with sigma'(X W~) for an independent W~ in place
  of sigma'(X W0) (the growth of neuron i independent of w0_i).

Paired differences (1, 2) - (+-1) over the seeds are compared with the theory's.  The
committed report was written before issue 46 (seeds through the removed
``helpers.data.spawn_streams``); a rerun draws new streams of the same experiment.

    python benchmarks/investigations/gaussian_layer_diagnostics.py --d 1024 --seeds 4
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from pathlib import Path

import gaussian_layer_check as glc
import numpy as np

import helpers
from helpers.theory import large_step_risk, spiked_rf_parameters

OUT = (Path(__file__).resolve().parents[1] / "results" / "investigations"
       / "gaussian_layer_diagnostics.md")
ETA, LAM, BASE_SEED = 6.0, 0.1, 11
SEED = helpers.named_seed(BASE_SEED, "gaussian_layer_diagnostics")


def variants(layer, d, psi1, k):
    """The risk of the network of run k and of its four modifications."""
    fs = helpers.draw(student="tanh", teacher="tanh", d=d, psi1=psi1, psi2=1.0, eta_scale=ETA,
                      second_layer=glc.LAYERS[layer], lam=LAM, n_test=4096,
                      seed=helpers.named_seed(SEED, f"d={d}", f"psi1={psi1:g}", f"run={k}"))
    st, n, N = fs.student, fs.n, fs.N
    r = spiked_rf_parameters(st, fs.teacher, psi1=psi1, eta_scale=ETA)[0]
    rng = fs.rng("variants")
    W1 = fs.W1                                        # W0 + ETA N G0 (eta = ETA sqrt(N))
    xi = fs.a * math.sqrt(N)
    v = fs.X.T @ fs.y
    v /= np.linalg.norm(v)
    along = v @ W1
    bulk = W1 - np.outer(v, along)
    fresh = rng.standard_normal((d, N))
    fresh -= np.outer(v, v @ fresh)
    fresh *= np.linalg.norm(bulk, axis=0) / np.linalg.norm(fresh, axis=0)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    rot = Q @ bulk
    rot -= np.outer(v, v @ rot)
    rot *= np.linalg.norm(bulk, axis=0) / np.linalg.norm(rot, axis=0)
    Wt = rng.standard_normal((d, N)) / math.sqrt(d)
    M = (fs.y / math.sqrt(N))[:, None] * fs.a[None, :] * st.derivative(fs.X @ Wt)
    Ws = {"network": W1, "theory spike": bulk + np.outer(v, xi * r),
          "isotropic bulk": fresh + np.outer(v, along),
          "rotated bulk": rot + np.outer(v, along),
          "independent slope": fs.W0 + ETA * N * (fs.X.T @ M / n)}
    modified = dataclasses.replace(fs, weights={(("model", name),): W for name, W in Ws.items()},
                                   _affine={}, _cache={})
    return {rec["model"]: rec["risk"] for rec in modified.records(("risk",))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=1024)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--psi1", type=float, default=2.0)
    args = ap.parse_args()
    runs = {layer: [variants(layer, args.d, args.psi1, s) for s in range(args.seeds)]
            for layer in ("two", "rademacher")}
    th = {layer: large_step_risk("tanh", "tanh", psi1=args.psi1, psi2=1.0, lam=LAM,
                                 eta_scale=ETA, second_layer=glc.LAYERS[layer])
          for layer in runs}
    lines = ["# Two-magnitude layer: network against modified networks", "",
             "`python benchmarks/investigations/gaussian_layer_diagnostics.py "
             f"--d {args.d} --seeds {args.seeds} --psi1 {args.psi1:g}`; tanh/tanh, psi2 = 1, "
             f"lambda = {LAM:g}, "
             f"eta_scale = {ETA:g}.  Theory: (1, 2) {th['two']:.4f}, +-1 "
             f"{th['rademacher']:.4f}, paired {th['two'] - th['rademacher']:+.4f}.", "",
             "| variant | (1, 2) | +-1 | paired (1, 2) - (+-1) |", "|---|---|---|---|"]
    for name in runs["two"][0]:
        a = np.array([r[name] for r in runs["two"]])
        b = np.array([r[name] for r in runs["rademacher"]])
        se = (a - b).std(ddof=1) / math.sqrt(a.size)
        lines.append(f"| {name} | {a.mean():.4f} | {b.mean():.4f} | "
                     f"{(a - b).mean():+.4f} ± {se:.4f} |")
        print(lines[-1], flush=True)
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
