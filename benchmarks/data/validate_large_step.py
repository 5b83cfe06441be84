"""Validate ``helpers.theory.large_step_risk`` against simulation (second_layer="rademacher").

Grid of the issue: tanh/tanh and erf/erf, psi1 in {2, 4, 8}, psi2 in {0.5, 1, 2},
eta_scale in {1, 2, 3}, at d = --d (>= 1024 for the table of record), lam = --lam.

Finite-size allowance.  Phase 1 runs a few probe settings at d = --d-probe with --probe-seeds
seeds and bounds the relative gap there by (|mean - theory| + 3 se) / theory; assuming gaps
of order 1/sqrt(d) (fluctuations of the spike direction and of each neuron's overlap with it
are O(1/sqrt d)), the allowance at d is that bound times sqrt(d_probe / d), times the theory.
A point passes when |mean - theory| <= 3 se + allowance.

    python benchmarks/data/validate_large_step.py --d 1024 --seeds 2      # writes the table

Each (pair, psi1, psi2) at d is one ``helpers.run`` per seed, every eta_scale on the same
draws; seed k draws from ``helpers.named_seed(SEED, part, f"{student}/{teacher}",
f"psi1={psi1:g}", f"psi2={psi2:g}", f"d={d}", f"run={k}")`` with ``part`` "probe" or "grid"
(the probe's runs are independent of the grid's), ``SEED = helpers.named_seed(BASE_SEED,
"validate_large_step")``.

The grid is written twice: as Markdown (``large_step_validation.md``, to read) and as CSV
(``large_step_validation.csv``, which chapter 5 reads with pandas).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import helpers
from helpers.theory import large_step_risk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # shared tools
from provenance import record

OUT = Path(__file__).resolve().parents[1] / "results" / "large_step_validation.md"
DESCRIPTION = ("The exact large-step risk against simulation on the grid tanh/tanh and "
               "erf/erf x psi1 {2, 4, 8} x psi2 {0.5, 1, 2} x eta_scale {1, 2, 3} at "
               "d = 1024 (+-1 layer); read by chapter 5.")
PAIRS = [("tanh", "tanh"), ("erf", "erf")]
PSI1S, PSI2S, ETAS = (2.0, 4.0, 8.0), (0.5, 1.0, 2.0), (1.0, 2.0, 3.0)
PROBES = [("tanh", "tanh", 2.0, 0.5), ("tanh", "tanh", 2.0, 2.0), ("erf", "erf", 8.0, 1.0)]
BASE_SEED = 0
SEED = helpers.named_seed(BASE_SEED, "validate_large_step")


def simulate(part, student, teacher, psi1, psi2, d, seeds, lam, etas=ETAS):
    """risks[seed, eta] for ``seeds`` runs, each one run for every eta (common random
    numbers across eta)."""
    return np.array([[r["risk"] for r in helpers.run(
        student=student, teacher=teacher, d=d, psi1=psi1, psi2=psi2, lam=lam,
        eta_scale=list(etas), second_layer="rademacher",
        seed=helpers.named_seed(SEED, part, f"{student}/{teacher}", f"psi1={psi1:g}",
                                f"psi2={psi2:g}", f"d={d}", f"run={k}"))]
        for k in range(seeds)])


def summary(sims):
    """Mean over the seeds (rows) and its standard error (NaN with one seed)."""
    mean = sims.mean(0)
    se = sims.std(0, ddof=1) / math.sqrt(len(sims)) if len(sims) > 1 else np.full_like(mean,
                                                                                      np.nan)
    return mean, se


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=1024)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--d-probe", type=int, default=256)
    ap.add_argument("--probe-seeds", type=int, default=12)
    ap.add_argument("--lam", type=float, default=0.1)
    ap.add_argument("--pairs", default=",".join(f"{s}/{t}" for s, t in PAIRS))
    args = ap.parse_args()
    pairs = [tuple(p.split("/")) for p in args.pairs.split(",")]
    t_start = time.time()

    # phase 1: finite-size bound at d_probe
    bound = 0.0
    probe_rows = []
    for s, t, p1, p2 in PROBES:
        th = large_step_risk(s, t, psi1=p1, psi2=p2, lam=args.lam, eta_scale=np.array(ETAS),
                             second_layer="rademacher")
        sims = simulate("probe", s, t, p1, p2, args.d_probe, args.probe_seeds, args.lam)
        mean, se = summary(sims)
        rel = (np.abs(mean - th) + 3 * se) / th
        bound = max(bound, float(rel.max()))
        for e, a, b, c in zip(ETAS, th, mean, se, strict=True):
            probe_rows.append(f"| {s}/{t} | {p1:g} | {p2:g} | {e:g} | {a:.4f} | "
                              f"{b:.4f} ± {c:.4f} | {(b - a) / a:+.3f} |")
        print("probe", s, t, p1, p2, rel.round(3), f"{time.time() - t_start:.0f}s", flush=True)
    allow_rel = bound * math.sqrt(args.d_probe / args.d)

    # phase 2: the grid at d; the table is rewritten after every setting, so a partial run
    # leaves a valid (partial) table
    rows, records, n_pass, n_all = [], [], 0, 0
    for p1, p2, (s, t) in itertools.product(PSI1S, PSI2S, pairs):
        t0 = time.time()
        th = large_step_risk(s, t, psi1=p1, psi2=p2, lam=args.lam, eta_scale=np.array(ETAS),
                             second_layer="rademacher")
        t_theory = (time.time() - t0) / len(ETAS)
        sims = simulate("grid", s, t, p1, p2, args.d, args.seeds, args.lam)
        mean, se = summary(sims)
        for e, a, b, c in zip(ETAS, th, mean, se, strict=True):
            allow = allow_rel * a
            ok = abs(b - a) <= 3 * c + allow
            n_pass += bool(ok)
            n_all += 1
            rows.append(f"| {s}/{t} | {p1:g} | {p2:g} | {e:g} | {a:.4f} | {b:.4f} ± {c:.4f} | "
                        f"{(b - a) / a:+.3f} | {allow:.4f} | {'yes' if ok else 'NO'} |")
            records.append(dict(student=s, teacher=t, d=args.d, seeds=args.seeds, psi1=p1,
                                psi2=p2, eta_scale=e, theory=a, risk=b, risk_se=c,
                                allowance=allow, within=bool(ok)))
        print(rows[-3:], f"theory {t_theory * 1e3:.0f} ms/point",
              f"{time.time() - t_start:.0f}s", flush=True)
        write(args, pairs, probe_rows, bound, allow_rel, rows, n_pass, n_all, t_start)
        pd.DataFrame(records).to_csv(OUT.with_suffix(".csv"), index=False)
    record(OUT.with_suffix(".csv"), __file__, DESCRIPTION)


def write(args, pairs, probe_rows, bound, allow_rel, rows, n_pass, n_all, t_start):
    n_grid = len(PSI1S) * len(PSI2S) * len(ETAS) * len(pairs)
    lines = [
        "# Exact large-step risk against simulation (second_layer = \"rademacher\")",
        "",
        f"`python benchmarks/data/validate_large_step.py --d {args.d} --seeds {args.seeds} "
        f"--d-probe {args.d_probe} --probe-seeds {args.probe_seeds} --lam {args.lam:g}`  ",
        f"lambda = {args.lam:g}, noise = 0; {time.time() - t_start:.0f} s so far on a shared "
        "2-core machine (inflated by other jobs).",
        "",
        f"## Finite-size probe (d = {args.d_probe}, {args.probe_seeds} seeds)",
        "",
        "| pair | psi1 | psi2 | eta_scale | theory | simulation | rel. gap |",
        "|---|---|---|---|---|---|---|",
        *probe_rows,
        "",
        f"Bound on the relative gap at d = {args.d_probe}: (|gap| + 3 se)/theory <= "
        f"{bound:.3f}; allowance at d = {args.d}: {bound:.3f} x sqrt({args.d_probe}/{args.d})"
        f" = {allow_rel:.3f} relative (gaps assumed O(1/sqrt d)).",
        "",
        f"## Grid (d = {args.d}, {args.seeds} seeds; se from the seeds)",
        "",
        "| pair | psi1 | psi2 | eta_scale | theory | simulation | rel. gap | allowance | "
        "within 3 se + allowance |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"{n_pass} of {n_all} points within 3 se + allowance"
        f"{'' if n_all == n_grid else f' (partial run: the grid has {n_grid} points)'}.",
    ]
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
