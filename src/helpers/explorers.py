r"""Explorers: figures a reader drives in the page, with no kernel and no network.

Every setting a reader can choose is computed when the book is built (from
:mod:`helpers.theory`) and stored in the page.  Moving a control, a dropdown or a slider,
picks the stored curves of that setting: a few lines of JavaScript, no Python.  Bokeh draws
the figure; the book serves its JavaScript from its own files (``_ext/book_explorers.py``
copies it into the build and adds it to the pages that hold an explorer), so no request
leaves the site.

An explorer also carries a static figure of its first setting (a PNG drawn with matplotlib
from the same numbers): the PDF shows it, and so does a notebook in Jupyter (Binder, the
student edition's notebooks), where BokehJS is not loaded; in the book's pages a one-line
script removes it as soon as BokehJS is there.

Functions
---------
Control         one control: a dropdown or a slider over a list of settings
line_explorer   curves against one axis, one set of curves per setting of the controls
map_explorer    a heat map over two grids, one map per setting of the controls
table_json      an explorer's stored settings as JSON
"""

from __future__ import annotations

import base64
import io
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

from .plotting import STYLE_PATH, log_axis, subplots

__all__ = ["Control", "Explorer", "line_explorer", "map_explorer", "table_json", "CALLBACK"]

# Every control's callback: the key of the chosen setting is the controls' indices joined by
# "|"; the stored curves of that key replace the drawn ones.  (Bokeh hands dictionaries to
# JavaScript as Map objects.)
CALLBACK = """
const at = (m, k) => (m instanceof Map ? m.get(k) : m[k])
const keys = (m) => (m instanceof Map ? [...m.keys()] : Object.keys(m))
const key = controls.map((c) => String(c.value)).join("|")
const entry = at(table, key)
for (const name of names) {
  const data = {}
  for (const columns of [at(shared, name), at(entry, name)]) {
    for (const column of keys(columns)) data[column] = at(columns, column)
  }
  at(sources, name).data = data
}
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
        What it sets, shown above it (plain text, e.g. ``"noise sigma_eps"``).
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


def _widgets(name, controls):
    from bokeh.models import CustomJSTickFormatter, Select, Slider

    widgets = []
    for i, c in enumerate(controls):
        model_name = f"{name}/control/{i}"
        if c.kind == "select":
            widgets.append(Select(title=c.name, value=str(c.default), name=model_name,
                                  options=[(str(k), lab) for k, lab in enumerate(c.labels)]))
        else:
            shown = CustomJSTickFormatter(args=dict(labels=list(c.labels)),
                                          code="return labels[Math.round(tick)]")
            widgets.append(Slider(title=c.name, start=0, end=max(len(c.values) - 1, 1),
                                  step=1, value=c.default, format=shown, name=model_name,
                                  disabled=len(c.values) == 1))
    return widgets


def _style(fig) -> None:
    """Text at least 12 CSS px (readable on a phone), no logo in the toolbar."""
    for axis in (fig.xaxis, fig.yaxis):
        axis.axis_label_text_font_size = "13px"
        axis.major_label_text_font_size = "12px"
    fig.toolbar.logo = None


# The static figure is in the markup, so that it shows wherever the page's scripts do not run
# (an untrusted notebook's stored outputs) or BokehJS is missing (a notebook run in Jupyter);
# where BokehJS is loaded (the book's pages), the script after it removes it at once.
_FALLBACK = ('<div class="book-explorer-static"><img style="max-width: 100%" alt="{alt}" '
             'src="data:image/png;base64,{png}"><p><em>The first setting, as a static figure: '
             'the interactive version, which needs BokehJS, is in the online book.</em></p>'
             '</div><script type="text/javascript">if (window.Bokeh !== undefined) '
             '{{ document.querySelector("#explorer-{name} .book-explorer-static").remove() }}'
             '</script>')


def _page_html(name, layout, description, png: bytes) -> str:
    from bokeh.embed import components

    script, div = components(layout)
    static = _FALLBACK.format(alt=_escape(description), png=base64.b64encode(png).decode(),
                              name=name)
    return (f'<div class="book-explorer" id="explorer-{name}" role="figure" '
            f'aria-label="{_escape(description)}">{static}{div}{script}</div>')


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
    from bokeh.layouts import column
    from bokeh.models import ColumnDataSource, CustomJS, FixedTicker
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

    fig = figure(height=height, sizing_mode="stretch_width", tools="pan,box_zoom,reset",
                 x_axis_type="log" if x_log else "linear",
                 y_axis_type="log" if y_log else "linear", toolbar_location="above",
                 x_axis_label=x_label, y_axis_label=y_label)
    dashes = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dashdot"}
    sources = {}
    for c, style in curves.items():
        sources[c] = ColumnDataSource(data=dict(first[c]), name=f"{name}/{c}")
        fig.line("x", "y", source=sources[c], legend_label=style["label"], line_width=2.5,
                 color=style.get("color", "black"), line_dash=dashes[style.get("dash", "-")])
    if legend == "below":   # under the plot, which keeps the page's width
        fig.add_layout(fig.legend[0], "below")
    else:
        fig.legend.location = legend
    fig.legend.background_fill_alpha = 0.8
    fig.legend.label_text_font_size = "12px"
    fig.legend.click_policy = "hide"
    _style(fig)
    if x_ticks is not None:
        fig.xaxis.ticker = FixedTicker(ticks=[float(t) for t in x_ticks])
        fig.xaxis.major_label_overrides = {float(t): f"{t:g}" for t in x_ticks}
    widgets = _widgets(name, controls)
    shared, rest = _split_shared(table, list(curves))
    callback = CustomJS(args=dict(controls=widgets, table=rest, shared=shared, sources=sources,
                                  names=list(curves)), code=CALLBACK)
    for w in widgets:
        w.js_on_change("value", callback)
    layout = column(*widgets, fig, sizing_mode="stretch_width")

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
    return Explorer(name, _page_html(name, layout, description, png), png, table)


# The map's colours: eight steps from blue (below the centre) to red (above), so that the
# centre is the boundary between the two lightest; the two darkest carry white labels.
MAP_PALETTE = ("#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#fddbc7", "#f4a582", "#d6604d",
               "#b2182b")


def _colour_step(value, low, high) -> np.ndarray:
    """Which of the palette's steps a value gets on a log scale from low to high (as Bokeh's
    LogColorMapper does: values outside take the end colours)."""
    t = (np.log(value) - np.log(low)) / (np.log(high) - np.log(low))
    return np.clip(np.floor(t * len(MAP_PALETTE)), 0, len(MAP_PALETTE) - 1).astype(int)


def map_explorer(name: str, controls: Sequence[Control], compute: Callable, *,
                 x_values: Sequence, y_values: Sequence, x_label: str, y_label: str,
                 description: str, centre: float = 1.0, span: float = 4.0,
                 mark_below: bool = True, digits: int = 2, n_jobs: int = 1,
                 height: int = 360) -> Explorer:
    """A heat map over ``x_values`` by ``y_values``, computed at every setting of the controls.

    ``compute(*values)`` returns positive values in an array of shape (len(y_values),
    len(x_values)).  Cells are coloured on a log scale from ``centre / span`` (blue) to
    ``centre * span`` (red), blue below ``centre`` and red above, labelled with their value, and
    (``mark_below``) outlined in black where the value is below ``centre``.  Other parameters
    as in :func:`line_explorer`.
    """
    from bokeh.layouts import column
    from bokeh.models import ColumnDataSource, CustomJS, LogColorMapper
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
             text_baseline="middle", text_font_size="12px", text_color={"field": "ink"})
    fig.grid.visible = False
    _style(fig)
    widgets = _widgets(name, controls)
    shared, rest = _split_shared(table, ["cells"])
    callback = CustomJS(args=dict(controls=widgets, table=rest, shared=shared,
                                  sources={"cells": source}, names=["cells"]), code=CALLBACK)
    for w in widgets:
        w.js_on_change("value", callback)
    layout = column(*widgets, fig, sizing_mode="stretch_width")

    from matplotlib import colors, patches

    static, ax = _static_axes()
    grid = np.asarray(first["value"]).reshape(len(ys), len(xs))
    ax.imshow(grid, origin="lower", aspect="auto", cmap=colors.ListedColormap(MAP_PALETTE),
              norm=colors.LogNorm(low, high))
    for (i, j), v in np.ndenumerate(grid):
        ax.text(j, i, f"{v:.{digits}f}", ha="center", va="center",
                color=first["ink"][i * len(xs) + j])
        if mark_below and v < centre:   # outlined, as in the page
            ax.add_patch(patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2.5,
                                           ec="black"))
    ax.set(xticks=range(len(xs)), xticklabels=xs, yticks=range(len(ys)), yticklabels=ys,
           xlabel=x_label, ylabel=y_label, title=_default_title(controls))
    png = _png(static)
    return Explorer(name, _page_html(name, layout, description, png), png, table)


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
