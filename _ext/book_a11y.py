"""Markup fixes for screen readers, and weight the pages do not need, that the theme's and
Sphinx's templates leave in.

- The reference list: Sphinx 7 writes each entry of a citation list as
  ``<div role="doc-biblioentry">`` inside ``<div role="list">``.  ARIA 1.2 deprecates
  ``doc-biblioentry`` (DPUB-ARIA 1.1), so the list has no list items a screen reader knows
  (axe-core: ``aria-deprecated-role``, and the critical ``aria-required-children``).  Each entry
  becomes a ``listitem``, which is what the deprecated role was (upstream: docutils 0.21,
  ``docutils/writers/_html_base.py``, ``HTMLTranslator.visit_citation``).
- Font Awesome's JavaScript: pydata-sphinx-theme 0.17 loads ``scripts/fontawesome.js``
  (1.49 MB) on every page "so that users can add custom icons" (its
  ``static/webpack-macros.html``), on top of the Font Awesome web fonts its stylesheet already
  declares, which draw every icon the pages use (the theme's buttons, the result boxes'
  icons of assets/book.css).  The book adds no custom icon, so the finished build drops the
  script's tag from every page and the script (with its source map) from ``_static``.
"""

from __future__ import annotations

import re
from pathlib import Path

DEPRECATED = 'role="doc-biblioentry"'
FONTAWESOME_JS = re.compile(
    r'[ \t]*<script defer src="[^"]*_static/scripts/fontawesome\.js(\?[^"]*)?"></script>\n?')


def fix_body(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and DEPRECATED in body:
        context["body"] = body.replace(DEPRECATED, 'role="listitem"')


def drop_fontawesome_js(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if "fontawesome.js" in text:
            page.write_text(FONTAWESOME_JS.sub("", text), encoding="utf-8")
    for name in ("fontawesome.js", "fontawesome.js.map", "fontawesome.js.LICENSE.txt"):
        (out / "_static" / "scripts" / name).unlink(missing_ok=True)


def setup(app):
    app.connect("html-page-context", fix_body)
    app.connect("build-finished", drop_fontawesome_js)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
