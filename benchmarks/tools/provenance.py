"""Where a committed result comes from: a sidecar ``<stem>.provenance.json`` beside it.

A chapter that reads ``benchmarks/results/map_gap.csv`` finds beside it
``map_gap.provenance.json``::

    {"result": "map_gap.csv", "script": "benchmarks/data/map_gap.py",
     "command": "python benchmarks/data/map_gap.py", "commit": "0db73b9...",
     "date": "2026-12-03T08:23:54+00:00", "description": "...", "sha256": "..."}

``script`` is relative to the repository root; ``commit`` and ``date`` are the commit the
script ran at (``-dirty``: with uncommitted changes to the code) and when it wrote the file
(``--from-git``: the commit that last changed the file and that commit's date, for results
written before the sidecars existed); ``sha256`` is the file's, so a sidecar that no longer
describes its file is found (``tests/test_benchmarks_layout.py``).  A script that writes a
result calls :func:`record`; a sidecar whose ``sha256`` is the file's is left as it is
(nothing new was written).

    python benchmarks/tools/provenance.py RESULT --script S --command C --description D \\
        [--from-git]
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIELDS = ("result", "script", "command", "commit", "date", "description", "sha256")


def sidecar_path(result) -> Path:
    """``benchmarks/results/map_gap.csv`` -> ``benchmarks/results/map_gap.provenance.json``."""
    result = Path(result)
    return result.with_name(f"{result.stem}.provenance.json")


def _git(*args) -> str:
    out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                         check=False)
    return out.stdout.strip()


def head_commit(short=False) -> str:
    """The checked-out commit, with ``-dirty`` when tracked files outside
    ``benchmarks/results`` (the code a run used) have changes; ``unknown`` outside a git
    repository."""
    commit = _git("rev-parse", *(["--short"] if short else []), "HEAD")
    if not commit:
        return "unknown"
    changed = _git("status", "--porcelain", "--untracked-files=no", "--", ".",
                   ":(exclude)benchmarks/results")
    return commit + ("-dirty" if changed else "")


def last_commit(path) -> tuple[str, str]:
    """The commit that last changed ``path`` and its date (ISO 8601).

    Raises
    ------
    ValueError
        If git knows no commit that changed ``path`` (not committed yet).
    """
    out = _git("log", "-1", "--format=%H %cI", "--", str(Path(path).resolve()))
    if not out:
        raise ValueError(f"path: no commit changed {path}; commit it first or run the script")
    commit, date = out.split()
    return commit, date


def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def script_command(script, argv=None) -> str:
    """The command line that ran ``script``: ``python <script relative to the root> ARGS``."""
    args = sys.argv[1:] if argv is None else argv
    rel = Path(script).resolve().relative_to(ROOT).as_posix()
    return shlex.join(["python", rel, *args])


def record(result, script, description, *, command=None, commit=None, date=None) -> Path:
    """Write the sidecar of ``result`` (unless it already describes the file as it is).

    Parameters
    ----------
    result : path-like
        The result file (it must exist).
    script : path-like
        The script that wrote it (inside the repository).
    description : str
        One line: what the file holds.
    command : str, optional
        The command line; default: this process's (:func:`script_command`).
    commit, date : str, optional
        Default: :func:`head_commit` and the current time (UTC).

    Returns
    -------
    pathlib.Path
        The sidecar's path.
    """
    result, script = Path(result).resolve(), Path(script).resolve()
    if not result.is_file():
        raise ValueError(f"result: {result} is not a file")
    if not script.is_relative_to(ROOT) or not script.is_file():
        raise ValueError(f"script: {script} is not a file of the repository {ROOT}")
    if not description or "\n" in description:
        raise ValueError("description: one non-empty line")
    side = sidecar_path(result)
    digest = sha256(result)
    if side.is_file() and json.loads(side.read_text(encoding="utf-8")).get("sha256") == digest:
        return side
    data = {
        "result": result.name,
        "script": script.relative_to(ROOT).as_posix(),
        "command": command or script_command(script),
        "commit": commit or head_commit(),
        "date": date or dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "description": description,
        "sha256": digest,
    }
    side.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return side


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result", type=Path)
    ap.add_argument("--script", type=Path, required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--description", required=True)
    ap.add_argument("--from-git", action="store_true",
                    help="commit and date of the commit that last changed RESULT")
    args = ap.parse_args(argv)
    commit, date = last_commit(args.result) if args.from_git else (None, None)
    if args.from_git:                    # a fresh record even where the sidecar matches
        sidecar_path(args.result).unlink(missing_ok=True)
    side = record(args.result, args.script, args.description, command=args.command,
                  commit=commit, date=date)
    print(side.read_text(encoding="utf-8"), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
