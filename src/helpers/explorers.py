r"""Explorers: figures a reader drives in the page, with no kernel and no network.

Every setting a reader can choose is computed when the book is built (from
:mod:`helpers.theory`) and stored in the page.  Moving a control, a dropdown or a slider,
picks the stored curves of that setting: a few lines of JavaScript, no Python.  Bokeh draws
the figure; the book serves its JavaScript from its own files (``_ext/book_explorers.py``
copies it into the build and adds it to the pages that hold an explorer), so no request
leaves the site.

The controls are the page's own HTML (a ``<select>`` and an ``<input type="range">`` with a
``<label>``), not Bokeh widgets: they take the book's font and colours in both themes, their
labels are typeset by the page's MathJax, a screen reader hears a slider's value (its
``aria-valuetext`` is the setting's label, not the handle's position), and the keyboard moves
them as it moves any form control.  The plot has no pan or zoom tool, so a swipe over it
scrolls the page on a phone and nothing needs resetting.

An explorer also carries a static figure of its first setting (a PNG drawn with matplotlib
from the same numbers): the PDF shows it, and so does a notebook in Jupyter (Binder, the
student edition's notebooks), where BokehJS is not loaded; in the book's pages the script
after the controls removes it and shows the controls as soon as BokehJS is there.

Functions
---------
Control         one control: a dropdown or a slider over a list of settings
line_explorer   curves against one axis, one set of curves per setting of the controls
map_explorer    a heat map over two grids, one map per setting of the controls, a colour bar
table_json      an explorer's stored settings as JSON
"""

from __future__ import annotations

import base64
import html as _html
import io
import itertools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

from .plotting import STYLE_PATH, log_axis, subplots

__all__ = ["Control", "Explorer", "line_explorer", "map_explorer", "table_json", "PAGE_SCRIPT"]

# The book's text font (pydata-sphinx-theme's --pst-font-family-base), for the text Bokeh
# draws on its canvas: axis titles, tick labels, the legend, the map's numbers.
BOOK_FONT = ('-apple-system, BlinkMacSystemFont, "Segoe UI", "Helvetica Neue", Arial, '
             'sans-serif')

# The page's script, once per explorer, run where it stands (BokehJS is loaded in <head>):
# without BokehJS (a notebook in Jupyter) it does nothing and the static figure stays.  Else
# it removes the static figure, shows the controls, and on every move of a control draws the
# stored curves of the chosen setting (the key: the controls' indices joined by "|"; columns
# equal at every setting are stored once, in "shared") and says a slider's value.
PAGE_SCRIPT = """
(function () {
  var root = document.getElementById("explorer-%(name)s");
  if (window.Bokeh === undefined || !root) { return; }
  var still = root.querySelector(".book-explorer-static");
  if (still) { still.remove(); }
  var box = root.querySelector(".book-explorer-controls");
  box.hidden = false;
  var store = JSON.parse(root.querySelector("script.book-explorer-data").textContent);
  var inputs = Array.prototype.slice.call(box.querySelectorAll("select, input"));
  function source(curve) {
    for (var i = 0; i < Bokeh.documents.length; i++) {
      var m = Bokeh.documents[i].get_model_by_name("%(name)s/" + curve);
      if (m) { return m; }
    }
    return null;
  }
  function draw() {
    var entry = store.table[inputs.map(function (c) { return c.value; }).join("|")];
    store.names.forEach(function (curve) {
      var data = {}, parts = [store.shared[curve], entry[curve]];
      parts.forEach(function (p) { for (var k in p) { data[k] = p[k]; } });
      var m = source(curve);
      if (m) { m.data = data; }
    });
  }
  // Bokeh makes its plot area a tab stop (for key events no tool here uses): take it out of
  // the tab order once Bokeh has drawn it (in its shadow DOM, some frames after this runs).
  var tries = 0;
  function untab() {
    var found = 0;
    (function walk(node) {
      node.querySelectorAll("*").forEach(function (el) {
        if (el.classList.contains("bk-events") && el.tabIndex >= 0) { el.tabIndex = -1; }
        if (el.classList.contains("bk-events")) { found += 1; }
        if (el.shadowRoot) { walk(el.shadowRoot); }
      });
    })(root);
    if (!found && tries++ < 200) { setTimeout(untab, 50); }
  }
  untab();
  inputs.forEach(function (input, i) {
    input.addEventListener("input", function () {
      if (input.type === "range") {
        var said = store.labels[i][Number(input.value)];
        input.setAttribute("aria-valuetext", said);
        root.querySelector("output[for='" + input.id + "']").textContent = said;
      }
      draw();
    });
  });
})();
"""


