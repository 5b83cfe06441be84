"""Time every chapter at the paper's scale (``BOOK_SCALE=paper``), one after the other.

Each chapter is converted to a script with jupytext and executed in a fresh process with
``BOOK_SCALE=paper`` and ``MPLBACKEND=Agg``; wall time and peak memory (max RSS of the child)
are recorded.  Progress bars are on (``BOOK_PROGRESS=1``) so that a person watching sees the
sweeps advance; they go to this script's stderr, never into the book.

Usage: ``python benchmarks/paper_scale.py [chapters/NN_x.md ...] [--limit 900]``.
Results are appended to ``benchmarks/results/paper_scale.json`` and printed as a table.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def run_chapter(md: Path, limit: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / (md.stem + ".py")
        subprocess.run([sys.executable, "-m", "jupytext", "--quiet", "--to", "py", str(md),
                        "-o", str(script)], check=True)
        env = {**os.environ, "BOOK_SCALE": "paper", "MPLBACKEND": "Agg",
               "BOOK_PROGRESS": os.environ.get("BOOK_PROGRESS", "1")}
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t0 = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, str(script)], cwd=md.parent, env=env,
                                  timeout=limit, stdout=subprocess.DEVNULL)
            status = "ok" if proc.returncode == 0 else f"failed (exit {proc.returncode})"
        except subprocess.TimeoutExpired:
            status = f"timed out after {limit:.0f} s"
        wall = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"chapter": md.name, "status": status, "seconds": wall,
            # max RSS over all children so far; exact for the largest chapter
            "max_rss_gb": max(peak, before) / 2**20,
            "load_avg": os.getloadavg()[0]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("chapters", nargs="*", type=Path)
    ap.add_argument("--limit", type=float, default=900.0, help="seconds per chapter")
    args = ap.parse_args(argv)
    chapters = args.chapters or sorted((ROOT / "chapters").glob("[0-9]*.md"))
    rows = []
    for md in chapters:
        row = run_chapter(md.resolve(), args.limit)
        rows.append(row)
        print(f"{row['chapter']:<24} {row['status']:<22} {row['seconds']:8.1f} s "
              f"{row['max_rss_gb']:6.2f} GB  load {row['load_avg']:.1f}", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    log = RESULTS / "paper_scale.json"
    history = json.loads(log.read_text()) if log.exists() else []
    history.append({"when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                    "cores": os.cpu_count(), "rows": rows})
    log.write_text(json.dumps(history, indent=2) + "\n", encoding="utf-8")
    return rows


if __name__ == "__main__":
    main()
