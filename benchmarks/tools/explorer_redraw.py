"""How long an explorer takes to redraw after a control moves, in headless Chromium.

Opens every built page that holds an explorer (``helpers.explorers``), and for each explorer
sets each control to each of its settings in turn, as a reader's move would (its value set
and its ``input`` event fired, which runs the explorer's script), and times from the change
to the end of the second animation frame after it, by when Bokeh has painted the new
curves.  Writes
``benchmarks/results/explorer_redraw.json`` (one entry per run, appended) and prints, per
explorer, the median and largest redraw time and the bytes the page adds (BokehJS, shared by
every explorer page, and the page's own HTML).

Usage, after ``make book``::

    python benchmarks/tools/explorer_redraw.py [--html _build/html] [--repeats 3]

The issue that asked for the explorers sets a target of 50 ms per redraw; this script
measures it and does not assert it (a test on a shared, noisy machine would be flaky).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "results" / "explorer_redraw.json"

# Every explorer of the page: its controls (the page's own <select> and <input type=range>,
# helpers.explorers) and how many settings each offers.
_CONTROLS = """
() => {
  const out = {};
  for (const root of document.querySelectorAll("div.book-explorer")) {
    const name = root.id.replace(/^explorer-/, "");
    out[name] = Array.from(root.querySelectorAll(".book-explorer-controls select, "
                                                  + ".book-explorer-controls input"))
      .map(el => ({id: el.id, settings: el.tagName === "SELECT" ? el.options.length
                                        : Number(el.max) - Number(el.min) + 1}));
  }
  return out;
}
"""

# One move: the control's value set and its input event fired (what a reader's move does),
# then two animation frames (Bokeh paints in the next).
_MOVE = """
async ([id, value]) => {
  const el = document.getElementById(id);
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  await frame();
  const t0 = performance.now();
  el.value = String(value);
  el.dispatchEvent(new Event("input", {bubbles: true}));
  await frame();
  await frame();
  return performance.now() - t0;
}
"""


def _chromium() -> str:
    for name in filter(None, [os.environ.get("CHROMIUM"), "chromium", "chromium-browser",
                              "google-chrome"]):
        if shutil.which(name):
            return shutil.which(name)
    raise SystemExit("no Chromium found: install it or set $CHROMIUM")


def explorer_pages(html: Path) -> list[Path]:
    return sorted(p for p in html.rglob("*.html")
                  if 'class="book-explorer"' in p.read_text(encoding="utf-8"))


def measure(html: Path, repeats: int) -> dict:
    from playwright.sync_api import sync_playwright

    js = sorted((html / "_static" / "bokeh").glob("*.js"))
    result = {"bokehjs_bytes": {p.name: p.stat().st_size for p in js}, "pages": {}}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), headless=True,
                                     args=["--no-sandbox", "--disable-gpu"])
        for path in explorer_pages(html):
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(path.as_uri(), wait_until="load")
            page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0")
            controls = page.evaluate(_CONTROLS)
            entry = {"page_bytes": path.stat().st_size, "explorers": {}}
            for explorer, found in sorted(controls.items()):
                times = []
                for _ in range(repeats):
                    for control in found:
                        for value in [*range(1, control["settings"]), 0]:
                            times.append(page.evaluate(_MOVE, [control["id"], value]))
                entry["explorers"][explorer] = {
                    "moves": len(times), "median_ms": statistics.median(times),
                    "max_ms": max(times)}
            result["pages"][path.relative_to(html).as_posix()] = entry
            page.close()
        browser.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if not explorer_pages(args.html):
        raise SystemExit(f"no page with an explorer in {args.html}: run `make book` first")
    result = measure(args.html, args.repeats)
    result["when"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    result["cores"] = os.cpu_count()
    runs = json.loads(OUT.read_text()) if OUT.exists() else []
    OUT.write_text(json.dumps([*runs, result], indent=2) + "\n")
    print("BokehJS (one copy, shared):", ", ".join(
        f"{name} {size / 1e6:.2f} MB" for name, size in result["bokehjs_bytes"].items()))
    for page, entry in result["pages"].items():
        print(f"{page}: {entry['page_bytes'] / 1e6:.2f} MB of HTML")
        for explorer, t in entry["explorers"].items():
            print(f"  {explorer}: {t['moves']} moves, median {t['median_ms']:.1f} ms, "
                  f"largest {t['max_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
