"""Open every page of the built book in headless Chromium (Playwright) and check what a reader sees.

Run after the book is built (``make test`` runs it right after the strict build)::

    .venv/bin/python -m pytest browser_tests -q

Every page is loaded four times: at a desktop width (1400 px) and a phone width (420 px),
each in the light and the dark theme, and a full-page screenshot of each is saved to
``_build/screenshots/<page>-<width>-<theme>.png``.  Checks, per page:

- the maths is typeset by the book's local MathJax, loaded once (every math element holds
  MathJax output, no MathJax error or undefined macro, no raw TeX delimiters in the text);
- every image loads, and every image in the article has an alternative text that says what it
  shows (not empty, not a file name, not the caption's first words); no console error or
  uncaught exception, and no request leaves the local files (no CDN at read time; a first
  visit with nothing in localStorage too);
- no cell shows an error, a stderr stream or a warning; every internal
  link (file and #anchor) resolves; no MyST source leaks into the page;
- at 420 px nothing overflows horizontally: the page is no wider than the screen, and every
  element that sticks out of the screen lies inside a container that scrolls sideways
  (display maths and wide tables scroll inside themselves); equation numbers are not drawn
  over their formula;
- every figure image has two image pixels per CSS pixel (sharp at 2x density); at 420 px a
  tap opens every figure, and its smallest text is >= 9 px in the page or >= 11 px (still
  2x) in the opened view, by the formula below;
- at 1400 px every figure's smallest text renders at >= 11 px:
  ``MIN_FONT_PT * rendered_width / (72 * natural_width / dpi)``, with the dpi read from the
  PNG (matplotlib writes it in the pHYs chunk; else the style's ``figure.dpi``) and
  ``MIN_FONT_PT`` the smallest font size in ``src/helpers/book.mplstyle`` (chapters never
  set a smaller one, nor a figure size: ``tests/test_figure_style.py`` checks their source);
- the dark theme is applied when chosen (the theme reads ``localStorage.mode``).

And for the book as a whole: every TOC entry was built, redirects point to built pages, there
is no second top bar (the theme's search-only navbar), the landing page's title equals the
sidebar's, no code toggle sits above the landing figure, every link to the repository uses
``repository.url`` of ``_config.yml``, the reference list is labelled author-year without
duplicates, and the result boxes of the numbering convention (``paper-result``,
``book-result``) look different from each other with readable titles in both themes.

Environment: ``BOOK_HTML`` (default ``_build/html``), ``BOOK_SCREENSHOTS`` (default
``_build/screenshots``), ``CHROMIUM`` (default: the first of chromium, chromium-browser,
google-chrome on the PATH; Playwright drives this system browser and downloads none).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest
import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))
SCREENSHOTS = Path(os.environ.get("BOOK_SCREENSHOTS", ROOT / "_build" / "screenshots"))
STYLE = ROOT / "src" / "helpers" / "book.mplstyle"
# The search page is all JavaScript and has no content of ours; the 404 page links to the
# published site's absolute paths (/<name>/_static/...), which a file: URL cannot serve
# (test_404_page_is_built checks it; tools/check_site_links.py checks every page's links).
SKIP_PAGES = {"search.html", "404.html"}
PAGE_TIMEOUT_MS = 120_000

DESKTOP, PHONE = 1400, 420          # viewport widths (CSS px)
MIN_FIGURE_TEXT_PX = 11.0           # smallest figure text on a desktop page
THEMES = ("light", "dark")

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


def _config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- figure fonts

_FONT_KEYS = ("font.size", "axes.labelsize", "axes.titlesize", "legend.fontsize",
              "legend.title_fontsize", "xtick.labelsize", "ytick.labelsize",
              "figure.titlesize", "figure.labelsize")


def style_settings(path: Path = STYLE) -> dict:
    """The settings of a matplotlib style file, as matplotlib reads them (typed values)."""
    from matplotlib import rc_params_from_file

    return dict(rc_params_from_file(str(path), use_default_template=False))


def min_font_pt(path: Path = STYLE) -> float:
    """The smallest font size (pt) the style sets, named sizes resolved against font.size."""
    from matplotlib.font_manager import font_scalings

    rc = style_settings(path)
    base = float(rc.get("font.size", 10.0))
    sizes = []
    for key in _FONT_KEYS:
        value = rc.get(key)
        if value is None:
            continue
        sizes.append(base * font_scalings[value] if value in font_scalings else float(value))
    if not sizes:
        raise ValueError(f"{path} sets no font size")
    return min(sizes)


def png_dpi(path: Path) -> float:
    """Dots per inch of a PNG (pHYs chunk, as matplotlib writes it), else the style's dpi."""
    from PIL import Image

    with Image.open(path) as image:
        dpi = image.info.get("dpi")
    if dpi and dpi[0] > 1:
        return float(dpi[0])
    return float(style_settings().get("figure.dpi", 100.0))


def smallest_text_px(rendered_width: float, natural_width: float, dpi: float,
                     font_pt: float) -> float:
    """Rendered size (CSS px) of ``font_pt`` text in an image drawn ``rendered_width`` wide."""
    return font_pt * rendered_width / (72.0 * natural_width / dpi)


def test_style_font_floor_matches_the_package():
    """The style file and helpers.plotting.MIN_FONT_PT agree (the chapters rely on both)."""
    from helpers.plotting import MIN_FONT_PT

    assert min_font_pt() == pytest.approx(MIN_FONT_PT), (min_font_pt(), MIN_FONT_PT)


def test_smallest_text_formula():
    # 10 pt at 110 dpi is 15.3 image pixels; drawn at half its natural width, 7.6 px.
    assert smallest_text_px(352, 704, 110, 10) == pytest.approx(10 * 110 / 72 / 2)


# --------------------------------------------------------------------------- the browser

def _chromium() -> str:
    for name in filter(None, [os.environ.get("CHROMIUM"), "chromium", "chromium-browser",
                              "google-chrome"]):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("no Chromium found: install it (`apt-get install -y chromium`; .ci/run does "
                "this) or point $CHROMIUM at the binary")


# After `load`: wait for MathJax's first typeset (if the page loads MathJax).
_WAIT_MATHJAX = """
async () => {
  const mj = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
  if (!mj) return {mathjax: !!window.MathJax, typeset: false};
  try { await mj; return {mathjax: true, typeset: true}; }
  catch (e) { return {mathjax: true, typeset: false, error: String(e)}; }
}
"""

# Images: load state and sizes (natural and rendered, CSS px).
_IMAGES = """
() => Array.from(document.images).map(i => ({
  src: i.getAttribute("src") || "",
  alt: i.getAttribute("alt"),
  caption: ((i.closest("figure") || {}).querySelector
            ? ((i.closest("figure").querySelector("figcaption") || {}).textContent || "") : ""),
  url: i.currentSrc || i.src,
  ok: i.complete && i.naturalWidth > 0,
  natural: i.naturalWidth,
  rendered: i.getBoundingClientRect().width,
  inArticle: !!i.closest("article.bd-article"),
}))
"""

