"""The chapters draw figures only through the book's style: no hand-set figure size, no font
smaller than the style's smallest (``helpers.plotting.MIN_FONT_PT``).

The browser tests measure every figure's smallest text on the built page assuming exactly
this (text at the style's sizes, figures at the widths of ``helpers.plotting.subplots``);
this test reads the chapters' code cells, so a violation is found without building the book.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest
from matplotlib import rc_params_from_file
from matplotlib.font_manager import font_scalings

from helpers.plotting import MIN_FONT_PT, STYLE_PATH

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*ROOT.glob("chapters/*.md"), ROOT / "intro.md"])

# figsize=..., plt.figure(...) / plt.subplots(...) (use helpers.plotting.subplots), set_size_inches
_FIGSIZE = re.compile(r"\bfigsize\s*=|\bplt\.(?:figure|subplots|subplot_mosaic)\s*\("
                      r"|\bset_size_inches\s*\(|rcParams\[\s*['\"]figure\.figsize")
# explicit font sizes: keyword arguments, dictionary entries and rcParams
_FONT = re.compile(r"\b(?:fontsize|labelsize|titlesize|title_fontsize)\s*=\s*"
                   r"(?P<kw>[0-9.]+|['\"][a-z-]+['\"])"
                   r"|['\"](?:size|fontsize)['\"]\s*:\s*(?P<dict>[0-9.]+|['\"][a-z-]+['\"])"
                   r"|rcParams\[\s*['\"][a-z.]*size['\"]\s*\]\s*=\s*(?P<rc>[0-9.]+|['\"][a-z-]+['\"])"
                   r"|\.set_(?:fontsize|size)\(\s*(?P<call>[0-9.]+|['\"][a-z-]+['\"])")


def _style_font_size() -> float:
    return float(rc_params_from_file(STYLE_PATH, use_default_template=False)
                 .get("font.size", 10.0))


def font_points(value: str) -> float:
    """A font size as written in code (a number or a quoted name), in points."""
    value = value.strip("'\"")
    if value in font_scalings:
        return _style_font_size() * font_scalings[value]
    return float(value)


def code_of(path: Path) -> str:
    notebook = jupytext.read(path)
    return "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")


def violations(code: str) -> list[str]:
    """Hand-set figure sizes and fonts below MIN_FONT_PT in a chapter's code."""
    found = [f"figure not made by helpers.plotting.subplots: {m.group(0)!r}"
             for m in _FIGSIZE.finditer(code)]
    for m in _FONT.finditer(code):
        value = next(v for v in m.groupdict().values() if v is not None)
        if font_points(value) < MIN_FONT_PT - 1e-9:
            found.append(f"font below {MIN_FONT_PT:g} pt: {m.group(0)!r}")
    return found


def test_the_rules_catch_what_they_should():
    bad = ("fig, ax = plt.subplots(1, 2, figsize=(12, 4))\nax.legend(fontsize=8)\n"
           "ax.tick_params(labelsize='small')\nplt.rcParams['font.size'] = 9\n"
           "ax.legend(prop={'size': 7})\nplt.figure()\n")
    assert len(violations(bad)) == 7
    good = ("fig, ax = helpers.plotting.subplots(1, 2)\nax.legend(fontsize=10)\n"
            "ax.set_title('(a)', fontsize='large')\nrng.normal(size=3)\n")
    assert violations(good) == []


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_chapters_use_the_book_figure_style(path):
    found = violations(code_of(path))
    assert not found, f"{path.name}: {found}"
