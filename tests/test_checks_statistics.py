"""helpers.checks.statistics: the t bands of the hidden checks, in Bonferroni families that
count their own tests (issue 38)."""

import math

import numpy as np
import pytest
from scipy import stats

from helpers.checks import Family, measured_allowance, welch_dof


def test_the_quantile_splits_the_level_over_the_family_and_the_sides():
    fam = Family(40, "forty")
    assert fam.t(7) == pytest.approx(stats.t.ppf(1 - 0.01 / 80, 7), rel=1e-15)
    assert fam.t(7, sides=1) == pytest.approx(stats.t.ppf(1 - 0.01 / 40, 7), rel=1e-15)
    lo, hi = fam.chi2_range(16)
    assert (lo, hi) == pytest.approx(tuple(stats.chi2.ppf([0.01 / 80, 1 - 0.01 / 80], 16)))
    assert fam.used == 3


def test_the_family_counts_its_tests_and_fails_when_it_made_more_than_declared():
    fam = Family(3, "three tests")
    fam.t(np.array([4, 5]))                 # two tests, one per point
    fam.t(9, tests=1)
    fam.close()                             # 3 of 3: fine
    fam.t(9, sides=1)
    with pytest.raises(AssertionError, match="'three tests' made 4 tests but was declared with 3"):
        fam.close()


def test_band_is_the_t_quantile_times_the_standard_error_with_pooling():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=6), rng.normal(size=9)
    fam = Family(10)
    assert fam.band(x) == pytest.approx(fam.t(5) * stats.sem(x), rel=1e-12)
    pooled = (((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()) / 13
    assert fam.band(x, pool=[x, y]) == pytest.approx(fam.t(13) * math.sqrt(pooled / 6))
    assert fam.used == 4


def test_welch_band_matches_satterthwaite():
    var, dof = np.array([0.01, 0.04]), np.array([4, 9])
    nu = (0.05**2) / (0.01**2 / 4 + 0.04**2 / 9)
    assert welch_dof(var, dof) == pytest.approx(nu)
    fam = Family(5)
    assert fam.welch_band(var, dof) == pytest.approx(
        stats.t.ppf(1 - 0.01 / 10, nu) * math.sqrt(0.05))


def test_measured_allowance():
    assert measured_allowance(-0.1, 0.02, 7) == pytest.approx(0.1 + stats.t.ppf(0.995, 7) * 0.02)


@pytest.mark.parametrize("bad, match", [
    (lambda: Family(0), "size"),
    (lambda: Family(2.5), "size"),
    (lambda: Family(2, level=1.0), "level"),
    (lambda: Family(2).t(0), "dof"),
    (lambda: Family(2).t(3, sides=3), "sides"),
    (lambda: Family(2).band([1.0]), "at least two"),
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
