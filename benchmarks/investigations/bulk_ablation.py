"""Which part of the step's bulk moves the network's risk away from the spiked model: paired
ablations in the network itself (issue 47, item 1).

The step is G0 = spike + bulk: with the residual r = y - f0(X) (the initial output included)
and sigma' = mu1 + h, the spike is mu1 X^T r a^T / (n sqrt N) (rank one, direction
v = X^T r / ||X^T r||) and the bulk column i is X^T (r * h_i) a_i / (n sqrt N).  The spiked
model of chapter 5 treats the bulk as isotropic.  notes/shared_batch.md finds it is not: in the
plane of v and beta_perp (the unit part of beta_* orthogonal to v) its covariance over neurons
is about (E h^2 / n) (1/n) X^T diag(r^2) X, depleted along beta_perp, enhanced along v and with
an off-diagonal term.  Each variant below changes only the bulk's two coordinates in that plane,
in the same run (same X, W0, a, ridge set and test points), and reports the risk:

* ``network``: nothing changed;
* ``iso-plane``: both coordinates replaced by independent N(0, ||b_i||^2 / d) (the spiked
  model's assumption in the plane; the rest of the bulk is kept);
* ``iso-perp``: only the beta_perp coordinate replaced;
* ``iso-v``: only the v coordinate replaced;
* ``uncorrelated``: the beta_perp coordinate replaced by N(0, its own variance over neurons, per
  |a_i|^2), independent of the v coordinate (the depletion kept, the correlation removed);
* ``iso-all``: every bulk column replaced by a Gaussian column of the same norm (isotropic in
  all d directions, the spiked model's assumption);
* ``other-batch``: the bulk computed on an independent batch (X', y') of the same size (the
  structure a batch gives the bulk, without its correlation with v; along beta_* it keeps the
  population's enhancement E[z^2 y^2] / E y^2), the spike kept;
* ``spectrum``: every bulk column replaced by X'^T (y' * g_i) / n, rescaled to the column's
  norm, with X' an independent batch, y' = f*(zeta) for zeta independent of X' and g_i
  i.i.d. N(0, 1): Gaussian columns whose covariance (1/n^2) X'^T diag(y'^2) X' has the
  spectrum of the batch's but no preferred direction (the spectrum alone);
* ``permuted``: ``iso-plane``, and the bulk's part outside the plane (over a_i) handed from
  neuron to neuron by a random permutation: the same columns, no longer tied to the neuron's
  own w0_i (what the bulk outside the plane owes to its neuron);
* ``self-iso``: ``iso-plane``, and each column's coordinate along its own neuron's
  w0_i / ||w0_i|| (outside the plane) replaced by N(0, ||b_i||^2 / d) (the bulk's variance
  along its own neuron, E[g^2 h^2] / E h^2 times the isotropic one, removed);
* ``untie``: the network minus the derived tie outside the plane, delta_i w0_i with
  delta_i = eta_scale xi_i E[sigma^(3)] mu1* <w0_i, beta_*> (notes/shared_batch.md, item 4):
  the step's rescaling of each neuron by its own overlap with the teacher.

The replacements draw from the run's stream ``"bulk ablation"`` (the same numbers for every
step size).  Run k of a setting is ``helpers.named_seed(SEED, cell, f"psi1={psi1:g}",
f"d={d}", f"run={k}")``, ``SEED = helpers.named_seed(0, "bulk_ablation")``.

    python benchmarks/investigations/bulk_ablation.py [--d 512] [--runs 12] [--psi1 1 2 4 8]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

import helpers
from helpers import theory
from helpers.activations import gaussian_expectation
from helpers.measures import per_run, risk
from helpers.steps import first_step_gradient, student_output

OUT = Path(__file__).resolve().parents[1] / "results" / "investigations"
SEED = helpers.named_seed(0, "bulk_ablation")
CELL = dict(student="tanh", teacher="tanh", psi2=1.0, lam=0.1, second_layer="rademacher")
ETAS = (3.0, 6.0)
VARIANTS = ("network", "iso-plane", "iso-perp", "iso-v", "uncorrelated", "iso-all",
            "other-batch", "spectrum", "permuted", "self-iso", "untie")


def split(run, X, y, G):
    """The gradient G on the batch (X, y) as spike + bulk: the direction X^T (y - f0) of the
    spike, mu1 X^T (y - f0) a^T / (n sqrt N), and the bulk G - spike."""
    spike_dir = X.T @ (y - student_output(X, run.W0, run.a, run.student))
    spike = np.outer(run.student.mu1 * spike_dir / X.shape[0], run.a / math.sqrt(run.N))
    return spike_dir, G - spike


def plane(run):
    """The spike direction v, beta_perp and the bulk's coordinates along them (per neuron)."""
    spike_dir, bulk = split(run, run.X, run.y, run.G0)
    v = spike_dir / np.linalg.norm(spike_dir)
    perp = run.beta - (run.beta @ v) * v
    perp /= np.linalg.norm(perp)
    return v, perp, bulk, v @ bulk, perp @ bulk


