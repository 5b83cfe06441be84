"""tools/export_chapter.py: solutions are removed, exercises and other cells are kept."""

import jupytext
import pytest
from _tools import FRONT_MATTER, load_tool

export_chapter = load_tool("export_chapter")

CHAPTER = FRONT_MATTER + """

# A chapter

```{code-cell} ipython3
x = 1
```

## Exercises

```{exercise}
:label: demo-ex1

Compute x.
```

```{solution} demo-ex1
:class: dropdown

It is one.
```

````{exercise-start}
:label: demo-ex2
````

```{code-cell} ipython3
y = 2  # part of the exercise
```

````{exercise-end}
````

````{solution-start} demo-ex2
:class: dropdown
````

The answer needs code:

```{code-cell} ipython3
secret = 42
```

````{solution-end}
````

:::{solution} demo-ex2
A colon-fenced solution.
:::

Closing words.
"""


@pytest.fixture
def chapter(tmp_path):
    path = tmp_path / "demo.md"
    path.write_text(CHAPTER, encoding="utf-8")
    return path


def _text(nb):
    return "\n".join(cell.source for cell in nb.cells)


def test_strip_solutions_removes_solution_blocks_and_their_code(chapter):
    nb = export_chapter.strip_solutions(jupytext.read(chapter))
    text = _text(nb)
    assert "solution" not in text
    assert "It is one" not in text and "secret" not in text and "colon-fenced" not in text
    assert "The answer needs code" not in text


def test_strip_solutions_keeps_exercises_and_other_cells(chapter):
    nb = export_chapter.strip_solutions(jupytext.read(chapter))
    text = _text(nb)
    for kept in ("x = 1", "Compute x.", "y = 2", "{exercise-start}", "{exercise-end}",
                 "Closing words."):
        assert kept in text


def test_strip_solutions_does_not_modify_its_input(chapter):
    nb = jupytext.read(chapter)
    before = _text(nb)
    export_chapter.strip_solutions(nb)
    assert _text(nb) == before


def test_main_writes_ipynb_without_solutions(chapter, tmp_path):
    out = tmp_path / "assignment.ipynb"
    assert export_chapter.main([str(chapter), "--strip-solutions", "-o", str(out)]) == 0
    nb = jupytext.read(out)
    assert "secret" not in _text(nb) and "y = 2" in _text(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"


def test_main_keeps_solutions_by_default(chapter, tmp_path):
    out = tmp_path / "full.md"
    export_chapter.main([str(chapter), "-o", str(out)])
    assert "secret = 42" in out.read_text(encoding="utf-8")


def test_unclosed_solution_start_raises(tmp_path):
    path = tmp_path / "bad.md"
    path.write_text(CHAPTER.replace("````{solution-end}\n````\n", ""), encoding="utf-8")
    with pytest.raises(ValueError, match="not closed by"):
        export_chapter.strip_solutions(jupytext.read(path))


def test_unclosed_fence_raises(tmp_path):
    path = tmp_path / "bad.md"
    path.write_text("# t\n\n```{solution} x\nnever closed\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unclosed"):
        export_chapter.strip_solutions(jupytext.read(path))


def test_unknown_output_format_is_rejected(chapter, tmp_path):
    with pytest.raises(SystemExit):
        export_chapter.main([str(chapter), "-o", str(tmp_path / "out.txt")])
