"""tools/check_site_links.py finds links that only work on the building machine."""

import sys

import pytest
from _tools import ROOT, load_tool

check_site_links = load_tool("check_site_links")
sys.path.insert(0, str(ROOT / "_ext"))
import book_links  # noqa: E402

SITE_URL = "https://owner.github.io/book/"


def _site(tmp_path, pages):
    for name, body in pages.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<html><head></head><body>{body}</body></html>", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("url", [
    "file:///work/main/_build/html/index.html",
    "http://localhost:8000/index.html",
    "https://127.0.0.1/x.png",
    "http://[::1]:8888/lab",
    "/work/main/_build/jupyter_execute/abc.png",
    "/home/me/book/_images/a.png",
    "C:\\Users\\me\\book.html",
    "/_static/book.css",
])
def test_local_links_are_found(url):
    assert check_site_links.problem(url, site_path="/book/", local_roots=()) is not None


@pytest.mark.parametrize("url", [
    "chapters/01_setting.html#top", "../_static/book.css", "#eq-1", "",
    "https://github.com/owner/book", "mailto:a@b.c", "data:image/png;base64,AAAA",
    "/book/_static/book.css", "//cdn.example.org/x.js",
])
def test_links_that_work_online_pass(url):
    assert check_site_links.problem(url, site_path="/book/", local_roots=()) is None


def test_the_build_folder_itself_counts_as_local(tmp_path):
    root = str(tmp_path) + "/"
    assert check_site_links.problem(root + "a.png", site_path="/", local_roots=(root,))


def test_check_reads_every_attribute_and_the_preview_tags(tmp_path):
    site = _site(tmp_path, {
        "index.html": '<a href="intro.html">x</a>'
                      '<meta property="og:image" content="file:///tmp/a.png">'
                      '<img srcset="a.png 1x, /tmp/b.png 2x">',
        "intro.html": '<img src="_images/a.png"><script src="/work/x.js"></script>',
    })
    problems = check_site_links.check(site, SITE_URL)
    assert len(problems) == 3, problems
    assert any("og:image" in p for p in problems)
    assert any("/tmp/b.png" in p for p in problems)
    assert any("intro.html" in p and "/work/x.js" in p for p in problems)


def test_every_chapter_must_offer_its_notebook(tmp_path):
    link = '<a href="../_sources/chapters/01_a.ipynb">.ipynb</a>'
    site = _site(tmp_path, {"chapters/01_a.html": link, "chapters/02_b.html": "no link"})
    problems = check_site_links.check(site, SITE_URL)
    assert any("01_a.ipynb is missing" in p for p in problems), problems
    assert any("02_b.html: no download link" in p for p in problems), problems
    (site / "_sources/chapters").mkdir(parents=True)
    (site / "_sources/chapters/01_a.ipynb").write_text("{}")
    assert check_site_links.check(site, SITE_URL) == [
        "chapters/02_b.html: no download link to _sources/chapters/02_b.ipynb"]


def test_main_exit_status(tmp_path, capsys):
    clean = _site(tmp_path / "ok", {"index.html": '<a href="/book/x.html">x</a>'})
    assert check_site_links.main([str(clean), "--site-url", SITE_URL]) == 0
    bad = _site(tmp_path / "bad", {"index.html": '<a href="file:///x">x</a>'})
    assert check_site_links.main([str(bad), "--site-url", SITE_URL]) == 1
    assert "file: URL" in capsys.readouterr().out
    assert check_site_links.main([str(tmp_path / "empty"), "--site-url", SITE_URL]) == 1


def test_site_url_follows_the_repository_setting():
    url = check_site_links._site_url_from_config()
    assert url.startswith("https://") and url.endswith(".github.io/" + url.split("/")[-2] + "/")

    class Config:
        html_theme_options = {"repository_url": "https://github.com/Org/Org.github.io"}

    assert book_links.pages_url(Config()) == "https://org.github.io/"
    Config.html_theme_options = {"repository_url": "https://github.com/Org/my-book/"}
    assert book_links.pages_url(Config()) == "https://org.github.io/my-book/"
