"""Check a built book for links that work only on the machine that built it.

Usage::

    python tools/check_site_links.py _build/html [--site-url https://owner.github.io/name/]

Every ``href``, ``src``, ``srcset``, ``action``, ``poster`` and ``data`` attribute and every
``<meta>`` content that holds a URL (``og:url``, ``og:image``, ...) in every ``.html`` file
is read. A link fails when it

- uses the ``file:`` scheme,
- points at this machine (``localhost``, ``127.*``, ``0.0.0.0``, ``[::1]``),
- is an absolute path on disk: it starts with the build folder or the repository, or with
  ``/work/``, ``/home/``, ``/root/``, ``/tmp/``, ``/Users/`` or a drive letter (``C:\\``),
- starts with ``/`` without being under the published site's path (``--site-url``; the
  404 page links to ``/<name>/_static/...`` by design, anything else rooted at ``/`` breaks
  once the book is served below a path, as GitHub Pages does).

It also checks that every chapter page offers its notebook for download (a link to
``_sources/chapters/<page>.ipynb`` that exists in the build).
Exit status 1 with one line per problem; 0 and a summary line otherwise.
"""

from __future__ import annotations

import argparse
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

ROOT = Path(__file__).resolve().parents[1]
URL_ATTRS = {"href", "src", "action", "poster", "data", "srcset"}
META_URL_PROPERTIES = {"og:url", "og:image", "og:image:url", "og:image:secure_url",
                       "twitter:image", "twitter:url"}
LOCAL_HOSTS = re.compile(r"^(localhost|127(\.\d+){3}|0\.0\.0\.0|\[::1\]|::1)$", re.IGNORECASE)
DISK_PREFIXES = ("/work/", "/home/", "/root/", "/tmp/", "/Users/", "/var/", "/private/")
DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []   # (where, url)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name, value in attrs.items():
            if value is None or name not in URL_ATTRS:
                continue
            if name == "srcset":
                for part in value.split(","):
                    if part.strip():
                        self.links.append((f"<{tag} srcset>", part.split()[0]))
            else:
                self.links.append((f"<{tag} {name}>", value.strip()))
        if tag == "meta":
            prop = attrs.get("property") or attrs.get("name") or ""
            if prop in META_URL_PROPERTIES and attrs.get("content"):
                self.links.append((f"<meta {prop}>", attrs["content"].strip()))


def links(html: str) -> list[tuple[str, str]]:
    """(where, url) for every URL-holding attribute in ``html``."""
    parser = _Links()
    parser.feed(html)
    return parser.links


def problem(url: str, *, site_path: str, local_roots: tuple[str, ...]) -> str | None:
    """Why ``url`` works only locally, or None if it does not."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if DRIVE.match(url):
        return "a path on a Windows disk"
    if scheme == "file":
        return "a file: URL"
    if scheme in ("http", "https", "ws", "wss") or url.startswith("//"):
        host = (parts.hostname or "").strip("[]")
        if LOCAL_HOSTS.match(host) or LOCAL_HOSTS.match(parts.netloc.split(":")[0]):
            return "points at this machine"
        return None
    if scheme:  # mailto:, data:, javascript:, ...
        return None
    path = unquote(parts.path)
    if any(path.startswith(root) for root in local_roots) or path.startswith(DISK_PREFIXES):
        return "an absolute path on this machine's disk"
    if path.startswith("/") and not path.startswith(site_path):
        return f"rooted at / outside the site's path {site_path}"
    return None


def _site_url_from_config() -> str:
    sys.path.insert(0, str(ROOT / "_ext"))
    import yaml
    from book_links import pages_url

    repo = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]

    class _Config:
        html_theme_options = {"repository_url": repo["url"],
                              "repository_branch": repo.get("branch", "main")}

    return pages_url(_Config())


def check(site: Path, site_url: str) -> list[str]:
    """Every problem found in the built site ``site`` (an empty list when it is clean)."""
    site = site.resolve()
    site_path = urlsplit(site_url).path or "/"
    local_roots = tuple(sorted({str(site) + "/", str(ROOT) + "/", str(site.parent) + "/"}))
    problems = []
    pages = sorted(site.rglob("*.html"))
    if not pages:
        return [f"{site}: no .html files (build the book first)"]
    for page in pages:
        rel = page.relative_to(site).as_posix()
        for where, url in links(page.read_text(encoding="utf-8", errors="replace")):
            why = problem(url, site_path=site_path, local_roots=local_roots)
            if why:
                problems.append(f"{rel}: {where} {url!r}: {why}")
        if rel.startswith("chapters/") and "/_" not in rel:
            want = f"_sources/{rel.removesuffix('.html')}.ipynb"
            offered = [u for _, u in links(page.read_text(encoding="utf-8"))
                       if unquote(urljoin(rel, u)).split("#")[0] == want]
            if not offered:
                problems.append(f"{rel}: no download link to {want}")
            elif not (site / want).is_file():
                problems.append(f"{rel}: its notebook {want} is missing from the build")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, nargs="?", default=ROOT / "_build" / "html",
                        help="the built HTML folder (default: _build/html)")
    parser.add_argument("--site-url", default=None,
                        help="the published address (default: from repository.url)")
    args = parser.parse_args(argv)
    site_url = args.site_url or _site_url_from_config()
    problems = check(args.site, site_url)
    for line in problems:
        print(line)
    n_pages = len(list(args.site.rglob("*.html")))
    if problems:
        print(f"{len(problems)} links that work only locally (or missing notebooks) "
              f"in {n_pages} pages", file=sys.stderr)
        return 1
    print(f"{n_pages} pages: no link that works only locally; every chapter offers its "
          f"notebook (site {site_url})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