# Tap every figure (assets/book.js opens it in a full-screen view): its size in the page, and
# in the view once opened (CSS px), and its image's natural width; then close the view.
_OPEN_FIGURES = """
async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => r()));
  const out = [];
  for (const link of document.querySelectorAll("article a.book-figure-link")) {
    const img = link.querySelector("img");
    if (!img || !img.complete || !img.naturalWidth) continue;
    link.click();
    const view = document.getElementById("book-figure-view");
    const shown = view && view.open ? view.querySelector("img") : null;
    if (shown && !(shown.complete && shown.naturalWidth)) {
      await new Promise(r => { shown.onload = r; shown.onerror = r; });
    }
    await frame();
    out.push({src: img.getAttribute("src") || "", url: img.currentSrc || img.src,
              natural: img.naturalWidth, inPage: img.getBoundingClientRect().width,
              open: !!(view && view.open),
              opened: shown ? shown.getBoundingClientRect().width : 0,
              openedNatural: shown ? shown.naturalWidth : 0});
    if (view && view.open) view.close();
  }
  return out;
}
"""

# Horizontal overflow: the page's width, and every visible element that sticks out of the
# screen without a sideways-scrolling container (inside the screen) to hold it.
_OVERFLOW = """
() => {
  const vw = window.innerWidth;
  const describe = el => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    if (el.classList.length) s += "." + Array.from(el.classList).slice(0, 3).join(".");
    return s;
  };
  // The first ancestor that clips (overflow-x not visible), and the first that scrolls.
  const containers = el => {
    let clip = null, scroll = null;
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.display === "inline" || cs.display === "contents") continue;  // cannot clip
      if (cs.overflowX === "visible") continue;
      if (!clip) clip = [a, cs.overflowX];
      if (cs.overflowX === "auto" || cs.overflowX === "scroll") { scroll = a; break; }
    }
    return [clip, scroll];
  };
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const cs = getComputedStyle(el);
    if (cs.display === "none" || cs.visibility === "hidden") continue;
    if (cs.position === "fixed" && cs.opacity === "0") continue;
    if (cs.clip && cs.clip !== "auto") continue;          // visually hidden (a11y text)
    if (el.closest("dialog:not([open])")) continue;       // closed dialogs (search, menu)
    if (el.closest("mjx-assistive-mml")) continue;        // MathJax's hidden MathML copy
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.left >= -1 && r.right <= vw + 1) continue;
    const [clip, scroll] = containers(el);
    if (scroll) {
      const b = scroll.getBoundingClientRect();
      if (b.left >= -1 && b.right <= vw + 1) continue;  // scrolls inside a box on screen
    }
    const [box, ox] = clip || [null, "visible"];
    const parent = el.parentElement;
    if (parent && out.length && out[out.length - 1].el === parent) continue;
    out.push({el, what: describe(el), left: Math.round(r.left), right: Math.round(r.right),
              clippedBy: box ? describe(box) + " (overflow-x: " + ox + ")" : null});
  }
  return {
    viewport: vw,
    scrollWidth: document.scrollingElement.scrollWidth,
    offenders: out.slice(0, 10).map(o => ({what: o.what, left: o.left, right: o.right,
                                           clippedBy: o.clippedBy})),
    count: out.length,
  };
}
"""

# Equation numbers (Sphinx's span.eqno) must not overlap the formula they number.
_EQNO_OVERLAP = """
() => {
  const bad = [];
  for (const no of document.querySelectorAll("div.math span.eqno")) {
    const box = no.closest("div.math");
    const mjx = box && box.querySelector("mjx-container");
    if (!mjx) continue;
    const a = no.getBoundingClientRect();
    const m = mjx.querySelector("mjx-math") || mjx;
    const b = m.getBoundingClientRect();
    // the visible part of the formula: clipped to its scrolling container
    const c = mjx.getBoundingClientRect();
    const left = Math.max(b.left, c.left), right = Math.min(b.right, c.right);
    const overlapX = Math.min(a.right, right) - Math.max(a.left, left);
    const overlapY = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (overlapX > 1 && overlapY > 1) bad.push(no.textContent.trim());
  }
  return bad;
}
"""


# Boxes that scroll sideways (wider content than the box) without the scroll cue that
# assets/book.js adds (class book-scrolls: a visible scroll bar, faded where more is hidden).
_SCROLL_UNCUED = """
() => {
  const bad = [];
  for (const el of document.querySelectorAll("article *")) {
    const ox = getComputedStyle(el).overflowX;
    if (ox !== "auto" && ox !== "scroll") continue;
    if (el.clientWidth === 0 || el.scrollWidth <= el.clientWidth + 1) continue;
    if (!el.classList.contains("book-scrolls")) {
      bad.push(el.tagName.toLowerCase() + "." + [...el.classList].join(".") + " "
               + (el.textContent || "").trim().slice(0, 40));
    }
  }
  return bad;
}
"""


# Tab stops: every element the Tab key reaches (tabindex >= 0, enabled, rendered, not inside
# a closed dialog or a hidden part of the page), shadow DOMs (Bokeh's) included.
_TAB_STOPS = """
() => {
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.tabIndex < 0 || el.disabled || !el.getClientRects().length) continue;
      const cs = getComputedStyle(el);
      if (cs.visibility === "hidden" || el.closest("dialog:not([open]), [inert]")) continue;
      out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
               + (el.classList.length ? "." + [...el.classList].slice(0, 2).join(".") : "")
               + (el.dataset.bookScrollStop ? " (scrolls)" : ""));
    }
  };
  walk(document);
  return out;
}
"""

# axe-core (the copy bundled with the pinned axe-playwright-python: no download) with the
# WCAG 2.0, 2.1 and 2.2 A and AA rules; each violation with its impact and first few nodes.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
_AXE_RUN = """
async (options) => {
  const r = await axe.run(document, options);
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(" "), impact: n.impact,
                              summary: (n.failureSummary || "").slice(0, 300)}))}));
}
"""


def _axe(page) -> list:
    from axe_playwright_python.base import AXE_SCRIPT

    page.evaluate(AXE_SCRIPT)
    return page.evaluate(_AXE_RUN, {"runOnly": {"type": "tag", "values": AXE_TAGS},
                                    "resultTypes": ["violations"]})


# Requests that stay on this machine: the page's own files, inline data and blobs.
_LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")


@dataclass
class View:
    """What one page showed at one width in one theme."""

    probe: dict
    html: str = ""
    images: list = field(default_factory=list)
    overflow: dict = field(default_factory=dict)
    eqno_overlaps: list = field(default_factory=list)
    scroll_uncued: list = field(default_factory=list)
    opened: list = field(default_factory=list)
    console_errors: list = field(default_factory=list)
    outside_requests: list = field(default_factory=list)
    theme: str = ""
    screenshot: Path | None = None
    axe: list = field(default_factory=list)
    tab_stops: list = field(default_factory=list)


def _screenshot_name(page: str, width: int, theme: str) -> str:
    stem = page.removesuffix(".html").replace("/", "__")
    return f"{stem}-{width}-{theme}.png"


