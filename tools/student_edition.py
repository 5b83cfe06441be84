"""The student edition: every chapter without its solutions, as notebooks and as a book.

Usage (``make student`` runs both steps after ``make book``)::

    python tools/student_edition.py notebooks [--out _build/student/notebooks]
    python tools/student_edition.py book [--executed _build/jupyter_execute]
                                          [--out _build/student/src]

``notebooks`` writes one ``.ipynb`` per page of ``_toc.yml`` under ``chapters/`` (no outputs:
the student runs them). ``book`` writes a source tree for jupyter-book: the same pages,
stripped the same way but keeping the outputs of the main build's executed notebooks (so the
student book shows the figures of the book without running anything again), the other pages
copied as they are, and ``_config.yml`` switched to no execution. sphinx-exercise's own
``hide_solutions: true`` cannot be used instead: it fails on gated solutions
(``NotImplementedError ... unknown node type: solution_end_node``).

Stripping (``student_notebook``):

- every ``{solution}`` block and every ``{solution-start}`` ... ``{solution-end}`` block,
  with the code cells between them, is removed (``tools/export_chapter.py``); the exercises
  stay;
- a code cell that uses a name only a removed solution defined (directly, or through a cell
  that does) would fail without it: it is kept, tagged ``nbval-skip`` (nbval skips it) and
  ``skip-execution`` (myst-nb does not run it), its outputs cleared, and marked as the
  student's to complete;
- the hidden checks (cells tagged ``remove-cell``) stay, as self-checks: a student who runs
  the notebook runs the book's assertions too;
- a page whose front matter says ``student_edition: questions-only`` (the sample exam) keeps
  its questions only: its solutions go as above, and every code cell goes with them (its
  setup and hidden checks would give answers away), so nothing is left to run.

In the student book a page that the main build executes at every build (front matter
``mystnb: execution_mode: force``, the instructors page) is switched back to the student
edition's setting: nothing runs, the outputs of the main build stay.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import importlib.util
import shutil
import sys
from pathlib import Path

import jupytext
import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("export_chapter", Path(__file__).with_name(
    "export_chapter.py"))
export_chapter = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export_chapter)

STUDENT_TAGS = ("nbval-skip", "skip-execution")
STUDENT_NOTE = ("# Yours to complete: this cell uses the result of an exercise above "
                "(its solution is not in this edition).\n")
SELF_CHECK_NOTE = ("# Self-check: the book's hidden assertions for this chapter; they pass "
                   "when the cells above ran as written.\n")
_BUILTINS = set(dir(builtins))
# Front matter (notebook metadata) of a page that keeps its questions only.
EDITION_KEY, QUESTIONS_ONLY = "student_edition", "questions-only"


def _python(source: str) -> str:
    """A cell's source without IPython magics and shell escapes."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


class _TopLevelBindings(ast.NodeVisitor):
    """Names bound at a cell's top level; function, class and lambda bodies and
    comprehensions have scopes of their own and are not entered."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def _scope(self, node):
        self.names.add(node.name)
        for default in (*node.args.defaults, *node.args.kw_defaults):
            if default is not None:
                self.visit(default)

    visit_FunctionDef = visit_AsyncFunctionDef = _scope

    def visit_ClassDef(self, node):
        self.names.add(node.name)

    def visit_Lambda(self, node):
        pass

    def _comprehension(self, node):
        pass

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Import(self, node):
        self.names |= {(a.asname or a.name).split(".")[0] for a in node.names}

    visit_ImportFrom = visit_Import


def defined_names(source: str) -> set[str]:
    """Names a cell binds at its top level (assignments, defs, classes, imports, loops)."""
    try:
        tree = ast.parse(_python(source))
    except SyntaxError:
        return set()
    visitor = _TopLevelBindings()
    visitor.visit(tree)
    return visitor.names


def used_names(source: str) -> set[str]:
    """Names a cell reads that it does not bind itself, at any depth (nor take as arguments):
    a function defined inside another one and called there is the cell's own."""
    try:
        tree = ast.parse(_python(source))
    except SyntaxError:
        return set()
    loads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx,
                                                                                 ast.Load)}
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)}
    local |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
              for a in (*n.posonlyargs, *n.args, *n.kwonlyargs, n.vararg, n.kwarg) if a}
    local |= {n.name for n in ast.walk(tree)
              if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    local |= {n.name for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler) and n.name}
    local |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
              if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    local |= defined_names(source)
    return loads - local - _BUILTINS


def questions_only(nb) -> bool:
    """Whether the page keeps its questions only (``student_edition: questions-only``)."""
    return nb.metadata.get(EDITION_KEY) == QUESTIONS_ONLY


