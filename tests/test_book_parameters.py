"""tools/book_parameters.py: the record of the book's parameters is the pages' parameter cells.

Each page has at most one code cell tagged ``parameters``, one ``NAME = value  # range`` a line
(every range parseable), ending with ``helpers.checks.parameters(globals())``; the record
``src/helpers/checks/book_parameters.json`` that the hidden checks read is what the tool
writes from them now."""

import json
import subprocess
import sys

import jupytext
import pytest
from _tools import FRONT_MATTER, ROOT, load_tool

from helpers.checks import parse_range

book_parameters = load_tool("book_parameters")
PAGES = sorted((ROOT / "chapters").glob("*.md"))


def test_the_record_is_up_to_date():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "book_parameters.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_each_page_has_at_most_one_parameter_cell_with_a_range_beside_every_value(page):
    cells = [c for c in jupytext.read(page).cells
             if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    assert len(cells) <= 1, f"{page.name}: {len(cells)} cells are tagged 'parameters'"
    if not cells:
        return
    ranges = book_parameters.assignments(cells[0].source, page.name)
    assert ranges, f"{page.name}: the parameter cell sets no parameter"
    for name, text in ranges.items():
        assert name.isupper(), (page.name, name)
        parse_range(text)   # ValueError when the range cannot be read
    # the record holds the page's chapter with exactly these parameters and ranges
    chapter = book_parameters.CHAPTER.search(page.read_text(encoding="utf-8"))
    assert chapter is not None, f"{page.name}: a parameter cell but no checks.chapter(...)"
    record = json.loads(book_parameters.RECORD.read_text(encoding="utf-8"))
    entry = record[chapter.group(1)]
    assert {k: v["range"] for k, v in entry.items()} == ranges


# --------------------------------------------------------------------------- the tool itself
def _page(tmp_path, name, cell, chapter="example"):
    text = (FRONT_MATTER + "\n# A page\n\n```{code-cell} ipython3\nimport helpers\n"
            f'helpers.checks.chapter("{chapter}")\n```\n\n'
            "```{code-cell} ipython3\n:tags: [parameters]\n\n" + cell + "\n```\n")
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


CELL = """\
TEACHER = "tanh"                          # a teacher name
ETAS = [0.0, 1.0]                         # increasing numbers in [0, 8]: step sizes
D = helpers.by_scale(64, 256)             # an integer in [16, 1024]
helpers.checks.parameters(globals())"""


def test_the_tool_writes_quick_and_paper_values_and_checks_them(tmp_path, monkeypatch):
    monkeypatch.setattr(book_parameters, "PAGES", [_page(tmp_path, "01_x.md", CELL)])
    monkeypatch.setattr(book_parameters, "RECORD", tmp_path / "record.json")
    monkeypatch.setattr(book_parameters, "ROOT", tmp_path)
    assert book_parameters.main(["--check"]) == 1          # no record yet
    assert book_parameters.main([]) == 0
    record = json.loads((tmp_path / "record.json").read_text())
    assert record == {"example": {
        "TEACHER": {"quick": "tanh", "paper": "tanh", "range": "a teacher name"},
        "ETAS": {"quick": [0.0, 1.0], "paper": [0.0, 1.0],
                 "range": "increasing numbers in [0, 8]: step sizes"},
        "D": {"quick": 64, "paper": 256, "range": "an integer in [16, 1024]"}}}
    assert book_parameters.main(["--check"]) == 0
    # a page edited after the record was written: the check fails
    monkeypatch.setattr(book_parameters, "PAGES",
                        [_page(tmp_path, "01_x.md", CELL.replace("[0.0, 1.0]", "[0.0, 2.0]"))])
    assert book_parameters.main(["--check"]) == 1


@pytest.mark.parametrize(("cell", "match"), [
    (CELL.replace("  # a teacher name", ""), "TEACHER has no range"),
    (CELL.replace("a teacher name", "somewhere"), "a range must be"),
    (CELL.replace("D = helpers.by_scale(64, 256)", "D = helpers.by_scale(64, 4096)"),
     "D must be an integer in"),
    (CELL.replace('TEACHER = "tanh"', 'print("x")'), "holds only 'NAME = value  # range'"),
    (CELL.replace("\nhelpers.checks.parameters(globals())", ""), "must end with"),
])
def test_the_tool_refuses_a_cell_it_cannot_read(tmp_path, monkeypatch, cell, match):
    monkeypatch.setattr(book_parameters, "PAGES", [_page(tmp_path, "01_x.md", cell)])
    with pytest.raises(ValueError, match=match):
        book_parameters.record()


def test_the_tool_refuses_two_parameter_cells_and_a_cell_without_its_chapter(tmp_path):
    path = _page(tmp_path, "01_x.md", CELL)
    text = path.read_text()
    path.write_text(text + "\n```{code-cell} ipython3\n:tags: [parameters]\n\nX = 1  # a "
                    "number in [0, 2]\n```\n")
    with pytest.raises(ValueError, match="2 cells are tagged 'parameters'"):
        book_parameters.parameter_cell(path)
    path.write_text(text.replace('helpers.checks.chapter("example")', ""))
    pages = book_parameters.PAGES
    try:
        book_parameters.PAGES = [path]
        with pytest.raises(ValueError, match=r"no helpers.checks.chapter\(...\)"):
            book_parameters.record()
    finally:
        book_parameters.PAGES = pages