@pytest.fixture(scope="session")
def browser():
    if not PAGES:
        pytest.fail(f"no built book in {SITE}: run `make book` first")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=_chromium(), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--allow-file-access-from-files", "--hide-scrollbars"])
        yield chromium
        chromium.close()


def _context(browser, width: int, theme: str):
    context = browser.new_context(viewport={"width": width, "height": 900},
                                  device_scale_factor=1, color_scheme=theme)
    # pydata-sphinx-theme reads the reader's choice from localStorage ("mode").
    context.add_init_script(f"localStorage.setItem('mode', '{theme}');"
                            f"localStorage.setItem('theme', '{theme}');")
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    return context


@pytest.fixture(scope="session")
def views(browser) -> dict[tuple[str, int, str], View]:
    """Every page at both widths in both themes (screenshots saved on the way)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):
        old.unlink()
    out = {}
    errors, outside = [], []          # of the page being loaded
    for width in (DESKTOP, PHONE):
        for theme in THEMES:
            context = _context(browser, width, theme)
            page = context.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
            page.on("request", lambda r: None if r.url.startswith(_LOCAL_SCHEMES)
                    else outside.append(r.url))
            for name in PAGES:
                errors.clear()
                outside.clear()
                page.goto((SITE / name).as_uri(), wait_until="load")
                probe = page.evaluate(_WAIT_MATHJAX)
                page.wait_for_timeout(100)
                view = View(probe=probe, console_errors=list(errors),
                            outside_requests=list(outside))
                view.theme = page.evaluate("document.documentElement.dataset.theme || ''")
                view.axe = _axe(page)
                view.tab_stops = page.evaluate(_TAB_STOPS)
                if theme == "light":
                    view.images = page.evaluate(_IMAGES)
                    if width == DESKTOP:
                        view.html = page.content()
                    else:
                        view.overflow = page.evaluate(_OVERFLOW)
                        view.eqno_overlaps = page.evaluate(_EQNO_OVERLAP)
                        view.scroll_uncued = page.evaluate(_SCROLL_UNCUED)
                shot = SCREENSHOTS / _screenshot_name(name, width, theme)
                page.screenshot(path=str(shot), full_page=True)
                view.screenshot = shot
                if theme == "light" and width == PHONE:
                    view.opened = page.evaluate(_OPEN_FIGURES)   # after the screenshot
                out[name, width, theme] = view
            context.close()
    return out


@cache
def _source(page: str) -> BeautifulSoup:
    return BeautifulSoup((SITE / page).read_text(encoding="utf-8"), "html.parser")


def _rendered(views, page: str) -> BeautifulSoup:
    return BeautifulSoup(views[page, DESKTOP, "light"].html, "html.parser")


# --------------------------------------------------------------------------- the whole book

def test_every_toc_entry_was_built():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]] + [ch["file"] for part in toc.get("parts", [])
                             for ch in part.get("chapters", [])]
    missing = [f for f in files if not (SITE / f"{f}.html").is_file()]
    assert not missing, f"pages in _toc.yml without HTML in {SITE}: {missing}"


def test_404_page_is_built():
    """sphinx-notfound-page's 404.html: every local link rooted at the site's path."""
    soup = BeautifulSoup((SITE / "404.html").read_text(encoding="utf-8"), "html.parser")
    assert "Page not found" in soup.get_text()
    prefix = "/" + _config()["repository"]["url"].rstrip("/").rsplit("/", 1)[-1] + "/"
    local = [t.get("href") or t.get("src") for t in soup.find_all(["a", "link", "script"])
             if (t.get("href") or t.get("src") or "").startswith("/")]
    assert local and all(u.startswith(prefix) for u in local), local[:5]


def test_the_exams_tables_keep_every_cell():
    """A teacher named "|t|" once split its rows (issue 48): every body row of every table of
    the exam has one non-empty cell per header."""
    soup = BeautifulSoup((SITE / "exam.html").read_text(encoding="utf-8"), "html.parser")
    tables = soup.find_all("table")
    assert tables
    for table in tables:
        width = len(table.find("thead").find_all("th"))
        for row in table.find("tbody").find_all("tr"):
            cells = [c.get_text(strip=True) for c in row.find_all(["td", "th"])]
            assert len(cells) == width and all(cells), (width, cells)


def test_every_page_names_a_favicon_that_is_built():
    """Without a favicon every visit to a served page logs a 404 as a console error (issue 49);
    the pages here are opened as files, where no request for it is made, so this checks the
    link and its target instead."""
    for name in PAGES:
        soup = BeautifulSoup((SITE / name).read_text(encoding="utf-8"), "html.parser")
        icon = soup.find("link", rel="icon")
        assert icon is not None and icon.get("href"), name
        assert ((SITE / name).parent / icon["href"]).is_file(), (name, icon["href"])


@pytest.mark.parametrize("page", sorted(REDIRECTS))
def test_redirects_point_to_built_pages(page):
    target = (SITE / page).parent / REDIRECTS[page]
    assert target.is_file(), f"{page} redirects to a missing page: {REDIRECTS[page]}"


@pytest.mark.parametrize("page", PAGES)
def test_no_second_top_bar(page):
    """The theme's search-only navbar (navbar_persistent) is switched off in _config.yml."""
    header = _source(page).find(id="pst-header")
    assert header is None or not header.get_text(strip=True), \
        f"{page}: a top navbar is back: {header.get_text(' ', strip=True)[:100]!r}"


def test_landing_title_matches_the_sidebar():
    soup = _source("intro.html")
    h1 = soup.select_one("article h1")
    title = _config()["title"]
    assert h1 is not None
    assert h1.get_text(strip=True).rstrip("#").strip() == title, (h1.get_text(), title)
    sidebar = soup.select_one(".navbar-brand")
    assert sidebar is not None and sidebar.get_text(" ", strip=True) == title, \
        (sidebar and sidebar.get_text(" ", strip=True), title)


def test_no_code_toggle_above_the_landing_figure():
    article = _source("intro.html").select_one("article.bd-article")
    figure = article.find("figure")
    assert figure is not None, "the landing page has no figure"
    before = []
    for el in figure.find_all_previous(["details", "div"]):
        classes = el.get("class") or []
        if el.name == "details" or "tag_hide-input" in classes or "toggle" in classes:
            before.append(el.get_text(" ", strip=True)[:60])
    assert not before, f"code toggles above the landing figure: {before}"


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_start_box_is_above_the_fold(browser, width):
    """The landing page's first screen (900 px high) holds the whole 'Start here' box: what
    the book is, for whom, where to start, the run times and how to run it."""
    context = _context(browser, width, "light")
    page = context.new_page()
    page.goto((SITE / "intro.html").as_uri(), wait_until="load")
    page.evaluate(_WAIT_MATHJAX)
    box = page.evaluate("""() => {
      const b = document.querySelector("article .book-start");
      if (!b) return null;
      const r = b.getBoundingClientRect();
      return {top: r.top + window.scrollY, bottom: r.bottom + window.scrollY,
              text: b.textContent};
    }""")
    context.close()
    assert box is not None, "the landing page has no 'Start here' box (class book-start)"
    for part in ("What it is", "For whom", "Start", "seconds", "Binder"):
        assert part in box["text"], f"the start box does not say {part!r}"
    assert box["bottom"] <= 900, f"{width} px: the start box ends at {box['bottom']:.0f} px"


