"""Finite-size gap of the exact large-step theory against d, paired over seeds.

tanh student and teacher, psi1 = 4, psi2 = 0.5, lam = 0.1, second_layer = "rademacher"
(the setting of the validation grid with the largest gaps at d = 1024), at three step sizes
eta_scale in {1, 2, 3} plus eta_scale = 0 (random features, a control), for
d in {128, 256, 512, 1024, 2048, 4096}, with 16 seeds for d <= 512 (where the spread is
largest and runs are cheap) and 8 above.  One run (``helpers.run``) draws the teacher, the
data, W0 and the signs once and serves every eta_scale (the same gradient G0: paired
comparisons); run k at d draws from ``helpers.named_seed(SEED, f"d={d}", f"run={k}")``,
``SEED = helpers.named_seed(BASE_SEED, "large_step_d_dependence")``.

Each (d, seed) appends its risks to ``results/large_step_d_dependence.csv`` as soon as it is
done, and a rerun skips the pairs already there, so an interrupted run can be continued;
``--report`` (also run at the end) rewrites ``results/large_step_d_dependence.md`` from the
CSV.  The chapter (chapters/05_exact_large_step.md) reads the CSV.

    nice -n 10 python benchmarks/data/large_step_d_dependence.py     # the table of record
    python benchmarks/data/large_step_d_dependence.py --report
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np

import helpers
from helpers.theory import large_step_risk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # shared tools
from provenance import record

RESULTS = Path(__file__).resolve().parents[1] / "results"
CSV = RESULTS / "large_step_d_dependence.csv"
MD = RESULTS / "large_step_d_dependence.md"
DESCRIPTION = ("Risk per (d, seed, eta_scale) at tanh/tanh, psi1 = 4, psi2 = 0.5, "
               "lambda = 0.1, +-1 layer, d = 128-4096, paired over the step sizes; read by "
               "chapter 5.")
STUDENT = TEACHER = "tanh"
LAM, PSI1, PSI2, ETAS = 0.1, 4.0, 0.5, (0.0, 1.0, 2.0, 3.0)
SEEDS = {128: 16, 256: 16, 512: 16, 1024: 8, 2048: 8, 4096: 8}  # d -> seeds
FIELDS = ["d", "seed", "eta_scale", "theory", "risk", "seconds"]
BASE_SEED = 0
SEED = helpers.named_seed(BASE_SEED, "large_step_d_dependence")


def run_seed(d, k):
    """The seed of run k at d."""
    return helpers.named_seed(SEED, f"d={d}", f"run={k}")


def risks_over_eta_scales(d, k, etas=ETAS):
    """Risks of run k at d for every eta_scale of ``etas``: one ``helpers.run`` (one gradient
    serves every step size)."""
    res = helpers.run(student=STUDENT, teacher=TEACHER, d=d, psi1=PSI1, psi2=PSI2, lam=LAM,
                      eta_scale=list(etas), second_layer="rademacher", seed=run_seed(d, k))
    return np.array([r["risk"] for r in res])


def check_against_one_step_runs(d=256, k=0):
    """The shared-gradient shortcut (the products X W0 and X G0 serve every step size) gives
    the risk of a run with that one step size (its own products) to rounding."""
    fast = risks_over_eta_scales(d, k)
    slow = [risks_over_eta_scales(d, k, etas=(e,))[0] for e in ETAS]
    assert np.allclose(fast, slow, rtol=1e-9, atol=0), (fast, slow)


def load(path=CSV):
    """The CSV as a list of dicts with numeric values (empty if absent)."""
    if not path.exists():
        return []
    with path.open() as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def summarise(rows):
    """Per (d, eta_scale): theory, mean, se over seeds, relative gap and its se, runs."""
    out = []
    for d in sorted({r["d"] for r in rows}):
        for e in sorted({r["eta_scale"] for r in rows}):
            sub = [r for r in rows if r["d"] == d and r["eta_scale"] == e]
            if not sub:
                continue
            risk = np.array([r["risk"] for r in sub])
            th = sub[0]["theory"]
            se = risk.std(ddof=1) / math.sqrt(risk.size) if risk.size > 1 else math.nan
            out.append(dict(d=int(d), eta_scale=e, theory=th, mean=risk.mean(), se=se,
                            gap=(risk.mean() - th) / th, gap_se=se / th, runs=risk.size))
    return out


def report(rows):
    summ = summarise(rows)
    seconds = sum(r["seconds"] for r in rows) / len(ETAS)
    lines = [
        "# Finite-size gap of the exact large-step risk against d",
        "",
        "`nice -n 10 python benchmarks/data/large_step_d_dependence.py` — tanh student and "
        "teacher, "
        f"psi1 = {PSI1:g}, psi2 = {PSI2:g}, lambda = {LAM:g}, second_layer = \"rademacher\"; "
        "the same seeds (teacher, data, W0, signs and gradient) for every eta_scale at a given "
        "d. Raw risks per seed: `large_step_d_dependence.csv`. "
        f"{seconds:.0f} s of wall time in all on a shared 2-core machine.",
        "",
        "| d | eta_scale | theory | simulation (mean ± se) | relative gap ± se | seeds |",
        "|---|---|---|---|---|---|",
    ]
    for s in sorted(summ, key=lambda s: (s["eta_scale"], s["d"])):
        lines.append(f"| {s['d']} | {s['eta_scale']:g} | {s['theory']:.4f} | "
                     f"{s['mean']:.4f} ± {s['se']:.4f} | {s['gap']:+.4f} ± {s['gap_se']:.4f} | "
                     f"{s['runs']} |")
    lines += ["", "Change of the relative gap when d doubles (difference ± combined se, in "
              "units of that se):", "",
              "| eta_scale | d -> 2d | change | z |", "|---|---|---|---|"]
    for e in sorted({s["eta_scale"] for s in summ}):
        sub = sorted((s for s in summ if s["eta_scale"] == e), key=lambda s: s["d"])
        for lo, hi in zip(sub, sub[1:], strict=False):
            diff = hi["gap"] - lo["gap"]
            se = math.hypot(hi["gap_se"], lo["gap_se"])
            lines.append(f"| {e:g} | {lo['d']} -> {hi['d']} | {diff:+.4f} ± {se:.4f} | "
                         f"{diff / se:+.1f} |")
    lines += ["", "Fits of the gap averaged over eta_scale >= 1 (per seed, then mean ± se over "
              "the seeds), weighted by its se: gap = b0 + b1 (1024/d)^p, with b0 the gap left "
              "as d -> infinity, for two rates (the data do not choose between them):", "",
              "| p | b0 | b1 | chi^2 (dof) |", "|---|---|---|---|"]
    for power in (0.5, 1.0):
        fit = gap_fit(rows, power)
        lines.append(f"| {power:g} | {fit['b0']:+.4f} ± {fit['b0_se']:.4f} | "
                     f"{fit['b1']:+.4f} ± {fit['b1_se']:.4f} | {fit['chi2']:.1f} "
                     f"({fit['dof']}) |")
    MD.write_text("\n".join(lines) + "\n")


def gap_fit(rows, power=0.5):
    """Weighted least squares of the per-d mean relative gap (eta_scale >= 1, averaged per
    seed) on (1, (1024/d)^power): b0, b1, their standard errors, chi^2 and its dof."""
    ds = sorted({r["d"] for r in rows})
    gap, se = [], []
    for d in ds:
        seeds = sorted({r["seed"] for r in rows if r["d"] == d})
        per_seed = np.array([np.mean([r["risk"] / r["theory"] - 1 for r in rows
                                      if r["d"] == d and r["seed"] == s
                                      and r["eta_scale"] >= 1]) for s in seeds])
        gap.append(per_seed.mean())
        se.append(per_seed.std(ddof=1) / math.sqrt(per_seed.size))
    gap, se = np.array(gap), np.array(se)
    A = np.column_stack([np.ones(len(ds)), (1024 / np.array(ds)) ** power]) / se[:, None]
    coef, *_ = np.linalg.lstsq(A, gap / se, rcond=None)
    cov = np.linalg.inv(A.T @ A)
    chi2 = float(((A @ coef - gap / se) ** 2).sum())
    return dict(b0=coef[0], b0_se=math.sqrt(cov[0, 0]), b1=coef[1], b1_se=math.sqrt(cov[1, 1]),
                chi2=chi2, dof=len(ds) - 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, nargs="+", default=list(SEEDS))
    ap.add_argument("--seeds", type=int, default=None, help="seeds per d (default SEEDS[d])")
    ap.add_argument("--report", action="store_true", help="only rewrite the Markdown")
    args = ap.parse_args()
    if not args.report:
        check_against_one_step_runs()
        theory = large_step_risk(STUDENT, TEACHER, psi1=PSI1, psi2=PSI2, lam=LAM,
                                 eta_scale=list(ETAS), second_layer="rademacher")
        done = {(r["d"], r["seed"]) for r in load()}
        new = not CSV.exists()
        with CSV.open("a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            if new:
                w.writeheader()
            for d in args.d:
                for seed in range(args.seeds or SEEDS[d]):
                    if (d, seed) in done:
                        continue
                    t0 = time.time()
                    risk = risks_over_eta_scales(d, seed)
                    dt = time.time() - t0
                    for e, th, r in zip(ETAS, theory, risk, strict=True):
                        w.writerow(dict(d=d, seed=seed, eta_scale=e, theory=f"{th:.8f}",
                                        risk=f"{r:.8f}", seconds=f"{dt:.1f}"))
                    f.flush()
                    print(d, seed, np.round(risk, 4), f"{dt:.0f}s", flush=True)
        record(CSV, __file__, DESCRIPTION)
    report(load())


if __name__ == "__main__":
    main()
