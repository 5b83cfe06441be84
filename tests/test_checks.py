"""helpers.checks: a hidden check fails as an assert at the book's setting, is skipped with one
printed line once the reader changed a parameter, and a changed setting is an error where the
book's claims must hold (BOOK_STRICT)."""

import numpy as np
import pytest

from helpers import checks

BOOK = {"PSI1": 4.0, "STUDENT": "tanh", "ETAS": [0.0, 1.0, 2.0],
        "D": checks.ByScale(256, 512), "FIG": {"psi2": 2.0, "lam": 1e-3}}


@pytest.fixture(autouse=True)
def example_chapter(monkeypatch):
    monkeypatch.setitem(checks.BOOK_SETTINGS, "example", BOOK)
    monkeypatch.delenv(checks.STRICT_ENV, raising=False)
    monkeypatch.delenv("BOOK_SCALE", raising=False)
    checks.chapter("example")


def test_a_check_at_the_books_setting_fails_as_an_assert():
    assert checks.setting(PSI1=4, STUDENT="tanh", ETAS=np.array([0.0, 1.0, 2.0]), D=256,
                          FIG={"psi2": 2.0, "lam": 1e-3}) == {}
    with pytest.raises(AssertionError, match="the claim"):
        with checks.claims("a claim"):
            raise AssertionError("the claim")


def test_a_changed_setting_skips_a_failing_check_with_one_line(capsys):
    assert set(checks.setting(PSI1=2.0, ETAS=[0.0, 1.0])) == {"PSI1", "ETAS"}
    with checks.claims("the spike's alignment"):
        assert 1 + 1 == 3
    with checks.claims("an index that the new grid lacks"):
        [0.0, 1.0][2]
    out = capsys.readouterr().out.strip().split("\n")
    assert len(out) == 2
    assert "(chapter 'example': the spike's alignment)" in out[0]
    assert "PSI1 = 2.0 instead of 4.0" in out[0] and "AssertionError" in out[0]
    assert "IndexError" in out[1]


def test_a_check_that_holds_after_a_change_prints_nothing(capsys):
    checks.setting(STUDENT="erf")
    with checks.claims("a claim that still holds"):
        assert True
    assert capsys.readouterr().out == ""


def test_setting_a_parameter_back_restores_the_books_setting():
    checks.setting(PSI1=2.0)
    assert checks.changed() == {"PSI1": (4.0, 2.0)}
    checks.setting(PSI1=4.0)
    assert checks.changed() == {}
    with pytest.raises(AssertionError):
        with checks.claims("a claim"):
            raise AssertionError


def test_a_new_chapter_starts_at_the_books_setting():
    checks.setting(PSI1=2.0)
    checks.chapter("example")
    assert checks.changed() == {}


def test_the_book_value_follows_the_scale(monkeypatch):
    assert checks.setting(D=256) == {}
    monkeypatch.setenv("BOOK_SCALE", "paper")
    assert checks.setting(D=256) == {"D": (BOOK["D"], 256)}
    assert checks.setting(D=512) == {}


def test_a_tuple_is_the_list_it_lists():
    assert checks.setting(STUDENT="tanh", ETAS=(0.0, 1.0, 2.0)) == {}
    assert "ETAS" in checks.setting(ETAS=(0.0, 1.0, "2"))


def test_values_of_another_shape_or_kind_are_changes():
    assert "ETAS" in checks.setting(ETAS=[0.0, 1.0, 2.0, 3.0])
    assert "FIG" in checks.setting(FIG={"psi2": 2.0})
    assert "FIG" in checks.setting(FIG=2.0)
    assert "STUDENT" in checks.setting(STUDENT=np.tanh)
    assert "PSI1" in checks.setting(PSI1=4.0 * (1 + 1e-9))


def test_strict_mode_refuses_a_changed_setting(monkeypatch):
    monkeypatch.setenv(checks.STRICT_ENV, "1")
    assert checks.strict()
    with pytest.raises(checks.SettingChanged, match=r"PSI1 = 2.0 \(the book: 4.0\)"):
        checks.setting(PSI1=2.0)
    assert checks.setting(PSI1=4.0) == {}


def test_strict_mode_never_skips(monkeypatch):
    checks.setting(PSI1=2.0)                # changed before the build's switch was read
    monkeypatch.setenv(checks.STRICT_ENV, "yes")
    with pytest.raises(AssertionError):
        with checks.claims("a claim"):
            raise AssertionError


def test_bad_use_is_refused_with_the_allowed_values(monkeypatch):
    with pytest.raises(ValueError, match="must be among"):
        checks.setting(PSI3=1.0)
    with pytest.raises(ValueError, match="chapter must be one of"):
        checks.chapter("no such chapter")
    monkeypatch.setitem(checks.settings._state, "chapter", None)
    with pytest.raises(ValueError, match=r"checks.chapter\(name\)"):
        checks.setting(PSI1=4.0)
