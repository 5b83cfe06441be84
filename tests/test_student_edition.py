"""tools/student_edition.py: no solution left, exercises and self-checks kept, and a cell
that needs a removed solution marked as the student's (skipped by nbval and myst-nb)."""

import re

import jupytext
import nbformat
import pytest
import yaml
from _tools import FRONT_MATTER, ROOT, load_tool

student_edition = load_tool("student_edition")

CHAPTER = FRONT_MATTER + """

# A chapter

```{code-cell} ipython3
import math
x = 1
```

```{code-cell} ipython3
:tags: [remove-cell]
assert x == 1
```

## Exercises

```{exercise}
:label: demo-ex1

Compute the answer.
```

```{solution-start} demo-ex1
:class: dropdown
```

The secret reasoning.

```{code-cell} ipython3
answer = math.sqrt(x) + 41
def helper(t):
    return t + answer
```

```{solution-end}
```

```{code-cell} ipython3
doubled = 2 * answer   # needs the removed solution
```

```{code-cell} ipython3
print(doubled + x)     # needs it through the cell above
```

```{code-cell} ipython3
def f(answer):         # an argument of the same name: no dependency
    return answer + x
fig = f(1)
```

```{exercise}
:label: demo-ex2

Say why.
```

```{solution} demo-ex2
Because of the secret argument.
```

```{code-cell} ipython3
:tags: [remove-cell]
assert doubled == 84
```
"""


def _student(text=CHAPTER):
    return student_edition.student_notebook(jupytext.reads(text, fmt="md:myst"))


def test_solutions_are_gone_and_exercises_stay():
    nb, _ = _student()
    text = "\n".join(c.source for c in nb.cells)
    assert "secret" not in text and "{solution" not in text
    assert "answer = math.sqrt" not in text and "def helper" not in text
    assert text.count("{exercise}") == 2 and "Compute the answer." in text and "Say why." in text


def test_cells_that_need_a_removed_solution_are_the_students():
    nb, needs = _student()
    marked = [nb.cells[i].source for i in needs]
    assert len(marked) == 3, marked
    assert "doubled = 2 * answer" in marked[0] and "answer" in marked[0].split("\n")[1]
    assert "print(doubled + x)" in marked[1]
    assert "assert doubled == 84" in marked[2]  # a self-check that needs the answer
    for i in needs:
        tags = nb.cells[i].metadata["tags"]
        assert "nbval-skip" in tags and "skip-execution" in tags
        assert nb.cells[i].source.startswith(student_edition.STUDENT_NOTE)
    free = [c for i, c in enumerate(nb.cells) if c.cell_type == "code" and i not in needs]
    assert [c.source.splitlines()[-1] for c in free] == ["x = 1", "assert x == 1",
                                                         "fig = f(1)"]


def test_hidden_checks_stay_as_self_checks():
    nb, _ = _student()
    checks = [c for c in nb.cells if "remove-cell" in c.metadata.get("tags", [])]
    assert len(checks) == 2
    assert checks[0].source.startswith(student_edition.SELF_CHECK_NOTE)


def test_the_input_is_not_modified():
    nb = jupytext.reads(CHAPTER, fmt="md:myst")
    before = jupytext.writes(nb, fmt="md:myst")
    student_edition.student_notebook(nb)
    assert jupytext.writes(nb, fmt="md:myst") == before


def test_names_bound_and_used():
    src = ("import numpy as np\nfrom a.b import c\nfor i in range(3):\n    y = i\n"
           "def g(z=w):\n    inner = 1\n    return inner\nclass K:\n    attr = 2\n"
           "[q for q in r]\nt = lambda s: s + u\n")
    assert student_edition.defined_names(src) == {"np", "c", "i", "y", "g", "K", "t"}
    assert student_edition.used_names(src) == {"w", "r", "u"}
    assert student_edition.used_names("%matplotlib inline\nprint(v)") == {"v"}
    # names bound inside a function are the cell's own, not a dependency on another cell
    nested = ("def outer(k):\n    def below(j):\n        import math\n        return j < w\n"
              "    try:\n        return below(k)\n    except ValueError as err:\n"
              "        return math, err\n")
    assert student_edition.used_names(nested) == {"w"}


