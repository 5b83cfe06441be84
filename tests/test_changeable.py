"""Chapters a reader can change (issue 46): the rules of its "Done when" that the source shows.

* the code cells of chapters 1-7 define at most 35 functions in all (every ``def``, nested and
  in exercise solutions included): chapters define only what is new in them;
* one seeding idiom: no ``SEED + k``, no ``SeedSequence(``, no ``default_rng(`` in a chapter,
  except in chapter 1's from-scratch cell, which shows what the helpers do;
* no page calls the removed ``helpers.checks.setting(``;
* every page with hidden checks (``helpers.checks.chapter(...)``) has exactly one parameter
  cell, and no other code cell of the page assigns one of its parameters again (at the top
  level of a cell, where it would change the value every later cell reads).
"""

import ast
import re

import jupytext
import pytest
from _tools import ROOT

PAGES = sorted((ROOT / "chapters").glob("*.md"))
CHAPTERS = [p for p in PAGES if re.match(r"0[1-7]_", p.name)]
MAX_FUNCTIONS = 35
SEEDING = re.compile(r"SEED *\+ *[0-9]|SeedSequence\(|default_rng\(")
#: A line of chapter 1's from-scratch cell, the one place where streams are built by hand.
FROM_SCRATCH_MARKER = 'seed = helpers.named_seed(SEED, "first run")'
CHECKS_CHAPTER = "helpers.checks.chapter("


def _code_cells(page):
    """The page's code cells as jupytext reads them: (metadata, source without magics)."""
    out = []
    for cell in jupytext.read(page).cells:
        if cell.cell_type != "code":
            continue
        source = "\n".join(line for line in cell.source.splitlines()
                           if not line.lstrip().startswith(("%", "!")))
        out.append((cell.metadata, source))
    return out


def _parse(page, source):
    try:
        return ast.parse(source)
    except SyntaxError as err:   # a cell that does not parse is a failure of its own
        pytest.fail(f"{page.name}: a code cell does not parse: {err}")


def _fenced_cells(text):
    """Line ranges (first, last; 1-based, fences included) of the page's code cells."""
    lines, cells, i = text.split("\n"), [], 0
    while i < len(lines):
        opening = re.match(r"^(`{3,})\{code-cell\}", lines[i])
        if opening:
            fence = opening.group(1)
            j = next((k for k in range(i + 1, len(lines)) if lines[k].strip() == fence),
                     len(lines) - 1)
            cells.append((i + 1, j + 1))
            i = j
        i += 1
    return cells


# --------------------------------------------------------------------------- functions
def test_chapters_define_at_most_35_functions():
    counts = {}
    for page in CHAPTERS:
        counts[page.name] = sum(
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for _, source in _code_cells(page) for node in ast.walk(_parse(page, source)))
    total = sum(counts.values())
    assert len(counts) == 7, sorted(counts)
    assert total <= MAX_FUNCTIONS, (
        f"chapters 1-7 define {total} functions (at most {MAX_FUNCTIONS}): "
        + ", ".join(f"{name} {n}" for name, n in counts.items()))


# --------------------------------------------------------------------------- seeding
def test_one_seeding_idiom_outside_chapter_ones_from_scratch_cell():
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        allowed = set()
        if page.name.startswith("01_"):
            cells = [(a, b) for a, b in _fenced_cells(text)
                     if FROM_SCRATCH_MARKER in "\n".join(text.split("\n")[a - 1:b])]
            assert len(cells) == 1, f"{page.name}: the from-scratch cell (its line " \
                                    f"{FROM_SCRATCH_MARKER!r}) must be one code cell"
            allowed = set(range(cells[0][0], cells[0][1] + 1))
        for number, line in enumerate(text.split("\n"), 1):
            if SEEDING.search(line) and number not in allowed:
                found.append(f"{page.name}:{number}: {line.strip()}")
    assert not found, ("a seed must come from helpers.named_seed / helpers.stream (streams "
                       "keyed by name), not SEED + k, SeedSequence( or default_rng(:\n"
                       + "\n".join(found))


def test_no_page_calls_the_removed_checks_setting():
    found = [f"{page.name}:{number}" for page in PAGES
             for number, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1)
             if "helpers.checks.setting(" in line]
    assert not found, f"helpers.checks.setting is gone (the parameter cell replaces it): {found}"


# --------------------------------------------------------------------------- parameters
def _bound_names(tree):
    """Names a cell binds in the module's namespace: assignments at the top level of the cell
    (also inside if, for, with or try blocks, which do not open a scope) and ``global``
    declarations inside functions."""
    names = []

    def targets(node):
        if isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, ast.Tuple | ast.List):
            for elt in node.elts:
                targets(elt)
        elif isinstance(node, ast.Starred):
            targets(node.value)

    def visit(node, top):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                      | ast.Lambda):
            if top and not isinstance(node, ast.Lambda):
                names.append(node.name)
            for child in ast.walk(node):
                if isinstance(child, ast.Global):
                    names.extend(child.names)
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            return
        if isinstance(node, ast.Assign):
            for t in node.targets:
                targets(t)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
            targets(node.target)
        elif isinstance(node, ast.NamedExpr):
            targets(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets(node.optional_vars)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.extend((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.append(node.name)
        for child in ast.iter_child_nodes(node):
            visit(child, top)

    visit(tree, True)
    return names


def test_bound_names_sees_the_ways_a_cell_can_assign():
    source = ("A = 1\nB, (C, *D) = 2, (3, 4)\nE += 1\nfor F in []: pass\nif True:\n    G = 1\n"
              "with open('x') as H: pass\nimport I\nfrom j import K as L\n"
              "def f():\n    M = 1\n    global N\n    N = 2\n[O for O in []]\n(P := 3)\n")
    assert sorted(_bound_names(ast.parse(source))) == sorted(
        ["A", "B", "C", "D", "E", "F", "G", "H", "I", "L", "f", "N", "P"])


CHECKED = [p for p in PAGES if CHECKS_CHAPTER in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("page", CHECKED, ids=lambda p: p.stem)
def test_a_checked_page_writes_each_parameter_once(page):
    cells = _code_cells(page)
    tagged = [i for i, (meta, _) in enumerate(cells) if "parameters" in meta.get("tags", [])]
    assert len(tagged) == 1, f"{page.name}: {len(tagged)} cells are tagged 'parameters'"
    tree = _parse(page, cells[tagged[0]][1])
    params = {t.id for node in tree.body if isinstance(node, ast.Assign)
              for t in node.targets if isinstance(t, ast.Name)}
    assert params, f"{page.name}: the parameter cell assigns no parameter"
    again = []
    for i, (_, source) in enumerate(cells):
        if i == tagged[0]:
            continue
        for name in sorted(set(_bound_names(_parse(page, source))) & params):
            first = source.strip().split("\n", 1)[0]
            again.append(f"{name} (code cell {i + 1}: {first[:60]})")
    assert not again, (f"{page.name}: parameters assigned again outside the parameter cell: "
                       + "; ".join(again))
