"""Executed notebooks with their outputs, also when the pages came from the execution cache.

myst-nb writes each page's notebook to ``_build/jupyter_execute`` (which the HTML offers for
download and ``make student`` builds the student book from).  When a page was executed in this
build its outputs are there; when it came from the cache (a build after ``make book``, as
``make pdf`` and ``make student`` run one), myst-nb 1.x writes the notebook it read, without
outputs (it merges the cached outputs into another copy).  At the end of the build this puts
the cached outputs back into every such notebook, in ``jupyter_execute`` and in the pages'
downloadable copies (``_sources``).
"""

from __future__ import annotations

from pathlib import Path


def _has_outputs(nb) -> bool:
    return any(c.get("outputs") for c in nb.cells if c.cell_type == "code")


def restore_outputs(notebook_paths, cache_path) -> list[Path]:
    """Merge the cached outputs into each notebook in ``notebook_paths`` that has code but no
    outputs; returns the notebooks rewritten."""
    import nbformat
    from jupyter_cache import get_cache

    cache, done = None, []
    for path in notebook_paths:
        nb = nbformat.read(path, as_version=4)
        if _has_outputs(nb) or not any(c.cell_type == "code" for c in nb.cells):
            continue
        cache = cache or get_cache(str(cache_path))
        try:
            _, merged = cache.merge_match_into_notebook(nb)
        except KeyError:          # not in the cache (a page that was never executed)
            continue
        if _has_outputs(merged):
            nbformat.write(merged, path)
            done.append(Path(path))
    return done


def on_build_finished(app, exception):
    if exception is not None:
        return
    cache_path = Path(app.config.nb_execution_cache_path or
                      Path(app.outdir).parent / ".jupyter_cache")
    if not cache_path.exists():
        return
    executed = Path(app.outdir).parent / "jupyter_execute"
    paths = [*executed.rglob("*.ipynb"), *(Path(app.outdir) / "_sources").rglob("*.ipynb")]
    restore_outputs(paths, cache_path)


def setup(app):
    app.connect("build-finished", on_build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