def _split_shared(table: dict, names) -> tuple[dict, dict]:
    """The columns equal at every setting (stored once in the page), and the rest per setting."""
    settings = list(table.values())
    shared = {n: {} for n in names}
    for n in names:
        for column, first in settings[0][n].items():
            if all(np.array_equal(np.asarray(s[n][column]), np.asarray(first))
                   for s in settings[1:]):
                shared[n][column] = first
    rest = {key: {n: {c: v for c, v in entry[n].items() if c not in shared[n]} for n in names}
            for key, entry in table.items()}
    return shared, rest


@dataclass(frozen=True)
class Control:
    """One control of an explorer: the settings it offers, in order.

    Parameters
    ----------
    name : str
        What it sets, shown beside it: text, with maths between dollar signs (typeset by the
        page's MathJax and by matplotlib in the static figure), e.g.
        ``"noise $\\sigma_\\varepsilon$"``.
    values : sequence
        The settings; the explorer's ``compute`` receives one of them.
    labels : sequence of str, optional
        How each setting is shown; default ``f"{value:g}"`` for numbers, else ``str(value)``.
    kind : "select" or "slider"
        A dropdown, or a slider over the settings in order (for ordered numbers).
    default : int
        Index of the setting shown first (and drawn in the static figure).
    """

    name: str
    values: tuple
    labels: tuple | None = None
    kind: str = "select"
    default: int = 0

    def __post_init__(self):
        values = tuple(self.values)
        if not values:
            raise ValueError(f"Control {self.name!r}: values must hold at least one setting")
        if self.kind not in ("select", "slider"):
            raise ValueError(f"Control {self.name!r}: kind must be 'select' or 'slider'; "
                             f"got {self.kind!r}")
        labels = tuple(self.labels) if self.labels is not None else tuple(
            f"{v:g}" if isinstance(v, int | float) else str(v) for v in values)
        if len(labels) != len(values):
            raise ValueError(f"Control {self.name!r}: {len(labels)} labels for "
                             f"{len(values)} values")
        if not 0 <= self.default < len(values):
            raise ValueError(f"Control {self.name!r}: default must be an index in "
                             f"0..{len(values) - 1}; got {self.default}")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "labels", labels)


class Explorer:
    """An interactive figure (HTML) with a static PNG of its first setting.

    Shown by Jupyter and myst-nb through :meth:`_repr_mimebundle_`: an HTML page shows the
    interactive figure, the PDF (LaTeX) the PNG.
    """

    def __init__(self, name: str, html: str, png: bytes, table: dict):
        self.name, self.html, self.png, self.table = name, html, png, table

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self.html, "image/png": base64.b64encode(self.png).decode()}


def _settings(controls: Sequence[Control]) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(len(c.values)) for c in controls)))


def _key(indices) -> str:
    return "|".join(str(i) for i in indices)


def _evaluate(compute, controls, n_jobs) -> dict[str, object]:
    """``compute`` at every setting, keyed like the page's callback."""
    settings = _settings(controls)
    values = [tuple(c.values[i] for c, i in zip(controls, s, strict=True)) for s in settings]
    out = Parallel(n_jobs=n_jobs)(delayed(compute)(*v) for v in values)
    return {_key(s): o for s, o in zip(settings, out, strict=True)}


def _check(name, controls):
    if not isinstance(name, str) or not name.replace("-", "").isalnum():
        raise ValueError(f"name must be letters, digits and '-'; got {name!r}")
    controls = list(controls)
    if not controls or not all(isinstance(c, Control) for c in controls):
        raise ValueError("controls must be a non-empty sequence of Control")
    return controls


_MATH = re.compile(r"\$([^$]+)\$")


def _label_html(text: str) -> str:
    """A control's name as HTML: text escaped, ``$...$`` as maths for the page's MathJax."""
    return _MATH.sub(lambda m: r"\(" + m.group(1) + r"\)", _html.escape(text, quote=False))


def _controls_html(name: str, controls) -> str:
    """The controls, hidden until the page's script finds BokehJS (else they would do
    nothing); ``mathjax_process`` has the page's MathJax typeset their labels."""
    rows = []
    for i, c in enumerate(controls):
        cid = f"explorer-{name}-control-{i}"
        label = f'<label for="{cid}">{_label_html(c.name)}</label>'
        if c.kind == "select":
            options = "".join(
                f'<option value="{k}"{" selected" if k == c.default else ""}>'
                f"{_html.escape(lab)}</option>" for k, lab in enumerate(c.labels))
            widget = f'<select id="{cid}" autocomplete="off">{options}</select>'
        else:
            shown = _html.escape(c.labels[c.default])
            widget = (f'<span class="book-explorer-slider"><input type="range" id="{cid}" '
                      f'min="0" max="{len(c.values) - 1}" step="1" value="{c.default}" '
                      f'autocomplete="off" '
                      f'aria-valuetext="{shown}"'
                      f'{" disabled" if len(c.values) == 1 else ""}>'
                      f'<output for="{cid}" aria-hidden="true">{shown}</output></span>')
        rows.append(f'<div class="book-explorer-control">{label}{widget}</div>')
    return ('<div class="book-explorer-controls mathjax_process" hidden>' + "".join(rows)
            + "</div>")


