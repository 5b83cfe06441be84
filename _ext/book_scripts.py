"""Each script once per page.

sphinx-thebe and sphinx-togglebutton add their inline configuration scripts (``const
THEBE_JS_URL = ...``) when the environment reads the documents; a build that reads twice adds
them twice, and the second ``const`` declaration is a console error on every page.  This drops a
script that repeats an earlier one (the same file, or the same inline body, with the same
attributes) from the page's list, keeping the first.
"""

from __future__ import annotations


def _key(js):
    attributes = getattr(js, "attributes", {}) or {}
    filename = getattr(js, "filename", js) or ""      # an inline script: None or ""
    return (str(filename), tuple(sorted(attributes.items())))


def drop_repeated_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for js in scripts:
        key = _key(js)
        if key not in seen:
            seen.add(key)
            kept.append(js)
    scripts[:] = kept      # in place: handlers after this one add to the same list (MathJax)


def setup(app):
    # early: the event stops at the first handler that returns a template name (the theme)
    app.connect("html-page-context", drop_repeated_scripts, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
