"""Run times in the pages: the instructors page's table, and the landing page's summary.

``{{ chapter_run_times }}`` (a MyST substitution): the range of the chapters' run times at the
quick scale, from the latest run of each chapter in ``benchmarks/results/chapters_quick.json``
(``make bench-chapters``), e.g. "8 to 50 seconds".

The instructors page's run-time table: each page and how long it took to execute.

myst-nb's ``{nb-exec-table}`` also lists build internals (modification time, execution
method, the page's file name) and a status glyph that the book's font draws as an empty box.
Its post-transform builds the table with ``myst_nb.ext.execution_tables.make_stat_table``;
this extension puts a plainer table maker in that place (same data, fewer columns).
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path

from docutils import nodes
from myst_nb.ext import execution_tables
from sphinx.addnodes import pending_xref


def make_run_time_table(parent_docname: str, metadata) -> nodes.table:
    """Two columns: the page (a link showing its title) and its execution time."""
    table = nodes.table(classes=["colwidths-auto"])
    tgroup = nodes.tgroup(cols=2)
    table += tgroup
    tgroup += [nodes.colspec(colwidth=70), nodes.colspec(colwidth=30)]
    head = nodes.row()
    for name in ("Page", "Run time (s)"):
        head += nodes.entry("", nodes.paragraph(text=name))
    tgroup += nodes.thead("", head)
    body = nodes.tbody()
    tgroup += body
    for docname in sorted(metadata):
        data = metadata[docname].get("exec_data")
        if not data:
            continue
        link = pending_xref(refdoc=parent_docname, refdomain="std", reftype="doc",
                            reftarget=posixpath.relpath(docname,
                                                        posixpath.dirname(parent_docname)),
                            refexplicit=False, refwarn=True, classes=["xref", "doc"])
        link += nodes.inline(text=docname)
        runtime = data.get("runtime")
        text = "-" if runtime is None else f"{runtime:.1f}"
        if data.get("succeeded") is False:
            text += " (failed)"
        row = nodes.row()
        row += nodes.entry("", nodes.paragraph("", "", link))
        row += nodes.entry("", nodes.paragraph(text=text))
        body += row
    return table


TIMINGS = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "chapters_quick.json"


def chapter_run_times(path: Path = TIMINGS) -> str:
    """The range of the chapters' latest quick-scale run times, in words."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "(not measured yet: make bench-chapters)"
    latest = {}
    for entry in sorted(entries, key=lambda e: e.get("when", "")):
        for row in entry.get("rows", []):
            if row.get("status") == "ok" and row.get("chapter", "")[:1].isdigit():
                latest[row["chapter"]] = float(row["seconds"])
    if not latest:
        return "(not measured yet: make bench-chapters)"
    low, high = min(latest.values()), max(latest.values())
    return f"{low:.0f} to {high:.0f} seconds"


def _config_inited(app, config):
    defined = dict(config.myst_substitutions or {})
    config.myst_substitutions = {"chapter_run_times": chapter_run_times(), **defined}


def setup(app):
    app.connect("config-inited", _config_inited)
    execution_tables.make_stat_table = make_run_time_table
    return {"parallel_read_safe": True, "parallel_write_safe": True}