def _plain(v):
    """Stored values as JSON-ready lists, every number finite (JSON has no NaN)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, np.ndarray | list | tuple):
        arr = np.asarray(v)
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError("compute returned a value that is not finite; an explorer "
                             "stores finite numbers only")
        return arr.tolist()
    return v


def _store_json(controls, table, names) -> str:
    """Every setting's curves for the page's script (columns equal everywhere stored once)."""
    shared, rest = _split_shared(table, names)
    store = {"names": list(names), "labels": [list(c.labels) for c in controls],
             "shared": _plain(shared), "table": _plain(rest)}
    text = json.dumps(store, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")   # nothing in it can end or open a <script>


def _style(fig) -> None:
    """The book's font, text at least 12 CSS px (readable on a phone), upright axis titles;
    no tools (nothing to pan or zoom: a swipe scrolls the page) and so no toolbar."""
    for axis in (fig.xaxis, fig.yaxis):
        axis.axis_label_text_font_size = "14px"
        axis.major_label_text_font_size = "13px"
        axis.axis_label_text_font = BOOK_FONT
        axis.axis_label_text_font_style = "normal"
        axis.major_label_text_font = BOOK_FONT
    fig.toolbar_location = None


# The static figure is in the markup, so that it shows wherever the page's scripts do not run
# (an untrusted notebook's stored outputs) or BokehJS is missing (a notebook run in Jupyter);
# where BokehJS is loaded (the book's pages), the page's script removes it at once.
_FALLBACK = ('<div class="book-explorer-static"><img style="max-width: 100%" alt="{alt}" '
             'src="data:image/png;base64,{png}"><p><em>A still image of the first setting: '
             'this view does not run the interactive figure (it needs BokehJS and '
             'JavaScript), the book\'s web pages do.</em></p></div>')


def _page_html(name, controls, layout, description, png: bytes, store: str) -> str:
    from bokeh.embed import components

    script, div = components(layout)
    static = _FALLBACK.format(alt=_escape(description), png=base64.b64encode(png).decode())
    return (f'<div class="book-explorer" id="explorer-{name}" role="group" '
            f'aria-label="{_escape(description)}">{static}{_controls_html(name, controls)}'
            f'<script type="application/json" class="book-explorer-data">{store}</script>'
            f'<script type="text/javascript">{PAGE_SCRIPT % {"name": name}}</script>'
            f'{div}{script}</div>')


def _escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def _static_axes():
    """A figure in the book's style for the static fallback."""
    import matplotlib.pyplot as plt

    with plt.style.context(STYLE_PATH):
        return subplots(layout="constrained")


def _png(fig) -> bytes:
    """The static figure's PNG, its contrast checked as every figure of the book is."""
    import matplotlib.pyplot as plt

    from .legibility import warn_low_contrast

    fig.canvas.draw()
    warn_low_contrast(fig, stacklevel=3)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _default_title(controls) -> str:
    return ", ".join(f"{c.name} = {c.labels[c.default]}" for c in controls)


