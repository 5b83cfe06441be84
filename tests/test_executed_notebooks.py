"""_ext/book_executed.py: a page served from the execution cache keeps its outputs in the
executed notebook (download, student edition)."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from jupyter_cache import get_cache
from jupyter_cache.cache.main import CacheBundleIn

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_ext"))

import book_executed  # noqa: E402


def _notebook(with_output: bool):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    cell = nbformat.v4.new_code_cell("print(1)")
    if with_output:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
        cell.execution_count = 1
    nb.cells = [nbformat.v4.new_markdown_cell("# A page"), cell]
    return nb


def test_cached_outputs_are_put_back_and_other_notebooks_are_left(tmp_path):
    cache = get_cache(str(tmp_path / "cache"))
    cache.cache_notebook_bundle(CacheBundleIn(_notebook(True), str(tmp_path / "page.ipynb")),
                                check_validity=False, overwrite=True)
    stripped, complete, text_only = (tmp_path / n for n in ("a.ipynb", "b.ipynb", "c.ipynb"))
    nbformat.write(_notebook(False), stripped)
    nbformat.write(_notebook(True), complete)
    text = nbformat.v4.new_notebook()
    text.cells = [nbformat.v4.new_markdown_cell("no code")]
    nbformat.write(text, text_only)
    before = complete.read_text()
    done = book_executed.restore_outputs([stripped, complete, text_only], tmp_path / "cache")
    assert done == [stripped]
    restored = nbformat.read(stripped, as_version=4)
    assert restored.cells[1].outputs[0]["text"] == "1\n"
    assert complete.read_text() == before


def test_a_notebook_missing_from_the_cache_is_left_alone(tmp_path):
    get_cache(str(tmp_path / "cache"))
    path = tmp_path / "a.ipynb"
    nbformat.write(_notebook(False), path)
    assert book_executed.restore_outputs([path], tmp_path / "cache") == []
