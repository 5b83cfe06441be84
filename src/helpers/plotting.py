"""One shared figure style and the few drawing helpers the chapters repeat.

Helpers draw on a given ``ax`` and return it; they never create figures or call ``show``.
Visual grammar: simulation = markers with error bars (semi-transparent), theory = solid line
(black unless a colour is given), bounds = dashed grey line.
"""

from __future__ import annotations

import math
from importlib import resources

import numpy as np

from ._validation import check_integer
from .legibility import ink_on_cells

__all__ = ["STYLE_PATH", "use_book_style", "plot_simulation", "plot_theory", "plot_bound",
           "log_axis", "log_ticks", "simulated_ticks", "subplots", "panel_labels", "region_outline",
           "ink_on_cells",
           "MIN_FONT_PT",
           "MAX_WIDTH_IN"]

STYLE_PATH = str(resources.files("helpers") / "book.mplstyle")


def use_book_style() -> None:
    """Apply the book's matplotlib style (call once, in a chapter's imports cell).

    In a notebook it also shows every figure at twice its pixel density, its colours checked
    for contrast (:func:`helpers.legibility.show_figures_sharp`).
    """
    import matplotlib.pyplot as plt

    from .legibility import show_figures_sharp

    plt.style.use(STYLE_PATH)
    show_figures_sharp()


def plot_simulation(ax, x, mean, se=None, *, label=None, color=None, marker="o", **kwargs):
    """Simulation means as markers with +-1 standard-error bars."""
    x, mean = np.asarray(x, dtype=float), np.asarray(mean, dtype=float)
    if x.shape != mean.shape:
        raise ValueError(f"x and mean must have the same shape; got {x.shape} and {mean.shape}")
    yerr = None if se is None else np.asarray(se, dtype=float)
    ax.errorbar(x, mean, yerr=yerr, fmt=marker, linestyle="none", label=label, color=color,
                alpha=kwargs.pop("alpha", 0.85), **kwargs)
    return ax


def plot_theory(ax, x, y, *, label=None, color="k", **kwargs):
    """Theory as a solid line (black by default)."""
    ax.plot(x, y, "-", color=color, lw=kwargs.pop("lw", 2), label=label, **kwargs)
    return ax


def plot_bound(ax, value, *, label=None, **kwargs):
    """A horizontal dashed line, e.g. the kernel lower bound ``mu2*^2``."""
    ax.axhline(value, linestyle="--", color=kwargs.pop("color", "0.35"), lw=1.5, label=label,
               **kwargs)
    return ax


def log_axis(ax, ticks, *, axis: str = "x"):
    """Log scale on ``axis`` with plain-number labels at ``ticks`` (no minor labels)."""
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y'; got {axis!r}")
    ticks = np.asarray(ticks, dtype=float)
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(FixedLocator(ticks))
    target.set_minor_locator(NullLocator())
    target.set_minor_formatter(NullFormatter())
    (ax.set_xticklabels if axis == "x" else ax.set_yticklabels)([f"{t:g}" for t in ticks])
    return ax


def log_ticks(values, most: int = 5) -> list:
    """Plain-number ticks for a log axis that shows ``values``: the numbers 1, 2, 5 (then
    1, 1.5, 2, 3, 5, 7 where few of those fall inside) times powers of ten that lie within
    the values' range, at most ``most`` of them (every k-th beyond), and at least two
    (the nearest outside the range are added).  For axes whose range comes from a
    parameter a reader may change.

    >>> log_ticks([0.027, 0.21])
    [0.05, 0.1, 0.2]
    """
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        raise ValueError("values must hold at least one finite positive number")
    lo, hi = float(v.min()), float(v.max())
    for mantissas in ((1, 2, 5), (1, 1.5, 2, 3, 5, 7)):
        grid = sorted(float(f"{m * 10.0**k:.6g}") for k in range(math.floor(math.log10(lo)) - 1,
                                                                 math.ceil(math.log10(hi)) + 2)
                      for m in mantissas)
        inside = [t for t in grid if lo <= t <= hi]
        if len(inside) >= 3:
            break
    while len(inside) < 2:
        below, above = [t for t in grid if t < lo], [t for t in grid if t > hi]
        inside = ([below[-1]] if below else []) + inside + ([above[0]] if above else [])
        lo, hi = inside[0], inside[-1]
    if len(inside) > most:   # many decades: ticks at powers of ten only
        decades = [t for t in inside if math.isclose(10 ** round(math.log10(t)), t)]
        if len(decades) >= 2:
            inside = decades
    return inside[::math.ceil(len(inside) / most)]