def line_explorer(name: str, controls: Sequence[Control], compute: Callable,
                  curves: Mapping[str, Mapping], *, x_label: str, y_label: str,
                  description: str, x_log: bool = False, y_log: bool = False,
                  x_ticks: Sequence[float] | None = None, legend: str = "top_right",
                  n_jobs: int = 1, height: int = 360) -> Explorer:
    """Curves against one axis, computed at every setting of the controls.

    Parameters
    ----------
    name : str
        Unique on its page (letters, digits, '-'); the page's models are named after it.
    controls : sequence of Control
    compute : callable
        ``compute(*values) -> {curve: (x, y)}`` for one setting (one value per control, in
        order); every curve of ``curves`` must be returned, each time with the same length.
    curves : mapping
        ``{curve: style}``, the style a dict with ``label`` (the legend) and optionally
        ``color`` and ``dash`` (a matplotlib line style: ``"-"``, ``"--"``, ``":"``).
    x_label, y_label : str
        Axis titles (plain text: Bokeh draws no TeX without MathJax).
    description : str
        What the figure shows, for screen readers (the wrapper's ``aria-label``).
    x_log, y_log : bool
        Log axes.
    x_ticks : sequence of float, optional
        Ticks of the x axis, labelled as plain numbers (e.g. the simulated values).
    legend : str
        Where the legend sits inside the plot (Bokeh's ``"top_right"``, ``"bottom_right"``...),
        or ``"below"`` it.
    n_jobs : int
        Workers for the settings (joblib).
    height : int
        Height of the plot in CSS pixels; it takes the page's width.

    Returns
    -------
    Explorer
        Shown by Jupyter and myst-nb; ``.table`` holds every setting's curves.
    """
    from bokeh.models import ColumnDataSource, FixedTicker
    from bokeh.plotting import figure

    controls = _check(name, controls)
    if not curves:
        raise ValueError("curves must name at least one curve")
    raw = _evaluate(compute, controls, n_jobs)
    table = {}
    for key, out in raw.items():
        missing = set(curves) - set(out)
        if missing:
            raise ValueError(f"compute returned no curve {sorted(missing)} at setting {key}")
        table[key] = {c: {"x": np.asarray(out[c][0], dtype=float),
                          "y": np.asarray(out[c][1], dtype=float)} for c in curves}
    first = table[_key(c.default for c in controls)]

    fig = figure(height=height, sizing_mode="stretch_width", tools="",
                 x_axis_type="log" if x_log else "linear",
                 y_axis_type="log" if y_log else "linear",
                 x_axis_label=x_label, y_axis_label=y_label)
    dashes = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dashdot"}
    sources = {}
    for c, style in curves.items():
        sources[c] = ColumnDataSource(data=dict(first[c]), name=f"{name}/{c}")
        fig.line("x", "y", source=sources[c], legend_label=style["label"], line_width=2.5,
                 color=style.get("color", "black"), line_dash=dashes[style.get("dash", "-")])
    if legend == "below":   # under the plot, which keeps the page's width; the figure grows
        fig.add_layout(fig.legend[0], "below")   # by the legend's rows, so the plot does not
        fig.height = height + 26 * len(curves) + 24   # shrink to make room for it
    else:
        fig.legend.location = legend
    fig.legend.background_fill_alpha = 0.8
    fig.legend.label_text_font_size = "13px"
    fig.legend.label_text_font = BOOK_FONT
    _style(fig)
    if x_ticks is not None:
        fig.xaxis.ticker = FixedTicker(ticks=[float(t) for t in x_ticks])
        fig.xaxis.major_label_overrides = {float(t): f"{t:g}" for t in x_ticks}
    store = _store_json(controls, table, list(curves))

    static, ax = _static_axes()
    for c, style in curves.items():
        ax.plot(first[c]["x"], first[c]["y"], style.get("dash", "-"),
                color=style.get("color", "black"), label=style["label"])
    ax.set(xscale="log" if x_log else "linear", yscale="log" if y_log else "linear",
           xlabel=x_label, ylabel=y_label, title=_default_title(controls))
    if x_ticks is not None:
        if x_log:
            log_axis(ax, x_ticks)
        else:
            ax.set_xticks(x_ticks)
    ax.legend()
    png = _png(static)
    return Explorer(name, _page_html(name, controls, fig, description, png, store), png, table)


# The map's colours: eight steps from blue (below the centre) to red (above), so that the
# centre is the boundary between the two lightest; the two darkest carry white labels.
MAP_PALETTE = ("#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#fddbc7", "#f4a582", "#d6604d",
               "#b2182b")


def _colour_step(value, low, high) -> np.ndarray:
    """Which of the palette's steps a value gets on a log scale from low to high (as Bokeh's
    LogColorMapper does: values outside take the end colours)."""
    t = (np.log(value) - np.log(low)) / (np.log(high) - np.log(low))
    return np.clip(np.floor(t * len(MAP_PALETTE)), 0, len(MAP_PALETTE) - 1).astype(int)


def _colour_ticks(low, high) -> list[float]:
    """Ticks of the colour bar: the powers of two from low to high."""
    k = np.arange(np.ceil(np.log2(low) - 1e-9), np.floor(np.log2(high) + 1e-9) + 1)
    return [float(2.0 ** e) for e in k]


