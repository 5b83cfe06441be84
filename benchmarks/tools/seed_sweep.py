"""Every chapter's hidden checks at many seeds: BOOK_SEED = 0-31 at quick scale by default.

Each chapter (and the landing page, whose hidden checks ``make notebooks`` runs too) is
converted to a script with jupytext and run in a fresh process with ``BOOK_SEED=<seed>``, as
``benchmarks/tools/chapter_timings.py`` does (with the Makefile's ``BOOK_STRICT=1`` unless the
environment sets it, so a page whose parameters differ from the book's record fails instead of
skipping its checks); a hidden assertion that fails makes the script exit non-zero, and its
message is kept.  ``make seeds`` is the quick version (nbval, seeds
1-3).

Usage: ``python benchmarks/tools/seed_sweep.py [chapters/NN_x.md ...] [--seeds 0-31]
[--scale quick|paper] [--jobs 2] [--out DIR]``.  Each page has one record in DIR (default
``benchmarks/results/seed_sweeps``): ``<page stem>.json`` holds every sweep of the page
(commit, start, cores, scale, command, one row per run) and ``<page stem>.md`` lists them,
newest first, with the failures.  A sweep adds itself to the record of every page it runs,
run by run (a sweep that stops half-way keeps what it ran); ``--jobs`` runs that many pages
at once.  ``--combine A.json B.json ...`` adds the sweeps of logs written one per sweep
(``{"started", "commit", "cores", "rows"}``, the format before the records) to the records,
in the order given.  Exit status 1 if any run failed (``--combine``: if the latest run of a
page at a seed failed).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from chapter_timings import RESULTS, ROOT, run_chapter  # run as python benchmarks/tools/...
from provenance import head_commit, script_command

RECORDS = RESULTS / "seed_sweeps"
WHOLE_PAGE = "whole page"


def seed_range(text: str) -> list[int]:
    """``"0-31"`` -> [0, ..., 31]; ``"3,5,9"`` -> [3, 5, 9]."""
    seeds = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        seeds.extend(range(int(lo), int(hi or lo) + 1))
    if not seeds or min(seeds) < 0:
        raise ValueError(f"seeds must be non-negative integers, got {text!r}")
    return seeds


def seed_text(seeds) -> str:
    """[0, 1, 2, 5, 7, 8] -> ``"0-2,5,7-8"`` (the inverse of :func:`seed_range`)."""
    seeds, parts = sorted(set(seeds)), []
    for s in seeds:
        if parts and s == parts[-1][1] + 1:
            parts[-1][1] = s
        else:
            parts.append([s, s])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in parts)


def load_record(folder: Path, page: str) -> dict:
    path = folder / f"{Path(page).stem}.json"
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    return {"page": page, "sweeps": []}


def latest_runs(record: dict) -> dict:
    """seed -> the latest whole-page run of the record (later sweeps replace earlier ones)."""
    latest = {}
    for sweep in record["sweeps"]:
        if sweep.get("scope", WHOLE_PAGE) == WHOLE_PAGE:
            latest.update({r["seed"]: r for r in sweep["rows"]})
    return latest


def _when(sweep: dict) -> str:
    if sweep.get("started"):
        return sweep["started"][:16].replace("T", " ")
    return f"before {sweep['recorded'][:16].replace('T', ' ')}"


def render(record: dict) -> str:
    """The record as Markdown: the latest result per seed, then one line per sweep."""
    page, stem = record["page"], Path(record["page"]).stem
    latest = latest_runs(record)
    ok = [s for s, r in latest.items() if r["status"] == "ok"]
    lines = [f"# Seed sweeps: {page}", "",
             f"Every recorded sweep of the hidden checks of `{page}` at many `BOOK_SEED` values "
             "(`python benchmarks/tools/seed_sweep.py`: the page runs as a script in a fresh "
             "process, and a hidden assertion that fails fails the run). Newest first; every "
             f"run (wall time, peak memory, load) is in `{stem}.json`.", ""]
    if latest:
        lines += [f"Latest run at each seed: {len(ok)} of {len(latest)} seeds pass "
                  f"(seeds {seed_text(latest)}).", ""]
    lines += ["| started | commit | scale | what | seeds | passed | median time | command |",
              "|---|---|---|---|---|---|---|---|"]
    failures, notes = [], []
    for sweep in reversed(record["sweeps"]):
        rows = sweep["rows"]
        passed = sum(r["status"] == "ok" for r in rows)
        secs = [r["seconds"] for r in rows if r.get("seconds") is not None]
        median = f"{statistics.median(secs):.0f} s" if secs else "–"
        command = sweep.get("command") or "not recorded"
        source = (f" (was `{sweep['source']}`, added in {sweep.get('recorded_in', '?')})"
                  if sweep.get("source") else "")
        lines.append(f"| {_when(sweep)} | {sweep['commit']} | {sweep['scale']} | "
                     f"{sweep.get('scope', WHOLE_PAGE)} | {seed_text(r['seed'] for r in rows)} | "
                     f"{passed} of {len(rows)} | {median} | "
                     f"{command if command == 'not recorded' else f'`{command}`'}{source} |")
        for r in rows:
            if r["status"] != "ok":
                last = (r.get("error") or "").splitlines()[-1:] or [""]
                failures.append(f"- {_when(sweep)} ({sweep['commit']}), BOOK_SEED={r['seed']}: "
                                f"{r['status']}: `{last[0].strip()}`")
        if sweep.get("note"):
            notes += [f"### {sweep.get('scope', WHOLE_PAGE)}, {_when(sweep)}", "",
                      sweep["note"].rstrip(), ""]
    if failures:
        lines += ["", "## Failed runs", "", *failures]
    if notes:
        lines += ["", "## Notes", "", *notes]
    return "\n".join(lines).rstrip() + "\n"


def dump(record: dict) -> str:
    """The record as JSON with one line per run (``json.loads`` reads it back unchanged)."""
    sweeps = []
    for sweep in record["sweeps"]:
        meta = json.dumps({k: v for k, v in sweep.items() if k != "rows"})
        rows = ",\n   ".join(json.dumps(r) for r in sweep["rows"])
        sweeps.append(f'{meta[:-1]}, "rows": [\n   {rows}]}}')
    return (f'{{"page": {json.dumps(record["page"])}, "sweeps": [\n '
            + ",\n ".join(sweeps) + "]}\n")


def save_sweep(folder: Path, page: str, sweep: dict, replace: bool = True) -> Path:
    """Add ``sweep`` to the page's record (with ``replace``, in place of the sweep with the same
    start and command: a running sweep saves itself after every run), then rewrite the record's
    JSON and Markdown; returns the Markdown's path."""
    folder.mkdir(parents=True, exist_ok=True)
    record = load_record(folder, page)
    key = (sweep.get("started"), sweep.get("command"))
    for i, old in enumerate(record["sweeps"]):
        if replace and (old.get("started"), old.get("command")) == key:
            record["sweeps"][i] = sweep
            break
    else:
        record["sweeps"].append(sweep)
    stem = Path(page).stem
    (folder / f"{stem}.json").write_text(dump(record), encoding="utf-8")
    md = folder / f"{stem}.md"
    md.write_text(render(record), encoding="utf-8")
    return md