def _cited_repositories():
    """GitHub repositories the bibliography cites as sources (other papers' code)."""
    bib = (ROOT / "references.bib").read_text()
    return set(re.findall(r"https://github\.com/[\w.-]+/[\w.-]+", bib))


def test_every_repository_link_uses_the_configured_url():
    """Links to the book's own repository (edit, source, issues, Binder) use the one
    configured address; a repository the bibliography cites is someone else's code."""
    repo = _config()["repository"]["url"].rstrip("/")
    slug = repo.removeprefix("https://github.com/")
    cited = _cited_repositories()
    bad = set()
    for page in PAGES:
        for a in _source(page).find_all("a", href=True):
            href = a["href"]
            if "github.com/" in href or "mybinder.org/v2/gh/" in href:
                if "github.com/executablebooks" in href:   # the theme's credit link
                    continue
                if href.rstrip("/") in cited:
                    continue
                if slug not in href:
                    bad.add((page, href))
    assert not bad, f"links to a repository other than {repo}: {sorted(bad)[:5]}"


_AUTHOR_YEAR = re.compile(r"^[^\W\d][\w'’ .\-&]+?(?: et al\.)?, (?:\d{4}|n\.d\.)[a-z]?$")


def test_reference_list_is_author_year_and_clean():
    soup = _source("references.html")
    entries = soup.select("article div.citation, article dl.citation > dt")
    labels = [e.select_one("span.label") for e in soup.select("article div.citation")]
    labels = [lab.get_text(strip=True).strip("[]") for lab in labels if lab is not None]
    if not labels:  # docutils >= 0.18 renders citations as a <dl>
        labels = [dt.get_text(strip=True).strip("[]") for dt in soup.select("dl.citation > dt")]
    assert labels, f"no reference entries found ({len(entries)} elements)"
    bad = [lab for lab in labels if not _AUTHOR_YEAR.match(lab)]
    assert not bad, f"labels that are not 'Author, year': {bad}"
    assert "Ba et al., 2022" in labels
    assert len(set(labels)) == len(labels), f"duplicate labels: {labels}"
    text = soup.select_one("article").get_text(" ")
    lower = re.findall(r"\bgaussian\b|\bmarchenko\b|\bboolean\b", text)
    assert not lower, f"proper names in lower case in the references: {lower}"
    titles = [dd.get_text(" ", strip=True) for dd in soup.select("dl.citation > dd")]
    assert len(set(titles)) == len(titles), "an entry appears twice in the reference list"


# --------------------------------------------------------------------------- every page

@pytest.mark.parametrize("page", PAGES)
def test_mathjax_is_the_local_copy_loaded_once(page):
    scripts = [s.get("src", "") for s in _source(page).find_all("script")]
    mathjax = [s for s in scripts if "mathjax" in s.lower()]
    assert len(mathjax) <= 1, f"{page}: several MathJax scripts {mathjax} (is there a _static?)"
    for src in mathjax:
        assert "://" not in src, f"{page}: MathJax loaded from the network: {src}"
        assert (SITE / page).parent.joinpath(src.split("?")[0]).resolve().is_file(), src


@pytest.mark.parametrize("page", PAGES)
def test_maths_is_rendered(views, page):
    dom = _rendered(views, page)
    probe = views[page, DESKTOP, "light"].probe
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
    for tag in body.select(".highlight"):
        tag.decompose()
    text = body.get_text(" ")
    raw = re.findall(r"\$\$|\\\(|\\\[|\\begin\{|\$[^$\s][^$\n]{0,80}\$", text)
    assert not raw, f"{page}: raw TeX delimiters in the rendered text: {raw[:5]}"


@pytest.mark.parametrize("page", PAGES)
def test_every_image_loads(views, page):
    images = views[page, DESKTOP, "light"].images
    broken = [i["src"] for i in images if not i["ok"]]
    assert not broken, f"{page}: images that did not load: {broken}"
    # an explorer's static figure (helpers.explorers) leaves the page once BokehJS is there
    expected = len([i for i in _source(page).find_all("img")
                    if not i.find_parent(class_="book-explorer-static")])
    assert len(images) >= expected, f"{page}: {len(images)} images, expected {expected}"


# An alternative text that says nothing: empty, a file name or path, matplotlib's repr.
_EMPTY_ALT = re.compile(r"^\s*$|\.(png|svg|jpe?g|gif)\s*$|^\.{0,2}/|^_images/|<Figure size",
                        re.IGNORECASE)


def alt_text_problem(alt: str | None, caption: str) -> str | None:
    """Why ``alt`` does not describe its image (None when it does): empty, a file name, a
    figure-size repr, or the caption's first words repeated."""
    if alt is None or _EMPTY_ALT.search(alt):
        return f"no description ({alt!r})"
    words = lambda text: re.findall(r"\w+", text.lower())  # noqa: E731
    head = words(caption)[:6]
    if len(head) >= 4 and words(alt)[:len(head)] == head:
        return f"repeats the caption's first words ({alt[:60]!r})"
    return None


def test_alt_text_rule():
    assert alt_text_problem("../_images/ab12.png", "") is not None
    assert alt_text_problem("", "") is not None
    assert alt_text_problem("<Figure size 640x480 with 1 Axes>", "") is not None
    assert alt_text_problem("Singular values of the first gradient, tanh student", (
        "Singular values of the first gradient, tanh student and teacher")) is not None
    assert alt_text_problem("Scatter plot of the overlap against psi1: markers on the curve.",
                            "Squared overlap of the top singular vector") is None


@pytest.mark.parametrize("page", PAGES)
def test_every_image_has_alternative_text(views, page):
    """WCAG 2.1 criterion 1.1.1: every image in the page says what it shows."""
    images = [i for i in views[page, DESKTOP, "light"].images if i["inArticle"]]
    bad = [(i["src"], why) for i in images
           if (why := alt_text_problem(i["alt"], i["caption"] or ""))]
    assert not bad, f"{page}: images without a meaningful alternative text: {bad}"


@pytest.mark.parametrize("page", PAGES)
def test_no_console_error_and_no_request_off_the_machine(views, page):
    """No page logs a console error or an uncaught exception, at either width or theme, and no
    page asks for anything but its own files (the book reads offline: no CDN at read time)."""
    for width in (DESKTOP, PHONE):
        for theme in THEMES:
            view = views[page, width, theme]
            assert not view.console_errors, f"{page} ({width} px, {theme}): {view.console_errors}"
            assert not view.outside_requests, (
                f"{page} ({width} px, {theme}): requests off the machine: "
                f"{view.outside_requests}")


def test_a_first_visit_logs_no_console_error(browser):
    """A reader's first visit (nothing in localStorage: the theme starts from its default)."""
    context = browser.new_context(viewport={"width": DESKTOP, "height": 900})
    page = context.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    page.goto((SITE / "intro.html").as_uri(), wait_until="load")
    page.wait_for_timeout(200)
    context.close()
    assert not errors, errors


