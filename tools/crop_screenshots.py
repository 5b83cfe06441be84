"""Screenshot crops of chosen elements of a built book, for before/after comparisons.

Each crop is one element of one page (a CSS selector, the first match), at a given window
width, in the light theme, scrolled into view and photographed with its own bounding box
(plus a margin). Used to put a change to the book's layout side by side with the old one::

    python tools/crop_screenshots.py SITE OUT_DIR SPEC.json [--prefix before]

``SPEC.json`` is a list of ``{"name": ..., "page": "chapters/03_small_step.html",
"selector": "#equation-eq-small-step-sigma", "width": 420}``; a crop is saved as
``OUT_DIR/<prefix>-<name>.png``. A selector that matches nothing is reported and skipped.
Chromium as for the browser tests (``CHROMIUM`` or the first on the PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

MARGIN = 12  # px around the element


def _chromium() -> str:
    """The browser the browser tests use: $CHROMIUM, else the first Chromium on the PATH."""
    names = (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome")
    found = [shutil.which(name) for name in names if name]
    return next(filter(None, found), None) or sys.exit("no Chromium (apt-get install chromium)")


def crop(site: Path, out: Path, spec: list[dict], prefix: str) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    missing = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), headless=True,
                                     args=["--no-sandbox", "--disable-gpu"])
        for item in spec:
            page = browser.new_page(viewport={"width": item["width"], "height": 900})
            page.goto((site / item["page"]).resolve().as_uri(), wait_until="load")
            page.wait_for_timeout(1500)  # MathJax typesets after load
            element = page.query_selector(item["selector"])
            if element is None:
                missing.append(f"{item['name']}: {item['page']} has no {item['selector']}")
                page.close()
                continue
            element.scroll_into_view_if_needed()
            box = element.bounding_box()
            height = min(box["height"] + 2 * MARGIN, item.get("max_height", 1600))
            page.set_viewport_size({"width": item["width"], "height": int(height) + 40})
            element.scroll_into_view_if_needed()
            box = element.bounding_box()
            left = max(box["x"] - MARGIN, 0)  # what the window shows of the element
            clip = {"x": left, "y": max(box["y"] - MARGIN, 0), "height": height,
                    "width": min(box["width"] + 2 * MARGIN, item["width"] - left)}
            page.screenshot(path=str(out / f"{prefix}-{item['name']}.png"), clip=clip)
            page.close()
        browser.close()
    return missing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("spec", type=Path)
    ap.add_argument("--prefix", default="crop")
    args = ap.parse_args()
    missing = crop(args.site, args.out, json.loads(args.spec.read_text()), args.prefix)
    for line in missing:
        print("missing:", line)


if __name__ == "__main__":
    main()
