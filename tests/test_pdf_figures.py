"""_ext/book_pdf_figures.py: the PDF's figures carry their alternative text (accsupp)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

from docutils import nodes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_ext"))

import book_pdf_figures  # noqa: E402


def _tree(alt: str, uri: str = "fig.png"):
    figure = nodes.figure()
    figure += nodes.image(uri=uri, alt=alt)
    figure += nodes.caption(text="A caption.")
    doc = nodes.document(None, None)
    doc += figure
    return doc, figure


def _app(fmt: str):
    return SimpleNamespace(builder=SimpleNamespace(format=fmt))


def test_alt_text_goes_in_as_utf16_hex():
    text = "Risk against psi1: 5% & #1 {ok}, \u03c8\u2081 \\ done."
    assert bytes.fromhex(book_pdf_figures.alt_hex(text)).decode("utf-16-be") == text
    assert book_pdf_figures.alt_hex("a\n   b") == "a b".encode("utf-16-be").hex().upper()


def test_latex_images_get_their_alt_text_set_just_before_them():
    doc, figure = _tree("Two lines crossing.")
    book_pdf_figures.wrap_images(_app("latex"), doc, "index")
    kinds = [type(n).__name__ for n in figure.children]
    assert kinds == ["raw", "image", "caption"], kinds
    text = figure.children[0]
    assert text["format"] == "latex"
    assert text.astext() == ("\\gdef\\bookalttext{method=hex,unicode,Alt="
                             + book_pdf_figures.alt_hex("Two lines crossing.") + "}")
    # the image macro wraps the image in the text and clears it (the preamble)
    assert "\\BeginAccSupp\\expandafter{\\bookalttext}" in book_pdf_figures.PREAMBLE
    assert "\\EndAccSupp{}" in book_pdf_figures.PREAMBLE


def test_html_and_images_without_a_description_are_left_alone():
    doc, figure = _tree("Two lines crossing.")
    book_pdf_figures.wrap_images(_app("html"), doc, "index")
    assert len(figure.children) == 2
    for alt in ("", "fig.png", "_images/abc.png"):
        doc, figure = _tree(alt, uri="_images/abc.png" if alt.startswith("_") else "fig.png")
        book_pdf_figures.wrap_images(_app("latex"), doc, "index")
        assert len(figure.children) == 2, alt


def test_the_preamble_loads_accsupp_once():
    config = SimpleNamespace(latex_elements={"preamble": "\\providecommand{\\E}{x}\n"})
    book_pdf_figures.add_preamble(None, config)
    book_pdf_figures.add_preamble(None, config)
    assert config.latex_elements["preamble"].count("\\usepackage{accsupp}") == 1
    assert config.latex_elements["preamble"].endswith("\\providecommand{\\E}{x}\n")


def _pdf(*contents: bytes) -> bytes:
    import zlib

    return b"%PDF-1.5\n" + b"".join(
        b"1 0 obj <<>> stream\n" + zlib.compress(c) + b"\nendstream endobj\n" for c in contents)


def test_the_pdf_check_counts_images_inside_and_outside_alt_spans():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    from check_pdf_alt_text import count_images, main

    described = b"q /Span<</Alt<FEFF0041>>>BDC q 1 0 0 1 0 0 cm /Im0 Do Q EMC Q"
    nested = b"/P <</MCID 1>> BDC /Span<</Alt(x)>>BDC /Im3 Do EMC /Im4 Do EMC"
    assert count_images(_pdf(described)) == (1, 0)
    assert count_images(_pdf(nested)) == (1, 1)
    assert count_images(_pdf(b"/Artifact BMC /Im1 Do EMC", described)) == (1, 1)
    assert count_images(_pdf(b"/Fm1 Do BT (text) Tj ET")) == (0, 0)
    assert main([]) == 2


def test_a_figure_inside_a_box_is_kept_in_place_and_others_float():
    box = nodes.admonition()
    doc, figure = _tree("A figure in a solution.")
    doc.remove(figure)
    box += figure
    doc += box
    free = nodes.figure()
    free += nodes.image(uri="free.png", alt="A figure in the text.")
    doc += free
    book_pdf_figures.keep_boxed_figures_in_place(_app("latex"), doc, "index")
    kinds = [type(n).__name__ for n in box.children]
    assert kinds == ["raw", "figure", "raw"], kinds
    assert "[H]" in box.children[0].astext() and box.children[2].astext() == "\\endgroup"
    assert [type(n).__name__ for n in doc.children] == ["admonition", "figure"]
    book_pdf_figures.keep_boxed_figures_in_place(_app("html"), doc, "index")
    assert len(box.children) == 3
