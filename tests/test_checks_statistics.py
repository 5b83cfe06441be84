"""helpers.checks.statistics: the Student t tests of the hidden checks, in one Bonferroni
family per chapter that counts the tests it makes and decides them together at close."""

import importlib
import json
import math

import numpy as np
import pytest
from scipy import stats

from helpers import checks
from helpers.checks import Family, mean_se_dof, measured_allowance, welch_dof

P = importlib.import_module("helpers.checks.parameters")


@pytest.fixture(autouse=True)
def example_chapter(monkeypatch, tmp_path):
    """A chapter "example" with one parameter, at the book's setting."""
    record = tmp_path / "book_parameters.json"
    record.write_text(json.dumps({"example": {"PSI1": {"quick": 4.0, "paper": 4.0,
                                                       "range": "a number in (0, 64]"}}}))
    monkeypatch.setattr(P, "RECORD_PATH", record)
    monkeypatch.delenv(checks.STRICT_ENV, raising=False)
    checks.chapter("example")
    checks.parameters({"PSI1": 4.0})
    yield
    P._state.update(chapter=None, changed={}, claim=None)


def _change(psi1=2.0):
    checks.parameters({"PSI1": psi1})


def test_k_is_the_number_of_tests_registered_and_arrays_count_their_elements():
    fam = Family("counted")
    fam.within(np.zeros(3), 0.0, se=1.0, dof=10)            # three tests, one per element
    fam.above(50.0, 0.0, se=np.array([1.0, 2.0]), dof=9)     # broadcast: two tests
    fam.runs_within([1.0, 1.1, 0.9], 1.0)                   # one test of the mean of runs
    fam.chi2_within(np.array([10.0, 12.0]), dof=10)         # two tests
    assert len(fam.tests) == 8
    assert fam.quantile(2, 7) == pytest.approx(stats.t.ppf(1 - 0.01 / 16, 7), rel=1e-15)
    assert fam.close() == 8


def test_each_test_is_decided_at_the_level_over_k_at_close():
    """A difference just outside the band of one test holds in a family of K = 10 tests (the
    band at level 0.01/10 is wider): the quantile is taken at close, with the final K."""
    q1 = stats.t.ppf(1 - 0.01 / 2, 5)
    q10 = stats.t.ppf(1 - 0.01 / 20, 5)
    diff = 0.5 * (q1 + q10)                   # between the two bands (se = 1)
    alone = Family("one test")
    alone.within(diff, 0.0, se=1.0, dof=5)
    with pytest.raises(AssertionError, match="1 of the 1 tests"):
        alone.close()
    fam = Family("ten tests")
    fam.within(diff, 0.0, se=1.0, dof=5)
    fam.within(np.zeros(9), 0.0, se=1.0, dof=5)
    assert fam.close() == 10                  # inside the K = 10 band: holds
    wide = Family("ten tests, one beyond")
    wide.within(q10 * 1.01, 0.0, se=1.0, dof=5)
    wide.within(np.zeros(9), 0.0, se=1.0, dof=5)
    with pytest.raises(AssertionError, match="1 of the 10 tests"):
        wide.close()


@pytest.mark.parametrize(("register", "holds"), [
    # within: |est - target| <= t se + allow (two-sided, level / (2K))
    (lambda f, q2, q1: f.within(1.0 + 0.99 * q2, 1.0, se=1.0, dof=4), True),
    (lambda f, q2, q1: f.within(1.0 - 1.01 * q2, 1.0, se=1.0, dof=4), False),
    (lambda f, q2, q1: f.within(1.01 * q2 + 0.5, 0.0, se=1.0, dof=4, allow=0.5), False),
    (lambda f, q2, q1: f.within(0.99 * q2 + 0.5, 0.0, se=1.0, dof=4, allow=0.5), True),
    # above: est - bound > t se (one-sided, level / K)
    (lambda f, q2, q1: f.above(1.01 * q1, 0.0, se=1.0, dof=4), True),
    (lambda f, q2, q1: f.above(0.99 * q1, 0.0, se=1.0, dof=4), False),
    (lambda f, q2, q1: f.below(-1.01 * q1, 0.0, se=1.0, dof=4), True),
    (lambda f, q2, q1: f.below(-0.99 * q1, 0.0, se=1.0, dof=4), False),
    # runs: the mean, its se and dof of the runs
    (lambda f, q2, q1: f.runs_above([3.0, 3.1, 2.9, 3.0], 0.0), True),
    (lambda f, q2, q1: f.runs_below([3.0, 3.1, 2.9, 3.0], 0.0), False),
    (lambda f, q2, q1: f.runs_within([3.0, 3.1, 2.9, 3.0], 3.0), True),
    (lambda f, q2, q1: f.runs_within([3.0, 3.1, 2.9, 3.0], 0.0), False),
])
def test_within_above_below_and_runs_are_their_t_rules(register, holds):
    q2 = stats.t.ppf(1 - 0.01 / 2, 4)   # K = 1
    q1 = stats.t.ppf(1 - 0.01, 4)
    fam = Family("rule")
    register(fam, q2, q1)
    if holds:
        assert fam.close() == 1
    else:
        with pytest.raises(AssertionError):
            fam.close()


