"""tools/crop_screenshots.py: a crop of one element of a page, and a report of what is missing."""

import shutil

import pytest

from tests._tools import load_tool

crop_screenshots = load_tool("crop_screenshots")


@pytest.mark.skipif(not any(shutil.which(n) for n in ("chromium", "chromium-browser",
                                                     "google-chrome")),
                    reason="needs a Chromium")
def test_crops_an_element_and_reports_a_missing_one(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "page.html").write_text(
        "<html><body><p>text</p><div id='box' style='width:200px;height:50px;"
        "background:#c00'></div></body></html>")
    spec = [{"name": "box", "page": "page.html", "selector": "#box", "width": 420},
            {"name": "gone", "page": "page.html", "selector": "#nothing", "width": 420}]
    missing = crop_screenshots.crop(site, tmp_path / "out", spec, "after")
    png = tmp_path / "out" / "after-box.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert missing == ["gone: page.html has no #nothing"]
