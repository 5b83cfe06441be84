"""Finite-size gap of the Gaussian-layer large-step theory (chapter 5's Result 5.2) in the
paper's Figure 1 setting, against d.

erf student and teacher, psi2 = 2, lam = 1e-3, noise 0.1, the large step eta = sqrt(N)
(eta_scale = 1), the paper's Gaussian second layer, psi1 in {4, 7, 10} (where chapter 4's
large step crosses the kernel floor), d in {128, 256, 512, 1024} with 16, 48, 24 and 16 runs
(more at the sizes whose upper bound chapter 4 used: d = 256 quick, 512 paper scale).
Each run is one :func:`helpers.run` (the step eta_scale = 1, ridge and risk on 2048 test
points, as chapter 4's Figure 1 runs); run s at (psi1, d) draws from
``helpers.named_seed(SEED, f"psi1={psi1:g}", f"d={d}", f"run={s}")``,
``SEED = helpers.named_seed(BASE_SEED, "figure1_gaussian_gap")``.
Writes ``results/figure1_gaussian_gap.csv`` (one row per run) and ``.md`` (per psi1 and d:
the relative gap risk/theory - 1, its mean, standard error and upper 99.5% confidence bound);
chapter 5 reads the CSV (the gap of its Figure 1 section, recomputing the theory).

    python benchmarks/data/figure1_gaussian_gap.py            # the table of record (~15 min)
    python benchmarks/data/figure1_gaussian_gap.py --report   # the Markdown from the CSV
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

import helpers
from helpers.theory import large_step_risk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # shared tools
from provenance import record

RESULTS = Path(__file__).resolve().parents[1] / "results"
CSV = RESULTS / "figure1_gaussian_gap.csv"
MD = RESULTS / "figure1_gaussian_gap.md"
DESCRIPTION = ("The large step's risk per run at the paper's Figure 1 setting (erf/erf, "
               "psi2 = 2, Gaussian layer), psi1 = 4, 7, 10, d = 128-1024; read by chapter 5 "
               "(all but its theory column).")
PSI2, LAM, NOISE, N_TEST = 2.0, 1e-3, 0.1, 2048
BASE_SEED = 2024
SEED = helpers.named_seed(BASE_SEED, "figure1_gaussian_gap")
PSI1S = (4.0, 7.0, 10.0)
RUNS = {128: 16, 256: 48, 512: 24, 1024: 16}


def theory_at(psi1: float) -> float:
    return float(large_step_risk("erf", "erf", psi1=psi1, psi2=PSI2, lam=LAM, eta_scale=1.0,
                                 noise=NOISE, second_layer="gaussian"))


def one_run(psi1: float, d: int, s: int) -> float:
    """The large step's risk (eta_scale = 1) of run s at (psi1, d)."""
    (rec,) = helpers.run(student="erf", teacher="erf", d=d, psi1=psi1, psi2=PSI2,
                         eta_scale=1.0, lam=LAM, noise=NOISE, n_test=N_TEST,
                         seed=helpers.named_seed(SEED, f"psi1={psi1:g}", f"d={d}", f"run={s}"))
    return rec["risk"]


def run_all() -> None:
    """Runs every (psi1, d, seed) not yet in the CSV (a rerun continues, never redraws)."""
    rows = []
    if CSV.exists():
        with CSV.open() as fh:
            rows = [{"psi1": float(r["psi1"]), "d": int(r["d"]), "seed": int(r["seed"]),
                     "theory": float(r["theory"]), "risk": float(r["risk"])}
                    for r in csv.DictReader(fh)]
    done = {(r["psi1"], r["d"], r["seed"]) for r in rows}
    for psi1 in PSI1S:
        th = theory_at(psi1)
        for d, runs in RUNS.items():
            for s in range(runs):
                if (psi1, d, s) in done:
                    continue
                rows.append({"psi1": psi1, "d": d, "seed": s, "theory": th,
                             "risk": one_run(psi1, d, s)})
                print(rows[-1], flush=True)
    rows.sort(key=lambda r: (r["psi1"], r["d"], r["seed"]))
    with CSV.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    record(CSV, __file__, DESCRIPTION)


def report() -> str:
    with CSV.open() as fh:
        rows = list(csv.DictReader(fh))
    lines = ["# Gaussian-layer theory against the Figure 1 setting's large step",
             "", "erf/erf, psi2 = 2, lam = 1e-3, noise 0.1, eta = sqrt(N), Gaussian a "
             "(`benchmarks/data/figure1_gaussian_gap.py`). Relative gap = risk/theory - 1 per run.",
             "", "| psi1 | d | runs | theory | risk (mean +- se) | gap (mean +- se) | gap, "
             "upper 99.5% bound |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for psi1 in PSI1S:
        for d in RUNS:
            sel = [r for r in rows if float(r["psi1"]) == psi1 and int(r["d"]) == d]
            if not sel:
                continue
            risk = np.array([float(r["risk"]) for r in sel])
            th = float(sel[0]["theory"])
            gap = risk / th - 1
            se = gap.std(ddof=1) / math.sqrt(gap.size)
            up = gap.mean() + stats.t.ppf(0.995, gap.size - 1) * se
            lines.append(f"| {psi1:g} | {d} | {gap.size} | {th:.4f} | {risk.mean():.4f} +- "
                         f"{risk.std(ddof=1) / math.sqrt(risk.size):.4f} | {gap.mean():+.3f} "
                         f"+- {se:.3f} | {up:+.3f} |")
    text = "\n".join(lines) + "\n"
    MD.write_text(text)
    return text


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", action="store_true", help="only rewrite the Markdown")
    if not ap.parse_args().report:
        run_all()
    print(report())