def map_explorer(name: str, controls: Sequence[Control], compute: Callable, *,
                 x_values: Sequence, y_values: Sequence, x_label: str, y_label: str,
                 description: str, colour_label: str = "value", centre: float = 1.0,
                 span: float = 4.0,
                 mark_below: bool = True, digits: int = 2, n_jobs: int = 1,
                 height: int = 360) -> Explorer:
    """A heat map over ``x_values`` by ``y_values``, computed at every setting of the controls.

    ``compute(*values)`` returns positive values in an array of shape (len(y_values),
    len(x_values)).  Cells are coloured on a log scale from ``centre / span`` (blue) to
    ``centre * span`` (red), blue below ``centre`` and red above, labelled with their value, and
    (``mark_below``) outlined in black where the value is below ``centre``; a colour bar
    (titled ``colour_label``) beside the map gives the scale.  Other parameters as in
    :func:`line_explorer`.
    """
    from bokeh.models import ColorBar, ColumnDataSource, FixedTicker, LogColorMapper
    from bokeh.plotting import figure

    controls = _check(name, controls)
    low, high = centre / span, centre * span
    xs, ys = [f"{v:g}" for v in x_values], [f"{v:g}" for v in y_values]
    raw = _evaluate(compute, controls, n_jobs)
    table = {}
    for key, out in raw.items():
        grid = np.asarray(out, dtype=float)
        if grid.shape != (len(ys), len(xs)):
            raise ValueError(f"compute returned shape {grid.shape} at setting {key}; expected "
                             f"{(len(ys), len(xs))} (y by x)")
        if not np.all(grid > 0):
            raise ValueError(f"compute returned a value <= 0 at setting {key}: the colour "
                             f"scale is logarithmic")
        value = grid.ravel()
        step = _colour_step(value, low, high)
        table[key] = {"cells": {
            "x": np.tile(xs, len(ys)).tolist(), "y": np.repeat(ys, len(xs)).tolist(),
            "value": value, "label": [f"{v:.{digits}f}" for v in value],
            "ink": ["white" if k in (0, len(MAP_PALETTE) - 1) else "black" for k in step],
            "edge": np.where(value < centre, 1.0, 0.0) if mark_below else np.zeros(len(value)),
        }}
    first = table[_key(c.default for c in controls)]["cells"]

    fig = figure(height=height, sizing_mode="stretch_width", x_range=xs, y_range=ys,
                 tools="", toolbar_location=None, x_axis_label=x_label, y_axis_label=y_label)
    source = ColumnDataSource(data=dict(first), name=f"{name}/cells")
    mapper = LogColorMapper(palette=list(MAP_PALETTE), low=low, high=high)
    fig.rect("x", "y", 1, 1, source=source, fill_color={"field": "value", "transform": mapper},
             line_color="black", line_alpha="edge", line_width=3)
    fig.text("x", "y", text="label", source=source, text_align="center",
             text_baseline="middle", text_font_size="13px", text_font={"value": BOOK_FONT},
             text_color={"field": "ink"})
    ticks = _colour_ticks(low, high)
    bar = ColorBar(color_mapper=mapper, ticker=FixedTicker(ticks=ticks),
                   major_label_overrides={t: f"{t:g}" for t in ticks}, title=colour_label,
                   title_text_font=BOOK_FONT, title_text_font_style="normal",
                   title_text_font_size="13px", major_label_text_font=BOOK_FONT,
                   major_label_text_font_size="13px", width=14)
    fig.add_layout(bar, "right")
    fig.grid.visible = False
    _style(fig)
    store = _store_json(controls, table, ["cells"])

    from matplotlib import colors, patches

    static, ax = _static_axes()
    grid = np.asarray(first["value"]).reshape(len(ys), len(xs))
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap=colors.ListedColormap(MAP_PALETTE),
              norm=colors.LogNorm(low, high))
    for (i, j), v in np.ndenumerate(grid):
        ax.text(j, i, f"{v:.{digits}f}", ha="center", va="center",
                color=first["ink"][i * len(xs) + j])
        if mark_below and v < centre:   # outlined, as in the page
            ax.add_patch(patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2.5,
                                           ec="black"))
    ax.set(xticks=range(len(xs)), xticklabels=xs, yticks=range(len(ys)), yticklabels=ys,
           xlabel=x_label, ylabel=y_label, title=_default_title(controls))
    bar = static.colorbar(image, ax=ax, label=colour_label, ticks=ticks)
    bar.ax.set_yticklabels([f"{t:g}" for t in ticks])
    bar.ax.minorticks_off()
    png = _png(static)
    return Explorer(name, _page_html(name, controls, fig, description, png, store), png, table)


def table_json(explorer: Explorer) -> str:
    """The explorer's stored settings as JSON (arrays as lists), e.g. for a test to compare
    with what the page draws."""
    def plain(v):
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return v
    return json.dumps(plain(explorer.table))
