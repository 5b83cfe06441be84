"""Time every chapter at a given scale (quick default or the paper's), one after the other.

Each chapter is converted to a script with jupytext and executed in a fresh process with
``BOOK_SCALE=<scale>`` and ``MPLBACKEND=Agg``, and, unless the environment sets them, the
Makefile's ``BOOK_STRICT=1`` (a chapter whose parameters differ from the book's record stops
instead of skipping its hidden checks) and ``OPENBLAS_THREAD_TIMEOUT=4`` (:data:`BOOK_ENV`),
so a run by hand is the run ``make`` does; wall time, the peak memory of exactly that
process (its max RSS, from ``os.wait4``) and the peak of the summed RSS of its whole process
tree (the chapter and its sweeps' worker processes, sampled every 0.05 s with psutil: what
Binder's memory limit counts) are recorded.  Progress bars are on at paper scale
(``BOOK_PROGRESS=1``) so that a person watching sees the sweeps advance; they go to this
script's stderr, never into the book.

Usage: ``python benchmarks/tools/chapter_timings.py [chapters/NN_x.md ...] [--scale quick|paper]
[--limit 900]`` (``make bench-chapters`` runs the quick scale).  Results are appended to
``benchmarks/results/chapters_<scale>.json`` and printed as a table.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from provenance import head_commit, record

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
#: What the Makefile exports for every chapter it runs; the environment's values win.
BOOK_ENV = {"BOOK_STRICT": "1", "OPENBLAS_THREAD_TIMEOUT": "4"}


def _tree_rss(pid: int) -> int:
    """Summed resident memory (bytes) of the process ``pid`` and its descendants now."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:    # ended between the listing and the reading
            pass
    return total


def run_chapter(md: Path, limit: float, scale: str, env: dict | None = None,
                capture: bool = False) -> dict:
    """Run one chapter as a script; ``env`` adds variables (e.g. ``BOOK_SEED``).

    With ``capture``, the script's stderr is kept (not shown) and a failed row's ``error``
    holds its last three lines (the failing assertion).
    """
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / (md.stem + ".py")
        subprocess.run([sys.executable, "-m", "jupytext", "--quiet", "--to", "py", str(md),
                        "-o", str(script)], check=True)
        progress = "1" if scale == "paper" else "0"
        env = {**BOOK_ENV, **os.environ, "BOOK_SCALE": scale, "MPLBACKEND": "Agg",
               "BOOK_PROGRESS": os.environ.get("BOOK_PROGRESS", progress), **(env or {})}
        err = open(Path(tmp) / "stderr.txt", "w+", encoding="utf-8") if capture else None
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, str(script)], cwd=md.parent, env=env,
                                stdout=subprocess.DEVNULL, stderr=err)
        status, rss_kb, tree_peak = "ok", 0, 0
        while True:
            tree_peak = max(tree_peak, _tree_rss(proc.pid))
            pid, code, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                rss_kb = usage.ru_maxrss
                if os.waitstatus_to_exitcode(code) != 0:
                    status = f"failed (exit {os.waitstatus_to_exitcode(code)})"
                proc.returncode = os.waitstatus_to_exitcode(code)
                break
            if time.perf_counter() - t0 > limit:
                proc.kill()
                _, _, usage = os.wait4(proc.pid, 0)
                status, rss_kb = f"timed out after {limit:.0f} s", usage.ru_maxrss
                break
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        tail = ""
        if err is not None:
            err.seek(0)
            tail = err.read()
            err.close()
    return {"chapter": md.name, "scale": scale, "status": status, "seconds": wall,
            "max_rss_gb": rss_kb / 2**20, "tree_peak_gb": tree_peak / 2**30,
            "load_avg": os.getloadavg()[0],
            **({"error": "\n".join(tail.strip().splitlines()[-3:])} if status != "ok" else {})}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("chapters", nargs="*", type=Path)
    ap.add_argument("--scale", choices=("quick", "paper"), default="quick")
    ap.add_argument("--limit", type=float, default=900.0, help="seconds per chapter")
    args = ap.parse_args(argv)
    chapters = args.chapters or sorted((ROOT / "chapters").glob("*.md"))
    rows = []
    for md in chapters:
        row = run_chapter(md.resolve(), args.limit, args.scale)
        rows.append(row)
        print(f"{row['chapter']:<24} {row['status']:<22} {row['seconds']:8.1f} s "
              f"{row['max_rss_gb']:6.2f} GB (tree {row['tree_peak_gb']:.2f} GB)  "
              f"load {row['load_avg']:.1f}", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    log = RESULTS / f"chapters_{args.scale}.json"
    history = json.loads(log.read_text()) if log.exists() else []
    history.append({"when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                    "cores": os.cpu_count(), "commit": head_commit(short=True), "rows": rows})
    log.write_text(json.dumps(history, indent=2) + "\n", encoding="utf-8")
    record(log, __file__, f"Wall time and peak memory of each chapter run as a script at the "
           f"{args.scale} scale, one entry per run of this script; read by the instructors "
           "page (Run times) and the README.")
    return rows


if __name__ == "__main__":
    main()
