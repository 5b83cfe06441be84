"""What every figure of the book must be for every reader: colours that stand out from the
background, and pixels enough for a high-density screen.

- **Contrast.** Every line, marker, bar and text a reader needs has a contrast ratio of at
  least 3:1 against the background it is drawn on (WCAG 2.1, success criterion 1.4.11, "non-text
  contrast"; the ratio is criterion 1.4.3's).  :func:`low_contrast` lists the artists of a
  figure that do not.  Drawn areas that only fill (heatmap cells, shaded bands, the grid) are
  not judged: the cells are read against their colour bar, the bands and grid are decoration.
- **Pixel density.** In a notebook (the build, nbval, Binder), :func:`show_figures_sharp`
  makes the inline backend send every figure as a PNG with twice the pixels of its displayed
  size (IPython's "retina" format: the image is 2 x dpi, and its width and height metadata give
  the 1x size, which Jupyter and the built pages use), after checking its contrast: a figure
  with a colour below 3:1 is shown with a :class:`LowContrastWarning`, which the book's strict
  build turns into a failure (``execute.stderr_output: remove-warn`` and ``-W``).

:func:`helpers.plotting.use_book_style` calls :func:`show_figures_sharp`.
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["MIN_CONTRAST", "LowContrastWarning", "relative_luminance", "contrast_ratio",
           "low_contrast", "warn_low_contrast", "ink_on_cells", "compact_png",
           "show_figures_sharp"]

MIN_CONTRAST = 3.0   # WCAG 2.1, 1.4.11: graphical objects against adjacent colours


class LowContrastWarning(UserWarning):
    """A figure draws something a reader needs in a colour below 3:1 against its background."""


def relative_luminance(color) -> float:
    """Relative luminance of an sRGB colour (WCAG 2.1's definition), from 0 (black) to 1."""
    from matplotlib.colors import to_rgb

    rgb = np.asarray(to_rgb(color), dtype=float)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def contrast_ratio(color, background="white") -> float:
    """WCAG contrast ratio of two colours, from 1 (the same) to 21 (black on white).

    ``color`` may carry an alpha: it is first composited over ``background``, as drawn.
    """
    from matplotlib.colors import to_rgb, to_rgba

    rgba, back = np.asarray(to_rgba(color), dtype=float), np.asarray(to_rgb(background))
    drawn = rgba[3] * rgba[:3] + (1.0 - rgba[3]) * back
    lighter, darker = sorted([relative_luminance(drawn), relative_luminance(back)], reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _visible(color) -> bool:
    from matplotlib.colors import to_rgba

    return color is not None and to_rgba(color)[3] > 0      # "none" is transparent


def _colors(artist):
    """The colours an artist draws that a reader needs, as (what, [rgba, ...]) pairs; an
    artist whose edge or face may carry it offers both (the better one counts)."""
    from matplotlib.collections import Collection, PolyCollection, QuadMesh
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text

    if isinstance(artist, Line2D):
        found = []
        if artist.get_linestyle() not in ("None", "none", "", " ") and artist.get_linewidth() > 0:
            found.append(("line", [artist.get_color()]))
        if artist.get_marker() not in ("None", "none", "", " ", None):
            found.append(("marker", [artist.get_markeredgecolor(), artist.get_markerfacecolor()]))
        alpha = artist.get_alpha()
        return [(what, [_with_alpha(c, alpha) for c in cs]) for what, cs in found]
    if isinstance(artist, QuadMesh) or (isinstance(artist, PolyCollection)
                                        and not artist.get_linewidths().any()):
        return []   # a heatmap's cells or a shaded band: read against a colour bar, or decoration
    if isinstance(artist, Collection):
        faces, edges = artist.get_facecolors(), artist.get_edgecolors()
        widths = artist.get_linewidths()
        n = max(len(faces), len(edges) if np.any(widths) else 0)
        return [("collection", [faces[k % len(faces)] if len(faces) else None,
                                edges[k % len(edges)] if len(edges) and np.any(widths) else None])
                for k in range(n)]
    if isinstance(artist, Patch):
        fill = artist.get_facecolor() if artist.get_fill() else None
        edge = artist.get_edgecolor() if artist.get_linewidth() > 0 else None
        return [("patch", [fill, edge])]
    if isinstance(artist, Text) and artist.get_text().strip():
        return [("text", [_with_alpha(artist.get_color(), artist.get_alpha())])]
    return []


def _with_alpha(color, alpha):
    from matplotlib.colors import to_rgba

    rgba = to_rgba(color)
    return rgba if alpha is None else (*rgba[:3], rgba[3] * alpha)


def _judged(ax):
    """The artists of ``ax`` a reader reads data from (not the grid, spines, legend copies,
    images or the axes' own background)."""
    from matplotlib.axis import Axis
    from matplotlib.image import AxesImage
    from matplotlib.legend import Legend

    skip = {id(ax.patch), *(id(s) for s in ax.spines.values())}
    for artist in ax.get_children():
        if id(artist) in skip or not artist.get_visible() \
                or isinstance(artist, (AxesImage, Legend, Axis)):
            continue
        yield artist


def low_contrast(fig, *, min_ratio: float = MIN_CONTRAST) -> list[str]:
    """What ``fig`` draws below ``min_ratio`` contrast against its axes' background.

    Judged: lines, markers (edge or face, the better one), bars and other patches, scatter and
    error-bar collections, and the axes' texts and titles (a heatmap's annotation against its
    cell).  Not judged: heatmap cells and shaded bands (filled areas without edges), images,
    the grid, legends (they repeat what the axes draw).

    Returns one line per axes, kind, colour and ratio, e.g. ``"axes 0: 2 x line #f0e442 at
    1.2:1 ('teacher', '_child3')"``; an empty list when everything passes.
    """
    if not min_ratio >= 1:
        raise ValueError(f"min_ratio must be >= 1 (a contrast ratio); got {min_ratio!r}")
    from matplotlib.colors import to_hex

    found = {}   # (axes, what, colour, ratio) -> labels, in drawing order
    for k, ax in enumerate(fig.get_axes()):
        if getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>":
            continue
        background = ax.get_facecolor()
        if background[3] == 0:
            background = fig.get_facecolor()
        for artist in [*_judged(ax), ax.title, ax._left_title, ax._right_title]:
            for what, colors in _colors(artist):
                shown = [c for c in colors if _visible(c)]
                if not shown:
                    continue
                under = _cell_under(ax, artist) if what == "text" else None
                back = background[:3] if under is None else under
                best = max(contrast_ratio(c, back) for c in shown)
                if best < min_ratio:
                    key = (k, what, to_hex(shown[0]), f"{best:.1f}")
                    label = artist.get_text() if what == "text" else artist.get_label()
                    found.setdefault(key, []).append(str(label)[:30])
    return [f"axes {k}: {len(labels)} x {what} {color} at {ratio}:1 "
            f"({', '.join(repr(x) for x in labels[:2])}{', ...' if len(labels) > 2 else ''})"
            for (k, what, color, ratio), labels in found.items()]


def _cell_under(ax, text):
    """The colour of the heatmap cell under a text in data coordinates (a QuadMesh, as seaborn
    draws one, or an image): a heatmap's annotation is read against its cell.  None when the
    text is over no cell."""
    from matplotlib.collections import QuadMesh
    from matplotlib.image import AxesImage

    if text.get_transform() is not ax.transData:
        return None
    x, y = text.get_position()
    for mesh in ax.collections:
        if not isinstance(mesh, QuadMesh):
            continue
        coords = mesh.get_coordinates()               # (rows + 1, cols + 1, 2) vertices
        xs, ys = coords[0, :, 0], coords[:, 0, 1]
        faces = mesh.get_facecolors()
        k = _cell_index(xs, ys, x, y)
        if k is not None and len(faces) == (len(ys) - 1) * (len(xs) - 1):
            face = faces[k[0] * (len(xs) - 1) + k[1]]
            if face[3] > 0:
                return tuple(face[:3])
    for image in ax.images:
        if not isinstance(image, AxesImage) or image.get_array() is None:
            continue
        data = image.get_array()
        left, right, bottom, top = image.get_extent()
        rows, cols = data.shape[:2]
        xs, ys = np.linspace(left, right, cols + 1), np.linspace(bottom, top, rows + 1)
        k = _cell_index(xs, ys, x, y)
        if k is None:
            continue
        i = k[0] if image.origin == "lower" else rows - 1 - k[0]
        value = data[i, k[1]]
        if np.ma.is_masked(value):
            continue
        return tuple(image.to_rgba(value)[:3])
    return None


def _cell_index(xs, ys, x, y):
    """(row, column) of the cell of the grid ``xs`` x ``ys`` (edges, either order) holding
    (x, y), rows counted from the first ``ys`` edge; None outside."""
    j = np.searchsorted(np.sort(xs), x) - 1
    i = np.searchsorted(np.sort(ys), y) - 1
    if not (0 <= i < len(ys) - 1 and 0 <= j < len(xs) - 1):
        return None
    i = i if ys[0] <= ys[-1] else len(ys) - 2 - i
    j = j if xs[0] <= xs[-1] else len(xs) - 2 - j
    return int(i), int(j)


def ink_on_cells(ax) -> None:
    """Give each text over a heatmap cell of ``ax`` the ink, black or white, that contrasts
    more with its cell (seaborn's own choice leaves some mid-tone cells below 3:1)."""
    for text in ax.texts:
        cell = _cell_under(ax, text)
        if cell is not None:
            text.set_color(max(("black", "white"), key=lambda ink: contrast_ratio(ink, cell)))


def warn_low_contrast(fig, *, stacklevel: int = 2) -> None:
    """A :class:`LowContrastWarning` naming what ``fig`` draws below 3:1, if anything."""
    problems = low_contrast(fig)
    if problems:
        warnings.warn("figure colours below 3:1 contrast against their background (WCAG 2.1, "
                      "1.4.11): " + "; ".join(problems), LowContrastWarning,
                      stacklevel=stacklevel + 1)


def _sharp_png(fig, **print_kwargs):
    """IPython's PNG formatter for a figure: its contrast checked, drawn at 2x pixel density."""
    from IPython.core.pylabtools import retina_figure

    warn_low_contrast(fig)
    out = retina_figure(fig, base64=False, **print_kwargs)
    return None if out is None else (compact_png(out[0]), out[1])


def compact_png(data: bytes, *, exact: int = 32) -> bytes:
    """A figure's PNG with at most 256 colours (its size and dpi kept).

    A 2x figure then weighs about a third of matplotlib's RGBA file, less than the 1x figure
    did (the book's 44 figures: 4.8 MB -> 1.5 MB).  The palette is Pillow's fast octree (no
    dithering), with the ``exact`` most frequent colours of the figure (background, lines,
    text) put back exactly; only the shades of anti-aliased edges are rounded to the nearest
    of the 256 (a few pixels in 100,000 move by more than 16 of 255).
    """
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        dpi = image.info.get("dpi")
        rgb = image.convert("RGB")
    small = rgb.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    palette = np.array(small.getpalette()[:768], dtype=int).reshape(-1, 3)
    counts = rgb.getcolors(maxcolors=rgb.width * rgb.height) or []
    taken = set()                    # an entry is given back to one colour, the most frequent
    for _, color in sorted(counts, reverse=True)[:exact]:
        nearest = int(np.argmin(((palette - color) ** 2).sum(axis=1)))
        if nearest not in taken and np.abs(palette[nearest] - color).max() <= 16:
            palette[nearest] = color
            taken.add(nearest)
    small.putpalette(palette.ravel().tolist())
    out = io.BytesIO()
    small.save(out, format="PNG", **({"dpi": dpi} if dpi else {}))
    return out.getvalue()


def show_figures_sharp() -> bool:
    """In IPython with the inline backend: send figures as 2x PNGs, contrast checked.

    Returns True when installed, False outside IPython (a script, where nothing is displayed).
    """
    try:
        from IPython import get_ipython
    except ImportError:   # pragma: no cover - IPython comes with Jupyter
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return False
    import functools

    from matplotlib.figure import Figure
    from matplotlib_inline.config import InlineBackend

    kwargs = dict(InlineBackend.instance(parent=shell).print_figure_kwargs)
    formatters = shell.display_formatter.formatters
    formatters["image/png"].for_type(Figure, functools.partial(_sharp_png, **kwargs))
    for mime in ("image/jpeg", "image/svg+xml", "application/pdf"):
        formatters[mime].pop(Figure, None)   # one image per figure
    return True