def student_notebook(nb, *, questions: bool | None = None):
    """A copy of ``nb`` without solutions, with the cells that need them marked.

    Returns ``(notebook, needs_solution)``: the list holds the indices (in the returned
    notebook) of the code cells marked as the student's to complete. With ``questions``
    (default: :func:`questions_only` of ``nb``) every code cell is removed too and the list is
    empty.
    """
    marked = jupytext.reads(jupytext.writes(nb, fmt="ipynb"), fmt="ipynb")  # a copy
    for i, cell in enumerate(marked.cells):
        cell.metadata["student_edition_index"] = i
    stripped = export_chapter.strip_solutions(marked)
    kept = {c.metadata.pop("student_edition_index") for c in stripped.cells}
    if questions is None:
        questions = questions_only(nb)
    if questions:
        stripped.cells = [c for c in stripped.cells if c.cell_type != "code"]
        return stripped, []
    removed_defs: set[str] = set()   # bound by the code cells of removed solutions
    for i, cell in enumerate(marked.cells):
        if cell.cell_type == "code" and i not in kept:
            removed_defs |= defined_names(cell.source)
    available: set[str] = set()   # bound by a kept cell that runs
    missing = set(removed_defs)   # bound only by removed (or skipped) cells
    needs = []
    for i, cell in enumerate(stripped.cells):
        if cell.cell_type != "code":
            continue
        wanted = used_names(cell.source) & (missing - available)
        tags = list(cell.metadata.get("tags", []))
        if wanted:
            needs.append(i)
            cell.metadata["tags"] = tags + [t for t in STUDENT_TAGS if t not in tags]
            cell.source = STUDENT_NOTE + f"# It needs: {', '.join(sorted(wanted))}\n" \
                + cell.source
            cell.outputs, cell.execution_count = [], None
            missing |= defined_names(cell.source)
        else:
            available |= defined_names(cell.source)
            if "remove-cell" in tags and not cell.source.startswith(SELF_CHECK_NOTE):
                cell.source = SELF_CHECK_NOTE + cell.source
    return stripped, needs


def toc_pages(root: Path = ROOT) -> list[str]:
    """Every page of ``_toc.yml``, root first, without extension."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    pages = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return pages


def _source(root: Path, page: str) -> Path:
    for suffix in (".md", ".ipynb"):
        if (root / f"{page}{suffix}").is_file():
            return root / f"{page}{suffix}"
    raise FileNotFoundError(f"_toc.yml names {page!r}, found neither .md nor .ipynb")


def _is_notebook(path: Path) -> bool:
    if path.suffix == ".ipynb":
        return True
    head = path.read_text(encoding="utf-8")[:600]
    return head.startswith("---") and "kernelspec:" in head


def write_notebooks(out: Path, root: Path = ROOT) -> list[tuple[Path, int]]:
    """One solution-free ``.ipynb`` per chapter; returns (path, cells to complete)."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for page in toc_pages(root):
        if not page.startswith("chapters/"):
            continue
        nb, needs = student_notebook(jupytext.read(_source(root, page)))
        target = out / (Path(page).name + ".ipynb")
        jupytext.write(nb, target, fmt="ipynb")
        written.append((target, len(needs)))
    return written


def write_book(out: Path, executed: Path, root: Path = ROOT) -> Path:
    """The student book's source tree in ``out`` (emptied first); returns ``out``."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name in ("_toc.yml", "references.bib"):
        shutil.copy2(root / name, out / name)
    for folder in ("_ext", "assets"):
        shutil.copytree(root / folder, out / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    config["title"] = f"{config['title']} (student edition)"
    config["execute"]["execute_notebooks"] = "off"
    # The pages are notebooks here, so the download menu offers each chapter's .ipynb (its
    # source); launch buttons would point at .ipynb files the repository does not have.
    config.pop("launch_buttons", None)
    (out / "_config.yml").write_text(
        "# Written by tools/student_edition.py from the book's _config.yml: the student\n"
        "# edition shows the outputs of the main build, without solutions; nothing runs.\n"
        + yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    for page in toc_pages(root):
        src = _source(root, page)
        if not _is_notebook(src):
            (out / src.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, out / src.relative_to(root))
            continue
        ran = executed / f"{page}.ipynb"
        if not ran.is_file():
            raise FileNotFoundError(f"{ran}: build the book first (make book)")
        source_nb = jupytext.read(src)  # the flags as written, whatever the build kept
        nb, _ = student_notebook(nbformat.read(ran, as_version=4),
                                 questions=questions_only(source_nb))
        nb.metadata.get("mystnb", {}).pop("execution_mode", None)  # nothing runs here
        if "mystnb" in nb.metadata and not nb.metadata["mystnb"]:
            del nb.metadata["mystnb"]
        target = out / f"{page}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p_nb = sub.add_parser("notebooks", help="one solution-free .ipynb per chapter")
    p_nb.add_argument("--out", type=Path, default=ROOT / "_build/student/notebooks")
    p_book = sub.add_parser("book", help="the student book's sources, outputs kept")
    p_book.add_argument("--executed", type=Path, default=ROOT / "_build/jupyter_execute")
    p_book.add_argument("--out", type=Path, default=ROOT / "_build/student/src")
    args = parser.parse_args(argv)
    if args.what == "notebooks":
        for path, n in write_notebooks(args.out):
            print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"
                  + (f" ({n} cells for the student to complete)" if n else ""))
    else:
        print(f"wrote the student book's sources to {write_book(args.out, args.executed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
