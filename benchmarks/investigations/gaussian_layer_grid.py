"""The Gaussian second layer's asymptotic risk against the network on issue 23's grid.

Grid: student = teacher in {tanh, erf}, psi1 in {2, 4, 8}, psi2 in {0.5, 1, 2},
eta_scale in {1, 2, 3, 6}, lambda = 0.1, noise 0, a_i ~ N(0, 1/N) (the paper's layer).
Each run is one ``helpers.run`` (chapter 5's run; the step sizes of one run share the
gradient, the ridge set and the test points), at d = 512 and d = 1024 on independent seeds:
run k at d draws from ``helpers.named_seed(SEED, f"d={d}", f"run={k}")``, ``SEED =
helpers.named_seed(BASE_SEED, "gaussian_layer_grid")`` (every grid point on the same seeds,
as before issue 46, when they were ``[BASE_SEED, d, k]`` through the removed
``helpers.data.spawn_streams``: the committed CSV holds those runs, and a rerun draws new
streams of the same experiment).

The acceptance rule (written out in the Markdown report): at d = 1024,

    |gap_1024| <= 3 se_1024 + A,   A = |gap_512| * (512 / 1024) ** RATE,

where gap = simulation mean - theory and se is the standard error over the seeds.  A is the
finite-size allowance: the gap measured at d = 512, on other seeds, carried to d = 1024 at
the slowest rate the book measured for the large-step gap (RATE = 1/2: chapter 4's gap at
psi1 = 10 goes 0.54, 0.36, 0.25, 0.13 from d = 128 to 1024, a factor 0.67-0.69 per doubling
before the last; ``benchmarks/results/figure1_gaussian_gap.md``).  A is read off d = 512,
never off the d = 1024 gap it allows for.

    python benchmarks/investigations/gaussian_layer_grid.py --d 512 --seeds 6
    python benchmarks/investigations/gaussian_layer_grid.py --d 1024 --seeds 6
    python benchmarks/investigations/gaussian_layer_grid.py --table-only

``--acts tanh`` or ``--psi2 1`` restrict the grid.  ``--layer two`` runs the two-magnitude
layer ``([1, 2], [1/2, 1/2])`` instead (``helpers.second_layer``'s, as in
``gaussian_layer_check.py``: the +-1 layer's signs, magnitude 2 for each neuron with
probability 1/2), e.g.

    python benchmarks/investigations/gaussian_layer_grid.py --layer two --acts tanh --psi2 1 --d 512

  A rerun adds the seeds that are missing
for each (activation, psi1, psi2, d) and never redraws the old ones.  Rows go to
``benchmarks/results/investigations/gaussian_layer_grid.csv`` (one row per run and step size)
and the report to ``gaussian_layer_grid.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import gaussian_layer_check as glc
import numpy as np
import pandas as pd

import helpers
from helpers.theory import large_step_risk

RESULTS = Path(__file__).resolve().parents[1] / "results" / "investigations"
CSV, MD = RESULTS / "gaussian_layer_grid.csv", RESULTS / "gaussian_layer_grid.md"
ACTS, PSI1S, PSI2S, ETAS = ("tanh", "erf"), (2.0, 4.0, 8.0), (0.5, 1.0, 2.0), (1.0, 2.0, 3.0, 6.0)
LAM, BASE_SEED, RATE, D_SMALL, D_BIG = 0.1, 2311, 0.5, 512, 1024
SEED = helpers.named_seed(BASE_SEED, "gaussian_layer_grid")


THEORY_LAYER = {"gaussian": "gaussian", "two": glc.TWO}


def simulate(act, d, psi1, psi2, seed, layer="gaussian"):
    """Risks of the network with the second layer ``layer``, one per eta_scale of ETAS
    (``gaussian_layer_check.simulate``: one ``helpers.run``)."""
    return glc.simulate(layer, d, psi1, list(ETAS), seed, act=act, psi2=psi2)


def read_csv():
    df = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame(
        columns=["act", "psi1", "psi2", "d", "seed", "eta_scale", "risk", "sim_s", "layer"])
    if "layer" not in df:
        df["layer"] = "gaussian"
    return df


def run(d, seeds, acts, psi1s, psi2s, layer="gaussian"):
    old = read_csv()
    for act in acts:
        for psi2 in psi2s:
            for psi1 in psi1s:
                have = set(old[(old.act == act) & (old.psi1 == psi1) & (old.psi2 == psi2)
                               & (old.d == d) & (old.layer == layer)].seed)
                rows = []
                for k in range(seeds):
                    if k in have:
                        continue
                    t0 = time.time()
                    risks = simulate(act, d, psi1, psi2,
                                     helpers.named_seed(SEED, f"d={d}", f"run={k}"), layer)
                    dt = time.time() - t0
                    rows += [dict(act=act, psi1=psi1, psi2=psi2, d=d, seed=k, eta_scale=e,
                                  risk=float(r), sim_s=dt, layer=layer)
                             for e, r in zip(ETAS, risks, strict=True)]
                    print(layer, act, psi1, psi2, d, k, f"{dt:.1f} s", flush=True)
                if rows:
                    old = pd.concat([old, pd.DataFrame(rows)], ignore_index=True)
                    old.to_csv(CSV, index=False)        # after every point: safe to stop


def theory_table(keys):
    out = {}
    for layer, act, psi1, psi2, eta in keys:
        t0 = time.perf_counter()
        out[layer, act, psi1, psi2, eta] = (
            large_step_risk(act, act, psi1=psi1, psi2=psi2, lam=LAM, eta_scale=eta,
                            second_layer=THEORY_LAYER[layer]),
            1e3 * (time.perf_counter() - t0))
    return out


def write_markdown(df):
    key = ["layer", "act", "psi1", "psi2", "eta_scale"]
    g = df.groupby(key + ["d"]).risk
    stats = pd.DataFrame({"mean": g.mean(), "se": g.std(ddof=1) / np.sqrt(g.count()),
                          "seeds": g.count()}).reset_index().set_index(key + ["d"])
    keys = sorted({k[:-1] for k in stats.index}, key=lambda k: (k[0] != "gaussian", *k[1:]))
    th = theory_table(keys)
    lines = [
        "# The Gaussian second layer: asymptotic risk against the network, issue 23's grid",
        "",
        "`benchmarks/investigations/gaussian_layer_grid.py`: student = teacher, "
        f"lambda = {LAM:g}, noise 0; "
        "seeds: see the script's docstring; theory `large_step_risk(..., second_layer=...)`.  "
        "Layer "
        "gaussian: a_i ~ N(0, 1/N) (theory: the 12-atom half-normal rule); layer two: "
        "|sqrt(N) a_i| in {1, 2} with probability 1/2 each, random signs.",
        "",
        "gap = simulation mean - theory; se = standard error over the seeds.  Allowance "
        f"A = |gap at d = {D_SMALL}| x ({D_SMALL}/{D_BIG})^{RATE:g}: the d = {D_SMALL} gap "
        f"(other seeds) carried to d = {D_BIG} at the slowest rate the book measured for the "
        "large-step gap (chapter 4, `figure1_gaussian_gap.md`: a factor 0.67-0.69 per "
        f"doubling, i.e. d^-1/2).  Pass: |gap at {D_BIG}| <= 3 se + A.",
        "",
        f"| layer | f | psi1 | psi2 | eta_scale | theory | d = {D_SMALL} | gap | d = {D_BIG} | "
        "gap | gap / se | A | pass |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    verdicts = {}
    for k in keys:
        t, _ = th[k]
        small = stats.loc[k + (D_SMALL,)] if k + (D_SMALL,) in stats.index else None
        big = stats.loc[k + (D_BIG,)] if k + (D_BIG,) in stats.index else None

        def fmt(c, t=t):
            return ("–", "–") if c is None else (
                f"{c['mean']:.4f} ± {c['se']:.4f} ({int(c['seeds'])})", f"{c['mean'] - t:+.4f}")
        row = [k[0], k[1], f"{k[2]:g}", f"{k[3]:g}", f"{k[4]:g}", f"{t:.4f}", *fmt(small),
               *fmt(big)]
        if small is not None and big is not None:
            gap = big["mean"] - t
            allow = abs(small["mean"] - t) * (D_SMALL / D_BIG) ** RATE
            ok = abs(gap) <= 3 * big["se"] + allow
            verdicts[k] = (ok, abs(gap) / (3 * big["se"] + allow))
            row += [f"{gap / big['se']:+.1f}", f"{allow:.4f}", "yes" if ok else "**no**"]
        else:
            row += ["–", "–", "–"]
        lines.append("| " + " | ".join(row) + " |")
    more = [k for k in keys if any(d > D_BIG for d in stats.loc[k].index)]
    if more:
        ds = sorted({d for k in more for d in stats.loc[k].index})
        top = max(ds)
        lines += ["", "Where larger d were run: the gap (simulation - theory, ± se, seeds) at "
                  f"every d, and the same rule at d = {top} (A = |gap at {D_SMALL}| x "
                  f"({D_SMALL}/{top})^{RATE:g}).", "",
                  "| layer | f | psi1 | psi2 | eta_scale | " + " | ".join(f"d = {d}" for d in ds)
                  + f" | A at {top} | pass at {top} |",
                  "|---|---|---|---|---|" + "---|" * (len(ds) + 2)]
        for k in more:
            t, _ = th[k]
            cells = [f"{stats.loc[k + (d,)]['mean'] - t:+.4f} ± {stats.loc[k + (d,)]['se']:.4f} "
                     f"({int(stats.loc[k + (d,)]['seeds'])})"
                     if k + (d,) in stats.index else "–" for d in ds]
            small, big = stats.loc[k + (D_SMALL,)], stats.loc[k + (top,)]
            allow = abs(small["mean"] - t) * (D_SMALL / top) ** RATE
            ok = abs(big["mean"] - t) <= 3 * big["se"] + allow
            lines.append(f"| {k[0]} | {k[1]} | {k[2]:g} | {k[3]:g} | {k[4]:g} | "
                         + " | ".join(cells) + f" | {allow:.4f} | {'yes' if ok else '**no**'} |")
    lines.append("")
    for layer in sorted({k[0] for k in verdicts}):
        v = {k: x for k, x in verdicts.items() if k[0] == layer}
        worst = sorted(v.items(), key=lambda kv: -kv[1][1])[:3]
        lines.append(f"Layer {layer}: {sum(ok for ok, _ in v.values())} of {len(v)} points "
                     "pass.  Largest |gap| / (3 se + A): " + ", ".join(
                         f"{r:.2f} at {k[1]}, psi1 = {k[2]:g}, psi2 = {k[3]:g}, "
                         f"eta_scale = {k[4]:g}" for k, (_, r) in worst) + ".")
    for layer in sorted({k[0] for k in th}):
        ms = np.array([v for k, (_, v) in th.items() if k[0] == layer])
        lines.append(f"Theory time per point, layer {layer} (this run, shared machine): median "
                     f"{np.median(ms):.0f} ms, max {ms.max():.0f} ms.")
    sim = df.groupby(["layer", "act", "psi1", "psi2", "d", "seed"]).sim_s.first()
    lines.append("Simulation time per run (all four step sizes): " + ", ".join(
        f"d = {d}: median {v.median():.1f} s" for d, v in sim.groupby(level="d")) + ".")
    MD.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[-6:]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=D_SMALL)
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--acts", default=",".join(ACTS))
    ap.add_argument("--psi1", default=",".join(f"{p:g}" for p in PSI1S))
    ap.add_argument("--psi2", default=",".join(f"{p:g}" for p in PSI2S))
    ap.add_argument("--layer", choices=sorted(THEORY_LAYER), default="gaussian")
    ap.add_argument("--table-only", action="store_true")
    args = ap.parse_args()
    if not args.table_only:
        run(args.d, args.seeds, args.acts.split(","),
            [float(p) for p in args.psi1.split(",")], [float(p) for p in args.psi2.split(",")],
            args.layer)
    write_markdown(read_csv())


if __name__ == "__main__":
    main()
