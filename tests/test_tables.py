"""helpers.tables: digits from standard errors, tables in Markdown."""

import pandas as pd
import pytest

from helpers import tables


def test_format_with_se_keeps_two_significant_digits_of_the_error():
    assert tables.format_with_se(0.123456, 0.00123) == "0.1235 ±\u00a00.0012"
    assert tables.format_with_se(12.3456, 0.5) == "12.35 ±\u00a00.50"


def test_format_with_se_rejects_bad_error():
    with pytest.raises(ValueError, match="se must be"):
        tables.format_with_se(1.0, 0.0)


def test_markdown_table_has_maths_headers_and_no_index():
    df = pd.DataFrame({"psi1": [1, 2], "risk": [0.5, 0.25], "se": [0.01, 0.002]})
    text = tables.markdown_table(df, {"psi1": "$\\psi_1$", "risk": "$R$"}, se={"risk": "se"})
    lines = text.splitlines()
    assert lines[0] == "| $\\psi_1$ | $R$ |"
    assert lines[2] == "| 1 | 0.500 ±\u00a00.010 |"
    assert lines[3] == "| 2 | 0.2500 ±\u00a00.0020 |"


def test_markdown_table_names_missing_columns():
    with pytest.raises(ValueError, match="not in the table"):
        tables.markdown_table(pd.DataFrame({"a": [1]}), {"b": "B"})


def test_format_value_small_numbers_in_scientific_notation():
    assert tables.format_value(2.5e-5, 2) == "$2.5 \\times 10^{-5}$"
    assert tables.format_value(0.0) == "0"
    assert tables.format_value(7) == "7"


def test_format_value_never_prints_python_exponents():
    # %g switches to '1.23e+03' when the digits do not reach the units; typeset that instead
    assert tables.format_value(1234.5, 3) == "$1.23 \\times 10^{3}$"
    assert tables.format_value(1234.4, 4) == "1234"
    assert tables.format_value(-98765.0, 2) == "$-9.9 \\times 10^{4}$"
    for v in (1e-3, 0.0123, 1.5, 999.0, 1234.5, 5e4, 1e5, 3e7):
        for k in (1, 2, 3, 4):
            assert "e+" not in tables.format_value(v, k) and "e-" not in tables.format_value(v, k)


def test_integer_columns_print_as_integers_beside_float_columns():
    import pandas as pd

    df = pd.DataFrame({"d": [128, 256, 1024], "gap": [0.0123, 0.0061, 0.0031]})
    text = tables.markdown_table(df, {"d": "$d$", "gap": "gap"}, digits=2)
    rows = [line.split("|")[1].strip() for line in text.splitlines()[2:]]
    assert rows == ["128", "256", "1024"], text
    assert "times" not in text


def test_a_pipe_in_a_cell_or_header_keeps_the_row_one_cell_per_column():
    """The exam's teacher "|t|" broke its tables (issue 48): pipes are escaped, and the rendered
    table has the cells it was given, the pipes shown."""
    from markdown_it import MarkdownIt

    df = pd.DataFrame({"teacher": ["|t|", "clipped"], "floor": [0.3634, 0.1]})
    text = tables.markdown_table(df, {"teacher": "teacher", "floor": "$|x|$"}, digits=4)
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert html.count("</td>") == 4 and html.count("</th>") == 2, html
    assert ">|t|</td>" in html and ">0.3634</td>" in html and "$|x|$</th>" in html, html
    escaped_already = tables.markdown_table(df.assign(teacher=["a\\|b", "c"]), {"teacher": "t"})
    assert "\\\\|" not in escaped_already, escaped_already      # not escaped twice
