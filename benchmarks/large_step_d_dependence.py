"""Finite-size gap of the exact large-step theory at one point, against d (3 seeds each).

tanh/tanh, psi1 = 4, psi2 = 0.5, lam = 0.1, eta_scale in {0, 2}, second_layer="rademacher".
Prints theory, simulated mean, se and the relative gap; results of one run are in
benchmarks/results/large_step_d_dependence.md.
"""

import time

from validate_large_step import simulate, summary  # run as python benchmarks/...

from helpers.theory import large_step_risk

LAM, PSI1, PSI2, ETAS, SEEDS = 0.1, 4.0, 0.5, (0.0, 2.0), 3


def main():
    th = large_step_risk("tanh", "tanh", psi1=PSI1, psi2=PSI2, lam=LAM, eta_scale=list(ETAS))
    print("theory", th, flush=True)
    for d in (512, 1024, 2048):
        t0 = time.time()
        rs = simulate("tanh", "tanh", PSI1, PSI2, d, range(SEEDS), LAM, etas=ETAS)
        mean, se = summary(rs)
        print(d, mean, se, (mean - th) / th, f"{time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
