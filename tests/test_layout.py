"""The layers of the package point one way: theory imports no simulation module, pages import
the package's top level, and the README's map lists every module."""

import subprocess
import sys

import pytest

# What theory may load: the package's entry, its argument checks, the activations (Hermite
# coefficients), the second layer's law (shared with the simulation, imports neither) and its
# own modules.  An allow-list, so a new simulation module is caught too.
THEORY_MAY_LOAD = ("helpers", "helpers._validation", "helpers.activations", "helpers.quadrature",
                   "helpers.second_layer")


def test_importing_theory_loads_no_simulation_module():
    code = ("import sys, helpers.theory; "
            "print(' '.join(m for m in sys.modules if m.startswith('helpers')))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    assert "helpers.theory.small_step" in out and "helpers.theory.rmt" in out
    loaded = [m for m in out
              if m not in THEORY_MAY_LOAD and not m.startswith("helpers.theory")]
    assert loaded == [], f"helpers.theory imports simulation code: {loaded}"


def test_package_attributes_load_lazily_and_unknown_names_fail():
    import helpers

    assert helpers.ridge_path is helpers.ridge.ridge_path
    assert "simulate_one_step" in dir(helpers)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        helpers.nothing  # noqa: B018


def test_pages_import_helpers_one_way():
    """Every page imports from the package's top level (``import helpers``, ``from helpers
    import module, name``), never ``from helpers.module import name``; each name exists."""
    import re
    from pathlib import Path

    import helpers

    root = Path(__file__).resolve().parents[1]
    pages = sorted((root / "chapters").glob("*.md")) + [root / "intro.md"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        deep = re.findall(r"^\s*(?:from|import) helpers\.\w+.*$", text, flags=re.M)
        assert not deep, f"{page.name}: import from the top level of helpers: {deep}"
        for names in re.findall(r"^\s*from helpers import ([^\n(]+)$", text, flags=re.M):
            for name in names.split(","):
                name = name.split(" as ")[0].strip()
                assert name in helpers.__all__, f"{page.name}: helpers has no {name!r}"


def test_the_readme_map_of_the_code_matches_the_package():
    """Every module of src/helpers has its line in the README's map, and every line names a
    module that exists."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "README.md").read_text(encoding="utf-8")
    block = text.split("## Map of the code", 1)[1].split("```", 2)[1]
    helpers_dir = root / "src" / "helpers"
    top = {p.name for p in helpers_dir.glob("*.py") if p.name != "__init__.py"}
    flat = set(re.findall(r"^(\w+\.py)\b", block, flags=re.M))
    assert flat == top, f"README map vs src/helpers: missing {top - flat}, extra {flat - top}"
    # each subpackage (theory/, checks/): a line "name/" and its modules indented below it
    for pkg in sorted(p.parent.name for p in helpers_dir.glob("*/__init__.py")):
        files = {p.name for p in (helpers_dir / pkg).glob("*.py") if p.name != "__init__.py"}
        part = block.split(f"\n{pkg}/", 1)[1]
        part = re.split(r"\n\S", part, maxsplit=1)[0]      # up to the next unindented line
        listed = set(re.findall(r"^  (\w+\.py)\b", part, flags=re.M))
        assert listed == files, \
            f"README map vs {pkg}/: missing {files - listed}, extra {listed - files}"
