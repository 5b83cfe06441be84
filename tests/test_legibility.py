"""helpers.legibility: contrast ratios (WCAG 2.1), the figure check, and 2x figure output."""

from __future__ import annotations

import struct
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from helpers import plotting  # noqa: E402
from helpers.legibility import (  # noqa: E402
    LowContrastWarning,
    contrast_ratio,
    low_contrast,
    relative_luminance,
    show_figures_sharp,
)


def test_contrast_ratio_end_points_and_a_known_value():
    assert contrast_ratio("black", "white") == pytest.approx(21.0)
    assert contrast_ratio("#0072B2", "#0072B2") == pytest.approx(1.0)
    # WCAG's classic example: #777777 on white is just under 4.5:1
    assert contrast_ratio("#777777") == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio("white", "black") == contrast_ratio("black", "white")
    assert relative_luminance("white") == pytest.approx(1.0)


def test_alpha_is_composited_over_the_background():
    assert contrast_ratio((0, 0, 0, 0.0)) == pytest.approx(1.0)
    assert contrast_ratio((0, 0, 0, 0.5)) == pytest.approx(contrast_ratio("#808080"), rel=0.01)


def _figure():
    with plt.style.context(plotting.STYLE_PATH):
        return plotting.subplots()


def test_the_book_palette_s_first_colours_pass_and_yellow_fails():
    fig, ax = _figure()
    for k, color in enumerate(["#0072B2", "#D55E00", "#009E73", "k", "0.35"]):
        ax.plot([0, 1], [k, k + 1], color=color, label=str(k))
    ax.legend()
    ax.set_title("a title")
    assert low_contrast(fig) == []
    ax.plot([0, 1], [1, 0], color="#F0E442", label="yellow")
    bad = low_contrast(fig)
    plt.close(fig)
    assert len(bad) == 1 and "line #f0e442 at 1.3:1" in bad[0] and "'yellow'" in bad[0], bad


def test_markers_count_by_their_better_colour_and_bands_images_are_not_judged():
    fig, ax = _figure()
    ax.plot([0, 1], [0, 1], "o", markerfacecolor="#F0E442", markeredgecolor="k")  # dark edge
    ax.fill_between([0, 1], [0, 0], [1, 1], color="#56B4E9", alpha=0.2, linewidth=0)
    ax.imshow(np.linspace(0, 1, 16).reshape(4, 4), extent=(0, 1, 0, 1), cmap="viridis")
    ax.errorbar([0.5], [0.5], yerr=[0.1], fmt="s", color="#0072B2")
    assert low_contrast(fig) == []
    ax.scatter([0.2, 0.4], [0.2, 0.4], color="#E69F00")       # orange dots: 2.1:1
    ax.text(0.1, 0.9, "a faint note", color="0.8", transform=ax.transAxes)
    bad = low_contrast(fig)
    plt.close(fig)
    assert any("collection #e69f00" in b and "2 x" not in b for b in bad), bad
    assert any("text" in b and "'a faint note'" in b for b in bad), bad


def test_many_offenders_are_counted_on_one_line():
    fig, ax = _figure()
    ax.plot(np.zeros((2, 60)), np.ones((2, 60)), color="0.6")
    bad = low_contrast(fig)
    plt.close(fig)
    assert len(bad) == 1 and bad[0].startswith("axes 0: 60 x line #999999 at 2.8:1"), bad


def test_min_ratio_must_be_a_ratio():
    fig, _ = _figure()
    with pytest.raises(ValueError, match="min_ratio"):
        low_contrast(fig, min_ratio=0.5)
    plt.close(fig)


def test_outside_ipython_nothing_is_installed():
    assert show_figures_sharp() is False


def _png_width(data: bytes) -> int:
    return struct.unpack(">I", data[16:20])[0]


def test_in_ipython_figures_go_out_at_twice_their_pixels_with_their_contrast_checked():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        assert show_figures_sharp() is True
        fig, ax = _figure()
        ax.plot([0, 1], [0, 1])
        data, metadata = shell.display_formatter.format(fig)
        png = data["image/png"]
        width = _png_width(png)
        assert metadata["image/png"]["width"] == width // 2
        # 6.4 in at the style's 110 dpi, doubled (bbox_inches="tight" trims a few pixels)
        assert width == pytest.approx(2 * 6.4 * 110, rel=0.05)
        assert "image/svg+xml" not in data
        ax.plot([0, 1], [1, 0], color="#F0E442", label="yellow")
        with pytest.warns(LowContrastWarning, match="'yellow'"):
            shell.display_formatter.format(fig)
        plt.close(fig)
    finally:
        InteractiveShell.clear_instance()


