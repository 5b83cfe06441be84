"""One repository setting for every link: MyST substitutions built from ``_config.yml``.

``repository.url`` and ``repository.branch`` in ``_config.yml`` (which jupyter-book passes
to the theme as ``html_theme_options``) are the only place the repository's address is
written; the launch buttons and the repository button read them, and so do the pages, through
the substitutions defined here when Sphinx starts:

- ``{{ repo_link }}``: a Markdown link to the repository;
- ``{{ binder_link }}``: a Markdown link that opens the chapters on Binder (JupyterLab);
- ``{{ install_helpers }}`` (block): the shell command that installs ``helpers`` with pip;
- ``{{ cite_book }}`` (block): BibTeX for the book.

A substitution a page's front matter or ``myst_substitutions`` already defines is kept.

The published site's address follows from the same setting (GitHub Pages:
``https://<owner>.github.io/<name>/``): it becomes ``ogp_site_url`` (link previews,
sphinxext-opengraph) and its path ``notfound_urls_prefix`` (the 404 page's absolute links,
sphinx-notfound-page), unless ``_config.yml`` sets them. The landing page's first figure is
copied to ``_static/landing-figure.png``, the preview image (``ogp_image``).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import urlsplit

from docutils import nodes

BINDER = "https://mybinder.org"
LANDING_FIGURE = "_static/landing-figure.png"


def _repo(config) -> tuple[str, str, str]:
    options = config.html_theme_options or {}
    url = (options.get("repository_url") or "").rstrip("/")
    if not url.startswith("https://github.com/"):
        raise ValueError("_config.yml: repository.url must be https://github.com/<owner>/<name>; "
                         f"got {url!r}")
    branch = options.get("repository_branch") or "main"
    return url, url.removeprefix("https://github.com/"), branch


def substitutions(config) -> dict[str, str]:
    """The substitutions, from the repository settings in ``config``."""
    url, slug, branch = _repo(config)
    binder = f"{BINDER}/v2/gh/{slug}/{branch}?urlpath=lab/tree/chapters"
    title = config.html_title or config.project
    year = config.copyright.split(",")[0].strip() if config.copyright else ""
    author = config.author
    return {
        "repo_url": url,
        "repo_link": f"[{slug}]({url})",
        "binder_url": binder,
        "binder_link": f"[open the chapters on Binder]({binder})",
        "install_helpers": f'```bash\npip install "git+{url}@{branch}"\n```',
        "cite_book": (
            "```bibtex\n"
            "@misc{one_step_book,\n"
            f"  title        = {{{title}}},\n"
            f"  author       = {{{{{author}}}}},\n"
            f"  year         = {{{year}}},\n"
            f"  howpublished = {{\\url{{{url}}}}},\n"
            "  note         = {An executable Jupyter Book reproducing Ba et al. (2022)}\n"
            "}\n```"
        ),
    }


def pages_url(config) -> str:
    """The GitHub Pages address of the repository in ``config`` (ends with ``/``)."""
    _, slug, _ = _repo(config)
    owner, _, name = slug.partition("/")
    owner = owner.lower()
    if name.lower() == f"{owner}.github.io":  # a user or organisation site
        return f"https://{owner}.github.io/"
    return f"https://{owner}.github.io/{name}/"


def _config_inited(app, config):
    defined = dict(config.myst_substitutions or {})
    config.myst_substitutions = {**substitutions(config), **defined}
    site = pages_url(config)
    # Values set in _config.yml reach Sphinx as overrides (jupyter-book) or in conf.py.
    raw = {**getattr(config, "_raw_config", {}), **getattr(config, "overrides", {})}
    if "ogp_site_url" in config and not config.ogp_site_url:
        config.ogp_site_url = site
    if "notfound_urls_prefix" in config and "notfound_urls_prefix" not in raw:
        config.notfound_urls_prefix = urlsplit(site).path
        config.notfound_context = {
            "title": "Page not found",
            "body": ("<h1>Page not found</h1><p>This page does not exist (any more). The "
                     f'book starts at <a href="{site}">its first page</a>; the chapters '
                     "are listed in the sidebar.</p>"),
        }


def _landing_image(app, doctree, docname):
    """Remember the first image of the landing page (the root document)."""
    if docname == app.config.root_doc:
        image = next(iter(doctree.findall(nodes.image)), None)
        app.env.book_landing_image = image["uri"] if image is not None else None


def _copy_landing_image(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    uri = getattr(app.env, "book_landing_image", None)
    name = app.builder.images.get(uri) if uri else None
    if name is None:  # the landing page was not written in this build: keep the last copy
        return
    target = Path(app.outdir, LANDING_FIGURE)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(app.outdir, app.builder.imagedir, name), target)


def setup(app):
    app.connect("config-inited", _config_inited)
    app.connect("doctree-resolved", _landing_image)
    app.connect("build-finished", _copy_landing_image)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
