"""Open every page of the built book in headless Chromium and check what a reader sees.

Run after the book is built (``make test`` runs it right after the strict build)::

    .venv/bin/python -m pytest browser_tests -q

Checks, per page: the maths is typeset by the book's local MathJax (every math element holds
MathJax output, no MathJax error, no raw TeX delimiters left in the text), every image
loads in the browser, no cell shows an error, a stderr stream or a warning, and every
internal link (file and #anchor) resolves.  Screenshots of the landing page (light and dark
theme) and of one chapter are saved to ``_build/screenshots``.

Environment: ``BOOK_HTML`` (default ``_build/html``), ``BOOK_SCREENSHOTS`` (default
``_build/screenshots``), ``CHROMIUM`` (default: the first of chromium, chromium-browser,
google-chrome on the PATH).  Pages are rendered from a copy of the site into which a small
probe script is injected; the built site itself is not modified.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))
SCREENSHOTS = Path(os.environ.get("BOOK_SCREENSHOTS", ROOT / "_build" / "screenshots"))
SKIP_PAGES = {"search.html"}  # the search page is all JavaScript and has no content of ours
PAGE_TIMEOUT_S = 120

# Written into the copy of every page: after `load`, wait for MathJax's first typeset, then
# record which images failed to load, as JSON in <pre id="browser-probe">.
PROBE = """
<script>
window.addEventListener("load", function () {
  function report(extra) {
    var imgs = Array.prototype.slice.call(document.images);
    var broken = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
                     .map(function (i) { return i.getAttribute("src"); });
    var out = document.createElement("pre");
    out.id = "browser-probe";
    out.textContent = JSON.stringify(Object.assign(
      {images: imgs.length, broken: broken, mathjax: !!window.MathJax}, extra));
    document.body.appendChild(out);
  }
  var mj = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
  (mj || Promise.resolve()).then(function () { report({typeset: !!mj}); },
                                 function (e) { report({typeset: false, error: String(e)}); });
});
</script>
"""


_REFRESH = re.compile(r'<meta http-equiv="Refresh" content="0; url=([^"]+)"', re.IGNORECASE)


def _pages() -> tuple[list[str], dict[str, str]]:
    """Content pages, and redirect stubs (like index.html) mapped to their targets."""
    if not SITE.is_dir():
        return [], {}
    pages, redirects = [], {}
    for path in sorted(SITE.rglob("*.html")):
        rel = path.relative_to(SITE)
        if any(part.startswith("_") for part in rel.parts[:-1]) or rel.name in SKIP_PAGES:
            continue
        head = path.read_text(encoding="utf-8")[:500]
        match = _REFRESH.match(head.strip())
        if match:
            redirects[rel.as_posix()] = match.group(1)
        else:
            pages.append(rel.as_posix())
    return pages, redirects


PAGES, REDIRECTS = _pages()


def _chromium() -> str:
    for name in filter(None, [os.environ.get("CHROMIUM"), "chromium", "chromium-browser",
                              "google-chrome"]):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("no Chromium found: install it (`apt-get install -y chromium`; .ci/run does "
                "this) or point $CHROMIUM at the binary")


def _run_chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess:
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--disable-dev-shm-usage", "--allow-file-access-from-files",
           "--no-first-run", "--no-default-browser-check", f"--user-data-dir={profile}",
           "--virtual-time-budget=20000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=PAGE_TIMEOUT_S,
                          check=False)


@pytest.fixture(scope="session")
def rendered(tmp_path_factory) -> dict[str, BeautifulSoup]:
    """Every page's DOM after Chromium ran its scripts (MathJax included)."""
    if not PAGES:
        pytest.fail(f"no built book in {SITE}: run `make book` first")
    copy = tmp_path_factory.mktemp("site") / "html"
    shutil.copytree(SITE, copy)
    profile = tmp_path_factory.mktemp("chromium-profile")
    doms = {}
    for page in PAGES:
        path = copy / page
        html = path.read_text(encoding="utf-8")
        path.write_text(html.replace("</body>", PROBE + "</body>", 1), encoding="utf-8")
        proc = _run_chromium(["--dump-dom", path.as_uri()], profile)
        assert proc.returncode == 0, f"chromium failed on {page}: {proc.stderr[-2000:]}"
        doms[page] = BeautifulSoup(proc.stdout, "html.parser")
    return doms


@cache
def _source(page: str) -> BeautifulSoup:
    return BeautifulSoup((SITE / page).read_text(encoding="utf-8"), "html.parser")


def _probe(dom: BeautifulSoup, page: str) -> dict:
    node = dom.find(id="browser-probe")
    assert node is not None, f"{page}: the page's scripts never finished (probe missing)"
    return json.loads(node.get_text())


def test_every_toc_entry_was_built():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]] + [ch["file"] for part in toc.get("parts", [])
                             for ch in part.get("chapters", [])]
    missing = [f for f in files if not (SITE / f"{f}.html").is_file()]
    assert not missing, f"pages in _toc.yml without HTML in {SITE}: {missing}"


@pytest.mark.parametrize("page", sorted(REDIRECTS))
def test_redirects_point_to_built_pages(page):
    target = (SITE / page).parent / REDIRECTS[page]
    assert target.is_file(), f"{page} redirects to a missing page: {REDIRECTS[page]}"


@pytest.mark.parametrize("page", PAGES)
def test_mathjax_is_the_local_copy_loaded_once(page):
    scripts = [s.get("src", "") for s in _source(page).find_all("script")]
    mathjax = [s for s in scripts if "mathjax" in s.lower()]
    assert len(mathjax) <= 1, f"{page}: several MathJax scripts {mathjax} (is there a _static?)"
    for src in mathjax:
        assert "://" not in src, f"{page}: MathJax loaded from the network: {src}"
        assert (SITE / page).parent.joinpath(src.split("?")[0]).resolve().is_file(), src


