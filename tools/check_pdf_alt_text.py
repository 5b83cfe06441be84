"""Check that every image the book's PDF draws carries an alternative text (``make pdf`` runs it).

_ext/book_pdf_figures.py wraps each figure in accsupp's marked content, so the page's content
stream draws it as ``/Span << /Alt <FEFF...> >> BDC ... /ImN Do ... EMC``.  This reads every
content stream of the PDF (Flate-compressed, as xdvipdfmx writes them), follows the marked
content (BDC ... EMC, nested), and counts the image drawings (``/Im<n> Do``, xdvipdfmx's names
for image XObjects) inside and outside an ``/Alt`` span.  Exit status 1 when an image has none.

Usage: ``python tools/check_pdf_alt_text.py _build/latex/book.pdf``
"""

from __future__ import annotations

import re
import sys
import zlib
from pathlib import Path

_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)
_TOKEN = re.compile(rb"/Alt\s*[<(]|BDC|BMC|EMC|/Im\d+\s+Do")


def count_images(pdf: bytes) -> tuple[int, int]:
    """(images drawn with an /Alt text, images drawn without one)."""
    with_alt = without = 0
    for match in _STREAM.finditer(pdf):
        try:
            content = zlib.decompress(match.group(1))
        except zlib.error:
            continue                                  # not a Flate stream (an image, a font)
        stack, alt_pending = [], False
        for token in _TOKEN.finditer(content):
            text = token.group(0)
            if text.startswith(b"/Alt"):
                alt_pending = True                    # the properties of the next BDC
            elif text in (b"BDC", b"BMC"):
                stack.append(alt_pending and text == b"BDC")
                alt_pending = False
            elif text == b"EMC":
                if stack:
                    stack.pop()
            elif any(stack):
                with_alt += 1
            else:
                without += 1
    return with_alt, without


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    with_alt, without = count_images(Path(argv[0]).read_bytes())
    print(f"{argv[0]}: {with_alt + without} images drawn, {with_alt} with an alternative text")
    if with_alt + without == 0:
        print("no image found: is this the book's PDF?")
        return 1
    return 1 if without else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
