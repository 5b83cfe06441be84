"""The explorers: every setting stored, the page's pieces named, a static fallback, no CDN.

The browser tests move each explorer's controls in the built book and compare what the page
draws with the theory; these tests check what Python puts in the page.
"""

import base64
import json

import numpy as np
import pytest
from bs4 import BeautifulSoup

from helpers.explorers import Control, line_explorer, map_explorer, table_json

X = np.linspace(0.0, 1.0, 5)


def _curves(a, b):
    return {"up": (X, a * X + b), "flat": ([0.0, 1.0], [b, b])}


STYLES = {"up": dict(label="a x + b"), "flat": dict(label="b", color="red", dash="--")}
CONTROLS = [Control("a", (1.0, 2.0, 3.0), kind="slider"), Control("b", (0.0, 0.5), default=1)]


def test_every_setting_is_stored_with_the_computed_curves():
    ex = line_explorer("demo", CONTROLS, _curves, STYLES, x_label="x", y_label="y",
                       description="a test plot")
    assert set(ex.table) == {f"{i}|{j}" for i in range(3) for j in range(2)}
    np.testing.assert_array_equal(ex.table["2|1"]["up"]["y"], 3.0 * X + 0.5)
    np.testing.assert_array_equal(ex.table["0|0"]["flat"]["y"], [0.0, 0.0])
    stored = json.loads(table_json(ex))
    assert stored["1|0"]["up"]["y"] == (2.0 * X).tolist()


