r"""The statistics of the hidden checks: Student t bands that hold together at any seed.

A hidden check compares a mean over independent runs (one run = one seed) with a value the
theory gives, or with zero.  It passes when the difference lies within a band of a Student
:math:`t` quantile times the standard error, plus, where the theory is a limit, a finite-size
allowance measured outside the check.  A chapter makes many such comparisons, and each must
hold at every ``BOOK_SEED``; so the quantiles of one chapter (or one cell) form a *family*
whose level is split evenly over its tests (Bonferroni): with :math:`K` tests at the two-sided
level :math:`0.01/K` each, all of them hold together with probability at least 99%.

:class:`Family` keeps that split in one place and counts the tests it is asked for, so the
:math:`K` a chapter declares cannot silently fall below the number of tests it makes
(:meth:`Family.close` fails if it did).

Functions
---------
Family               a Bonferroni family of t (and chi-square) tests that counts its tests
welch_dof            Satterthwaite's degrees of freedom of a sum of independent variances
measured_allowance   |mean| + its 99.5% t quantile x se: a finite-size allowance measured
                     from runs outside the check
mean_of_estimates    the plain mean of independent estimates and its standard error
pooled_mean          their inverse-variance weighted mean
paired_difference    mean, se and dof of paired differences (runs that share their draws)
log_mean_ratio       log of a ratio of paired means, by the delta method
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = ["Family", "welch_dof", "measured_allowance", "mean_of_estimates", "pooled_mean",
           "paired_difference", "log_mean_ratio"]


def welch_dof(var, dof) -> float:
    r"""Satterthwaite's degrees of freedom of :math:`\sum_i v_i`, a sum of independent
    variance estimates :math:`v_i` with :math:`\nu_i` degrees of freedom each:
    :math:`(\sum_i v_i)^2 / \sum_i v_i^2/\nu_i`.

    >>> welch_dof([1.0, 1.0], [9, 9])
    18.0
    """
    var, dof = np.asarray(var, dtype=float), np.asarray(dof, dtype=float)
    if var.size == 0 or np.any(var < 0) or np.any(dof <= 0):
        raise ValueError("var must be non-empty and >= 0, dof > 0; "
                         f"got var={var!r}, dof={dof!r}")
    return float(var.sum() ** 2 / (var**2 / dof).sum())


def measured_allowance(mean, se, dof):
    r"""A finite-size allowance measured from runs outside the check:
    :math:`|\bar x| + t_{0.995}(\nu)\,\mathrm{se}`, the largest deviation the measurement
    does not exclude at 99% (two-sided).  Element-wise for arrays.

    >>> round(float(measured_allowance(-0.02, 0.01, 1e9)), 4)
    0.0458
    """
    return np.abs(mean) + stats.t.ppf(0.995, dof) * np.asarray(se, dtype=float)


def mean_of_estimates(values, se):
    r"""The plain mean of :math:`k` independent estimates and its standard error,
    :math:`\bar x = \frac1k\sum_i x_i` and :math:`\frac1k(\sum_i \mathrm{se}_i^2)^{1/2}`
    (for example a curve's error against its theory, averaged over its points).

    >>> mean_of_estimates([1.0, 3.0], [0.3, 0.4])
    (2.0, 0.25)
    """
    values, se = np.asarray(values, dtype=float), np.asarray(se, dtype=float)
    if values.size == 0 or values.shape != se.shape or np.any(se < 0):
        raise ValueError("values and se must be non-empty, of one shape, se >= 0; got "
                         f"{values.shape} and {se.shape}")
    return float(values.mean()), float(np.sqrt(np.sum(se**2)) / values.size)


def pooled_mean(values, se):
    r"""The inverse-variance weighted mean of independent estimates and its standard error:
    :math:`\sum_i w_i x_i / \sum_i w_i` and :math:`1/\sqrt{\sum_i w_i}`, with
    :math:`w_i = 1/\mathrm{se}_i^2`.

    >>> pooled_mean([1.0, 3.0], [1.0, 1.0])
    (2.0, 0.7071067811865475)
    """
    values, se = np.asarray(values, dtype=float), np.asarray(se, dtype=float)
    if values.size == 0 or values.shape != se.shape or np.any(se <= 0):
        raise ValueError("values and se must be non-empty, of one shape, se > 0; got "
                         f"{values.shape} and {se.shape}")
    w = 1.0 / se**2
    return float(np.sum(w * values) / np.sum(w)), float(1.0 / math.sqrt(np.sum(w)))


def paired_difference(a, b):
    r"""Mean, standard error and degrees of freedom of the paired differences
    :math:`a_k - b_k` (runs that share their draws: one seed per pair).

    >>> paired_difference([3.0, 4.0, 5.0], [1.0, 1.0, 1.0])
    (3.0, 0.5773502691896258, 2)
    """
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if diff.ndim != 1 or diff.size < 2:
        raise ValueError(f"a and b must be 1-d, of one length >= 2; got {diff.shape}")
    return float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(diff.size)), diff.size - 1


def log_mean_ratio(a, b):
    r""":math:`\log(\bar a/\bar b)` of paired runs, its standard error by the delta method and
    the number of pairs: the influence of run :math:`k` is :math:`a_k/\bar a - b_k/\bar b`.

    >>> log_mean_ratio([2.0, 2.0], [1.0, 1.0])
    (0.6931471805599453, 0.0, 2)
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape or a.size < 2:
        raise ValueError(f"a and b must be 1-d, of one length >= 2; got {a.shape}, {b.shape}")
    g = a / a.mean() - b / b.mean()
    return math.log(a.mean() / b.mean()), float(g.std(ddof=1) / math.sqrt(g.size)), g.size


class Family:
    r"""A Bonferroni family of ``size`` tests at the joint level ``level``.

    Each quantile it returns is at the level ``level / size`` (split over the sides asked
    for), so that all the family's tests hold together with probability at least
    ``1 - level``.  Every call counts its tests (the elements of ``dof``, or ``tests``);
    :meth:`close` fails when more were made than declared.

    Parameters
    ----------
    size : int
        The number of tests the family is declared to hold (>= 1).
    name : str
        What the family checks, for the failure messages.
    level : float
        The joint level (default 0.01: 99% joint coverage).

    Examples
    --------
    >>> fam = Family(2, "two comparisons")
    >>> round(fam.t(1e9), 3)        # two-sided, level 0.01 / 2: the normal 99.75% quantile
    2.807
    >>> fam.used
    1
    """

    def __init__(self, size: int, name: str = "", level: float = 0.01):
        if int(size) != size or size < 1:
            raise ValueError(f"size must be a positive integer, got {size!r}")
        if not 0 < level < 1:
            raise ValueError(f"level must lie in (0, 1), got {level!r}")
        self.size, self.name, self.level, self.used = int(size), name, level, 0

    def _count(self, tests: int) -> None:
        self.used += int(tests)

    def t(self, dof, sides: int = 2, tests: int | None = None):
        """Student t quantile at ``1 - level / (sides * size)`` for ``dof`` degrees of freedom.

        Counts ``tests`` tests (default: one per element of ``dof``); pass ``tests`` when one
        quantile serves a vectorised comparison of several points.
        """
        if sides not in (1, 2):
            raise ValueError(f"sides must be 1 or 2, got {sides!r}")
        if np.any(np.asarray(dof, dtype=float) <= 0):
            raise ValueError(f"dof must be > 0 (at least two runs per mean), got {dof!r}")
        self._count(np.size(dof) if tests is None else tests)
        q = stats.t.ppf(1 - self.level / (sides * self.size), dof)
        return float(q) if np.ndim(q) == 0 else q

    def chi2_range(self, dof):
        """The two-sided range of a chi-square with ``dof`` degrees of freedom (one test)."""
        self._count(1)
        return tuple(stats.chi2.ppf([self.level / (2 * self.size),
                                     1 - self.level / (2 * self.size)], dof))

    def band(self, runs, pool=None, *, sides: int = 2) -> float:
        r"""t quantile x standard error of the mean of ``runs`` (one test).

        With ``pool`` (a list of arrays of runs, ``runs`` among them) the variance is pooled
        over them and their degrees of freedom add up: for few runs per point.
        """
        x = np.asarray(runs, dtype=float).ravel()
        groups = [np.asarray(g, dtype=float).ravel() for g in (pool or [x])]
        dof = sum(g.size - 1 for g in groups)
        if x.size < 2 or dof < 1:
            raise ValueError(f"runs must hold at least two values, got {x.size}")
        var = sum(((g - g.mean()) ** 2).sum() for g in groups) / dof
        return float(self.t(dof, sides) * math.sqrt(var / x.size))

    def welch_band(self, var, dof, sides: int = 2, tests: int = 1) -> float:
        r"""t quantile (Satterthwaite's dof) x :math:`\sqrt{\sum_i v_i}` for a sum (or a
        combination) of independent means with variances ``var`` and ``dof`` each; it counts
        ``tests`` tests (one, or as many comparisons as use the band)."""
        var = np.asarray(var, dtype=float)
        return float(self.t(welch_dof(var, dof), sides, tests=tests) * math.sqrt(var.sum()))

    def close(self) -> None:
        """Fail if the family made more tests than it was declared to hold."""
        if self.used > self.size:
            raise AssertionError(
                f"the Bonferroni family {self.name!r} made {self.used} tests but was declared "
                f"with {self.size}: its joint level is not {self.level}; raise its size")