def test_a_name_a_solution_binds_does_not_mark_a_cell_that_binds_it_inside_a_function():
    page = CHAPTER.replace("def helper(t):", "def below(t):").replace(
        "def f(answer):", "def f(answer):\n    def below(t):\n        return t\n"
                          "    answer = below(answer)")
    nb, needs = _student(page)
    assert "def below(t):\n        return t" in "\n".join(nb.cells[i].source
                                                       for i in range(len(nb.cells))
                                                       if i not in needs)
    assert student_edition.defined_names("not python (") == set()


def test_every_chapter_of_the_book(tmp_path):
    written = student_edition.write_notebooks(tmp_path)
    chapters = [p for p in student_edition.toc_pages() if p.startswith("chapters/")]
    assert len(written) == len(chapters) >= 6
    for path, _ in written:
        original = jupytext.read(ROOT / "chapters" / (path.stem + ".md"))
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells)
        assert not re.search(r"\{solution(-start|-end)?\}", text), path.name
        labels = re.findall(r"\{exercise(?:-start)?\}[^\n]*\n:label: (\S+)",
                            "\n".join(c.source for c in original.cells))
        assert labels, path.name
        for label in labels:
            assert f":label: {label}" in text, (path.name, label)
        hidden = sum("remove-cell" in c.metadata.get("tags", []) for c in original.cells
                     if c.cell_type == "code")
        kept = sum("remove-cell" in c.metadata.get("tags", []) for c in nb.cells)
        assert kept == hidden, path.name   # solutions carry no hidden checks


def test_student_book_sources(tmp_path):
    root = tmp_path / "book"
    (root / "chapters").mkdir(parents=True)
    (root / "chapters/01_a.md").write_text(CHAPTER)
    (root / "intro.md").write_text("# Intro\n")
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - chapters:\n"
                                   "      - file: chapters/01_a\n")
    (root / "_config.yml").write_text("title: T\nexecute:\n  execute_notebooks: cache\n"
                                      "launch_buttons:\n  binderhub_url: x\n")
    (root / "references.bib").write_text("")
    for folder in ("_ext", "assets"):
        (root / folder).mkdir()
    executed = tmp_path / "executed"
    (executed / "chapters").mkdir(parents=True)
    nb = jupytext.reads(CHAPTER, fmt="md:myst")
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="ran\n")]
    nbformat.write(nb, executed / "chapters/01_a.ipynb")
    out = student_edition.write_book(tmp_path / "src", executed, root=root)
    config = yaml.safe_load((out / "_config.yml").read_text())
    assert config["execute"]["execute_notebooks"] == "off"
    assert config["title"].endswith("(student edition)") and "launch_buttons" not in config
    assert (out / "intro.md").read_text() == "# Intro\n"
    book_nb = nbformat.read(out / "chapters/01_a.ipynb", as_version=4)
    assert "secret" not in "\n".join(c.source for c in book_nb.cells)
    outputs = [bool(c.outputs) for c in book_nb.cells if c.cell_type == "code"]
    assert outputs == [True, True, False, False, True, False]  # the student's cells cleared
    (executed / "chapters/01_a.ipynb").unlink()
    with pytest.raises(FileNotFoundError, match="make book"):
        student_edition.write_book(tmp_path / "src", executed, root=root)


def _front_matter(extra):
    """FRONT_MATTER with ``extra`` (YAML lines) added before its closing line."""
    return FRONT_MATTER.removesuffix("---\n") + extra + "---\n"


EXAM = _front_matter("student_edition: questions-only\n") + """

# An exam

```{code-cell} ipython3
:tags: [remove-cell]
import math
ANSWER_CONSTANT = 0.5
```

```{exercise} First question
:label: demo-q1

State the floor.
```

```{solution-start} demo-q1
:class: dropdown
```

The floor is the secret number.

```{code-cell} ipython3
print(math.sqrt(ANSWER_CONSTANT))
```

```{solution-end}
```

```{code-cell} ipython3
:tags: [remove-cell]
assert abs(ANSWER_CONSTANT - 0.5) < 1e-12   # a hidden check that gives the answer away
```

```{exercise} Second question
:label: demo-q2

Say why.
```

```{solution} demo-q2
Because of the secret argument.
```
"""


