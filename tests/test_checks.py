"""helpers.checks.parameters: a chapter's parameters, written once with their ranges, and its
hidden checks: an assert at the book's setting, skipped with one printed line after a reader's
change, and a changed setting is an error where the book's claims must hold (BOOK_STRICT)."""

import importlib
import json

import numpy as np
import pytest

from helpers import checks
from helpers.checks import parse_range

# the module (helpers.checks.parameters is also the name of its function)
P = importlib.import_module("helpers.checks.parameters")

BOOK = {
    "PSI1": {"quick": 4.0, "paper": 4.0, "range": "a number in (0, 64]: samples per dimension"},
    "STUDENT": {"quick": "tanh", "paper": "tanh", "range": "a student name"},
    "ETAS": {"quick": [0.0, 1.0, 2.0], "paper": [0.0, 1.0, 2.0],
             "range": "increasing numbers in [0, 8]"},
    "D": {"quick": 256, "paper": 512, "range": "an integer in [16, 2048]"},
    "FIG": {"quick": {"psi2": 2.0, "lam": 1e-3}, "paper": {"psi2": 2.0, "lam": 1e-3},
            "range": "numbers in (0, 10]"},
    "LAYER": {"quick": "gaussian", "paper": "gaussian",
              "range": "one of 'gaussian', 'rademacher'"},
    "CUT": {"quick": None, "paper": None, "range": "one of None, 2, 4: an optional cut"},
}
AT_THE_BOOK = {name: entry["quick"] for name, entry in BOOK.items()}


@pytest.fixture(autouse=True)
def example_chapter(monkeypatch, tmp_path):
    record = tmp_path / "book_parameters.json"
    record.write_text(json.dumps({"example": BOOK, "other": {}}))
    monkeypatch.setattr(P, "RECORD_PATH", record)
    monkeypatch.delenv(checks.STRICT_ENV, raising=False)
    monkeypatch.delenv("BOOK_SCALE", raising=False)
    checks.chapter("example")
    yield
    P._state.update(chapter=None, changed={}, claim=None)


def _cell(**changes):
    """The parameter cell's namespace with some values changed."""
    return {**AT_THE_BOOK, "np": np, **changes}


# --------------------------------------------------------------------------- ranges
@pytest.mark.parametrize(("text", "inside", "outside"), [
    ("a teacher name", ["tanh", "relu", "softplus"], ["tanhh", 3, ["tanh"], None]),
    ("a student name", ["erf", "linear"], ["nope", ""]),
    ("teacher names", [["tanh", "relu"], ("erf",), {"a": "tanh"}],
     [[], "tanh", ["tanh", "x"], [1]]),
    ("student names", [["tanh"]], [["tanh", 2]]),
    ("one of 'gaussian', 'rademacher'", ["gaussian", "rademacher"],
     ["uniform", "Gaussian", 1, ["gaussian"]]),
    ("one of 1, 2", [1, 2, 2.0, np.int64(1)], ["1", 3, [1], True]),
    ("one of True, False", [True, False], [1, 0, "True"]),
    ("some of 'ck', 'ntk', 'rbf'", [["ck"], ("rbf", "ck"), ["ck", "ntk", "rbf"]],
     [[], "ck", ["ck", "poly"], [1]]),
    ("pairs of numbers in [0, 0.5)", [[(0.25, 0.125)], [[0.0, 0.49], (0.1, 0.2)],
                                      np.array([[0.1, 0.2]])],
     [[], (0.1, 0.2), [(0.1, 0.5)], [(0.1,)], [(0.1, 0.2, 0.3)], [0.1, 0.2]]),
    ("a number in [0, 8]", [0, 0.0, 8, 3.5, np.float64(1.0), np.int64(2)],
     [-0.1, 8.01, float("nan"), float("inf"), True, "1", [1.0], None]),
    ("a number in (0, 8)", [1e-9, 7.99], [0, 8, 0.0]),
    ("a number in (0, inf)", [1e-9, 1e12], [0, -1, float("inf")]),
    ("a number in [0, inf]", [0, float("inf")], [-1e-9]),
    ("a number in [-1, 1]", [-1, 1, 0], [-1.5, 1.5]),
    ("a number in [1e-4, 1e-1]", [1e-4, 1e-3, 0.1], [1e-5, 0.2]),
    ("an integer in [16, 1024]", [16, 64, 1024, np.int64(64)], [64.0, 8, 2048, True, "64"]),
    ("numbers in [0, 1]", [[0, 0.5, 0.5], (1.0,), np.array([0.1, 0.2]), {"a": 0.1}],
     [[], 0.5, [0.5, 2.0], ["0.5"], np.array([])]),
    ("integers in [1, 10]", [[1, 2], [10]], [[1.0], [0], 3]),
    ("increasing numbers in [0, 8]", [[0, 1, 2], [0.5], np.array([1.0, 7.0])],
     [[0, 0], [2, 1], [0, 9]]),
    ("increasing integers in [1, 100]", [[1, 5, 100]], [[5, 1], [1, 1.5]]),
    ("a number in [0, 1]: the step size: at most one", [0.5], [2.0]),
])
def test_parse_range_reads_every_form(text, inside, outside):
    rule = parse_range(text)
    assert rule.text == text.split(": ", 1)[0]
    for value in inside:
        assert rule.holds(value), (text, value)
    for value in outside:
        assert not rule.holds(value), (text, value)


