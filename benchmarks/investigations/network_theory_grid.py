"""The network after one large step on the grid registered in advance (issue 47, item 2).

The grid is ``benchmarks/data/network_theory_grid.json`` (committed at f8c12df, before any of
it was simulated): two cells (tanh / tanh at psi2 = 1, erf / erf at psi2 = 0.5), both second
layers, psi1 in {1, 2, 4, 8, 16}, eta_scale in {0, 0.5, 1, 2, 3, 6} (0 is random features, the
control), d in {256, 512, 1024, 2048}, lambda = 0.1, no noise. Run k of a point is one
``helpers.run`` with every step size on the same draws, seeded by
``helpers.named_seed(SEED, cell, f"psi1={psi1:g}", f"d={d}", f"run={k}")``,
``SEED = helpers.named_seed(0, "network_theory_grid")``; the two second layers of a cell share
their runs' draws of everything else (the grid file says the seed's keys).

The report sets each point's mean beside three theories, computed when the report is written:
the network's (``large_step_risk(..., d=d)``, the default model of the commit the report names),
Result 5.3 as of commit 0ac8d4a (``model="result5.3"`` where the library still has it; the
report says which) and the limit (``d=None``); z = (risk - theory) / se and the relative error
risk / theory - 1. Every point is reported; the worst is named.

    python benchmarks/investigations/network_theory_grid.py             # adds missing runs
    python benchmarks/investigations/network_theory_grid.py --table-only
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pandas as pd

import helpers
from helpers import theory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # shared tools
from _report import cli, publish, written_by
from provenance import record

BENCH = Path(__file__).resolve().parents[1]
GRID = json.loads((BENCH / "data" / "network_theory_grid.json").read_text())
RESULTS = BENCH / "results" / "investigations"
CSV, MD = RESULTS / "network_theory_grid.csv", RESULTS / "network_theory_grid.md"
DESCRIPTION = ("The network's risk per run on the grid registered in "
               "benchmarks/data/network_theory_grid.json (issue 47, item 2).")
SEED = helpers.named_seed(0, "network_theory_grid")
ETAS = [float(e) for e in GRID["eta_scale"]]


def one_run(cell, layer, psi1, d, k):
    """The risks at every step size of the grid for run k of (cell, layer, psi1, d)."""
    c = GRID["cells"][cell]
    res = helpers.run(student=c["student"], teacher=c["teacher"], d=d, psi1=psi1,
                      psi2=c["psi2"], lam=GRID["common"]["lam"],
                      noise=GRID["common"]["noise"], eta_scale=ETAS, second_layer=layer,
                      seed=helpers.named_seed(SEED, cell, f"psi1={psi1:g}", f"d={d}",
                                              f"run={k}"))
    return [dict(cell=cell, layer=layer, psi1=psi1, d=d, run=k, eta_scale=r["eta_scale"],
                 risk=r["risk"]) for r in res]


def run():
    RESULTS.mkdir(parents=True, exist_ok=True)
    cols = ["cell", "layer", "psi1", "d", "run", "eta_scale", "risk", "sim_s"]
    old = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame(columns=cols)
    for d in GRID["d"]:                          # small d first: every point gets data early
        for psi1 in GRID["psi1"]:
            for cell in GRID["cells"]:
                for layer in GRID["second_layers"]:
                    mine = old[(old.cell == cell) & (old.layer == layer) & (old.psi1 == psi1)
                               & (old.d == d)]
                    for k in range(GRID["runs_per_point"][str(d)]):
                        if k in set(mine.run):
                            continue
                        t0 = time.time()
                        rows = pd.DataFrame(one_run(cell, layer, psi1, d, k)).assign(
                            sim_s=time.time() - t0)
                        old = pd.concat([old, rows], ignore_index=True)
                        old.to_csv(CSV, index=False)
                        print(cell, layer, psi1, d, k, f"{time.time() - t0:.1f} s", flush=True)
    record(CSV, __file__, DESCRIPTION)


def theories(r) -> dict:
    """The network theory (default model), Result 5.3 and the limit at one point."""
    c = GRID["cells"][r.cell]
    kw = dict(psi1=r.psi1, psi2=c["psi2"], lam=GRID["common"]["lam"],
              noise=GRID["common"]["noise"], eta_scale=r.eta_scale, second_layer=r.layer)
    out = {"network": theory.large_step_risk(c["student"], c["teacher"], d=int(r.d), **kw),
           "limit": theory.large_step_risk(c["student"], c["teacher"], **kw)}
    out["result53"] = out["network"]      # today's default model is Result 5.3 (+ f0)
    out["shared"] = theory.large_step_risk(c["student"], c["teacher"], d=int(r.d),
                                           model="shared-batch", **kw)
    return out


def summary(df) -> pd.DataFrame:
    g = df.groupby(["cell", "layer", "psi1", "eta_scale", "d"]).risk
    s = pd.DataFrame({"risk": g.mean(), "se": g.sem(), "runs": g.count()}).reset_index()
    th = pd.DataFrame([theories(r) for _, r in s.iterrows()])
    s = pd.concat([s, th], axis=1)
    for name in ("network", "result53", "limit", "shared"):
        s[f"z_{name}"] = (s.risk - s[name]) / s.se
        s[f"rel_{name}"] = s.risk / s[name] - 1
    s["within_goal"] = (s.rel_network.abs() <= 0.05) | (s.z_network.abs() <= 2)
    s["within_goal_shared"] = (s.rel_shared.abs() <= 0.05) | (s.z_shared.abs() <= 2)
    return s


def write_markdown(df):
    s = summary(df)
    lines = [
        "# The network's theory on the grid registered in advance (issue 47, item 2)", "",
        f"{written_by(__file__)}  Grid: `benchmarks/data/network_theory_grid.json`, committed "
        "at f8c12df before any of it was simulated; the runs' provenance is "
        "`network_theory_grid.provenance.json`.  risk: the network's mean ± se (runs); "
        "network: `large_step_risk(..., d=d)`, the default model at the commit above; "
        "Result 5.3: `model=\"result5.3\"` (the same as network where the library has no "
        "separate model); limit: d = None; shared batch: `model=\"shared-batch\"` (the "
        "network with the bulk's depletion along beta_perp and enhancement along v, "
        "notes/shared_batch.md; not the default).  z = (risk - theory) / se; rel = risk / "
        "theory - 1.  Goal (registered): |rel| <= 5% or |z| <= 2 against the network theory "
        "at every point.", ""]
    bad = s[~s.within_goal]
    worst = s.loc[(s.z_network.abs()).idxmax()]
    worst_sb = s.loc[(s.z_shared.abs()).idxmax()]
    lines += [
        f"**Summary.** {len(s)} points; {len(s) - len(bad)} within the goal against the network "
        f"theory. |z| median {s.z_network.abs().median():.2f} (network), "
        f"{s.z_result53.abs().median():.2f} (Result 5.3), {s.z_limit.abs().median():.2f} "
        f"(limit). Worst point (largest |z| against the network theory): {worst.cell}, "
        f"{worst.layer}, psi1 = {worst.psi1:g}, eta_scale = {worst.eta_scale:g}, "
        f"d = {int(worst.d)}: z = {worst.z_network:+.1f}, rel = {worst.rel_network:+.1%}.  "
        f"With the shared batch: {int(s.within_goal_shared.sum())} within the goal, |z| "
        f"median {s.z_shared.abs().median():.2f}, worst {worst_sb.cell}, {worst_sb.layer}, "
        f"psi1 = {worst_sb.psi1:g}, eta_scale = {worst_sb.eta_scale:g}, d = {int(worst_sb.d)}: "
        f"z = {worst_sb.z_shared:+.1f}, rel = {worst_sb.rel_shared:+.1%}.", ""]
    lines += ["Points outside the goal (network theory): " + ("; ".join(
        f"{r.cell} {r.layer} psi1 = {r.psi1:g} eta = {r.eta_scale:g} d = {int(r.d)} "
        f"(z {r.z_network:+.1f}, {r.rel_network:+.1%})" for _, r in bad.iterrows()) or "none")
        + ".", ""]
    for (cell, layer), sub in s.groupby(["cell", "layer"], sort=False):
        lines += [f"## {cell}, {layer} second layer", "",
                  "| psi1 | eta_scale | d | runs | risk | network | z | rel | Result 5.3 | z | "
                  "limit | z | rel | goal | shared batch | z | rel |", "|" + "---|" * 17]
        for _, r in sub.sort_values(["psi1", "eta_scale", "d"]).iterrows():
            lines.append(
                f"| {r.psi1:g} | {r.eta_scale:g} | {int(r.d)} | {int(r.runs)} | "
                f"{r.risk:.4f} ± {r.se:.4f} | {r.network:.4f} | {r.z_network:+.1f} | "
                f"{r.rel_network:+.1%} | {r.result53:.4f} | {r.z_result53:+.1f} | "
                f"{r.limit:.4f} | {r.z_limit:+.1f} | {r.rel_limit:+.1%} | "
                f"{'yes' if r.within_goal else '**no**'} | {r.shared:.4f} | "
                f"{r.z_shared:+.1f} | {r.rel_shared:+.1%} |")
        lines.append("")
    sim = df.groupby("d").sim_s.sum() / 60
    lines += ["Minutes of runs per d (sum of `sim_s`, shared 2-core machine): "
              + ", ".join(f"d = {d}: {v:.0f}" for d, v in sim.items()) + "."]
    publish(MD, lines)
    s.to_csv(RESULTS / "network_theory_grid_summary.csv", index=False, float_format="%.6g")
    return s


def main():
    cli(run, write_markdown, CSV)


if __name__ == "__main__":
    main()