def ablate(run):
    """The risk of every variant at every step size of the run (rows with ``variant``)."""
    v, perp, bulk, bv, bp = plane(run)
    d, N = run.d, run.N
    iso_sd = np.linalg.norm(bulk, axis=0) / math.sqrt(d)      # ||b_i|| / sqrt(d)
    rng = run.rng("bulk ablation")
    gv, gp, gu = rng.standard_normal((3, N))
    scale = np.abs(run.a) * math.sqrt(N)
    own_sd = np.sqrt(np.mean((bp / np.where(scale > 0, scale, 1)) ** 2)) * scale
    new = {"network": (bv, bp), "iso-plane": (iso_sd * gv, iso_sd * gp),
           "iso-perp": (bv, iso_sd * gp), "iso-v": (iso_sd * gv, bp),
           "uncorrelated": (bv, own_sd * gu)}
    G = rng.standard_normal(bulk.shape)
    iso_all = G * (np.linalg.norm(bulk, axis=0) / np.linalg.norm(G, axis=0))
    Xo, yo = helpers.data.gaussian_inputs_and_labels(run.n, d, run.labels_of, noise=run.noise,
                                                     rng=run.rng("bulk ablation batch"))
    other = split(run, Xo, yo, first_step_gradient(Xo, yo, run.W0, run.a, run.student))[1]
    rng_s = run.rng("bulk ablation spectrum")
    Xs = rng_s.standard_normal((run.n, d))
    ys = run.teacher(rng_s.standard_normal(run.n))
    S = Xs.T @ (ys[:, None] * rng_s.standard_normal((run.n, N))) / run.n
    spectrum = S * (np.linalg.norm(bulk, axis=0) / np.linalg.norm(S, axis=0))
    rest = bulk - np.outer(v, bv) - np.outer(perp, bp)
    sign = np.where(run.a >= 0, 1.0, -1.0)
    pi = rng_s.permutation(N)
    permuted = ((rest * sign)[:, pi] * sign + np.outer(v, iso_sd * gv)
                + np.outer(perp, iso_sd * gp))
    what = run.W0 / np.linalg.norm(run.W0, axis=0)
    what = what - np.outer(v, v @ what) - np.outer(perp, perp @ what)
    what /= np.linalg.norm(what, axis=0)
    own = (what * rest).sum(0)
    self_iso = (rest + what * (iso_sd * rng_s.standard_normal(N) - own)
                + np.outer(v, iso_sd * gv) + np.outer(perp, iso_sd * gp))
    whole = {"iso-all": iso_all, "other-batch": other, "spectrum": spectrum,
             "permuted": permuted, "self-iso": self_iso}
    e3 = gaussian_expectation(lambda z: run.student.derivative(z) * (z * z - 1.0),
                              run.student.kinks)
    tie = run.W0 * ((run.a * math.sqrt(N)) * e3 * run.teacher.mu1 * (run.beta @ run.W0))
    tie_out = tie - np.outer(v, v @ tie) - np.outer(perp, perp @ tie)   # per unit eta_scale
    rows = []
    for labels, W in list(run.weights.items()):
        eta_root_n = run._affine[labels]                     # eta sqrt(N): W = W0 + that G0
        eta_scale = eta_root_n / N
        for name in VARIANTS:
            if name == "untie":
                Wv = W - eta_scale * tie_out
            elif name in whole:
                Wv = W + eta_root_n * (whole[name] - bulk)
            else:
                nv, npp = new[name]
                Wv = W + eta_root_n * (np.outer(v, nv - bv) + np.outer(perp, npp - bp))
            key = (*labels, ("variant", name))
            run.weights[key] = Wv
            rows += [{**dict(labels), "variant": name, **row} for row in risk(run, key)]
            del run.weights[key]
    return rows