def simulated_ticks(values, most: int = 4) -> list:
    """Ticks at the simulated values: all of them, or every other one when there are more
    than ``most`` (so that the labels do not run into each other).

    >>> simulated_ticks([0.5, 1, 2, 4, 8, 16])
    [0.5, 2, 8]
    """
    values = list(values)
    check_integer("most", most, minimum=1)
    return values if len(values) <= most else values[::2]


def region_outline(ax, inside, **kwargs):
    """Outline a region of a heatmap's cells: a line along every edge between a cell in the
    region and one outside it (``inside``: boolean, shape (rows, cols), in the order the
    heatmap draws them, row 0 on top as ``seaborn.heatmap`` does).  Keyword arguments go to
    the ``LineCollection`` (e.g. ``color``, ``linestyle``, ``label``)."""
    from matplotlib.collections import LineCollection

    inside = np.asarray(inside, dtype=bool)
    if inside.ndim != 2:
        raise ValueError(f"inside must be a 2-d boolean array; got shape {inside.shape}")
    rows, cols = np.nonzero(inside[:, 1:] != inside[:, :-1])     # vertical edges
    segs = [[(j + 1, i), (j + 1, i + 1)] for i, j in zip(rows, cols, strict=True)]
    rows, cols = np.nonzero(inside[1:, :] != inside[:-1, :])     # horizontal edges
    segs += [[(j, i + 1), (j + 1, i + 1)] for i, j in zip(rows, cols, strict=True)]
    kwargs.setdefault("color", "k")
    kwargs.setdefault("linewidth", 2.5)
    ax.add_collection(LineCollection(segs, **kwargs))
    return ax


# Figure sizes.  A page's figure is drawn at the content column's width, so a figure's text
# renders at (font size in pt) x (column width in px) / (72 x figure width in inches).  The
# style's smallest font is MIN_FONT_PT; keeping every figure at most MAX_WIDTH_IN wide keeps
# that text >= 11 px on a desktop page (browser_tests checks the rendered images).
MIN_FONT_PT = 10.0
MAX_WIDTH_IN = 7.0


def subplots(nrows: int = 1, ncols: int = 1, *, height: float | None = None, **kwargs):
    """``plt.subplots`` at the book's figure width (use this, never a hand-set ``figsize``).

    One panel is 6.4 in wide, several side by side share :data:`MAX_WIDTH_IN`; ``height``
    (inches) defaults to 4.0 for one panel and 3.2 per row otherwise.  Keyword arguments go
    to :func:`matplotlib.pyplot.subplots`.
    """
    import matplotlib.pyplot as plt

    check_integer("nrows", nrows, minimum=1)
    check_integer("ncols", ncols, minimum=1)
    if "figsize" in kwargs:
        raise ValueError("figsize is set by the book's style; pass height= instead")
    width = 6.4 if ncols == 1 else MAX_WIDTH_IN
    if height is None:
        height = 4.0 if (nrows, ncols) == (1, 1) else 3.2 * nrows
    if not height > 0:
        raise ValueError(f"height must be > 0 inches; got {height!r}")
    return plt.subplots(nrows, ncols, figsize=(width, height), **kwargs)


def panel_labels(axes, *, start: str = "a") -> None:
    """Write (a), (b), ... in the top-left corner of each panel (matching the caption)."""
    for k, ax in enumerate(np.ravel(axes)):
        ax.set_title(f"({chr(ord(start) + k)})", loc="left", fontsize=MIN_FONT_PT + 1)
