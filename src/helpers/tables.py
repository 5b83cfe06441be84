"""Tables for the book's pages: maths headers, no index, digits that match their errors.

A chapter builds a tidy :class:`pandas.DataFrame` and shows it with :func:`show_table`, which
returns a MyST Markdown table (rendered by myst-nb, maths included, with
``nb_render_markdown_format: myst``).  A value with a standard error is printed as
``0.1234 ± 0.0012``: the error with two significant digits, the value to the same decimal.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

import numpy as np

__all__ = ["format_value", "format_with_se", "markdown_table", "show_table"]


def _decimals_for(se: float, sig: int = 2) -> int:
    """Decimals that show ``sig`` significant digits of ``se``."""
    if not (se > 0 and math.isfinite(se)):
        raise ValueError(f"se must be a positive finite number; got {se!r}")
    return max(0, sig - 1 - int(math.floor(math.log10(se))))


def format_with_se(value: float, se: float, *, sig: int = 2) -> str:
    """``value ± se`` with ``sig`` significant digits of ``se`` and ``value`` to match.

    The line may break only before ``±`` (the space after it is non-breaking): in a column
    too narrow for both, as on a phone, the error goes under its value, never "0.1235 ±"
    on one line and "0.0012" on the next.

    >>> format_with_se(0.123456, 0.00123)
    '0.1235 ±\xa00.0012'
    """
    if not math.isfinite(value):
        raise ValueError(f"value must be finite; got {value!r}")
    k = _decimals_for(float(se), sig)
    return f"{value:.{k}f} ±\u00a0{se:.{k}f}"


def format_value(value, digits: int = 3) -> str:
    """A number with ``digits`` significant digits (scientific notation when small or large);
    integers as integers, strings unchanged."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return f"{int(value)}"
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"value must be finite; got {value!r}")
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e5:
        text = f"{value:.{digits}g}"
        if "e" not in text:  # e.g. 1234.5 to 3 digits is '1.23e+03': typeset it instead
            return text
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"${mantissa} \\times 10^{{{int(exponent)}}}$"


def _escape_pipes(text: str) -> str:
    r"""``|`` as ``\|``, so that a cell such as the teacher name ``|t|`` (or ``$|x|$``) stays one
    cell: a table row is split at every unescaped pipe, inside maths too."""
    return re.sub(r"(?<!\\)\|", r"\\|", text)


def markdown_table(df, headers: Mapping[str, str], *, se: Mapping[str, str] | None = None,
                   digits: Mapping[str, int] | int = 3, align: str = "right") -> str:
    """The MyST Markdown text of a table.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy rows; its index is not shown.
    headers : mapping of column name -> header
        The columns to show, in order, with their headers (MyST: ``"$\\psi_1$"``).
    se : mapping of column name -> standard-error column, optional
        Columns printed as ``value ± se`` (digits from the error).
    digits : int or mapping of column name -> int
        Significant digits of the other numeric columns (default 3).
    align : {"right", "left", "center"}
        Alignment of every column.
    """
    se = dict(se or {})
    missing = [c for c in list(headers) + list(se.values()) if c not in df.columns]
    if missing:
        raise ValueError(f"columns {missing} not in the table; it has {list(df.columns)}")
    marks = {"right": "---:", "left": ":---", "center": ":---:"}
    if align not in marks:
        raise ValueError(f"align must be one of {sorted(marks)}; got {align!r}")
    lines = ["| " + " | ".join(_escape_pipes(h) for h in headers.values()) + " |",
             "|" + "|".join(marks[align] for _ in headers) + "|"]
    # column by column, so each keeps its dtype (iterrows would turn an integer d into 128.0
    # beside a float column, and 128.0 to two digits prints as 1.3 x 10^2)
    columns = {c: df[c].tolist() for c in [*headers, *se.values()]}
    for i in range(len(df)):
        cells = []
        for col in headers:
            if col in se:
                cells.append(format_with_se(float(columns[col][i]), float(columns[se[col]][i])))
            else:
                k = digits.get(col, 3) if isinstance(digits, Mapping) else digits
                cells.append(format_value(columns[col][i], k))
        lines.append("| " + " | ".join(_escape_pipes(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def show_table(df, headers: Mapping[str, str], **kwargs):
    """:func:`markdown_table` as a displayable object (the last line of a cell shows it)."""
    from IPython.display import Markdown

    return Markdown(markdown_table(df, headers, **kwargs))
