"""The instructors page's run-time table: each page and how long it took to execute.

myst-nb's ``{nb-exec-table}`` also lists build internals (modification time, execution
method, the page's file name) and a status glyph that the book's font draws as an empty box.
Its post-transform builds the table with ``myst_nb.ext.execution_tables.make_stat_table``;
this extension puts a plainer table maker in that place (same data, fewer columns).
"""

from __future__ import annotations

import posixpath

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


def setup(app):
    execution_tables.make_stat_table = make_run_time_table
    return {"parallel_read_safe": True, "parallel_write_safe": True}