@pytest.mark.parametrize("text", ["somewhere", "a number", "one of (", "between 0 and 8"])
def test_a_range_that_cannot_be_read_is_refused(text):
    with pytest.raises(ValueError, match="a range"):
        parse_range(text)


def test_a_value_outside_its_range_is_one_line_naming_it_and_the_range():
    with pytest.raises(ValueError) as err:
        parse_range("an integer in [16, 1024]: the dimension").check("D", 2048)
    assert str(err.value) == "D must be an integer in [16, 1024]; got 2048"
    parse_range("a teacher name").check("TEACHER", "tanh")   # holds: nothing happens


# --------------------------------------------------------------------------- parameters
def test_the_books_setting_changes_nothing():
    assert checks.parameters(_cell()) == {}
    assert checks.changed() == {}
    # arrays and tuples are the lists they list; another object of the cell is not read
    assert checks.parameters(_cell(ETAS=np.array([0.0, 1.0, 2.0]), FIG={"psi2": 2, "lam": 1e-3},
                                   OTHER=5)) == {}
    assert checks.parameters(_cell(ETAS=(0.0, 1.0, 2.0))) == {}
    assert checks.parameters(_cell(D=np.int64(256), PSI1=np.float32(4.0))) == {}


def test_parameters_records_what_differs_from_the_book():
    now = checks.parameters(_cell(PSI1=2.0, ETAS=[0.0, 1.0]))
    assert now == {"PSI1": (4.0, 2.0), "ETAS": ([0.0, 1.0, 2.0], [0.0, 1.0])}
    assert checks.changed() == now
    # values of another shape or kind, or off in a relative 1e-9, are changes
    for change in (dict(ETAS=[0.0, 1.0, 2.0, 3.0]), dict(FIG={"psi2": 2.0}),
                   dict(FIG={"psi2": 2.0, "mu": 1e-3}), dict(PSI1=4.0 * (1 + 1e-9)),
                   dict(STUDENT="erf"), dict(LAYER="rademacher"), dict(CUT=2)):
        assert set(checks.parameters(_cell(**change))) == set(change), change
    # setting a value back restores the book's setting
    assert checks.parameters(_cell()) == {} and checks.changed() == {}


@pytest.mark.parametrize(("change", "line"), [
    (dict(PSI1=0.0), "PSI1 must be a number in (0, 64]; got 0.0"),
    (dict(STUDENT="tanhh"), "STUDENT must be a student name; got 'tanhh'"),
    (dict(ETAS=[2.0, 1.0]), "ETAS must be increasing numbers in [0, 8]; got [2.0, 1.0]"),
    (dict(D=100.0), "D must be an integer in [16, 2048]; got 100.0"),
    (dict(FIG={"psi2": 20.0, "lam": 1e-3}), "FIG must be numbers in (0, 10]; got"),
    (dict(LAYER="uniform"), "LAYER must be one of 'gaussian', 'rademacher'; got 'uniform'"),
])
def test_parameters_stops_at_a_value_outside_its_range_with_one_line(change, line):
    with pytest.raises(ValueError) as err:
        checks.parameters(_cell(**change))
    assert str(err.value).startswith(line) and "\n" not in str(err.value)


def test_the_books_value_follows_the_scale(monkeypatch):
    assert checks.parameters(_cell(D=256)) == {}
    monkeypatch.setenv("BOOK_SCALE", "paper")
    assert checks.parameters(_cell(D=256)) == {"D": (512, 256)}
    assert checks.parameters(_cell(D=512)) == {}


