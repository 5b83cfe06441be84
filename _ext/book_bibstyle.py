"""Author-year labels in the book's reference list (a pybtex style for sphinxcontrib-bibtex).

The text cites author-year ("Ba et al., 2022"), so the list is labelled the same way and a
reader finds an entry by scanning for what the text says:

- one author: ``Mei, 2018``; two: ``Mei & Montanari, 2022``; three or more: ``Ba et al., 2022``;
- two entries with the same label get ``2024a``, ``2024b`` (in list order);
- the list is sorted by author, year, title (pybtex's ``author_year_title``).

Registered as the pybtex formatting style ``book_authoryear`` when Sphinx loads this extension
(``_config.yml``: ``sphinx.local_extensions`` and ``bibtex_default_style``).
"""

from __future__ import annotations

from collections import Counter

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting.author_year_title import SortingStyle

STYLE_NAME = "book_authoryear"

def _last_name(person) -> str:
    """A person's last name as plain text (LaTeX accents and braces resolved)."""
    latex = " ".join(person.prelast_names + person.last_names)
    return Text.from_latex(latex).render_as("text")


def author_year(entry) -> str:
    """``Ba et al., 2022`` for one BibTeX entry (authors, else editors, else the key)."""
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_last_name(p) for p in persons]
    if not names:
        who = entry.key
    elif len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} & {names[1]}"
    else:
        who = f"{names[0]} et al."
    year = entry.fields.get("year", "n.d.")
    return f"{who}, {year}"


class AuthorYearLabelStyle(BaseLabelStyle):
    """Labels ``Author, year``; duplicates get a, b, ... after the year."""

    def format_labels(self, sorted_entries):
        labels = [author_year(entry) for entry in sorted_entries]
        count, seen = Counter(labels), Counter()
        for label in labels:
            if count[label] == 1:
                yield label
            else:
                yield label + chr(ord("a") + seen[label])
                seen[label] += 1


class AuthorYearStyle(UnsrtStyle):
    """pybtex's ``unsrt`` formatting with author-year labels, sorted by author and year."""

    default_label_style = AuthorYearLabelStyle
    default_sorting_style = SortingStyle


def setup(app):
    register_plugin("pybtex.style.formatting", STYLE_NAME, AuthorYearStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
