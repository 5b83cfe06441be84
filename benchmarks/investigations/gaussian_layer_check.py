"""Check ``large_step_risk(..., second_layer=...)`` for a Gaussian (and a two-magnitude)
second layer against simulation of the whole two-stage procedure.

Each run is one ``helpers.run`` (chapter 5's run: the step, the ridge set and the test risk),
its step sizes sharing the gradient, the ridge set and the test points.  Run k at d draws
from ``helpers.named_seed(SEED, f"d={d}", f"run={k}")``, ``SEED =
helpers.named_seed(BASE_SEED, "gaussian_layer_check")``, whatever the layer: the layers are
run on the same seeds (the same W0; the +-1 signs are those of the Gaussian draws), so the
Gaussian - (+-1) difference is paired.  The two-magnitude layer ``([1, 2], [0.5, 0.5])`` is
``helpers.second_layer``'s: the +-1 layer's signs, and magnitude 2 where the Gaussian draw's
|g_i| is above the half-normal median (each neuron with probability 1/2).

    python benchmarks/investigations/gaussian_layer_check.py --d 512 --seeds 4
    cd benchmarks/investigations
    python gaussian_layer_check.py --d 1024 --seeds 4 --points 2:2,2:6,4:6
    python gaussian_layer_check.py --d 512 --seeds 4 --points 2:2,2:6 --two

Each call adds its rows to ``gaussian_layer_check.csv`` in ``benchmarks/results/investigations``
(replacing rows of the same d, layer and point) and rewrites the Markdown table
``gaussian_layer_check.md`` there from the whole CSV.  The rows there were written before issue
46 (seeds ``[2310, d, k]`` through the removed ``helpers.data.spawn_streams``; the two-magnitude
layer then gave magnitude 2 to exactly half of the neurons); a new call draws new streams of
the same experiment.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

import helpers
from helpers.theory import large_step_risk, spiked_rf_parameters

RESULTS = Path(__file__).resolve().parents[1] / "results" / "investigations"
CSV, MD = RESULTS / "gaussian_layer_check.csv", RESULTS / "gaussian_layer_check.md"
STUDENT = TEACHER = "tanh"
PSI2, LAM, BASE_SEED = 1.0, 0.1, 2310          # lam = 0.1 as in chapter 5
SEED = helpers.named_seed(BASE_SEED, "gaussian_layer_check")
TWO = ([1.0, 2.0], [0.5, 0.5])
LAYERS = {"gaussian": "gaussian", "rademacher": "rademacher", "two": TWO}


def run_seed(d, k):
    """The seed of run k at d (the same for every layer, point and model)."""
    return helpers.named_seed(SEED, f"d={d}", f"run={k}")


def simulate(layer, d, psi1, etas, seed, *, act=None, psi2=PSI2):
    """Risks for every eta_scale of ``etas`` from one run (student = teacher = ``act``, by
    default this check's tanh; ``gaussian_layer_grid.py`` runs its grid through here)."""
    act = act or STUDENT
    res = helpers.run(student=act, teacher=act, d=d, psi1=psi1, psi2=psi2, lam=LAM,
                      eta_scale=list(etas), second_layer=LAYERS[layer], seed=seed)
    return np.array([r["risk"] for r in res])


def simulate_spiked_model(layer, d, psi1, etas, seed, bulk="isotropic", *, psi2=PSI2,
                          lam=LAM):
    """Risks of ridge on the model the theory solves, drawn at finite d: neuron i is
    sigma(<sqrt(c_i) u_i + xi_i r v, x>) with u_i ~ N(0, I/d) independent, c_i = 1 +
    xi_i^2 (c_b - 1), v = gamma beta + sqrt(1 - gamma^2) zeta (chapter 5's r, c_b, gamma):
    ``helpers.run(..., model="population")``.  Its gap to the theory is the derivation's (and
    finite d's), not the spiked model's.

    ``bulk="step"``: a diagnostic.  The growth is drawn as the step draws it,
    w0_i + xi_i sqrt(c_b - 1) b_i with b_i = X^T (y o g_i) / sqrt(n E y^2 d), g_i ~ N(0, I_n)
    and (X, y) the step's data: covariance X^T D_y^2 X / (n E y^2 d), anisotropic (shaped
    by the step's data) and the same for every neuron, instead of c_i I/d.  The run's draws
    (``helpers.draw``: teacher, xi, the step's data, ridge set and test points) with U, g and
    zeta from its stream ``"bulk"``; the risk is the run's."""
    kw = dict(student=STUDENT, teacher=TEACHER, d=d, psi1=psi1, psi2=psi2, lam=lam,
              second_layer=LAYERS[layer], seed=seed)
    if bulk == "isotropic":
        res = helpers.run(model="population", eta_scale=list(etas), **kw)
        return np.array([r["risk"] for r in res])
    run = helpers.draw(**kw)
    n, N, beta = run.n, run.N, run.beta
    xi = np.abs(run.a) * math.sqrt(N)
    rng = run.rng("bulk")
    U = rng.standard_normal((d, N)) / math.sqrt(d)
    Bk = run.X.T @ (run.y[:, None] * rng.standard_normal((n, N)))
    Bk /= math.sqrt(n * d * np.mean(run.y**2))
    zeta = rng.standard_normal(d)
    zeta -= (zeta @ beta) * beta
    zeta /= np.linalg.norm(zeta)
    weights = {}
    for e in etas:
        r, cb, gamma = spiked_rf_parameters(run.student, run.teacher, psi1=psi1, eta_scale=e)
        v = gamma * beta + math.sqrt(1 - gamma**2) * zeta
        weights[(("eta_scale", e),)] = (U + math.sqrt(cb - 1) * xi[None, :] * Bk
                                        + np.outer(v, xi * r))
    model = dataclasses.replace(run, weights=weights, _affine={}, _cache={})
    return np.array([r["risk"] for r in model.records(("risk",))])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--points", default="2:2,2:6,4:2,4:6", help="psi1:eta_scale,...")
    ap.add_argument("--table-only", action="store_true",
                    help="rewrite the Markdown table from the CSV and stop")
    ap.add_argument("--two", action="store_true", help="the layer ([1, 2], [0.5, 0.5]) too")
    ap.add_argument("--model", choices=["", "isotropic", "step"], default="",
                    help="simulate the spiked model the theory solves (bulk isotropic, or "
                         "shaped by the step's data) instead of the network")
    ap.add_argument("--layers", default="gaussian,rademacher",
                    help="comma-separated, from gaussian, rademacher, two")
    args = ap.parse_args()
    if args.table_only:
        write_markdown(pd.read_csv(CSV))
        return
    points = [tuple(map(float, p.split(":"))) for p in args.points.split(",")]
    layers = args.layers.split(",") + (["two"] if args.two else [])
    rows = []
    for psi1 in sorted({p for p, _ in points}):
        etas = [e for p, e in points if p == psi1]
        for layer in layers:
            t0 = time.time()
            def run(*a):
                return (simulate_spiked_model(*a, bulk=args.model) if args.model
                        else simulate(*a))
            sims = np.array([run(layer, args.d, psi1, etas, run_seed(args.d, s))
                             for s in range(args.seeds)])
            t_sim = time.time() - t0
            for j, e in enumerate(etas):
                t1 = time.perf_counter()
                th = large_step_risk(STUDENT, TEACHER, psi1=psi1, psi2=PSI2, lam=LAM,
                                     eta_scale=e, second_layer=LAYERS[layer])
                name = layer + (f"-model-{args.model}" if args.model else "")
                rows.append(dict(d=args.d, layer=name, psi1=psi1, eta_scale=e,
                                 seeds=args.seeds, theory=th, risk=sims[:, j].mean(),
                                 risk_se=sims[:, j].std(ddof=1) / math.sqrt(args.seeds),
                                 sims=" ".join(f"{v:.6f}" for v in sims[:, j]),
                                 theory_ms=1e3 * (time.perf_counter() - t1),
                                 sim_s=t_sim / args.seeds))
                print(rows[-1], flush=True)
    new = pd.DataFrame(rows)
    if CSV.exists():
        old = pd.read_csv(CSV)
        key = ["d", "layer", "psi1", "eta_scale"]
        old = old[~old.set_index(key).index.isin(new.set_index(key).index)]
        new = pd.concat([old, new], ignore_index=True)
    new = new.sort_values(["layer", "psi1", "eta_scale", "d"]).reset_index(drop=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    new.to_csv(CSV, index=False)
    write_markdown(new)


def write_markdown(df):
    lines = [
        "# The large-step risk with a Gaussian second layer: theory against simulation",
        "",
        "`benchmarks/investigations/gaussian_layer_check.py` (tanh student and teacher, psi2 = 1, "
        f"lambda = {LAM:g}, noise 0; seeds: see the script's docstring).  "
        "theory: `large_step_risk(..., second_layer=layer)` (gaussian: the 12-atom "
        "half-normal rule; two: magnitudes (1, 2) with probabilities (1/2, 1/2)).  "
        "Simulation: mean +- standard error over the seeds; gap = simulation - theory.",
        "",
        "| layer | d | psi1 | eta_scale | seeds | theory | simulation | gap | gap / se |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in df.itertuples():
        lines.append(f"| {r.layer} | {r.d} | {r.psi1:g} | {r.eta_scale:g} | {r.seeds} | "
                     f"{r.theory:.4f} | {r.risk:.4f} ± {r.risk_se:.4f} | "
                     f"{r.risk - r.theory:+.4f} | {(r.risk - r.theory) / r.risk_se:+.1f} |")
    # paired differences, each layer - (+-1) on the same seeds, network and spiked model
    for suffix, what in (("", "network"), ("-model-isotropic", "spiked model, isotropic bulk")):
        rad = df[df.layer == "rademacher" + suffix].set_index(["d", "psi1", "eta_scale"])
        for other in ("gaussian", "two"):
            g = df[df.layer == other + suffix].set_index(["d", "psi1", "eta_scale"])
            both = g.index.intersection(rad.index)
            if not len(both):
                continue
            lines += ["", f"Paired differences, {other} - (+-1), on the same seeds ({what}):",
                      "", "| d | psi1 | eta_scale | theory | simulation | gap / se |",
                      "|---|---|---|---|---|---|"]
            for key in both:
                a = np.array(g.loc[key, "sims"].split(), dtype=float)
                b = np.array(rad.loc[key, "sims"].split(), dtype=float)
                diff = a - b
                se = diff.std(ddof=1) / math.sqrt(diff.size)
                th = g.loc[key, "theory"] - rad.loc[key, "theory"]
                lines.append(f"| {key[0]} | {key[1]:g} | {key[2]:g} | {th:+.4f} | "
                             f"{diff.mean():+.4f} ± {se:.4f} | {(diff.mean() - th) / se:+.1f} |")
    MD.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
