"""Every chapter's hidden checks at many seeds: BOOK_SEED = 0-31 at quick scale by default.

Each chapter (and the landing page, whose hidden checks ``make notebooks`` runs too) is
converted to a script with jupytext and run in a fresh process with ``BOOK_SEED=<seed>``, as
``benchmarks/chapter_timings.py`` does; a hidden assertion that fails makes the script exit
non-zero, and its message is kept.  ``make seeds`` is the quick version (nbval, seeds 1-3).

Usage: ``python benchmarks/seed_sweep.py [chapters/NN_x.md ...] [--seeds 0-31]
[--scale quick|paper] [--jobs 2] [--out STEM]``.  Rows are written to
``benchmarks/results/<STEM>.json`` (default stem ``seed_sweep_<scale>``) as they finish (a
sweep that stops half-way keeps what it ran), and the table (one row per seed, one column
per page) to ``<STEM>.md``; ``--jobs`` runs that many pages at once.  ``--combine A.json
B.json ... --out STEM`` writes one table from sweeps run at different times.  Exit status 1
if any run failed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
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
    ran = list(cell.values())
    ok = sum(r["status"] == "ok" for r in ran)
    summary = f"{ok} of {len(ran)} runs passed"
    tail = "".join(f + "\n" for f in failures)
    return "\n".join(lines) + "\n\n" + summary + "\n" + tail


def combine(logs: list[Path], md_out: Path) -> int:
    """One table from several sweeps' logs (for example pages swept at different times).

    Where two logs hold the same page at the same seed, the later one on the command line
    counts (a page re-swept after a fix replaces its earlier runs)."""
    rows, heads = [], []
    for path in logs:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows += data["rows"]
        heads.append(f"- `{path.name}`: commit {data['commit']}, started {data['started']}, "
                     f"{len(data['rows'])} runs, {data['cores']} cores")
    rows = list({(r["seed"], r["chapter"]): r for r in rows}.values())  # the later counts
    names = list(dict.fromkeys(r["chapter"] for r in rows))
    seeds = sorted({r["seed"] for r in rows})
    md_out.write_text(
        f"# Hidden checks at BOOK_SEED = {seeds[0]}-{seeds[-1]} (quick scale)\n\n"
        "Combined from the sweeps below (`python benchmarks/seed_sweep.py --combine ...`); "
        "each page runs as a script in a fresh process, and a hidden assertion that fails "
        "fails the run. Where two sweeps ran the same page at the same seed, the later in "
        "this list counts.\n\n" + "\n".join(heads) + "\n\n" + table(rows, names, seeds),
        encoding="utf-8")
    print(md_out.read_text(encoding="utf-8"))
    return 0 if all(r["status"] == "ok" for r in rows) else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("chapters", nargs="*", type=Path)
    ap.add_argument("--seeds", default="0-31", help="e.g. 0-31 or 3,5,9 (default 0-31)")
    ap.add_argument("--scale", choices=("quick", "paper"), default="quick")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per run")
    ap.add_argument("--jobs", type=int, default=1,
                    help="runs at the same time (each is its own process; default 1)")
    ap.add_argument("--out", default=None,
                    help="file stem under benchmarks/results (default seed_sweep_<scale>)")
    ap.add_argument("--combine", nargs="+", type=Path, default=None,
                    help="no runs: one table from the .json files of earlier sweeps")
    args = ap.parse_args(argv)
    stem = args.out or f"seed_sweep_{args.scale}"
    if args.combine:
        return combine(args.combine, RESULTS / f"{stem}.md")
    seeds = seed_range(args.seeds)
    pages = [p.resolve() for p in args.chapters] or \
        [ROOT / "intro.md", *sorted((ROOT / "chapters").glob("*.md"))]
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    RESULTS.mkdir(parents=True, exist_ok=True)
    log = RESULTS / f"{stem}.json"
    rows: list[dict] = []
    lock = threading.Lock()

    def one(seed, md):
        row = run_chapter(md, args.limit, args.scale, env={"BOOK_SEED": str(seed)},
                          capture=True)
        row["seed"] = seed
        last = (row.get("error") or "").splitlines()[-1:] or [""]
        with lock:
            rows.append(row)
            print(f"BOOK_SEED={seed:<3} {row['chapter']:<24} {row['status']:<20} "
                  f"{row['seconds']:6.1f} s  {last[0]}", flush=True)
            log.write_text(json.dumps({"started": started, "commit": commit(),
                                       "cores": os.cpu_count(), "scale": args.scale,
                                       "rows": rows}, indent=1) + "\n", encoding="utf-8")

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for future in [pool.submit(one, seed, md) for seed in seeds for md in pages]:
            future.result()
    rows.sort(key=lambda r: (r["seed"], [p.name for p in pages].index(r["chapter"])))
    names = [p.name for p in pages]
    md_out = RESULTS / f"{stem}.md"
    md_out.write_text(
        f"# Hidden checks at BOOK_SEED = {args.seeds} ({args.scale} scale)\n\n"
        f"`python benchmarks/seed_sweep.py --seeds {args.seeds} --scale {args.scale} "
        f"--jobs {args.jobs}`, "
        f"commit {commit()}, started {started}, {os.cpu_count()} cores. Each page runs as a "
        f"script in a fresh process; a hidden assertion that fails fails the run.\n\n"
        + table(rows, names, seeds), encoding="utf-8")
    print(md_out.read_text(encoding="utf-8"))
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
