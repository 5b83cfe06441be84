"""Chapter 3's small-step gain at psi2 = 0.5 and 4 against d: is its distance from delta a
finite-size effect, and of what rate?  (Issue 34, item 8.)

Figure 3(b)'s setting (tanh student, ReLU teacher, psi1 = 5, lambda = 1e-2, noise 0.1, the
paper's Gaussian second layer), eta in {2, 4} and eta = 0 (random features) on the same data
and W0 (one ``helpers.run``): the paired gain R0 - R1 per seed, at d = 128 to 2048 (the issue
asked for 512-2048 with at least 24 seeds; the smaller sizes, cheap, show the rate).  Run k
at (psi2, d) draws from ``helpers.named_seed(SEED, f"psi2={psi2:g}", f"d={d}", f"run={k}")``,
``SEED = helpers.named_seed(BASE_SEED, "small_step_gain_d")``.  The report sets the mean gain
beside the paper's delta (``helpers.theory.small_step_gain``, the limit) and beside the
finite-width theory of chapter 5 evaluated at eta_scale = eta / sqrt(N) (with and without the
network's initial output), all computed when the report is written.

    python benchmarks/data/small_step_gain_d.py             # adds missing seeds, then the report
    python benchmarks/data/small_step_gain_d.py --table-only

Rows go to ``benchmarks/results/small_step_gain_d.csv``, the report to
``small_step_gain_d.md``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import pandas as pd

import helpers
from helpers import theory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # shared tools
from _report import cli, publish, written_by
from provenance import record

RESULTS = Path(__file__).resolve().parents[1] / "results"
CSV, MD = RESULTS / "small_step_gain_d.csv", RESULTS / "small_step_gain_d.md"
DESCRIPTION = ("Chapter 3's small-step gain R0 - R1 per seed at Figure 3(b)'s setting "
               "(psi2 = 0.5 and 4, eta = 2 and 4, d = 128-2048), with the residual-y "
               "ablation; read by chapters 3 and 5.")
KW = dict(psi1=5.0, lam=1e-2, noise=0.1)
PSI2 = (0.5, 4.0)
ETAS = (2.0, 4.0)
BASE_SEED = 3408
SEED = helpers.named_seed(BASE_SEED, "small_step_gain_d")
PLAN = [(0.5, 512, 24), (0.5, 1024, 24), (0.5, 2048, 24), (4.0, 512, 24), (4.0, 1024, 24),
        (0.5, 128, 64), (0.5, 256, 64), (0.5, 512, 64), (0.5, 1024, 64), (0.5, 2048, 48),
        (4.0, 128, 64), (4.0, 256, 48), (4.0, 2048, 24)]   # (psi2, d, seeds), in this order
# The ablation: the same runs (same seeds) with the step's residual y instead of y - f0
# (helpers.run(..., initial_output=False)), where the excess is measured best.
ABLATION = [(0.5, 128, 64), (0.5, 256, 64), (0.5, 512, 64), (0.5, 1024, 64)]


def one_run(psi2, d, k, model="network"):
    """The paired gains R0 - R1 of run k at (psi2, d), stepped with y - f0 (the network) or
    with the residual y (the ablation), on the same draws."""
    res = helpers.run(student="tanh", teacher="relu", d=d, psi2=psi2, eta=[0.0, *ETAS],
                      initial_output=model == "network",
                      seed=helpers.named_seed(SEED, f"psi2={psi2:g}", f"d={d}", f"run={k}"),
                      **KW)
    r0 = res[0]["risk"]
    return [dict(psi2=psi2, d=d, seed=k, eta=r["eta"], gain=r0 - r["risk"], model=model)
            for r in res[1:]]


def run():
    old = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame(
        columns=["psi2", "d", "seed", "eta", "gain", "sim_s", "model"])
    if "model" not in old:
        old["model"] = "network"                   # rows written before the ablation
    old["model"] = old["model"].fillna("network")
    for model, plan in (("network", PLAN), ("residual-y", ABLATION)):
        for psi2, d, seeds in plan:
            have = set(old[(old.psi2 == psi2) & (old.d == d) & (old.model == model)].seed)
            for k in range(seeds):
                if k in have:
                    continue
                t0 = time.time()
                rows = pd.DataFrame(one_run(psi2, d, k, model)).assign(sim_s=time.time() - t0)
                old = pd.concat([old, rows], ignore_index=True)
                old.to_csv(CSV, index=False)
                print(model, psi2, d, k, f"{time.time() - t0:.1f} s", flush=True)
    record(CSV, __file__, DESCRIPTION)


def theory_columns(psi2, d, eta):
    delta = theory.small_step_gain("tanh", "relu", psi2=psi2, eta=eta, **KW)
    r0 = theory.large_step_risk("tanh", "relu", psi2=psi2, eta_scale=0.0,
                                second_layer="gaussian", **KW)
    kw = dict(psi2=psi2, eta_scale=eta / math.sqrt(round(psi2 * d)), second_layer="gaussian",
              d=d, **KW)
    fw = r0 - theory.large_step_risk("tanh", "relu", **kw)
    fw_model = r0 - theory.large_step_risk("tanh", "relu", model="residual-y", **kw)
    return delta, fw, fw_model


def write_markdown(df):
    if "model" not in df:
        df = df.assign(model="network")
    df = df.assign(model=df["model"].fillna("network"))
    abl = df[df.model == "residual-y"]
    df = df[df.model == "network"]
    g = df.groupby(["psi2", "eta", "d"]).gain
    s = pd.DataFrame({"mean": g.mean(), "se": g.sem(), "seeds": g.count()}).reset_index()
    lines = [
        "# Chapter 3's small-step gain against d (issue 34, item 8)",
        "",
        f"{written_by(__file__)}  Figure 3(b)'s setting (tanh student, ReLU teacher, psi1 = 5, "
        "lambda = 1e-2, noise 0.1, Gaussian second layer); gain = R0 - R1 paired per seed "
        "(same data and W0).  Columns: the simulated gain relative to delta (mean ± se), and "
        "the finite-width theory's gain relative to delta: chapter 5's "
        "`large_step_risk(..., d=d)` at eta_scale = eta / sqrt(N), with the network's "
        "initial output (the network) and without it (the population model).",
        "",
        "| psi2 | eta | d | seeds | delta | simulated gain / delta | "
        "finite-width / delta | without f0 / delta |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, r in s.iterrows():
        delta, fw, fwm = theory_columns(r.psi2, int(r.d), r.eta)
        lines.append(f"| {r.psi2:g} | {r.eta:g} | {int(r.d)} | {int(r.seeds)} | {delta:.5f} | "
                     f"{r['mean'] / delta:.3f} ± {r['se'] / delta:.3f} | {fw / delta:.3f} | "
                     f"{fwm / delta:.3f} |")
    if len(abl):
        lines += ["", "The ablation: the same seeds stepped with the residual y instead of y - f0 "
                  "(`helpers.run(..., initial_output=False)`); gain / delta (mean ± se), "
                  "the network's beside it, and the paired difference (network - residual y) / "
                  "delta.", "",
                  "| psi2 | eta | d | seeds | residual y | network | network - residual y |",
                  "|---|---|---|---|---|---|---|"]
        both = df.merge(abl, on=["psi2", "d", "seed", "eta"], suffixes=("", "_y"))
        for (psi2, eta, d), x in both.groupby(["psi2", "eta", "d"]):
            delta = theory.small_step_gain("tanh", "relu", psi2=psi2, eta=eta, **KW)
            diff = x.gain - x.gain_y
            lines.append(f"| {psi2:g} | {eta:g} | {d} | {len(x)} | "
                         f"{x.gain_y.mean() / delta:.3f} ± {x.gain_y.sem() / delta:.3f} | "
                         f"{x.gain.mean() / delta:.3f} ± {x.gain.sem() / delta:.3f} | "
                         f"{diff.mean() / delta:+.3f} ± {diff.sem() / delta:.3f} |")
    sim = df.groupby(["psi2", "d"]).sim_s.median()
    lines += ["", "Median time per run (three step sizes, shared 2-core machine): "
              + ", ".join(f"psi2 = {p:g}, d = {d}: {v:.1f} s" for (p, d), v in sim.items())
              + "."]
    publish(MD, lines)


def main():
    cli(run, write_markdown, CSV)


if __name__ == "__main__":
    main()
