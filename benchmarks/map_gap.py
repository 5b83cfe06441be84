"""The finite-size gap at one cell of chapter 5's map, against d, for both second layers.

Chapter 5's map of where one step goes below the kernel floor is asymptotic.  At a small
step the Gaussian layer's map is reached slowly: this benchmark measures the gap at the cell
psi2 = 0.5, psi1 = 16 (tanh student and teacher, lambda = 0.1, noise 0) for
eta_scale in {0.5, 1, 2, 4}, at d = 256 to 2048.  Both layers are run on the same seeds
``[BASE_SEED, d, k]`` (the +-1 signs are those of the Gaussian draws), each run through
``helpers.simulate_etas`` (one gradient per run serves every step size).

    python benchmarks/map_gap.py            # every d, adding missing seeds only
    python benchmarks/map_gap.py --table-only

Rows (one per run, layer and step size) go to ``benchmarks/results/map_gap.csv``; the
report, with the theory (``large_step_risk``) and the kernel floor, to ``map_gap.md``.
Chapter 5 reads the CSV.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import pandas as pd

import helpers
from helpers import theory

RESULTS = Path(__file__).parent / "results"
CSV, MD = RESULTS / "map_gap.csv", RESULTS / "map_gap.md"
PSI1, PSI2, LAM, BASE_SEED = 16.0, 0.5, 0.1, 2312
ETAS = (0.5, 1.0, 2.0, 4.0)
SEEDS = {256: 8, 512: 8, 1024: 8, 2048: 4}
LAYERS = ("gaussian", "rademacher")


def run():
    old = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame(
        columns=["d", "seed", "layer", "eta_scale", "risk", "sim_s"])
    for d, seeds in SEEDS.items():
        N = round(PSI2 * d)
        for layer in LAYERS:
            have = set(old[(old.d == d) & (old.layer == layer)].seed)
            for k in range(seeds):
                if k in have:
                    continue
                t0 = time.time()
                res = helpers.simulate_etas("tanh", "tanh", d=d, psi1=PSI1, psi2=PSI2, lam=LAM,
                                            etas=[e * math.sqrt(N) for e in ETAS],
                                            seed=[BASE_SEED, d, k], second_layer=layer)
                dt = time.time() - t0
                new = pd.DataFrame([dict(d=d, seed=k, layer=layer, eta_scale=e, risk=r["risk"],
                                         sim_s=dt) for e, r in zip(ETAS, res, strict=True)])
                old = pd.concat([old, new], ignore_index=True)
                old.to_csv(CSV, index=False)
                print(d, layer, k, f"{dt:.1f} s", flush=True)


def write_markdown(df):
    floor = theory.kernel_lower_bound("tanh")
    th = {(layer, e): theory.large_step_risk("tanh", "tanh", psi1=PSI1, psi2=PSI2, lam=LAM,
                                             eta_scale=e, second_layer=layer)
          for layer in LAYERS for e in ETAS}
    g = df.groupby(["layer", "eta_scale", "d"]).risk
    s = pd.DataFrame({"mean": g.mean(), "se": g.sem(), "seeds": g.count()}).reset_index()
    lines = [
        "# Chapter 5's map: the finite-size gap at one cell against d",
        "",
        f"`benchmarks/map_gap.py`: tanh student and teacher, psi1 = {PSI1:g}, "
        f"psi2 = {PSI2:g}, lambda = {LAM:g}, noise 0; seeds [{BASE_SEED}, d, k], both layers on "
        "the same seeds.  Risks in units of the kernel floor mu2*^2 = "
        f"{floor:.5f}: simulation mean ± se, and the asymptotic theory (`large_step_risk`).",
        "",
        "| layer | eta_scale | theory | " + " | ".join(f"d = {d}" for d in SEEDS) + " |",
        "|---|---|---|" + "---|" * len(SEEDS),
    ]
    for layer in LAYERS:
        for e in ETAS:
            cells = []
            for d in SEEDS:
                r = s[(s.layer == layer) & (s.eta_scale == e) & (s.d == d)]
                cells.append("–" if r.empty else
                             f"{r['mean'].iloc[0] / floor:.3f} ± {r['se'].iloc[0] / floor:.3f} "
                             f"({int(r['seeds'].iloc[0])})")
            lines.append(f"| {layer} | {e:g} | {th[layer, e] / floor:.3f} | "
                         + " | ".join(cells) + " |")
    sim = df.groupby(["d", "layer", "seed"]).sim_s.first().groupby(level="d").median()
    lines += ["", "Simulation time per run (all step sizes, shared 2-core machine): "
              + ", ".join(f"d = {d}: {v:.1f} s" for d, v in sim.items()) + "."]
    MD.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table-only", action="store_true")
    args = ap.parse_args()
    if not args.table_only:
        run()
    write_markdown(pd.read_csv(CSV))


if __name__ == "__main__":
    main()
