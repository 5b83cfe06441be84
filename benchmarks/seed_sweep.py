"""Every chapter's hidden checks at many seeds: BOOK_SEED = 0-31 at quick scale by default.

Each chapter (and the landing page, whose hidden checks ``make notebooks`` runs too) is
converted to a script with jupytext and run in a fresh process with ``BOOK_SEED=<seed>``, as
``benchmarks/chapter_timings.py`` does; a hidden assertion that fails makes the script exit
non-zero, and its message is kept.  ``make seeds`` is the quick version (nbval, seeds 1-3).

Usage: ``python benchmarks/seed_sweep.py [chapters/NN_x.md ...] [--seeds 0-31]
[--scale quick|paper]``.  Rows are written to ``benchmarks/results/seed_sweep_<scale>.json``
as they finish (a sweep that stops half-way keeps what it ran), and the table (one row per
seed, one column per page) to ``benchmarks/results/seed_sweep_<scale>.md``.  Exit status 1
if any run failed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

from chapter_timings import RESULTS, ROOT, run_chapter  # run as python benchmarks/...


def seed_range(text: str) -> list[int]:
    """``"0-31"`` -> [0, ..., 31]; ``"3,5,9"`` -> [3, 5, 9]."""
    seeds = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        seeds.extend(range(int(lo), int(hi or lo) + 1))
    if not seeds or min(seeds) < 0:
        raise ValueError(f"seeds must be non-negative integers, got {text!r}")
    return seeds


def commit() -> str:
    out = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                         capture_output=True, text=True, check=False)
    return out.stdout.strip() or "unknown"


def table(rows: list[dict], pages: list[str], seeds: list[int]) -> str:
    """One row per seed: each page's wall time, or FAIL with the assertion's message."""
    cell = {(r["seed"], r["chapter"]): r for r in rows}
    lines = ["| BOOK_SEED | " + " | ".join(pages) + " |",
             "|---|" + "---|" * len(pages)]
    failures = []
    for s in seeds:
        out = []
        for p in pages:
            r = cell.get((s, p))
            if r is None:
                out.append("not run")
            elif r["status"] == "ok":
                out.append(f"ok {r['seconds']:.0f} s")
            else:
                out.append("**FAIL**")
                last = (r.get("error") or "").splitlines()[-1:] or [""]
                failures.append(f"- BOOK_SEED={s}, {p}: {r['status']}: `{last[0]}`")
        lines.append(f"| {s} | " + " | ".join(out) + " |")
    ran = [r for r in rows if (r["seed"], r["chapter"]) in cell]
    ok = sum(r["status"] == "ok" for r in ran)
    summary = f"{ok} of {len(ran)} runs passed"
    tail = "".join(f + "\n" for f in failures)
    return "\n".join(lines) + "\n\n" + summary + "\n" + tail


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("chapters", nargs="*", type=Path)
    ap.add_argument("--seeds", default="0-31", help="e.g. 0-31 or 3,5,9 (default 0-31)")
    ap.add_argument("--scale", choices=("quick", "paper"), default="quick")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per run")
    args = ap.parse_args(argv)
    seeds = seed_range(args.seeds)
    pages = [p.resolve() for p in args.chapters] or \
        [ROOT / "intro.md", *sorted((ROOT / "chapters").glob("*.md"))]
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    RESULTS.mkdir(parents=True, exist_ok=True)
    log = RESULTS / f"seed_sweep_{args.scale}.json"
    rows: list[dict] = []
    for seed in seeds:
        for md in pages:
            row = run_chapter(md, args.limit, args.scale, env={"BOOK_SEED": str(seed)},
                              capture=True)
            row["seed"] = seed
            rows.append(row)
            last = (row.get("error") or "").splitlines()[-1:] or [""]
            print(f"BOOK_SEED={seed:<3} {row['chapter']:<24} {row['status']:<20} "
                  f"{row['seconds']:6.1f} s  {last[0]}", flush=True)
            log.write_text(json.dumps({"started": started, "commit": commit(),
                                       "cores": os.cpu_count(), "scale": args.scale,
                                       "rows": rows}, indent=1) + "\n", encoding="utf-8")
    names = [p.name for p in pages]
    md_out = RESULTS / f"seed_sweep_{args.scale}.md"
    md_out.write_text(
        f"# Hidden checks at BOOK_SEED = {args.seeds} ({args.scale} scale)\n\n"
        f"`python benchmarks/seed_sweep.py --seeds {args.seeds} --scale {args.scale}`, "
        f"commit {commit()}, started {started}, {os.cpu_count()} cores. Each page runs as a "
        f"script in a fresh process; a hidden assertion that fails fails the run.\n\n"
        + table(rows, names, seeds), encoding="utf-8")
    print(md_out.read_text(encoding="utf-8"))
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
