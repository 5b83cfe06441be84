"""Every figure cell gives its image an alternative text (WCAG 2.1, criterion 1.1.1).

The chapters' figures are code-cell outputs; ``mystnb: image: alt:`` in the cell's options
becomes the ``alt`` of the image in the HTML.  This test reads the pages' cells (no build):
every cell with a ``figure`` option has an alt text that says what is drawn, in plain words (no
TeX, no file name), and does not merely repeat the caption's first words.  The browser tests
check the built pages' images the same way.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*ROOT.glob("chapters/*.md"), ROOT / "intro.md"])


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def figure_cells(path: Path):
    notebook = jupytext.read(path)
    for cell in notebook.cells:
        options = cell.metadata.get("mystnb", {})
        if cell.cell_type == "code" and "figure" in options:
            yield options["figure"], options.get("image", {}).get("alt")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_figure_has_a_meaningful_alt_text(path):
    for figure, alt in figure_cells(path):
        name = figure.get("name", "?")
        assert alt, f"{path.name}: figure {name} has no alt text (mystnb: image: alt:)"
        assert 60 <= len(alt) <= 500, f"{path.name}: {name}: alt text of {len(alt)} characters"
        assert not re.search(r"[$\\{}]|\.png\b|<Figure", alt), f"{path.name}: {name}: {alt!r}"
        head = _words(figure.get("caption", ""))[:6]
        assert _words(alt)[:len(head)] != head, f"{path.name}: {name} repeats its caption"


def test_the_book_has_figures():
    assert sum(1 for p in PAGES for _ in figure_cells(p)) >= 40
