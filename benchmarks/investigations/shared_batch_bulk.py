"""The step's bulk is drawn from the same batch as its spike: its variance along the spike
direction v and along beta_perp, against notes/shared_batch.md (issue 47, item 1).

    python benchmarks/investigations/shared_batch_bulk.py [--d 1024] [--reps 4]

writes ``benchmarks/results/investigations/shared_batch_bulk.md``.

tanh student and teacher, no noise. For each psi1, ``reps`` runs of the book's one run
(``helpers.run``, no step; its first batch X of n = psi1 d rows, its N neurons W0), and the
measure ``bulk_ratios`` of each: the bulk columns b_i = X^T (y * h_i) / n with
h_i = sigma'(X w_i) - mu1, projected on v = X^T y / ||X^T y||, on beta_perp (the unit part of
beta_* orthogonal to v) and on a random unit vector orthogonal to both, each divided by the
mean squared projection on a direction (||b_i||^2 / d averaged over neurons). The theory:
rho_v + the spread of each neuron's mean of sigma' with ||w_i|| along v, rho_perp along
beta_perp, 1 elsewhere. Every draw comes from a stream of
``SEED = helpers.named_seed(0, "shared_batch_bulk")`` keyed by psi1, d and the run.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

import numpy as np

import helpers
from helpers.quadrature import gaussian_expectation
from helpers.theory.large_step import _shared_batch_ratios

OUT = (Path(__file__).resolve().parents[1] / "results" / "investigations"
       / "shared_batch_bulk.md")
SEED = helpers.named_seed(0, "shared_batch_bulk")
PSI1S = (1.0, 2.0, 4.0, 8.0)
N_NEURONS = 400


def theory(psi1: float) -> dict:
    """notes/shared_batch.md: rho_v, the norm-spread term along v, and rho_perp (the library's
    ``_shared_batch_ratios``, whose rho_v includes the spread)."""
    s = helpers.activations.as_student("tanh")
    t = helpers.activations.as_teacher("tanh")
    rho_perp, rho_v = _shared_batch_ratios(s, t, psi1=psi1, noise=0.0)
    e = {name: gaussian_expectation(fn) for name, fn in {
        "y2": lambda z: t(z) ** 2, "h2": lambda z: (s.derivative(z) - s.mu1) ** 2,
        "s3": lambda z: s.derivative(z) * (z * z - 1.0)}.items()}
    spread = e["s3"] ** 2 * (e["y2"] + psi1 * t.mu1**2) / (2 * e["y2"] * e["h2"])
    return {"v": rho_v - spread, "spread": spread, "perp": rho_perp}


def bulk_ratios(run, key) -> dict:
    """A measure of the run: the bulk b_i = X^T (y * h_i) / n of every neuron, h_i =
    sigma'(X w_i) - mu1, projected on v, on beta_perp and on a random unit vector orthogonal to
    both (from the run's own draws and the stream of ``key``), over its mean per direction."""
    X, y, n, d = run.X, run.y, run.n, run.d
    B = X.T @ (y[:, None] * (run.student.derivative(X @ run.W0) - run.student.mu1)) / n
    v = X.T @ y
    v /= np.linalg.norm(v)
    perp = run.beta - (run.beta @ v) * v
    perp /= np.linalg.norm(perp)
    u = helpers.stream(SEED, *key, "random direction").standard_normal(d)
    u -= (u @ v) * v + (u @ perp) * perp
    u /= np.linalg.norm(u)
    iso = float((B**2).sum(0).mean() / d)
    return {k: float(((x @ B) ** 2).mean() / iso) for k, x in (("v", v), ("perp", perp),
                                                              ("random", u))}


def measure(psi1: float, d: int, rep: int) -> dict:
    """One run of the book's one run (no step taken: eta = 0), measured by bulk_ratios."""
    key = (f"psi1={psi1:g}", f"d={d}", f"rep={rep}")
    ratios = helpers.measures.per_run(functools.partial(bulk_ratios, key=key))
    rows = helpers.run(measures=[ratios], student="tanh", teacher="tanh", d=d, psi1=psi1,
                       psi2=N_NEURONS / d, seed=helpers.named_seed(SEED, *key),
                       second_layer="rademacher")
    return {k: rows[-1][k] for k in ("v", "perp", "random")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--d", type=int, default=1024)
    parser.add_argument("--reps", type=int, default=4)
    args = parser.parse_args()
    lines = [
        "# The step's bulk along v and beta_perp (issue 47)", "",
        f"Written by `python benchmarks/investigations/shared_batch_bulk.py --d {args.d} "
        f"--reps {args.reps}`; tanh student and teacher, no noise, N = {N_NEURONS} neurons "
        "per batch; variance of the bulk's projection relative to its mean over directions, "
        "mean ± se over batches; theory from notes/shared_batch.md.", "",
        "| psi1 | along v | theory: rho_v + norm spread | along beta_perp | theory: rho_perp "
        "| random direction |", "|---|---|---|---|---|---|"]
    for psi1 in PSI1S:
        rows = [measure(psi1, args.d, k) for k in range(args.reps)]
        th = theory(psi1)
        m = {k: (np.mean([r[k] for r in rows]), np.std([r[k] for r in rows], ddof=1)
                 / np.sqrt(len(rows))) for k in ("v", "perp", "random")}
        lines.append(f"| {psi1:g} | {m['v'][0]:.2f} ± {m['v'][1]:.2f} | "
                     f"{th['v']:.2f} + {th['spread']:.2f} = {th['v'] + th['spread']:.2f} | "
                     f"{m['perp'][0]:.3f} ± {m['perp'][1]:.3f} | {th['perp']:.3f} | "
                     f"{m['random'][0]:.2f} ± {m['random'][1]:.2f} |")
        print(lines[-1], flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
