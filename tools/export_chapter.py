"""Export a chapter (MyST Markdown notebook) as a notebook, optionally without solutions.

Usage::

    python tools/export_chapter.py chapters/03_small_step.md -o small_step.ipynb
    python tools/export_chapter.py chapters/03_small_step.md --strip-solutions \\
        -o small_step_assignment.ipynb

``--strip-solutions`` removes every ``{solution}`` directive block and everything between
``{solution-start}`` and ``{solution-end}`` (markdown and the code cells in between), with
backtick or colon fences.  Exercises stay.  The output format follows the extension of
``-o`` (``.ipynb`` or ``.md``) unless ``--to`` is given.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import jupytext

# An opening fence of a directive: ``` or ::: (three or more), then {name}.
_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z-]+)\}")


def _strip_markdown(text: str, inside: bool) -> tuple[str, bool]:
    """Remove solution blocks from one markdown cell.

    ``inside`` says whether the cell starts inside a ``solution-start`` block; the returned
    flag says whether it ends inside one.
    """
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _OPEN.match(line.strip())
        name = match["name"] if match else None
        if inside:
            if name == "solution-end":
                inside = False
                i = _skip_block(lines, i, match["fence"])
                continue
            i += 1
            continue
        if name == "solution":
            i = _skip_block(lines, i, match["fence"])
            continue
        if name == "solution-start":
            inside = True
            i = _skip_block(lines, i, match["fence"])
            continue
        out.append(line)
        i += 1
    return "\n".join(out).strip("\n"), inside


def _skip_block(lines: list[str], start: int, fence: str) -> int:
    """Index of the line after the fence opened at ``start`` is closed."""
    char = fence[0]
    for j in range(start + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped and set(stripped) == {char} and len(stripped) >= len(fence):
            return j + 1
    raise ValueError(f"unclosed {fence} directive opened on line {start + 1}: {lines[start]!r}")


def strip_solutions(nb):
    """Return a copy of ``nb`` without solution blocks (the input is not modified).

    Raises
    ------
    ValueError
        If a ``{solution-start}`` block is never closed by ``{solution-end}``.
    """
    new = jupytext.reads(jupytext.writes(nb, fmt="ipynb"), fmt="ipynb")
    cells, inside = [], False
    for cell in new.cells:
        if cell.cell_type == "markdown":
            cell.source, inside = _strip_markdown(cell.source, inside)
            if cell.source.strip():
                cells.append(cell)
        elif not inside:
            cells.append(cell)
    if inside:
        raise ValueError("a {solution-start} block is not closed by {solution-end}")
    new.cells = cells
    return new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapter", type=Path, help="a MyST notebook, e.g. chapters/01_setting.md")
    parser.add_argument("-o", "--output", type=Path, required=True, help="output file")
    parser.add_argument("--to", choices=["ipynb", "md"], default=None,
                        help="output format (default: from the output's extension)")
    parser.add_argument("--strip-solutions", action="store_true",
                        help="remove {solution} and {solution-start}..{solution-end} blocks")
    args = parser.parse_args(argv)
    fmt = args.to or args.output.suffix.lstrip(".")
    if fmt not in ("ipynb", "md"):
        parser.error(f"output format must be ipynb or md; got {fmt!r} (use --to)")
    nb = jupytext.read(args.chapter)
    if args.strip_solutions:
        nb = strip_solutions(nb)
    jupytext.write(nb, args.output, fmt="ipynb" if fmt == "ipynb" else "md:myst")
    print(f"wrote {args.output} ({len(nb.cells)} cells"
          f"{', solutions removed' if args.strip_solutions else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
