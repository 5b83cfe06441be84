"""The PDF's figures: their alternative text, and no float inside a box.

**Alternative text.** The HTML pages give every image its ``alt`` (the chapters' ``mystnb:
image: alt:``); Sphinx's LaTeX writer drops it.  For the LaTeX builder (``make pdf``) this
sets it before every image that has one, and the preamble below makes the image macro wrap
the image in ``\\BeginAccSupp{...Alt=...}`` ... ``\\EndAccSupp{}`` of the ``accsupp``
package: the PDF then carries the text in the image's marked content (``/Span << /Alt (...)
>> BDC ... EMC``), where a screen reader or a text extraction finds it.  The text goes in as
UTF-16 hex (``method=hex,unicode``), so no character of it needs LaTeX escaping.  An image
without alt text, or whose alt is its file name, is left as it is.

**No float inside a box.** A figure in an exercise's solution (or any other box: sphinx-exercise
and sphinx-proof draw theirs as ``sphinxadmonition``) cannot float: LaTeX stops with "Not in
outer par mode".  Sphinx places the figures of its own admonitions with ``[H]`` (here, where it
is); these extensions' boxes do not tell it to, so each figure inside one is wrapped in a group
that turns its ``\\begin{figure}[htbp]`` into ``[H]`` (the ``float`` package, which Sphinx loads).
"""

from __future__ import annotations

from docutils import nodes

# The alternative text is set just before its image (a macro, so that a page break between
# the two moves nothing) and \sphinxincludegraphics wraps the image in it, then clears it.
PREAMBLE = r"""\usepackage{accsupp}
\let\bookalttext\relax
\AtBeginDocument{%
  \let\bookplainincludegraphics\sphinxincludegraphics
  \renewcommand{\sphinxincludegraphics}[2][]{%
    \ifx\bookalttext\relax\bookplainincludegraphics[#1]{#2}%
    \else\expandafter\BeginAccSupp\expandafter{\bookalttext}%
      \bookplainincludegraphics[#1]{#2}\EndAccSupp{}%
      \global\let\bookalttext\relax\fi}}
"""


def alt_hex(text: str) -> str:
    """The alternative text as accsupp's ``method=hex,unicode`` wants it: UTF-16BE, in hex."""
    return " ".join(text.split()).encode("utf-16-be").hex().upper()


def _meaningful(alt: str, uri: str) -> bool:
    return bool(alt.strip()) and alt.strip() != uri and not alt.lower().endswith(".png")


def wrap_images(app, doctree, docname):
    if app.builder.format != "latex":
        return
    for image in list(doctree.findall(nodes.image)):
        alt = image.get("alt", "")
        if not _meaningful(alt, image.get("uri", "")):
            continue
        text = nodes.raw("", "\\gdef\\bookalttext{method=hex,unicode,Alt=" + alt_hex(alt) + "}",
                         format="latex")
        image.parent.insert(image.parent.index(image), text)


# Inside the group, \begin{figure}[...] becomes \begin{figure}[H]: Sphinx always writes an
# optional placement argument.
_HERE_BEGIN = "\\begingroup\\let\\bookfloatfigure\\figure\\def\\figure[#1]{\\bookfloatfigure[H]}"
_HERE_END = "\\endgroup"


def keep_boxed_figures_in_place(app, doctree, docname):
    if app.builder.format != "latex":
        return
    for figure in list(doctree.findall(nodes.figure)):
        parent = figure.parent
        boxed = any(isinstance(a, nodes.Admonition) for a in _ancestors(figure))
        if not boxed or parent is None:
            continue
        index = parent.index(figure)
        parent.insert(index + 1, nodes.raw("", _HERE_END, format="latex"))
        parent.insert(index, nodes.raw("", _HERE_BEGIN, format="latex"))


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def add_preamble(app, config):
    elements = dict(config.latex_elements or {})
    preamble = elements.get("preamble", "")
    if "\\usepackage{accsupp}" not in preamble:
        elements["preamble"] = PREAMBLE + preamble
    config.latex_elements = elements


def setup(app):
    app.connect("config-inited", add_preamble)
    app.connect("doctree-resolved", wrap_images)
    app.connect("doctree-resolved", keep_boxed_figures_in_place)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
