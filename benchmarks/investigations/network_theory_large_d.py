"""Beyond the registered grid: one of its points at larger d (issue 47).

On the grid of ``benchmarks/data/network_theory_grid.json`` the network's excess over Result
5.3 at psi1 = 1 shrinks with d (tanh / tanh, +-1 layer: +10.8% at d = 256 to +4.6% at
d = 2048, eta_scale = 6; notes/shared_batch.md). This script extends that cell to larger d,
with the grid's own runner and seeds (``network_theory_grid.one_run``: run k at d draws from
``helpers.named_seed(SEED, cell, f"psi1={psi1:g}", f"d={d}", f"run={k}")``), so the new
points are the grid's, continued. It is not part of the registered grid.

    python benchmarks/investigations/network_theory_large_d.py [--d 4096] [--runs 6]
        [--cell tanh-1] [--layer rademacher] [--psi1 1]

writes ``results/investigations/network_theory_large_d.csv`` (one row per run and step size,
appended) and ``.md`` (the report, with the theories of ``network_theory_grid``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import network_theory_grid as grid  # noqa: E402

CSV = grid.RESULTS / "network_theory_large_d.csv"
MD = grid.RESULTS / "network_theory_large_d.md"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--d", type=int, default=4096)
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--cell", default="tanh-1")
    ap.add_argument("--layer", default="rademacher")
    ap.add_argument("--psi1", type=float, default=1.0)
    ap.add_argument("--table-only", action="store_true")
    args = ap.parse_args()
    old = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame()
    if not args.table_only:
        for k in range(args.runs):
            if len(old) and ((old.cell == args.cell) & (old.layer == args.layer)
                             & (old.psi1 == args.psi1) & (old.d == args.d)
                             & (old.run == k)).any():
                continue
            t0 = time.time()
            rows = pd.DataFrame(grid.one_run(args.cell, args.layer, args.psi1, args.d, k))
            old = pd.concat([old, rows.assign(sim_s=time.time() - t0)], ignore_index=True)
            old.to_csv(CSV, index=False)
            print(args.d, k, f"{time.time() - t0:.1f} s", flush=True)
    on_grid = pd.read_csv(grid.CSV)
    cell = old[["cell", "layer", "psi1"]].drop_duplicates()
    both = pd.concat([on_grid.merge(cell), old], ignore_index=True)
    s = grid.summary(both[both.eta_scale > 0])
    lines = ["# A cell of the registered grid continued to larger d (issue 47)", "",
             "Written by `python benchmarks/investigations/network_theory_large_d.py`; runs "
             "at d <= 2048 are the grid's (`network_theory_grid.csv`), larger d this "
             "script's, with the grid's runner and seeds.  Columns as in "
             "`network_theory_grid.md`.", "",
             "| cell | layer | psi1 | eta_scale | d | runs | risk | network | rel | "
             "shared batch | rel | limit |", "|" + "---|" * 12]
    for _, r in s.sort_values(["cell", "layer", "psi1", "eta_scale", "d"]).iterrows():
        lines.append(f"| {r.cell} | {r.layer} | {r.psi1:g} | {r.eta_scale:g} | {int(r.d)} | "
                     f"{int(r.runs)} | {r.risk:.4f} ± {r.se:.4f} | {r.network:.4f} | "
                     f"{r.rel_network:+.1%} | {r.shared:.4f} | {r.rel_shared:+.1%} | "
                     f"{r.limit:.4f} |")
    MD.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
