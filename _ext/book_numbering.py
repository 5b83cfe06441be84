"""Appendix pages numbered A, B, ... instead of 1, 2, ... (Sphinx numbers every toctree from 1).

The chapters are numbered 1, 2, ... by ``numbered: true`` in ``_toc.yml``, and with
``numfig_secnum_depth: 1`` their figures, equations, exercises and proofs are numbered by
chapter (Fig. 3.2, eq. (3.4), Exercise 3.1). The Appendix part is numbered too, so without
this hook its page would carry the next chapter number (jupyter-book numbers across parts).
After Sphinx assigns the numbers, pages whose name starts with ``APPENDIX`` get a letter
for their first number and their own counters: "A.", Fig. A.1, eq. (A.1).
"""

from __future__ import annotations

import string

from docutils import nodes

APPENDIX = "chapters/appendix"


def _lettered(number, letter):
    return (letter, *tuple(number)[1:]) if number else number


def _letter_appendices(app, env):
    docs = [doc for doc, num in env.toc_secnumbers.items()
            if doc.startswith(APPENDIX) and num.get("") and isinstance(num[""][0], int)]
    docs.sort(key=lambda doc: env.toc_secnumbers[doc][""])
    for letter, doc in zip(string.ascii_uppercase, docs, strict=False):
        env.toc_secnumbers[doc] = {
            anchor: _lettered(num, letter) for anchor, num in env.toc_secnumbers[doc].items()
        }
        for figtype, numbers in env.toc_fignumbers.get(doc, {}).items():
            ordered = sorted(numbers, key=lambda fig_id: numbers[fig_id][-1])
            env.toc_fignumbers[doc][figtype] = {
                fig_id: (letter, i) for i, fig_id in enumerate(ordered, start=1)
            }
        toc_nodes = list(env.tocs[doc].findall(nodes.reference))
        if doc in env.titles:
            toc_nodes.append(env.titles[doc])
        for node in toc_nodes:
            if node.get("secnumber"):
                node["secnumber"] = list(_lettered(node["secnumber"], letter))
    return []


def setup(app):
    # after Sphinx's own TocTreeCollector (priority 500) has numbered everything
    app.connect("env-get-updated", _letter_appendices, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