def test_the_page_holds_named_sources_its_own_controls_the_settings_and_a_png():
    ex = line_explorer("demo", CONTROLS, _curves, STYLES, x_label="x", y_label="y",
                       description='a "quoted" <test>', x_log=False, x_ticks=[0, 0.5, 1])
    bundle = ex._repr_mimebundle_()
    html = bundle["text/html"]
    assert html.startswith('<div class="book-explorer" id="explorer-demo" role="group"')
    assert 'aria-label="a &quot;quoted&quot; &lt;test&gt;"' in html
    for name in ("demo/up", "demo/flat"):   # the Bokeh sources the page's script fills
        assert name in html
    # the controls are the page's own form elements, labelled, hidden until BokehJS is there
    soup = BeautifulSoup(html, "html.parser")
    box = soup.select_one(".book-explorer-controls")
    assert box.has_attr("hidden")
    slider = box.select_one("input#explorer-demo-control-0")
    assert slider["type"] == "range" and (slider["min"], slider["max"]) == ("0", "2")
    assert slider["aria-valuetext"] == "1"   # the setting's label, not the handle's position
    assert box.select_one("label[for=explorer-demo-control-0]").text == "a"
    select = box.select_one("select#explorer-demo-control-1")
    assert [o.text for o in select.select("option")] == ["0", "0.5"]
    assert select.select_one("option[selected]")["value"] == "1"
    # every setting's curves, as JSON the page's script reads
    store = json.loads(soup.select_one("script.book-explorer-data").string)
    assert store["names"] == ["up", "flat"] and store["labels"][0] == ["1", "2", "3"]
    assert store["shared"]["up"]["x"] == X.tolist()
    assert store["table"]["2|1"]["up"]["y"] == (3.0 * X + 0.5).tolist()
    assert "cdn.bokeh.org" not in html and "https://" not in html
    png = base64.b64decode(bundle["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    # without BokehJS (a notebook in Jupyter) the page shows the same PNG in its place
    assert f"data:image/png;base64,{bundle['image/png']}" in html


def test_control_names_carry_maths_for_the_pages_mathjax():
    ex = line_explorer("demo", [Control("noise $\\sigma_\\varepsilon$ & <b>", (0.0, 1.0))],
                       lambda s: {"up": (X, X + s), "flat": ([0, 1], [s, s])}, STYLES,
                       x_label="x", y_label="y", description="d")
    assert r"noise \(\sigma_\varepsilon\) &amp; &lt;b&gt;</label>" in ex.html
    assert "mathjax_process" in ex.html


def test_a_value_that_is_not_finite_is_refused():
    with pytest.raises(ValueError, match="not finite"):
        line_explorer("demo", [Control("s", (0.0,))],
                      lambda s: {"up": (X, np.full(len(X), np.nan)), "flat": ([0, 1], [s, s])},
                      STYLES,
                      x_label="x", y_label="y", description="d")


def test_the_map_explorer_colours_labels_and_outlines_each_cell():
    def grid(shift):
        return np.array([[0.5, 1.5, 1.0], [0.9, 2.0, 0.2]]) + shift

    ex = map_explorer("map-demo", [Control("shift", (0.0, 0.25))], grid, x_values=[1, 2, 3],
                      y_values=[10, 20], x_label="eta", y_label="psi1", description="a map")
    cells = ex.table["1"]["cells"]
    assert cells["x"] == ["1", "2", "3", "1", "2", "3"] and cells["y"][:3] == ["10"] * 3
    np.testing.assert_allclose(cells["value"], grid(0.25).ravel())
    assert cells["label"][0] == "0.75"
    np.testing.assert_array_equal(cells["edge"], [1, 0, 0, 0, 0, 1])  # below 1, 1.0 is not
    # log colour steps from 1/4 to 4: 0.45 light blue (black label), 2.25 red; 0.2 < 1/4
    # takes the darkest blue, with a white label
    assert ex.table["0"]["cells"]["ink"] == ["black"] * 5 + ["white"]
    with pytest.raises(ValueError, match="logarithmic"):
        map_explorer("m", [Control("s", (0,))], lambda s: np.zeros((1, 1)), x_values=[1],
                     y_values=[1], x_label="x", y_label="y", description="d")
    assert "map-demo/cells" in ex.html
    assert '"field":"ink"' in ex.html and '"field":"edge"' in ex.html  # per cell, not constants
    assert '"type":"object","name":"ColorBar"' in ex.html   # the scale beside the map


@pytest.mark.parametrize("kwargs, message", [
    (dict(values=()), "at least one setting"),
    (dict(values=(1, 2), kind="radio"), "kind must be"),
    (dict(values=(1, 2), labels=("one",)), "1 labels for 2 values"),
    (dict(values=(1, 2), default=2), "default must be an index"),
])
def test_bad_controls_say_what_is_allowed(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Control("c", **kwargs)


def test_bad_explorers_say_what_is_wrong():
    with pytest.raises(ValueError, match="name must be"):
        line_explorer("no spaces", CONTROLS, _curves, STYLES, x_label="x", y_label="y",
                      description="d")
    with pytest.raises(ValueError, match="non-empty sequence of Control"):
        line_explorer("demo", [], _curves, STYLES, x_label="x", y_label="y", description="d")
    with pytest.raises(ValueError, match=r"no curve \['extra'\]"):
        line_explorer("demo", CONTROLS, _curves, {**STYLES, "extra": dict(label="e")},
                      x_label="x", y_label="y", description="d")
    with pytest.raises(ValueError, match=r"expected \(2, 3\)"):
        map_explorer("m", [Control("s", (0,))], lambda s: np.zeros((3, 2)), x_values=[1, 2, 3],
                     y_values=[1, 2], x_label="x", y_label="y", description="d")


def test_columns_equal_at_every_setting_are_stored_once():
    from helpers.explorers import _split_shared

    ex = line_explorer("demo", CONTROLS, _curves, STYLES, x_label="x", y_label="y",
                       description="d")
    shared, rest = _split_shared(ex.table, list(STYLES))
    assert set(shared["up"]) == {"x"} and set(shared["flat"]) == {"x"}
    assert set(rest["1|1"]["up"]) == {"y"}


def test_the_extension_adds_bokehjs_to_explorer_pages_only(tmp_path):
    import importlib.util
    from pathlib import Path
    from types import SimpleNamespace

    path = Path(__file__).resolve().parents[1] / "_ext" / "book_explorers.py"
    spec = importlib.util.spec_from_file_location("book_explorers", path)
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    added = []
    app = SimpleNamespace(add_js_file=lambda f, **kw: added.append(f), outdir=str(tmp_path),
                          builder=SimpleNamespace(format="html"))
    ext.add_bokeh_to_explorer_pages(app, "intro", "page.html", {"body": "<p>text</p>"}, None)
    assert added == []
    ext.add_bokeh_to_explorer_pages(app, "ch", "page.html",
                                    {"body": '<div class="book-explorer" id="x">'}, None)
    import bokeh

    assert added == [f"bokeh/bokeh-{bokeh.__version__}.min.js"]   # no widgets: own controls
    ext.copy_bokeh(app, None)
    copied = sorted(p.name for p in (tmp_path / "_static" / "bokeh").iterdir())
    assert copied == sorted(Path(f).name for f in added)
    ext.copy_bokeh(SimpleNamespace(outdir=str(tmp_path / "latex"),
                                   builder=SimpleNamespace(format="latex")), None)
    assert not (tmp_path / "latex").exists()


def test_a_static_figure_below_3_to_1_contrast_warns():
    from helpers.legibility import LowContrastWarning

    pale = {name: {**style, "color": "#F0E442"} for name, style in STYLES.items()}
    with pytest.warns(LowContrastWarning, match="f0e442"):
        line_explorer("demo", CONTROLS, _curves, pale, x_label="x", y_label="y",
                      description="a pale plot")