def _figure_file(page: str, image: dict) -> Path | None:
    url = urlsplit(image["url"])
    if url.scheme != "file":
        return None
    path = Path(unquote(url.path))
    return path if path.suffix.lower() == ".png" and path.is_file() else None


@pytest.mark.parametrize("page", PAGES)
def test_figure_text_is_at_least_11px_on_a_desktop_page(views, page):
    floor_pt = min_font_pt()
    small = []
    for image in views[page, DESKTOP, "light"].images:
        path = _figure_file(page, image)
        if path is None or not image["inArticle"] or not image["natural"]:
            continue
        px = smallest_text_px(image["rendered"], image["natural"], png_dpi(path), floor_pt)
        if px < MIN_FIGURE_TEXT_PX:
            small.append(f"{image['src']}: {px:.1f} px (drawn {image['rendered']:.0f} of "
                         f"{image['natural']} px at {png_dpi(path):.0f} dpi)")
    assert not small, (f"{page}: figure text below {MIN_FIGURE_TEXT_PX} px at {DESKTOP} px "
                       f"(smallest font {floor_pt} pt): {small}")


SHARP = 1.9   # image pixels per CSS pixel for "sharp at 2x density" (a few px trimmed)
MIN_PHONE_PAGE_TEXT_PX = 9.0    # a figure's smallest text in a phone-width page, or else...
MIN_OPENED_TEXT_PX = 11.0       # ...in the figure opened by a tap


@pytest.mark.parametrize("page", PAGES)
def test_figures_are_sharp_at_twice_their_pixel_density(views, page):
    """Every figure image holds at least two image pixels per CSS pixel it is drawn on, so it
    is sharp on a high-density screen (helpers.legibility sends figures at 2x)."""
    soft = []
    for image in views[page, DESKTOP, "light"].images:
        if _figure_file(page, image) is None or not image["inArticle"] or not image["rendered"]:
            continue
        if image["natural"] < SHARP * image["rendered"]:
            soft.append(f"{image['src']}: {image['natural']} px drawn at "
                        f"{image['rendered']:.0f} CSS px")
    assert not soft, f"{page}: figures below 2x pixel density: {soft}"


@pytest.mark.parametrize("page", PAGES)
def test_figure_text_on_a_phone_in_the_page_or_opened_by_a_tap(views, page):
    """At 420 px a figure's smallest text is >= 9 px in the page, or a tap opens the figure
    where it is >= 11 px and still sharp (two image pixels per CSS pixel).  Every figure opens."""
    floor_pt = min_font_pt()
    view = views[page, PHONE, "light"]
    figures = [i for i in view.images if _figure_file(page, i) is not None and i["inArticle"]]
    opened = {o["src"]: o for o in view.opened}
    missing = [i["src"] for i in figures if not opened.get(i["src"], {}).get("open")]
    assert not missing, f"{page}: figures that a tap does not open: {missing}"
    bad = []
    for o in view.opened:
        path = _figure_file(page, o)
        if path is None:
            continue
        dpi = png_dpi(path)
        in_page = smallest_text_px(o["inPage"], o["natural"], dpi, floor_pt)
        in_view = smallest_text_px(o["opened"], o["openedNatural"], dpi, floor_pt)
        sharp = o["openedNatural"] >= SHARP * o["opened"]
        if in_page < MIN_PHONE_PAGE_TEXT_PX and not (in_view >= MIN_OPENED_TEXT_PX and sharp):
            bad.append(f"{o['src']}: {in_page:.1f} px in the page, {in_view:.1f} px opened "
                       f"({o['openedNatural']} image px on {o['opened']:.0f} CSS px)")
    assert not bad, f"{page}: figure text too small at {PHONE} px: {bad}"


@pytest.mark.parametrize("page", PAGES)
def test_no_horizontal_overflow_on_a_phone(views, page):
    view = views[page, PHONE, "light"]
    over = view.overflow
    assert over["scrollWidth"] <= over["viewport"] + 1, \
        f"{page}: the page is {over['scrollWidth']} px wide at {PHONE} px: {over['offenders']}"
    assert not over["count"], (f"{page}: {over['count']} elements stick out of the screen at "
                               f"{PHONE} px without scrolling inside a box: {over['offenders']}")


@pytest.mark.parametrize("page", PAGES)
def test_equation_numbers_do_not_cover_formulas_on_a_phone(views, page):
    bad = views[page, PHONE, "light"].eqno_overlaps
    assert not bad, f"{page}: equation numbers drawn over their formula at {PHONE} px: {bad}"


@pytest.mark.parametrize("page", PAGES)
def test_what_scrolls_on_a_phone_shows_that_it_scrolls(views, page):
    """Nothing is cut without a visible way to reach it: every box wider than its column
    carries the scroll cue (scroll bar, faded edge) of assets/book.js."""
    bad = views[page, PHONE, "light"].scroll_uncued
    assert not bad, f"{page}: boxes that scroll at {PHONE} px without a scroll cue: {bad[:5]}"


@pytest.mark.parametrize("page", PAGES)
def test_dark_theme_is_applied(views, page):
    assert views[page, DESKTOP, "dark"].theme == "dark"
    assert views[page, DESKTOP, "light"].theme == "light"


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


def test_screenshots_of_every_page(views):
    """Every page at 1400 and 420 px, light and dark, for a human look."""
    expected = {_screenshot_name(p, w, t) for p in PAGES for w in (DESKTOP, PHONE)
                for t in THEMES}
    saved = {p.name for p in SCREENSHOTS.glob("*.png")}
    assert expected <= saved, f"missing screenshots: {sorted(expected - saved)[:5]}"
    small = [n for n in expected if (SCREENSHOTS / n).stat().st_size < 10_000]
    assert not small, f"screenshots that look empty: {small}"


# MyST source that should have been parsed: a directive fence, a role, or a directive option.
# A backtick inside a backtick fence's title (e.g. a {cite} in a prf title) makes MyST show the
# whole block, and everything up to the next fence, as a literal code block.
_LEAKED_SOURCE = re.compile(r"```\{[a-z]|\{(?:prf:[a-z]+|cite|numref|eq|doc)\}`|^:label: |"
                            r"\{\{ *\w+ *\}\}", re.MULTILINE)


@pytest.mark.parametrize("page", PAGES)
def test_no_myst_source_leaks_into_the_page(page):
    body = BeautifulSoup(str(_source(page).body), "html.parser")
    for tag in body.select("div.cell, script, style"):  # code cells may print anything
        tag.decompose()
    leaked = _LEAKED_SOURCE.findall(body.get_text("\n"))
    assert not leaked, f"{page}: unparsed MyST source in the page: {leaked[:5]}"


# --------------------------------------------------------------------------- result boxes

