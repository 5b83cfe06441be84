"""Targeted seed sweep of chapter 4's check 4c (the large step against the Gaussian-layer
asymptotic risk), on the chapter's own Figure 1 runs at psi1 = 4, 7, 10: the same code as
the chapter's cells (figure1_run, helpers.sweep with seed SEED + 1, t_band with
K_CHECKS = 55), for BOOK_SEED from FIRST to LAST, at the quick scale. A whole-chapter sweep
(benchmarks/tools/seed_sweep.py) costs about three times more; this one runs only the runs the
check reads.

    python benchmarks/investigations/ch4_check4c_sweep.py FIRST LAST REPO_ROOT
"""
import math
import os
import sys
from pathlib import Path

import pandas as pd
from scipy import stats

import helpers
from helpers import same_data_risks, theory

S = helpers.scale()
PSI2, LAM, NOISE = 2.0, 1e-3, 0.1
K_CHECKS = 55
t_band = helpers.checks.Family(K_CHECKS, "chapter 4's (t) checks").t
ALPHAS = [0.0, 0.125, 0.25, 0.375, 0.5]
THM7 = "0.5, Theorem 7's penalty"
def theorem7_lam(n, N):
    return N / math.sqrt(n)
def figure1_run(seed, psi1):
    N1, lam7 = round(PSI2 * S.d), theorem7_lam(round(psi1 * S.d), round(PSI2 * S.d))
    etas = {"random features": 0.0, **{f"{a:g}": float(N1) ** a for a in ALPHAS}}
    rows = same_data_risks("erf", "erf", d=S.d, psi1=psi1, psi2=PSI2, etas=etas,
                           lam=[LAM, lam7], noise=NOISE, seed=seed)
    return ([r for r in rows if r["lam"] == LAM]
            + [{**r, "model": THM7} for r in rows if r["model"] == "0.5" and r["lam"] != LAM])
def erf_large_step_risk(psi1):
    return theory.large_step_risk("erf", "erf", psi1=psi1, psi2=PSI2, lam=LAM, eta_scale=1.0,
                                  noise=NOISE, second_layer="gaussian")
RESULTS = Path(sys.argv[3]) / "benchmarks" / "results"
f1_raw = pd.read_csv(RESULTS / "figure1_gaussian_gap.csv")
f1_raw["gap"] = f1_raw["risk"] / f1_raw["theory"] - 1
th = {p: erf_large_step_risk(p) for p in (4, 7, 10)}
for book_seed in range(int(sys.argv[1]), int(sys.argv[2]) + 1):
    os.environ["BOOK_SEED"] = str(book_seed)
    SEED = helpers.book_seed(5)
    _, raw_large = helpers.sweep(figure1_run, {"psi1": [4, 7, 10]}, runs=S.runs,
                                 seed=SEED + 1, by=("model", "lam"), return_raw=True)
    out = []
    ok = True
    for p1 in (4, 7, 10):
        sel = (raw_large["model"] == "0.5") & (raw_large["psi1"] == p1)
        gap_runs = raw_large[sel]["risk"] / th[p1] - 1
        ref = f1_raw[(f1_raw["psi1"] == p1) & (f1_raw["d"] == S.d)]["gap"]
        allow = ref.mean() + stats.t.ppf(0.995, ref.size - 1) * ref.sem()
        band = t_band(gap_runs.size - 1) * gap_runs.sem()
        good = -band <= gap_runs.mean() <= allow + band
        ok &= bool(good)
        out.append(f"psi1={p1}: gap {gap_runs.mean():+.3f} band {band:.3f} "
                   f"allow {allow:.3f} {'ok' if good else 'FAIL'}")
    print(f"BOOK_SEED={book_seed} {'ok' if ok else 'FAILED'} | " + " | ".join(out), flush=True)