def test_no_warning_for_a_figure_that_passes():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        show_figures_sharp()
        fig, ax = _figure()
        ax.plot([0, 1], [0, 1], color="#009E73")
        with warnings.catch_warnings():
            warnings.simplefilter("error", LowContrastWarning)
            shell.display_formatter.format(fig)
        plt.close(fig)
    finally:
        InteractiveShell.clear_instance()


def test_every_colour_of_the_style_passes_at_the_opacity_of_simulation_markers():
    """plot_simulation draws at alpha 0.85: the whole colour cycle keeps 3:1 there."""
    from matplotlib import rc_params_from_file
    from matplotlib.colors import to_rgba

    cycle = rc_params_from_file(plotting.STYLE_PATH, use_default_template=False)[
        "axes.prop_cycle"].by_key()["color"]
    assert len(cycle) == 8
    weak = {c: round(contrast_ratio((*to_rgba(c)[:3], 0.85)), 2) for c in cycle
            if contrast_ratio((*to_rgba(c)[:3], 0.85)) < 3.0}
    assert not weak, weak


def test_bars_pass_by_face_or_edge_and_colour_bars_are_not_judged():
    fig, ax = _figure()
    ax.bar([0, 1], [1, 2], color="#0072B2")
    ax.bar([2], [1], color="#F0E442", edgecolor="k", linewidth=1)   # outlined in black
    image = ax.imshow(np.eye(3), extent=(3, 4, 0, 1))
    fig.colorbar(image, ax=ax)
    assert low_contrast(fig) == []
    ax.bar([5], [1], color="#F0E442", label="pale bar")
    bad = low_contrast(fig)
    plt.close(fig)
    assert len(bad) == 1 and "1 x patch #f0e442 at 1.3:1" in bad[0], bad


def test_a_heatmap_s_annotations_are_read_against_their_cells():
    import seaborn as sns

    fig, ax = _figure()
    values = np.array([[0.0, 1.0], [1.0, 0.0]])
    sns.heatmap(values, ax=ax, cmap="Greens", annot=True, cbar=False)   # ink chosen per cell
    fig.canvas.draw()
    assert low_contrast(fig) == []
    for text in ax.texts:
        text.set_color("white")          # now white on the pale cells
    bad = low_contrast(fig)
    plt.close(fig)
    assert len(bad) == 1 and bad[0].startswith("axes 0: 2 x text #ffffff"), bad


def test_ink_on_cells_fixes_mid_tone_annotations_and_images_count_as_cells():
    import seaborn as sns

    from helpers.legibility import ink_on_cells

    fig, (ax1, ax2) = plotting.subplots(1, 2)
    values = np.linspace(-1, 1, 12).reshape(3, 4)
    sns.heatmap(values, ax=ax1, cmap="vlag", annot=True, cbar=False)
    for text in ax1.texts:
        text.set_color("white")
    assert low_contrast(fig)                       # white on the pale middle cells
    ink_on_cells(ax1)
    assert low_contrast(fig) == []
    ax2.imshow(values, cmap="Greens", origin="lower", extent=(0, 4, 0, 3))
    for i in range(3):
        for j in range(4):
            ax2.text(j + 0.5, i + 0.5, f"{values[i, j]:.1f}", color="black", ha="center")
    bad = low_contrast(fig)                        # black on the darkest greens
    ink_on_cells(ax2)
    assert bad and low_contrast(fig) == [], bad
    assert {t.get_color() for t in ax2.texts} == {"black", "white"}
    plt.close(fig)


def test_compact_png_keeps_size_dpi_and_colours_in_fewer_bytes():
    import io

    from PIL import Image

    from helpers.legibility import compact_png

    fig, ax = _figure()
    for k in range(6):
        ax.plot(np.linspace(0, 1, 50), np.sin(np.linspace(0, 6, 50) + k), label=str(k))
    ax.legend()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=220)
    plt.close(fig)
    raw = buf.getvalue()
    small = compact_png(raw)
    with Image.open(io.BytesIO(raw)) as a, Image.open(io.BytesIO(small)) as b:
        assert a.size == b.size
        assert b.info["dpi"] == pytest.approx(a.info["dpi"], abs=0.01)
        before, after = (np.asarray(x.convert("RGB"), dtype=int) for x in (a, b))
    assert len(small) < 0.6 * len(raw)
    err = np.abs(before - after).max(axis=2)
    assert np.mean(err > 16) < 1e-3 and np.mean(err) < 1.0
    # the cycle's colours themselves survive (every line's colour is still in the image)
    colours = {tuple(c) for c in after.reshape(-1, 3)}
    assert (0, 114, 178) in colours and (213, 94, 0) in colours