def test_a_questions_only_page_keeps_its_questions_and_nothing_else():
    nb = jupytext.reads(EXAM, fmt="md:myst")
    assert student_edition.questions_only(nb)
    out, needs = student_edition.student_notebook(nb)
    assert needs == [] and all(c.cell_type == "markdown" for c in out.cells)
    text = "\n".join(c.source for c in out.cells)
    assert "secret" not in text and "ANSWER_CONSTANT" not in text and "{solution" not in text
    assert "State the floor." in text and "Say why." in text and "# An exam" in text
    # a chapter is not such a page: its code cells stay
    chapter, _ = student_edition.student_notebook(jupytext.reads(CHAPTER, fmt="md:myst"))
    assert not student_edition.questions_only(chapter)
    assert any(c.cell_type == "code" for c in chapter.cells)


def _solution_blocks(text):
    return re.findall(r"^```\{solution-start\}.*?^```\{solution-end\}", text, re.M | re.S)


def test_the_books_exam_leaves_no_answer_in_the_student_edition():
    """exam.md is in the table of contents, marked questions-only; stripped, it keeps every
    question (4 to 6) and no line of any solution, no code cell, no output."""
    assert "exam" in student_edition.toc_pages()
    source = (ROOT / "exam.md").read_text(encoding="utf-8")
    nb = jupytext.reads(source, fmt="md:myst")
    assert student_edition.questions_only(nb)
    out, _ = student_edition.student_notebook(nb)
    assert all(c.cell_type == "markdown" for c in out.cells)
    text = "\n".join(c.source for c in out.cells)
    labels = re.findall(r"^```\{exercise\}[^\n]*\n:label: (\S+)", source, re.M)
    assert 4 <= len(labels) <= 6, labels
    for label in labels:
        assert f":label: {label}" in text, label
    blocks = _solution_blocks(source)
    assert len(blocks) == len(labels)             # one solution per question
    assert not re.search(r"\{solution(-start|-end)?\}", text)
    answer_lines = {line.strip() for block in blocks for line in block.splitlines()
                    if len(line.strip()) > 25 and not line.startswith("```")}
    assert answer_lines
    for line in answer_lines:
        assert line not in text, line


def test_student_book_keeps_the_exam_questions_only_and_runs_nothing(tmp_path):
    root = tmp_path / "book"
    root.mkdir()
    (root / "exam.md").write_text(EXAM)
    forced = _front_matter("mystnb:\n  execution_mode: force\n") + "\n# Times\n"
    (root / "intro.md").write_text(forced + "\n```{code-cell} ipython3\nprint(1)\n```\n")
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n"
                                   "  - file: exam\n")
    (root / "_config.yml").write_text("title: T\nexecute:\n  execute_notebooks: cache\n")
    (root / "references.bib").write_text("")
    for folder in ("_ext", "assets"):
        (root / folder).mkdir()
    executed = tmp_path / "executed"
    executed.mkdir()
    for page in ("exam", "intro"):
        nb = jupytext.read(root / f"{page}.md")
        nb.metadata.pop("student_edition", None)  # whatever the build kept, the source decides
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                                       text="0.7071 secret\n")]
        nbformat.write(nb, executed / f"{page}.ipynb")
    out = student_edition.write_book(tmp_path / "src", executed, root=root)
    exam = nbformat.read(out / "exam.ipynb", as_version=4)
    assert all(c.cell_type == "markdown" for c in exam.cells)
    assert "secret" not in nbformat.writes(exam) and "Say why." in nbformat.writes(exam)
    intro = nbformat.read(out / "intro.ipynb", as_version=4)
    assert "mystnb" not in intro.metadata                 # the student edition runs nothing
    assert [c.outputs for c in intro.cells if c.cell_type == "code"][0]  # the outputs stay
