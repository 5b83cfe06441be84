"""Record the book's parameters: read every page's parameter cell, write the record.

A page's parameter cell is its one code cell tagged ``parameters``: one assignment a line,
``NAME = value  # range`` (the range in words, :func:`helpers.checks.parameters.parse_range`),
ending with ``helpers.checks.parameters(globals())``.  The page names its chapter in
``helpers.checks.chapter("<name>")``.  This script evaluates each cell at the quick and at the
paper scale and writes ``src/helpers/checks/book_parameters.json``: chapter -> name ->
``{"quick", "paper", "range"}``, the book's setting that the hidden checks were written for.

Usage: ``python tools/book_parameters.py`` (writes the record) or ``--check`` (exit status 1
when the record differs from the pages; ``tests/test_book_parameters.py`` runs it).
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import math
import os
import re
import sys
import tokenize
from pathlib import Path

import jupytext
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "chapters").glob("*.md"))
RECORD = ROOT / "src" / "helpers" / "checks" / "book_parameters.json"
CHAPTER = re.compile(r"helpers\.checks\.chapter\(\s*[\"']([a-z_0-9]+)[\"']\s*\)")
CLOSING = "helpers.checks.parameters(globals())"


def parameter_cell(path: Path):
    """The source of the page's one cell tagged ``parameters`` (None if it has none)."""
    cells = [c for c in jupytext.read(path).cells
             if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    if len(cells) > 1:
        raise ValueError(f"{path.name}: {len(cells)} cells are tagged 'parameters'; one only")
    return cells[0].source if cells else None


def comments(source: str) -> dict[int, str]:
    """Line number -> the comment on it."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string.lstrip("#").strip()
    return out


def assignments(source: str, page: str) -> dict[str, str]:
    """Name -> range of every assignment of the cell (each must carry its range)."""
    tree = ast.parse(source)
    notes = comments(source)
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Expr) and ast.unparse(node) == CLOSING:
            continue
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            raise ValueError(f"{page}: the parameter cell holds only 'NAME = value  # range' "
                             f"lines and its last line {CLOSING}; got {ast.unparse(node)!r}")
        name = node.targets[0].id
        text = next((notes[i] for i in range(node.lineno, node.end_lineno + 1) if i in notes),
                    None)
        if not text:
            raise ValueError(f"{page}: {name} has no range in a comment beside it")
        found[name] = text
    if not source.rstrip().endswith(CLOSING):
        raise ValueError(f"{page}: the parameter cell must end with {CLOSING}")
    return found


def plain(value):
    """A value as JSON holds it."""
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, np.integer | np.floating):
        return value.item()
    return value


def evaluate(source: str, scale: str) -> dict:
    """The cell's values at a scale (the closing line left out)."""
    import helpers

    old = os.environ.get("BOOK_SCALE")
    os.environ["BOOK_SCALE"] = scale
    try:
        namespace = {"np": np, "math": math, "helpers": helpers}
        exec(source.replace(CLOSING, ""), namespace)   # noqa: S102 - the book's own cells
    finally:
        if old is None:
            os.environ.pop("BOOK_SCALE", None)
        else:
            os.environ["BOOK_SCALE"] = old
    return namespace


def record() -> dict:
    """The record of every page with a parameter cell."""
    from helpers.checks.parameters import parse_range

    out = {}
    for path in PAGES:
        source = parameter_cell(path)
        if source is None:
            continue
        found = CHAPTER.search(path.read_text(encoding="utf-8"))
        if found is None:
            raise ValueError(f"{path.name}: a parameter cell but no helpers.checks.chapter(...)")
        ranges = assignments(source, path.name)
        values = {s: evaluate(source, s) for s in ("quick", "paper")}
        entry = {}
        for name, text in ranges.items():
            rule = parse_range(text)
            for s in ("quick", "paper"):
                rule.check(name, values[s][name])
            entry[name] = {"quick": plain(values["quick"][name]),
                           "paper": plain(values["paper"][name]), "range": text}
        out[found.group(1)] = entry
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the written record instead of writing it")
    args = parser.parse_args(argv)
    text = json.dumps(record(), indent=1, sort_keys=False) + "\n"
    if args.check:
        current = RECORD.read_text(encoding="utf-8") if RECORD.exists() else ""
        if current != text:
            print(f"{RECORD.relative_to(ROOT)} is out of date: run python tools/book_parameters.py")
            return 1
        return 0
    RECORD.write_text(text, encoding="utf-8")
    print(f"wrote {RECORD.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
