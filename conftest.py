"""Let nbval collect the MyST Markdown chapters.

nbval reads only ``.ipynb`` files.  For every ``chapters/*.md`` whose front matter declares
``jupytext`` and ``kernelspec``, this plugin reads the notebook with jupytext and hands it to
nbval's own collector, so each chapter is executed cell by cell (kernel started in the
chapter's folder) whenever pytest runs with ``--nbval`` or ``--nbval-lax``.
"""

from __future__ import annotations

import pytest


def _is_myst_notebook(path) -> bool:
    if path.suffix != ".md" or path.parent.name != "chapters":
        return False
    head = path.read_text(encoding="utf-8")[:3000]
    return head.startswith("---") and "jupytext:" in head and "kernelspec:" in head


def pytest_collect_file(file_path, parent):
    opt = parent.config.option
    if not (getattr(opt, "nbval", False) or getattr(opt, "nbval_lax", False)):
        return None
    if not _is_myst_notebook(file_path):
        return None
    return _myst_file_class().from_parent(parent, path=file_path)


def _myst_file_class():
    import jupytext
    import nbval.plugin as nbval_plugin

    class MystNotebookFile(nbval_plugin.IPyNbFile):
        """nbval's collector fed with the notebook jupytext reads from a MyST file."""

        def collect(self):
            nb = jupytext.read(str(self.path))
            real = nbval_plugin.nbformat

            class _Reader:
                def __getattr__(self, name):
                    return getattr(real, name)

                @staticmethod
                def read(*_args, **_kwargs):
                    return nb

            nbval_plugin.nbformat = _Reader()
            try:
                yield from super().collect()
            finally:
                nbval_plugin.nbformat = real

    return MystNotebookFile


@pytest.fixture
def rng():
    """A fresh, seeded generator for unit tests."""
    import numpy as np

    return np.random.default_rng(20221128)
