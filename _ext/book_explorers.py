"""BokehJS for the explorers, served from the book's own files.

An explorer (``helpers.explorers``) is a Bokeh document in the page; it needs BokehJS.  This
extension copies its file from the installed ``bokeh`` package into
``_static/bokeh/`` of the HTML build (one copy for the whole book, named with Bokeh's
version so a browser never mixes versions) and adds it only to the pages that hold an
explorer, so no other page grows and no page loads anything from a CDN.
"""

from __future__ import annotations

import shutil
from pathlib import Path

# BokehJS only: the explorers' controls are the page's own form elements, not Bokeh widgets
# (helpers.explorers), so bokeh-widgets.min.js is not needed.
FILES = ("bokeh",)
MARKER = 'class="book-explorer"'     # the wrapper helpers.explorers puts around each one


def _bokeh():
    import bokeh

    js = Path(bokeh.__file__).parent / "server" / "static" / "js"
    return bokeh.__version__, {name: js / f"{name}.min.js" for name in FILES}


def _target(name: str, version: str) -> str:
    return f"bokeh/{name}-{version}.min.js"


def add_bokeh_to_explorer_pages(app, pagename, templatename, context, doctree):
    if MARKER not in context.get("body", ""):
        return
    version, _ = _bokeh()
    for name in FILES:  # in <head>, without defer: loaded before the page's embed scripts
        app.add_js_file(_target(name, version), priority=200)


def copy_bokeh(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    version, sources = _bokeh()
    for name, source in sources.items():
        target = Path(app.outdir) / "_static" / _target(name, version)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def setup(app):
    app.connect("html-page-context", add_bokeh_to_explorer_pages)
    app.connect("build-finished", copy_bokeh)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
