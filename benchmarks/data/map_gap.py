"""The finite-size gap at one cell of chapter 5's map, against d, for both second layers.

Chapter 5's map of where one step goes below the kernel floor is asymptotic.  At a small
step the Gaussian layer's map is reached slowly: this benchmark measures the gap at the cell
psi2 = 0.5, psi1 = 16 (tanh student and teacher, lambda = 0.1, noise 0) for
eta_scale in {0.5, 1, 2, 4}, at d = 256 to 2048.  Run k at d draws from
``helpers.named_seed(SEED, f"d={d}", f"run={k}")``, ``SEED = helpers.named_seed(BASE_SEED,
"map_gap")``; both layers are run on the same seed (the same W0, and the +-1 signs are those
of the Gaussian draws), each one ``helpers.run`` (one gradient per run serves every step
size): the network.  On the same seeds (the same teacher, magnitudes |sqrt(N) a_i|, ridge
set and test points) the population model that the theory solves is run too
(``helpers.run(..., model="population")``), so its gap to the theory (finite size alone) and
the network's (finite size and the network-to-model step) are measured apart.  The report
adds the finite-width theory (``large_step_risk(..., d=d)``, issue 31).

    python benchmarks/data/map_gap.py            # every d, adding missing seeds only
    python benchmarks/data/map_gap.py --table-only

Rows (one per run, layer and step size) go to ``benchmarks/results/map_gap.csv``; the
report, with the theory (``large_step_risk``) and the kernel floor, to ``map_gap.md``.
Chapter 5 reads the CSV.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

import helpers
from helpers import theory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # shared tools
from _report import cli, publish
from provenance import record

RESULTS = Path(__file__).resolve().parents[1] / "results"
CSV, MD = RESULTS / "map_gap.csv", RESULTS / "map_gap.md"
DESCRIPTION = ("Risk per seed at chapter 5's map cell psi1 = 16, psi2 = 0.5 (tanh/tanh), both "
               "second layers, network and population model, d = 256-2048; read by "
               "chapter 5.")
PSI1, PSI2, LAM, BASE_SEED = 16.0, 0.5, 0.1, 2312
SEED = helpers.named_seed(BASE_SEED, "map_gap")
ETAS = (0.5, 1.0, 2.0, 4.0)
SEEDS = {256: 8, 512: 8, 1024: 8, 2048: 4}
LAYERS = ("gaussian", "rademacher")
MODELS = ("network", "population")


def one_run(model, layer, d, k):
    """Risks at every step size of ETAS for run k at d (the network or the population
    model, on the same draws)."""
    res = helpers.run(student="tanh", teacher="tanh", d=d, psi1=PSI1, psi2=PSI2, lam=LAM,
                      eta_scale=list(ETAS), second_layer=layer, model=model,
                      seed=helpers.named_seed(SEED, f"d={d}", f"run={k}"))
    return [r["risk"] for r in res]


def run():
    old = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame(
        columns=["d", "seed", "layer", "eta_scale", "risk", "sim_s", "model"])
    if "model" not in old:
        old["model"] = "network"                  # rows written before the population model
    for d, seeds in SEEDS.items():
        for model in MODELS:
            for layer in LAYERS:
                have = set(old[(old.d == d) & (old.layer == layer) & (old.model == model)].seed)
                for k in range(seeds):
                    if k in have:
                        continue
                    t0 = time.time()
                    risks = one_run(model, layer, d, k)
                    dt = time.time() - t0
                    new = pd.DataFrame([dict(d=d, seed=k, layer=layer, eta_scale=e, risk=r,
                                             sim_s=dt, model=model)
                                        for e, r in zip(ETAS, risks, strict=True)])
                    old = pd.concat([old, new], ignore_index=True)
                    old.to_csv(CSV, index=False)
                    print(d, model, layer, k, f"{dt:.1f} s", flush=True)
    record(CSV, __file__, DESCRIPTION)


def write_markdown(df):
    floor = theory.kernel_lower_bound("tanh")
    if "model" not in df:
        df = df.assign(model="network")
    th = {(layer, e): theory.large_step_risk("tanh", "tanh", psi1=PSI1, psi2=PSI2, lam=LAM,
                                             eta_scale=e, second_layer=layer)
          for layer in LAYERS for e in ETAS}
    fw = {(layer, e, d, m): theory.large_step_risk("tanh", "tanh", psi1=PSI1, psi2=PSI2,
                                                   lam=LAM, eta_scale=e, second_layer=layer,
                                                   d=d, model=m)
          for layer in LAYERS for e in ETAS for d in SEEDS for m in ("network", "population")}
    g = df.groupby(["model", "layer", "eta_scale", "d"]).risk
    s = pd.DataFrame({"mean": g.mean(), "se": g.sem(), "seeds": g.count()}).reset_index()
    lines = [
        "# Chapter 5's map: the finite-size gap at one cell against d",
        "",
        f"`benchmarks/data/map_gap.py`: tanh student and teacher, psi1 = {PSI1:g}, "
        f"psi2 = {PSI2:g}, lambda = {LAM:g}, noise 0; seeds: the script's docstring (and the "
        "provenance), both layers and both models on the same seeds.  Risks in units of the "
        "kernel floor mu2*^2 = "
        f"{floor:.5f}: simulation mean ± se (seeds), the asymptotic theory "
        "(`large_step_risk`, N -> infinity) and the finite-width theory "
        "(`large_step_risk(..., d=d)`: `model=\"network\"`, the book's step with its initial "
        "output f0, and `model=\"population\"`).  network: the book's step, data "
        "and ridge; population: ridge on the population model the theory solves, drawn at d "
        "(`helpers.run(..., model=\"population\")`, no f0).",
        "",
        "| layer | eta_scale | row | " + " | ".join(f"d = {d}" for d in SEEDS) + " |",
        "|---|---|---|" + "---|" * len(SEEDS),
    ]
    for layer in LAYERS:
        for e in ETAS:
            lines.append(f"| {layer} | {e:g} | theory, N -> infinity | "
                         + " | ".join(f"{th[layer, e] / floor:.3f}" for _ in SEEDS) + " |")
            lines.append(f"| {layer} | {e:g} | finite-width theory | "
                         + " | ".join(f"{fw[layer, e, d, 'network'] / floor:.3f}" for d in SEEDS)
                         + " |")
            lines.append(f"| {layer} | {e:g} | finite-width theory, population model | "
                         + " | ".join(f"{fw[layer, e, d, 'population'] / floor:.3f}" for d in SEEDS)
                         + " |")
            for model in MODELS:
                cells = []
                for d in SEEDS:
                    r = s[(s.model == model) & (s.layer == layer) & (s.eta_scale == e)
                          & (s.d == d)]
                    cells.append("–" if r.empty else
                                 f"{r['mean'].iloc[0] / floor:.3f} ± "
                                 f"{r['se'].iloc[0] / floor:.3f} ({int(r['seeds'].iloc[0])})")
                lines.append(f"| {layer} | {e:g} | {model} | " + " | ".join(cells) + " |")
    sim = df.groupby(["model", "d", "layer", "seed"]).sim_s.first().groupby(
        level=["model", "d"]).median()
    lines += ["", "Simulation time per run (all step sizes, shared 2-core machine): "
              + ", ".join(f"{m} d = {d}: {v:.1f} s" for (m, d), v in sim.items()) + "."]
    publish(MD, lines)


def main():
    cli(run, write_markdown, CSV)


if __name__ == "__main__":
    main()
