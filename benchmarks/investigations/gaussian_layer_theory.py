"""Theory only: the cost of ``large_step_risk`` per point for each second layer, and the best
step of the +-1 and Gaussian layers (issue 23: is the Gaussian layer better at its own best
step as N -> infinity?).

    python benchmarks/investigations/gaussian_layer_theory.py

writes ``benchmarks/results/investigations/gaussian_layer_theory.md``.

Best step: the asymptotic risk on the grid eta_scale = 0.05, 0.1, ..., 0.45, 0.5, 0.75, ...,
10 (psi1 = 2, psi2 = 1, lambda = 0.1 as in chapter 5, noise 0), then refined by a bounded
scalar minimisation between the grid neighbours of the grid minimum.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from scipy import optimize

from helpers.theory import large_step_risk

OUT = (Path(__file__).resolve().parents[1] / "results" / "investigations"
       / "gaussian_layer_theory.md")
PSI1, PSI2, LAM = 2.0, 1.0, 0.1
GRID = np.concatenate([np.arange(0.05, 0.49, 0.05), np.arange(0.5, 10.0001, 0.25)])
LAYERS = {"+-1": "rademacher", "Gaussian": "gaussian", "(1, 2) w.p. (1/2, 1/2)": ([1.0, 2.0],
                                                                                 [0.5, 0.5])}


def timing(layer, repeats=3):
    """Median seconds per point over fresh eta_scale values (tables rebuilt every time)."""
    times = []
    for k in range(repeats):
        for e in (1.3, 2.7, 4.1, 6.2):
            t0 = time.perf_counter()
            large_step_risk("tanh", "tanh", psi1=PSI1, psi2=PSI2, lam=LAM,
                            eta_scale=e + 0.01 * k, second_layer=layer)
            times.append(time.perf_counter() - t0)
    return float(np.median(times)), float(np.max(times))


def best_step(student, teacher, layer):
    def risk(e):
        return large_step_risk(student, teacher, psi1=PSI1, psi2=PSI2, lam=LAM, eta_scale=e,
                               second_layer=layer)

    values = np.array([risk(e) for e in GRID])
    j = int(np.argmin(values))
    lo, hi = GRID[max(j - 1, 0)], GRID[min(j + 1, GRID.size - 1)]
    res = optimize.minimize_scalar(risk, bounds=(lo, hi), method="bounded",
                                   options=dict(xatol=1e-3))
    return float(res.x), float(res.fun), values


def main():
    large_step_risk("tanh", "tanh", psi1=PSI1, psi2=PSI2, lam=LAM, eta_scale=1.0,
                    second_layer="gaussian")                      # warm-up (imports, rules)
    lines = ["# The large-step theory with several second-layer magnitudes", "",
             "`benchmarks/investigations/gaussian_layer_theory.py`; a shared 2-core machine "
             "(other jobs running), OPENBLAS_NUM_THREADS=1.", "",
             "## Cost per point (tanh/tanh, psi1 = 2, psi2 = 1, lambda = 0.1)", "",
             "| second layer | median | max |", "|---|---|---|"]
    for name, layer in LAYERS.items():
        med, mx = timing(layer)
        lines.append(f"| {name} | {1e3 * med:.0f} ms | {1e3 * mx:.0f} ms |")
        print(lines[-1], flush=True)
    lines += ["", f"## Best step (psi1 = {PSI1:g}, psi2 = {PSI2:g}, lambda = {LAM:g})", "",
              "| pair | layer | best eta_scale | risk there | best on the grid's eta_scale >= 1 "
              "| risk at eta_scale = 6 |",
              "|---|---|---|---|---|---|"]
    for s, t in (("tanh", "tanh"), ("erf", "erf")):
        for name in ("+-1", "Gaussian"):
            e, r, values = best_step(s, t, LAYERS[name])
            at6 = values[int(np.argmin(np.abs(GRID - 6.0)))]
            big = GRID >= 1.0
            k = int(np.argmin(values[big]))
            lines.append(f"| {s}/{t} | {name} | {e:.2f} | {r:.5f} | {values[big][k]:.5f} at "
                         f"{GRID[big][k]:g} | {at6:.5f} |")
            print(lines[-1], flush=True)
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