def combine(logs: list[Path], folder: Path) -> int:
    """Add the sweeps of per-sweep logs to the per-page records in ``folder``.

    Each log adds one sweep to the record of every page it ran; a log's optional ``command``,
    ``source``, ``recorded_in``, ``recorded``, ``scope`` and ``note`` are kept.  Where two logs
    hold the same page at the same seed, the later one on the command line counts in the
    record's latest result (a page re-swept after a fix replaces its earlier runs).  Returns 0
    if the latest run of every page at every seed it touched passed, 1 otherwise."""
    pages = []
    for path in logs:
        data = json.loads(path.read_text(encoding="utf-8"))
        for page in dict.fromkeys(r["chapter"] for r in data["rows"]):
            rows = [{"seed": r["seed"], **{k: v for k, v in r.items()
                                           if k not in ("chapter", "scale", "seed")}}
                    for r in data["rows"] if r["chapter"] == page]
            scale = data.get("scale") or data["rows"][0].get("scale", "quick")
            sweep = {"started": data.get("started"), "commit": data["commit"],
                     "cores": data.get("cores"), "scale": scale,
                     "command": data.get("command"), "rows": rows}
            kept = ("source", "recorded_in", "recorded", "scope", "note")
            sweep.update({k: data[k] for k in kept if data.get(k)})
            print(save_sweep(folder, page, sweep, replace=False))
            pages.append(page)
    statuses = [r["status"] for page in dict.fromkeys(pages)
                for r in latest_runs(load_record(folder, page)).values()]
    return 0 if all(s == "ok" for s in statuses) else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("chapters", nargs="*", type=Path)
    ap.add_argument("--seeds", default="0-31", help="e.g. 0-31 or 3,5,9 (default 0-31)")
    ap.add_argument("--scale", choices=("quick", "paper"), default="quick")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per run")
    ap.add_argument("--jobs", type=int, default=1,
                    help="runs at the same time (each is its own process; default 1)")
    ap.add_argument("--out", type=Path, default=RECORDS,
                    help="folder of the per-page records (default benchmarks/results/"
                         "seed_sweeps)")
    ap.add_argument("--combine", nargs="+", type=Path, default=None,
                    help="no runs: add the sweeps of these per-sweep logs to the records")
    args = ap.parse_args(argv)
    if args.combine:
        return combine(args.combine, args.out)
    seeds = seed_range(args.seeds)
    pages = [p.resolve() for p in args.chapters] or \
        [ROOT / "intro.md", *sorted((ROOT / "chapters").glob("*.md"))]
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    sweeps = {md.name: {"started": started, "commit": head_commit(short=True),
                        "cores": os.cpu_count(), "scale": args.scale,
                        "command": script_command(__file__, argv), "rows": []}
              for md in pages}
    lock = threading.Lock()

    def one(seed, md):
        row = run_chapter(md, args.limit, args.scale, env={"BOOK_SEED": str(seed)},
                          capture=True)
        last = (row.get("error") or "").splitlines()[-1:] or [""]
        with lock:
            rows = sweeps[md.name]["rows"]
            rows.append({"seed": seed, **{k: v for k, v in row.items()
                                          if k not in ("chapter", "scale")}})
            rows.sort(key=lambda r: r["seed"])
            save_sweep(args.out, md.name, sweeps[md.name])
            print(f"BOOK_SEED={seed:<3} {row['chapter']:<24} {row['status']:<20} "
                  f"{row['seconds']:6.1f} s  {last[0]}", flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for future in [pool.submit(one, seed, md) for seed in seeds for md in pages]:
            future.result()
    for md in pages:
        print((args.out / f"{md.stem}.md").read_text(encoding="utf-8"))
    return 0 if all(r["status"] == "ok" for s in sweeps.values() for r in s["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
