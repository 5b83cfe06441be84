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
"""

from __future__ import annotations

BINDER = "https://mybinder.org"


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


def _config_inited(app, config):
    defined = dict(config.myst_substitutions or {})
    config.myst_substitutions = {**substitutions(config), **defined}


def setup(app):
    app.connect("config-inited", _config_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