# Two sample boxes, written into the landing page as MyST renders a colon-fence admonition
# with `:class:`, so the book's CSS is checked whether or not a chapter has such a box yet.
_RESULT_BOXES = """
() => {
  const article = document.querySelector("article.bd-article");
  const make = (cls, title) => {
    const box = document.createElement("div");
    box.className = "admonition " + cls;
    box.innerHTML = '<p class="admonition-title">' + title + '</p><p>Statement.</p>';
    article.prepend(box);
    return box;
  };
  const boxes = {paper: make("paper-result", "Proposition 2 (Ba et al., 2022): a spike"),
                 ours: make("book-result", "Proposition 4.1 (ours): parity")};
  const rgb = s => (s.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = c => {
    const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92
                                                   : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
                               return (x + 0.05) / (y + 0.05); };
  const out = {};
  for (const [k, box] of Object.entries(boxes)) {
    const title = box.querySelector(".admonition-title");
    const t = getComputedStyle(title), b = getComputedStyle(box);
    out[k] = {accent: b.borderLeftColor, titleBg: t.backgroundColor, titleColor: t.color,
              contrast: contrast(rgb(t.color), rgb(t.backgroundColor)),
              accentContrast: contrast(rgb(b.borderLeftColor),
                                       rgb(getComputedStyle(document.body).backgroundColor))};
  }
  return out;
}
"""


@pytest.mark.parametrize("theme", THEMES)
def test_result_boxes_are_distinct_and_readable(browser, theme):
    context = _context(browser, DESKTOP, theme)
    page = context.new_page()
    page.goto((SITE / "intro.html").as_uri(), wait_until="load")
    boxes = page.evaluate(_RESULT_BOXES)
    context.close()
    paper, ours = boxes["paper"], boxes["ours"]
    assert paper["accent"] != ours["accent"], boxes
    assert paper["titleBg"] != ours["titleBg"], boxes
    for name, box in boxes.items():
        assert box["contrast"] >= 4.5, f"{theme}: {name} box title contrast {box['contrast']:.1f}"
        assert box["accentContrast"] >= 3.0, \
            f"{theme}: {name} box accent contrast {box['accentContrast']:.1f}"


@pytest.mark.parametrize("page", PAGES)
def test_result_boxes_say_whose_result_they_are(page):
    """The numbering convention: a paper's box names its paper (Ba et al., 2022 for the book's
    paper, e.g. Cui et al., 2024 for a later one), the book's own say 'ours' (or 'elementary'
    for an elementary fact the book states for itself)."""
    soup = _source(page)
    cited = re.compile(r"[A-Z][\w-]+ (?:et al\.|and [A-Z][\w-]+),? \d{4}")
    for box in soup.select("div.admonition.paper-result"):
        title = box.select_one(".admonition-title").get_text(" ", strip=True)
        assert cited.search(title), f"{page}: paper-result box without its paper: {title!r}"
    for box in soup.select("div.admonition.book-result"):
        title = box.select_one(".admonition-title").get_text(" ", strip=True)
        assert "(ours)" in title or "(elementary)" in title, \
            f"{page}: book-result box not marked as ours or elementary: {title!r}"


# --------------------------------------------------------------------------- numbering, results
_CHAPTER_PAGES = [p for p in PAGES if p.startswith("chapters/")]


@pytest.mark.parametrize("page", _CHAPTER_PAGES)
def test_numbers_carry_the_chapter(page):
    """Textbook numbering: in chapter 3 every figure, table, exercise and proof is 3.k and
    every equation (3.k); in the appendix A.k."""
    soup = _source(page)
    number = soup.select_one("article h1 .section-number")
    assert number is not None, f"{page}: the chapter title carries no number"
    prefix = number.get_text(strip=True).rstrip(".") + "."
    captions = [c.get_text(" ", strip=True) for c in soup.select("article .caption-number")]
    equations = [e.get_text(strip=True) for e in soup.select("article .eqno")]
    bad = [c for c in captions if not re.search(rf"\s{re.escape(prefix)}\d", " " + c)]
    bad += [e for e in equations if not e.strip("()").startswith(prefix)]
    assert not bad, f"{page}: numbers without the chapter prefix {prefix!r}: {bad[:5]}"


def test_no_index_pages_of_raw_labels():
    """The general and proof indexes are not built (the book has no index entries); the
    results page is the index of results."""
    for name in ("genindex.html", "prf-prf.html"):
        assert not (SITE / name).exists(), f"{name} is built"


def test_the_results_page_links_every_result():
    """Every result box of every chapter (the paper's, later papers', ours) is listed on
    the results page, by a link to its label."""
    listed = {a["href"].split("#", 1)[1] for a in _source("results.html").select("article a[href]")
              if "#" in a["href"]}
    missing = []
    for page in _CHAPTER_PAGES:
        for box in _source(page).select("div.admonition.paper-result, div.admonition.book-result"):
            before = box.find_previous_sibling()
            ids = {box.get("id"), before.get("id") if before is not None else None} - {None}
            if not ids & listed:
                title = box.select_one(".admonition-title").get_text(" ", strip=True)
                missing.append((page, title[:60], sorted(ids)))
    assert not missing, f"result boxes not on the results page: {missing}"


# --------------------------------------------------------------------------- explorers
# Each explorer (helpers.explorers) is moved as a reader would move it (a dropdown chosen, a
# slider's handle pushed with the arrow keys) and the curves the page then draws are read back
# from its Bokeh document and compared with the theory at that setting, computed here.

# The data of a named Bokeh model of the page (every explorer is a document of its own).
_MODEL_DATA = """
(name) => {
  for (const doc of Bokeh.documents) {
    const m = doc.get_model_by_name(name);
    if (m) return Object.fromEntries([...Object.keys(m.data)].map(
        k => [k, Array.from(m.data[k])]));
  }
  return null;
}
"""


def _explorer_page(browser, page: str, explorer: str):
    context = _context(browser, DESKTOP, "light")
    tab = context.new_page()
    requests = []
    tab.on("request", lambda r: requests.append(r.url))
    tab.goto((SITE / page).as_uri(), wait_until="load")
    tab.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0")
    root = tab.locator(f"#explorer-{explorer}")
    assert root.locator(".book-explorer-static").count() == 0, "the static figure stayed"
    assert root.locator(".book-explorer-controls").is_visible(), "the controls stayed hidden"
    root.scroll_into_view_if_needed()
    return context, tab, root, requests


def _push_slider(root, index: int, steps: int) -> None:
    handle = root.locator("input[type=range]").nth(index)
    handle.focus()
    for _ in range(abs(steps)):
        handle.press("ArrowRight" if steps > 0 else "ArrowLeft")


def _read(tab, name: str) -> dict:
    data = tab.evaluate(_MODEL_DATA, name)
    assert data is not None, f"no model {name!r} in the page"
    return data


def _moved(tab, root, requests, name, move) -> tuple[dict, dict]:
    before = _read(tab, name)
    move(root)
    after = _read(tab, name)
    outside = [u for u in requests if not u.startswith(_LOCAL_SCHEMES)]
    assert not outside, f"requests off the machine: {outside}"
    return before, after