def one(psi1, d, k):
    seed = helpers.named_seed(SEED, "tanh-1", f"psi1={psi1:g}", f"d={d}", f"run={k}")
    return helpers.run(measures=[per_run(ablate)], d=d, psi1=psi1, eta_scale=list(ETAS),
                       seed=seed, **CELL)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--psi1", type=float, nargs="+", default=[1.0, 2.0, 4.0, 8.0])
    ap.add_argument("--table-only", action="store_true")
    args = ap.parse_args()
    csv = OUT / f"bulk_ablation_d{args.d}.csv"
    old = pd.read_csv(csv) if csv.exists() else pd.DataFrame()
    if args.table_only:
        return report(old, args.d)
    for psi1 in args.psi1:
        for k in range(args.runs):
            if len(old) and ((old.psi1 == psi1) & (old.run == k)).any():
                continue
            t0 = time.time()
            rows = pd.DataFrame(one(psi1, args.d, k)).assign(psi1=psi1, d=args.d, run=k)
            old = pd.concat([old, rows], ignore_index=True)
            old.to_csv(csv, index=False)
            print(psi1, k, f"{time.time() - t0:.1f} s", flush=True)
    report(old, args.d)


def report(df, d):
    """Each effect as a paired difference of two variants, beside what the theory predicts."""
    df = df[df.variant.notna()]
    piv = df.pivot_table(index=["psi1", "eta_scale", "run"], columns="variant", values="risk")
    every = {   # name: (with, without): the effect is risk(with) - risk(without)
        "in-plane anisotropy, uncorrelated": ("uncorrelated", "iso-plane"),
        "v-beta_perp correlation": ("network", "uncorrelated"),
        "structure outside the plane": ("iso-plane", "iso-all"),
        "the batch's spectrum alone": ("spectrum", "iso-all"),
        "outside the plane, tie to the neuron": ("iso-plane", "permuted"),
        "its variance along the neuron's own w0": ("iso-plane", "self-iso"),
        "the derived tie": ("network", "untie"),
        "network against a bulk from another batch": ("network", "other-batch"),
    }
    effects = {k: v for k, v in every.items() if set(v) <= set(piv.columns)}
    lines = [f"# Bulk ablations in the network, d = {d} (issue 47)", "",
             "Written by `python benchmarks/investigations/bulk_ablation.py --d "
             f"{d}`.  tanh / tanh, psi2 = 1, lambda = 0.1, +-1 layer.  Each effect is the "
             "paired difference (mean ± se over runs) of two variants of the same runs (the "
             "script's docstring says what each variant changes).  network theory: "
             "`large_step_risk(..., d=d)`; shared batch: `model=\"shared-batch\"`, whose "
             "difference to the network theory is its prediction of the first effect.", "",
             "| psi1 | eta_scale | runs | network | network theory | shared batch | "
             "predicted | " + " | ".join(effects) + " |", "|" + "---|" * (7 + len(effects))]
    for (psi1, eta), sub in piv.groupby(level=[0, 1]):
        kw = dict(psi1=psi1, psi2=1.0, lam=0.1, eta_scale=eta, second_layer="rademacher", d=d)
        th = theory.large_step_risk("tanh", "tanh", **kw)
        sb = theory.large_step_risk("tanh", "tanh", model="shared-batch", **kw)
        net = sub["network"]
        cells = [f"{(sub[a] - sub[b]).mean():+.4f} ± {(sub[a] - sub[b]).sem():.4f}"
                 for a, b in effects.values()]
        lines.append(f"| {psi1:g} | {eta:g} | {len(sub)} | {net.mean():.4f} ± "
                     f"{net.sem():.4f} | {th:.4f} | {sb:.4f} | {sb - th:+.4f} | "
                     + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    (OUT / f"bulk_ablation_d{d}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