def test_runs_pool_their_variance_and_degrees_of_freedom():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=6), rng.normal(size=9)
    m, se, dof = mean_se_dof(x)
    assert (m, se, dof) == (pytest.approx(x.mean()), pytest.approx(stats.sem(x)), 5)
    pooled = (((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()) / 13
    assert mean_se_dof(x, pool=[x, y]) == (pytest.approx(x.mean()),
                                           pytest.approx(math.sqrt(pooled / 6)), 13)
    fam = Family("pooled")
    fam.runs_within(x, x.mean(), pool=[x, y])
    assert fam.tests[0]["dof"] == 13 and fam.tests[0]["se"] == pytest.approx(
        math.sqrt(pooled / 6))


def test_chi2_within_is_the_two_sided_chi_square_range():
    lo, hi = stats.chi2.ppf([0.01 / 2, 1 - 0.01 / 2], 16)
    for value, holds in ((0.5 * (lo + hi), True), (0.99 * lo, False), (1.01 * hi, False)):
        fam = Family("chi2")
        fam.chi2_within(value, 16)
        if holds:
            assert fam.close() == 1
        else:
            with pytest.raises(AssertionError, match="chi2 range"):
                fam.close()


def test_failures_at_the_books_setting_raise_listing_each_test():
    fam = Family("chapter 9")
    with checks.claims("the spike's alignment"):
        fam.within(10.0, 0.0, se=1.0, dof=30, what="overlap on theory")
    fam.above(-1.0, 0.0, se=1.0, dof=30, what="gain above zero")
    fam.within(0.0, 0.0, se=1.0, dof=30)
    with pytest.raises(AssertionError) as err:
        fam.close()
    lines = str(err.value).split("\n")
    assert lines[0] == "2 of the 3 tests of the family 'chapter 9' fail (joint level 0.01):"
    assert lines[1].startswith("- the spike's alignment: overlap on theory: estimate 10")
    assert lines[2].startswith("- (no claim): gain above zero: estimate -1")


def test_failures_after_a_change_print_one_line_per_claim(capsys):
    _change()
    fam = Family("chapter 9")
    with checks.claims("the spike's alignment"):
        fam.within(np.array([10.0, 11.0]), 0.0, se=1.0, dof=30)   # two failing tests, one claim
    with checks.claims("the gain"):
        fam.above(-1.0, 0.0, se=1.0, dof=30)
    with checks.claims("a claim that holds"):
        fam.within(0.0, 0.0, se=1.0, dof=30)
    fam.within(5.0, 0.0, se=0.1, dof=30)                          # no claim: the family's name
    assert fam.close() == 5
    out = capsys.readouterr().out.strip().split("\n")
    assert len(out) == 3
    assert "the spike's alignment" in out[0] and "PSI1 = 2.0 instead of 4.0" in out[0]
    assert "the gain" in out[1] and "chapter 9" in out[2]


def test_failures_under_strict_raise_even_after_a_change(monkeypatch):
    _change()
    monkeypatch.setenv(checks.STRICT_ENV, "1")
    fam = Family("strict")
    fam.above(-1.0, 0.0, se=1.0, dof=30)
    with pytest.raises(AssertionError, match="1 of the 1 tests"):
        fam.close()


def test_registering_after_close_is_an_error():
    fam = Family("closed")
    fam.within(0.0, 0.0, se=1.0, dof=3)
    fam.close()
    with pytest.raises(RuntimeError, match="the family 'closed' is closed"):
        fam.within(0.0, 0.0, se=1.0, dof=3)
    with pytest.raises(RuntimeError, match="is closed"):
        fam.runs_above([1.0, 2.0, 3.0])
    assert Family("empty").close() == 0


def test_welch_dof_matches_satterthwaite():
    var, dof = np.array([0.01, 0.04]), np.array([4, 9])
    nu = (0.05**2) / (0.01**2 / 4 + 0.04**2 / 9)
    assert welch_dof(var, dof) == pytest.approx(nu)


def test_measured_allowance():
    assert measured_allowance(-0.1, 0.02, 7) == pytest.approx(0.1 + stats.t.ppf(0.995, 7) * 0.02)


@pytest.mark.parametrize("bad, match", [
    (lambda: Family("x", level=1.0), "level"),
    (lambda: Family("x", level=0.0), "level"),
    (lambda: Family("x").within(1.0, 0.0, se=1.0, dof=0), "dof must be > 0"),
    (lambda: Family("x").above(1.0, 0.0, se=-1.0, dof=3), "se >= 0"),
    (lambda: Family("x").runs_within([1.0], 0.0), "at least two"),
    (lambda: mean_se_dof([1.0]), "at least two"),
    (lambda: welch_dof([], []), "non-empty"),
    (lambda: welch_dof([1.0], [0]), "dof > 0"),
])
def test_bad_input_is_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        bad()


def test_pooled_paired_and_ratio_statistics():
    from helpers.checks import log_mean_ratio, paired_difference, pooled_mean

    # inverse-variance pooling: a precise estimate dominates
    mean, se = pooled_mean([0.0, 10.0], [0.1, 10.0])
    assert abs(mean - 10.0 / 10001.0) < 1e-12 and abs(se - 1 / np.sqrt(100.01)) < 1e-12
    # paired: a shared run effect cancels, so the se is that of the differences
    rng = np.random.default_rng(0)
    shared = 100 * rng.standard_normal(50)
    a, b = shared + 1.0 + 0.1 * rng.standard_normal(50), shared + 0.1 * rng.standard_normal(50)
    mu, se, dof = paired_difference(a, b)
    assert dof == 49 and abs(mu - 1.0) < 5 * se and se < 0.05
    # the delta method agrees with the spread of the log ratio over resamples
    a, b = 2.0 + 0.2 * rng.standard_normal(400), 1.0 + 0.1 * rng.standard_normal(400)
    lr, se, n = log_mean_ratio(a, b)
    boot = [np.log(a[i].mean() / b[i].mean()) for i in rng.integers(0, 400, (2000, 400))]
    assert n == 400 and abs(lr - np.log(2.0)) < 5 * se and abs(np.std(boot) / se - 1) < 0.1


@pytest.mark.parametrize("call, match", [
    (lambda c: c.pooled_mean([1.0], [0.0]), "se > 0"),
    (lambda c: c.pooled_mean([], []), "non-empty"),
    (lambda c: c.paired_difference([1.0], [2.0]), "length >= 2"),
    (lambda c: c.log_mean_ratio([1.0, 2.0], [1.0]), "one length"),
])
def test_pooled_paired_and_ratio_refuse_bad_input(call, match):
    import helpers.checks as c
    with pytest.raises(ValueError, match=match):
        call(c)


def test_mean_of_estimates_is_the_mean_with_quadrature_se():
    from helpers.checks import mean_of_estimates

    mean, se = mean_of_estimates([1.0, 2.0, 6.0], [0.1, 0.2, 0.2])
    assert mean == pytest.approx(3.0) and se == pytest.approx(0.3 / 3)
    # the se of the mean of independent draws, by simulation
    rng = np.random.default_rng(1)
    sds = np.array([0.5, 1.0, 2.0])
    means = (rng.standard_normal((20000, 3)) * sds).mean(axis=1)
    assert mean_of_estimates([0, 0, 0], sds)[1] == pytest.approx(means.std(), rel=0.03)
    with pytest.raises(ValueError, match="one shape"):
        mean_of_estimates([1.0, 2.0], [0.1])