def test_the_spike_explorer_draws_the_limit_at_the_chosen_setting(browser):
    from helpers import theory

    context, tab, root, requests = _explorer_page(browser, "chapters/02_spike.html",
                                                  "spike-alignment")

    def move(root):
        root.locator("select").first.select_option(label="relu")
        _push_slider(root, 0, 3)   # noise 0.5 -> 0.8

    before, after = _moved(tab, root, requests, "spike-alignment/limit", move)
    context.close()
    expected = [theory.spike_alignment("relu", psi1=x, noise=0.8) for x in after["x"]]
    assert after["y"] != before["y"]
    np.testing.assert_allclose(after["y"], expected, rtol=1e-9)


def test_the_regimes_explorer_draws_both_theories_at_the_chosen_setting(browser):
    from helpers import theory

    context, tab, root, requests = _explorer_page(browser, "chapters/05_exact_large_step.html",
                                                  "both-regimes")

    def move(root):
        root.locator("select").first.select_option(label="erf / erf")
        _push_slider(root, 0, 2)    # psi1 2 -> 8
        _push_slider(root, 1, 1)    # psi2 1 -> 2

    before, after = _moved(tab, root, requests, "both-regimes/large", move)
    floor = _read(tab, "both-regimes/floor")
    tau = _read(tab, "both-regimes/tau")
    context.close()
    expected = theory.large_step_risk("erf", "erf", psi1=8.0, psi2=2.0, lam=0.1,
                                      eta_scale=np.array(after["x"]), second_layer="rademacher")
    assert after["y"] != before["y"]
    np.testing.assert_allclose(after["y"], expected, rtol=1e-9)
    np.testing.assert_allclose(floor["y"], theory.kernel_lower_bound("erf"), rtol=1e-12)
    np.testing.assert_allclose(tau["y"], theory.tau_star("erf", "erf")[0], atol=1e-12)


def test_the_map_explorer_draws_the_map_at_the_chosen_setting(browser):
    from helpers import theory

    context, tab, root, requests = _explorer_page(browser, "chapters/05_exact_large_step.html",
                                                  "floor-map")

    def move(root):
        root.locator("select").first.select_option(index=1)   # the Gaussian layer
        _push_slider(root, 0, 1)                              # psi2 1 -> 2

    before, after = _moved(tab, root, requests, "floor-map/cells", move)
    context.close()
    floor = theory.kernel_lower_bound("tanh")
    etas = sorted({float(x) for x in after["x"]})
    expected = np.concatenate([
        theory.large_step_risk("tanh", "tanh", psi1=float(p), psi2=2.0, lam=0.1,
                               eta_scale=np.array(etas), second_layer="gaussian") / floor
        for p in dict.fromkeys(after["y"])])
    assert after["value"] != before["value"]
    np.testing.assert_allclose(after["value"], expected, rtol=1e-9)
    assert after["edge"] == [1.0 if v < 1 else 0.0 for v in after["value"]]


def test_the_small_step_explorer_draws_theorem_5_at_the_chosen_setting(browser):
    from helpers import theory

    context, tab, root, requests = _explorer_page(browser, "chapters/03_small_step.html",
                                                  "small-step")

    def move(root):
        root.locator("select").first.select_option(label="relu")
        _push_slider(root, 0, -1)   # psi2 2 -> 1
        _push_slider(root, 1, 1)    # eta 4 -> 8

    before, after = _moved(tab, root, requests, "small-step/step", move)
    rf = _read(tab, "small-step/rf")
    context.close()
    common = dict(psi2=1.0, lam=1e-4, noise=0.1)   # Figure 3(b)'s noise for the ReLU teacher
    expected = [theory.small_step_risk("tanh", "relu", psi1=p, eta=[0.0, 8.0], **common)
                for p in after["x"]]
    assert after["y"] != before["y"]
    np.testing.assert_allclose(after["y"], [e[1] for e in expected], rtol=1e-9)
    np.testing.assert_allclose(rf["y"], [e[0] for e in expected], rtol=1e-9)


# --------------------------------------------------------------------------- accessibility
# axe-core on every page in the four views; tab stops; the explorers from the keyboard, in the
# dark theme and under a finger.

# Violations that come from the theme or Sphinx and cannot be fixed in this project:
# (rule id, CSS selector fragment of the node, why, upstream reference).  Empty: every
# serious or critical violation axe found was fixed here (the link colour on tinted boxes in
# assets/book.css, the reference list's roles in _ext/book_a11y.py, the explorers' controls
# in helpers.explorers).
AXE_ACCEPTED: list[tuple[str, str, str, str]] = []


def _accepted(rule: str, target: str) -> bool:
    return any(rule == r and fragment in target for r, fragment, _, _ in AXE_ACCEPTED)


@pytest.mark.parametrize("page", PAGES)
def test_axe_finds_no_serious_or_critical_violation(views, page):
    bad = []
    for width in (DESKTOP, PHONE):
        for theme in THEMES:
            for v in views[page, width, theme].axe:
                nodes = [n for n in v["nodes"]
                         if (n["impact"] or v["impact"]) in ("serious", "critical")
                         and not _accepted(v["id"], n["target"])]
                if nodes:
                    bad.append(f"{width} px {theme}: {v['id']} ({v['help']}) x{len(nodes)}: "
                               f"{nodes[0]['target']}: {nodes[0]['summary']}")
    assert not bad, "\n".join(bad)


def test_the_accepted_axe_violations_name_their_source():
    for rule, fragment, why, upstream in AXE_ACCEPTED:
        assert rule and fragment and len(why) > 20 and upstream.startswith("http"), rule


MAX_TAB_STOPS = 200


@pytest.mark.parametrize("page", PAGES)
def test_tab_stops_per_page(views, page):
    """Formulas are not tab stops (1052 of chapter 5's 1305 were), except the first of a page
    (MathJax's menu) and those too wide for the column (a box that scrolls must be reachable
    from the keyboard to be scrolled); no page needs more than 200 presses of Tab to cross
    it."""
    for width in (DESKTOP, PHONE):
        stops = views[page, width, "light"].tab_stops
        formulas = [t for t in stops if t.startswith("mjx-container")
                    and not t.endswith("(scrolls)")]
        assert len(formulas) <= 1, (width, formulas[:3])
        if "<mjx-container" in views[page, DESKTOP, "light"].html:   # MathJax's menu reachable
            assert any(t.startswith("mjx-container") for t in stops), (width, "no formula")
        assert not [t for t in stops if "bk-events" in t], (width, "Bokeh's plot area")
        assert len(stops) <= MAX_TAB_STOPS, (width, len(stops), stops[:5])


EXPLORER_PAGES = {"chapters/02_spike.html": ["spike-alignment"],
                  "chapters/03_small_step.html": ["small-step"],
                  "chapters/05_exact_large_step.html": ["both-regimes", "floor-map"]}


def test_every_explorer_is_listed_here():
    found = {p: sorted(t["id"].removeprefix("explorer-") for t in _source(p).select(
        "div.book-explorer")) for p in PAGES if _source(p).select("div.book-explorer")}
    assert found == {p: sorted(e) for p, e in EXPLORER_PAGES.items()}


def test_every_explorer_is_a_numbered_figure_with_a_caption():
    for page, names in EXPLORER_PAGES.items():
        for name in names:
            box = _source(page).select_one(f"#explorer-{name}")
            figure = box.find_parent("figure")
            assert figure is not None, (page, name)
            caption = figure.select_one("figcaption")
            assert caption is not None and re.match(r"Fig\. \d+\.\d+", caption.get_text(
                " ", strip=True)), (page, name)