@pytest.mark.parametrize("page", PAGES)
def test_maths_is_rendered(rendered, page):
    dom = rendered[page]
    probe = _probe(dom, page)
    maths = dom.select("span.math, div.math")
    if maths:
        assert probe["typeset"], f"{page}: MathJax did not run ({probe})"
    untypeset = [m.get_text()[:60] for m in maths if m.find("mjx-container") is None]
    assert not untypeset, f"{page}: maths left as raw TeX: {untypeset[:5]}"
    # MathJax marks TeX errors with <merror>, and an undefined macro (its `noundefined`
    # package) as red text; both show up in the assistive MathML it writes next to the output.
    errors = [e.get_text()[:80] for e in dom.find_all(["mjx-merror", "merror"])]
    errors += [e.get_text()[:80] for e in dom.find_all("mtext", attrs={"mathcolor": "red"})]
    assert not errors, f"{page}: MathJax errors or undefined macros: {errors[:5]}"
    body = BeautifulSoup(str(dom.body), "html.parser")
    for tag in body.find_all(["script", "style", "pre", "code", "textarea", "mjx-container"]):
        tag.decompose()
    for tag in body.select(".highlight, #browser-probe"):
        tag.decompose()
    text = body.get_text(" ")
    raw = re.findall(r"\$\$|\\\(|\\\[|\\begin\{|\$[^$\s][^$\n]{0,80}\$", text)
    assert not raw, f"{page}: raw TeX delimiters in the rendered text: {raw[:5]}"


@pytest.mark.parametrize("page", PAGES)
def test_every_image_loads(rendered, page):
    probe = _probe(rendered[page], page)
    assert not probe["broken"], f"{page}: images that did not load: {probe['broken']}"
    expected = len(_source(page).find_all("img"))
    assert probe["images"] >= expected, f"{page}: {probe['images']} images, expected {expected}"


_WARNING_TEXT = re.compile(r"\b\w*(Warning|Error)\b\s*:|Traceback \(most recent call last\)")


@pytest.mark.parametrize("page", PAGES)
def test_no_cell_shows_an_error_or_a_warning(page):
    soup = _source(page)
    bad = soup.select("div.output.stderr, div.output.traceback, div.output.error")
    assert not bad, f"{page}: error or stderr output: {bad[0].get_text()[:300]}"
    for out in soup.select("div.cell_output"):
        text = out.get_text(" ")
        match = _WARNING_TEXT.search(text)
        assert match is None, f"{page}: an output shows {match.group(0)!r}: {text[:300]}"


@cache
def _ids(target: Path) -> frozenset[str]:
    soup = BeautifulSoup(target.read_text(encoding="utf-8"), "html.parser")
    return frozenset(t.get("id") or t.get("name") for t in soup.find_all(attrs={"id": True})) | \
        frozenset(t["name"] for t in soup.find_all("a", attrs={"name": True}))


@pytest.mark.parametrize("page", PAGES)
def test_internal_links_resolve(page):
    here = (SITE / page).parent
    broken = []
    for a in _source(page).find_all("a", href=True):
        href = a["href"].strip()
        parts = urlsplit(href)
        if parts.scheme or href.startswith("//") or href in ("", "#"):
            continue
        target = (here / unquote(parts.path)).resolve() if parts.path else SITE / page
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            broken.append(href)
        elif parts.fragment and target.suffix == ".html" \
                and unquote(parts.fragment) not in _ids(target):
            broken.append(href)
    assert not broken, f"{page}: links that do not resolve: {sorted(set(broken))[:10]}"


def _screenshot(page: str, name: str, profile: Path, *, dark: bool = False,
                size: str = "1280,2200") -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    out = SCREENSHOTS / name
    out.unlink(missing_ok=True)
    args = [f"--window-size={size}", f"--screenshot={out}"]
    if dark:
        args += ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"]
    proc = _run_chromium([*args, (SITE / page).as_uri()], profile)
    assert proc.returncode == 0 and out.is_file(), f"screenshot of {page} failed: {proc.stderr}"
    assert out.stat().st_size > 20_000, f"{out} looks empty ({out.stat().st_size} bytes)"
    return out


def test_screenshots(tmp_path):
    """Landing page (light and dark) and the first chapter with a figure, for a human look."""
    if not PAGES:
        pytest.fail(f"no built book in {SITE}: run `make book` first")
    chapters = [p for p in PAGES if p.startswith("chapters/")]
    with_figure = [p for p in chapters if _source(p).select("figure img, .cell_output img")]
    chapter = (with_figure or chapters or ["intro.html"])[0]
    _screenshot("intro.html", "intro.png", tmp_path)
    _screenshot("intro.html", "intro-dark.png", tmp_path, dark=True)
    _screenshot(chapter, "chapter.png", tmp_path)


# MyST source that should have been parsed: a directive fence, a role, or a directive option.
# A backtick inside a backtick fence's title (e.g. a {cite} in a prf title) makes MyST show the
# whole block, and everything up to the next fence, as a literal code block.
_LEAKED_SOURCE = re.compile(r"```\{[a-z]|\{(?:prf:[a-z]+|cite|numref|eq|doc)\}`|^:label: ",
                            re.MULTILINE)


@pytest.mark.parametrize("page", PAGES)
def test_no_myst_source_leaks_into_the_page(page):
    body = BeautifulSoup(str(_source(page).body), "html.parser")
    for tag in body.select("div.cell, script, style"):  # code cells may print anything
        tag.decompose()
    leaked = _LEAKED_SOURCE.findall(body.get_text("\n"))
    assert not leaked, f"{page}: unparsed MyST source in the page: {leaked[:5]}"