def test_strict_mode_refuses_a_changed_setting(monkeypatch):
    monkeypatch.setenv(checks.STRICT_ENV, "1")
    assert checks.strict()
    with pytest.raises(checks.SettingChanged, match=r"PSI1 = 2.0 \(the book: 4.0\)"):
        checks.parameters(_cell(PSI1=2.0))
    assert checks.parameters(_cell()) == {}
    for on in ("true", "YES", " on "):
        monkeypatch.setenv(checks.STRICT_ENV, on)
        assert checks.strict()
    for off in ("0", "", "no"):
        monkeypatch.setenv(checks.STRICT_ENV, off)
        assert not checks.strict()


def test_bad_use_is_refused(monkeypatch, tmp_path):
    with pytest.raises(ValueError, match="must set D"):
        checks.parameters({k: v for k, v in _cell().items() if k != "D"})
    with pytest.raises(ValueError, match="chapter must be one of"):
        checks.chapter("no such chapter")
    monkeypatch.setitem(P._state, "chapter", None)
    with pytest.raises(ValueError, match=r"checks.chapter\(name\)"):
        checks.parameters(_cell())
    monkeypatch.setattr(P, "RECORD_PATH", tmp_path / "missing.json")
    with pytest.raises(FileNotFoundError, match="tools/book_parameters.py"):
        checks.book_parameters()


def test_a_new_chapter_starts_at_the_books_setting():
    checks.parameters(_cell(PSI1=2.0))
    checks.chapter("example")
    assert checks.changed() == {} and P.current_chapter() == "example"


def test_the_record_is_read_from_its_file():
    assert checks.book_parameters() == {"example": BOOK, "other": {}}


# --------------------------------------------------------------------------- claims
def test_a_check_at_the_books_setting_fails_as_an_assert_naming_the_claim():
    checks.parameters(_cell())
    with pytest.raises(AssertionError, match="the claim") as err:
        with checks.claims("a claim"):
            raise AssertionError("the claim")
    notes = getattr(err.value, "__notes__", [])
    assert not notes or "a claim" in notes[0]


def test_after_a_change_a_failing_check_is_skipped_with_one_line(capsys):
    checks.parameters(_cell(PSI1=2.0, ETAS=[0.0, 1.0]))
    with checks.claims("the spike's alignment"):
        assert 1 + 1 == 3
    with checks.claims("a claim that still holds"):
        assert True
    out = capsys.readouterr().out.strip().split("\n")
    assert len(out) == 1
    assert "(chapter 'example': the spike's alignment)" in out[0]
    assert "PSI1 = 2.0 instead of 4.0" in out[0] and "AssertionError" in out[0]


@pytest.mark.parametrize("error", [IndexError, ValueError, KeyError, ZeroDivisionError])
def test_any_other_exception_is_raised_even_after_a_change(error, capsys):
    checks.parameters(_cell(PSI1=2.0))
    with pytest.raises(error):
        with checks.claims("an index that the new grid lacks"):
            raise error("a bug, not a claim that fails")
    assert capsys.readouterr().out == ""


def test_strict_mode_never_skips(monkeypatch):
    checks.parameters(_cell(PSI1=2.0))      # changed before the build's switch was read
    monkeypatch.setenv(checks.STRICT_ENV, "yes")
    with pytest.raises(AssertionError):
        with checks.claims("a claim"):
            raise AssertionError


def test_claims_nest_and_name_the_current_claim():
    assert P.current_claim() is None
    with checks.claims("outer"):
        assert P.current_claim() == "outer"
        with checks.claims("inner"):
            assert P.current_claim() == "inner"
        assert P.current_claim() == "outer"
    assert P.current_claim() is None


# --------------------------------------------------------------------------- applies
def test_applies_holds_silently_where_the_claim_applies(capsys):
    checks.parameters(_cell(STUDENT="erf"))
    assert checks.applies(True, "no parity floor", only="odd teachers") is True
    assert capsys.readouterr().out == ""


def test_applies_skips_with_one_line_after_a_change(capsys):
    checks.parameters(_cell(STUDENT="erf"))
    assert checks.applies(False, "no parity floor", only="odd teachers") is False
    out = capsys.readouterr().out.strip().split("\n")
    assert len(out) == 1 and "no parity floor" in out[0] and "odd teachers only" in out[0]


def test_applies_is_an_assert_at_the_books_setting_and_under_strict(monkeypatch):
    checks.parameters(_cell())
    with pytest.raises(AssertionError, match="holds for odd teachers only"):
        checks.applies(False, "no parity floor", only="odd teachers")
    checks.parameters(_cell(STUDENT="erf"))
    monkeypatch.setenv(checks.STRICT_ENV, "1")
    with pytest.raises(AssertionError, match="the book's setting is not one of them"):
        checks.applies(False, "no parity floor", only="odd teachers")