_SELECT_COLOURS = """
(root) => Array.from(root.querySelectorAll("select, select option")).map(s => {
  const cs = getComputedStyle(s);
  return {what: s.tagName + " " + (s.textContent || "").slice(0, 20), color: cs.color,
          background: cs.backgroundColor, size: parseFloat(cs.fontSize)};
})
"""


def _rgb(css: str) -> tuple[float, ...]:
    """A computed CSS colour, which must be opaque, as RGB in 0-1 (for helpers.legibility)."""
    values = [float(x) for x in re.findall(r"[\d.]+", css)]
    assert len(values) == 3 or values[3] == 1.0, f"not opaque: {css}"   # rgba(..., a < 1)
    return tuple(v / 255 for v in values[:3])


def _contrast(a: str, b: str) -> float:
    from helpers.legibility import contrast_ratio

    return contrast_ratio(_rgb(a), _rgb(b))


@pytest.mark.parametrize("theme", THEMES)
def test_explorer_dropdowns_are_readable_in_both_themes(browser, theme):
    """In the dark theme the dropdowns once showed white text on white (issue 49): the
    closed dropdown and every option of its list, on an opaque background."""
    for page, names in EXPLORER_PAGES.items():
        context = _context(browser, PHONE, theme)
        tab = context.new_page()
        tab.goto((SITE / page).as_uri(), wait_until="load")
        for name in names:
            for sel in tab.evaluate(_SELECT_COLOURS, tab.locator(f"#explorer-{name}")
                                    .element_handle()):
                assert _contrast(sel["color"], sel["background"]) >= 4.5, (page, name, sel)
                assert sel["size"] >= 16, (page, name, sel)   # no zoom on tap on a phone
        context.close()


_CONTROL_SIZES = """
(root) => Array.from(root.querySelectorAll("input[type=range], select")).map(el => {
  const r = el.getBoundingClientRect();
  return {what: el.id, height: r.height, width: r.width};
})
"""


def test_explorer_controls_are_large_enough_to_touch(browser):
    for page, names in EXPLORER_PAGES.items():
        context = _context(browser, PHONE, "light")
        tab = context.new_page()
        tab.goto((SITE / page).as_uri(), wait_until="load")
        for name in names:
            for c in tab.evaluate(_CONTROL_SIZES, tab.locator(f"#explorer-{name}")
                                  .element_handle()):
                assert c["height"] >= 24 and c["width"] >= 24, (page, c)
        context.close()


# The focused element (through open shadow roots), its outline, and the key of the setting
# the explorer's controls now show.
_FOCUS = """
() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  const cs = getComputedStyle(el);
  return {id: el.id || "", tag: el.tagName.toLowerCase(),
          outline: cs.outlineStyle === "none" ? 0 : parseFloat(cs.outlineWidth),
          valuetext: el.getAttribute("aria-valuetext")};
}
"""


def test_an_explorer_is_driven_from_the_keyboard(browser):
    """Tab reaches the explorer's controls (past every other stop of the page, no formulas in
    the way), each shows a focus ring, arrow keys change the setting, the plot follows and a
    slider says its value."""
    context, tab, root, requests = _explorer_page(browser, "chapters/02_spike.html",
                                                  "spike-alignment")
    before = _read(tab, "spike-alignment/limit")
    seen = []
    for _ in range(MAX_TAB_STOPS + 5):
        tab.keyboard.press("Tab")
        focus = tab.evaluate(_FOCUS)
        seen.append(focus["id"] or focus["tag"])
        if focus["id"] == "explorer-spike-alignment-control-0":
            break
    else:
        pytest.fail(f"Tab never reached the explorer's dropdown: {seen[-10:]}")
    assert focus["outline"] >= 2, focus
    tab.keyboard.press("ArrowDown")            # tanh -> relu
    tab.keyboard.press("Tab")
    focus = tab.evaluate(_FOCUS)
    assert focus["id"] == "explorer-spike-alignment-control-1" and focus["outline"] >= 2
    tab.keyboard.press("ArrowRight")           # noise 0.5 -> 0.6
    after = _read(tab, "spike-alignment/limit")
    focus = tab.evaluate(_FOCUS)
    shown = root.locator("output").first.text_content()
    context.close()
    assert sum(s == "mjx-container" for s in seen) <= 1, "formulas in the way"
    assert shown == "0.6"
    from helpers import theory

    assert focus["valuetext"] == "0.6"
    assert after["y"] != before["y"]
    np.testing.assert_allclose(after["y"], [theory.spike_alignment("relu", psi1=x, noise=0.6)
                                            for x in after["x"]], rtol=1e-9)


# A plot's axis ranges (every explorer's figure), to see that a swipe did not move them.
_RANGES = """
(name) => {
  for (const doc of Bokeh.documents) {
    const src = doc.get_model_by_name(name);
    if (!src) continue;
    const plots = doc.all_models ? [...doc.all_models].filter(m => m.x_range && m.y_range) : [];
    return plots.map(p => [p.x_range.start, p.x_range.end, p.y_range.start, p.y_range.end]);
  }
  return null;
}
"""


def test_a_swipe_over_an_explorer_on_a_phone_scrolls_the_page(browser):
    """On a phone a swipe over a plot once panned it (issue 49); now the plot has no drag
    tool, so the page scrolls and the plot stays as drawn."""
    context = browser.new_context(viewport={"width": PHONE, "height": 900},
                                  device_scale_factor=1, has_touch=True, is_mobile=True)
    tab = context.new_page()
    tab.goto((SITE / "chapters/05_exact_large_step.html").as_uri(), wait_until="load")
    tab.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0")
    # the explorer at the top of the screen, and a point in its plot (below its controls)
    plot = tab.evaluate("""async () => {
      const root = document.getElementById("explorer-both-regimes");
      root.scrollIntoView({block: "start"});
      await new Promise(r => setTimeout(r, 300));
      const c = root.querySelector(".book-explorer-controls").getBoundingClientRect();
      const r = root.getBoundingClientRect();
      return {x: r.left + r.width / 2, y: c.bottom + 120, bottom: r.bottom};
    }""")
    assert plot["y"] < plot["bottom"] - 50, plot
    ranges = tab.evaluate(_RANGES, "both-regimes/large")
    y0 = tab.evaluate("window.scrollY")
    # a finger put down on the plot and moved 300 px up in 15 steps, one per frame
    cdp = context.new_cdp_session(tab)
    x, y = plot["x"], plot["y"]
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 16):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove",
                                              "touchPoints": [{"x": x, "y": y - 20 * k}]})
        tab.wait_for_timeout(16)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    tab.wait_for_timeout(500)
    y1 = tab.evaluate("window.scrollY")
    after = tab.evaluate(_RANGES, "both-regimes/large")
    context.close()
    assert y1 - y0 >= 200, f"the page scrolled {y1 - y0:.0f} px under a 300 px swipe"
    assert after == ranges, "the swipe moved the plot"
