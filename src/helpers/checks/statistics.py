r"""The statistics of the hidden checks: Student t bands that hold together at any seed.

A hidden check compares a mean over independent runs (one run = one seed) with a value the
theory gives, or with zero.  It passes when the difference lies within a band of a Student
:math:`t` quantile times the standard error, plus, where the theory is a limit, a finite-size
allowance measured outside the check.  A chapter makes many such comparisons, and each must
hold at every ``BOOK_SEED``; so the tests of one chapter form one *family* whose level is
split evenly over its tests (Bonferroni): with :math:`K` tests at the level :math:`0.01/K`
each, all of them hold together with probability at least 99%.

:class:`Family` registers each test as the chapter meets it and decides them all at
:meth:`Family.close`, when :math:`K` is the number of tests made: the count is never typed,
so it cannot differ from the tests a changed grid makes.

Functions
---------
Family               a chapter's Bonferroni family of t (and chi-square) tests, decided
                     together once they are all registered
mean_se_dof          mean, standard error and degrees of freedom of runs
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

__all__ = ["Family", "mean_se_dof", "welch_dof", "measured_allowance", "mean_of_estimates",
           "pooled_mean", "paired_difference", "log_mean_ratio"]


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


def mean_se_dof(runs, pool=None):
    r"""Mean of ``runs``, its standard error and degrees of freedom; with ``pool`` (a list of
    arrays of runs, ``runs`` among them) the variance is pooled over them and their degrees of
    freedom add up (for few runs per point).

    >>> mean, se, dof = mean_se_dof([1.0, 2.0, 3.0])
    >>> mean, round(se, 12), dof                 # se = 1 / sqrt(3)
    (2.0, 0.57735026919, 2)
    """
    x = np.asarray(runs, dtype=float).ravel()
    groups = [np.asarray(g, dtype=float).ravel() for g in (pool or [x])]
    dof = sum(g.size - 1 for g in groups)
    if x.size < 2 or dof < 1:
        raise ValueError(f"runs must hold at least two values, got {x.size}")
    var = sum(((g - g.mean()) ** 2).sum() for g in groups) / dof
    return float(x.mean()), float(math.sqrt(var / x.size)), int(dof)


class Family:
    r"""The Bonferroni family of a chapter's statistical checks, decided together.

    Every test is registered as it is met (:meth:`within`, :meth:`above`, :meth:`below`,
    :meth:`chi2_within`, and their forms over runs); :meth:`close`, after the chapter's last
    test, counts them (:math:`K`), takes each quantile at the level ``level / K`` (split over
    the test's sides) and decides them all: every test holds together with probability at
    least ``1 - level``.  The count is the number of tests made, never typed.  A test
    registered inside :func:`helpers.checks.claims` belongs to that claim: after a reader's
    change, :meth:`close` prints one line per claim whose tests fail and goes on; at the
    book's setting it raises ``AssertionError`` listing them.

    Each test compares an estimate with a value, with a standard error ``se`` and ``dof``
    degrees of freedom (a Student t quantile :math:`t` at the family's level):

    * ``within(estimate, target, se, dof, allow=0)``: :math:`|\hat x - x| \le t\,\mathrm{se}
      + \mathrm{allow}` (two-sided; ``allow`` a finite-size allowance measured elsewhere);
    * ``above(estimate, bound, se, dof)``: :math:`\hat x - b > t\,\mathrm{se}` (one-sided:
      the effect is seen, not only allowed); ``below`` the mirror image;
    * ``chi2_within(statistic, dof)``: inside the two-sided chi-square range.

    Arrays are element-wise: an array of estimates is as many tests.

    Examples
    --------
    >>> fam = Family("two comparisons")
    >>> fam.within(1.0, 0.0, se=0.5, dof=1e9)
    >>> fam.above(3.0, 0.0, se=0.5, dof=1e9)
    >>> fam.close()                 # K = 2: |1 - 0| <= 2.81 x 0.5 and 3 > 2.58 x 0.5
    2
    """

    def __init__(self, name: str = "", level: float = 0.01):
        if not 0 < level < 1:
            raise ValueError(f"level must lie in (0, 1), got {level!r}")
        self.name, self.level = name, level
        self.tests: list[dict] = []
        self.closed = False

    def _add(self, kind, estimate, value, se, dof, *, sides, allow=0.0, what=""):
        from .parameters import current_claim

        if self.closed:
            raise RuntimeError(f"the family {self.name!r} is closed: register its tests first")
        est, val, se_, dof_, allow_ = np.broadcast_arrays(
            *(np.asarray(x, dtype=float) for x in (estimate, value, se, dof, allow)))
        if np.any(dof_ <= 0) or np.any(se_ < 0):
            raise ValueError(f"dof must be > 0 and se >= 0; got dof={dof!r}, se={se!r}")
        for e, v, s, f, a in zip(est.ravel(), val.ravel(), se_.ravel(), dof_.ravel(),
                                 allow_.ravel(), strict=True):
            self.tests.append(dict(kind=kind, estimate=e, value=v, se=s, dof=f, allow=a,
                                   sides=sides, what=what, claim=current_claim()))

    def within(self, estimate, target, se, dof, *, allow=0.0, what: str = "") -> None:
        r"""Register :math:`|\hat x - x| \le t\,\mathrm{se} + \mathrm{allow}` (two-sided)."""
        self._add("within", estimate, target, se, dof, sides=2, allow=allow, what=what)

    def above(self, estimate, bound, se, dof, *, what: str = "") -> None:
        r"""Register :math:`\hat x - b > t\,\mathrm{se}` (one-sided)."""
        self._add("above", estimate, bound, se, dof, sides=1, what=what)

    def below(self, estimate, bound, se, dof, *, what: str = "") -> None:
        r"""Register :math:`b - \hat x > t\,\mathrm{se}` (one-sided)."""
        self._add("below", estimate, bound, se, dof, sides=1, what=what)

    def runs_within(self, runs, target, *, allow=0.0, pool=None, what: str = "") -> None:
        """:meth:`within` for the mean of ``runs`` (:func:`mean_se_dof`)."""
        m, se, dof = mean_se_dof(runs, pool)
        self.within(m, target, se, dof, allow=allow, what=what)

    def runs_above(self, runs, bound=0.0, *, pool=None, what: str = "") -> None:
        """:meth:`above` for the mean of ``runs``."""
        m, se, dof = mean_se_dof(runs, pool)
        self.above(m, bound, se, dof, what=what)

    def runs_below(self, runs, bound=0.0, *, pool=None, what: str = "") -> None:
        """:meth:`below` for the mean of ``runs``."""
        m, se, dof = mean_se_dof(runs, pool)
        self.below(m, bound, se, dof, what=what)

    def chi2_within(self, statistic, dof, *, what: str = "") -> None:
        """Register: ``statistic`` inside the two-sided chi-square range with ``dof``."""
        self._add("chi2", statistic, np.nan, 0.0, dof, sides=2, what=what)

    def quantile(self, sides: int, dof):
        """The Student t quantile of one test of ``sides`` sides among the family's tests so
        far, at ``1 - level / (sides K)`` (for a report; :meth:`close` decides)."""
        return stats.t.ppf(1 - self.level / (sides * max(len(self.tests), 1)), dof)

    def _holds(self, t: dict, K: int) -> tuple[bool, str]:
        q = self.level / (t["sides"] * K)
        if t["kind"] == "chi2":
            lo, hi = stats.chi2.ppf([q, 1 - q], t["dof"])
            return bool(lo <= t["estimate"] <= hi), f"chi2 range [{lo:.4g}, {hi:.4g}]"
        band = stats.t.ppf(1 - q, t["dof"]) * t["se"]
        diff = t["estimate"] - t["value"]
        if t["kind"] == "within":
            ok = abs(diff) <= band + t["allow"]
            return bool(ok), f"|difference| <= {band:.4g} + allow {t['allow']:.4g}"
        if t["kind"] == "above":
            return bool(diff > band), f"difference > {band:.4g}"
        return bool(-diff > band), f"difference < -{band:.4g}"

    def close(self) -> int:
        """Decide every registered test at the level ``level / K`` (K = the number made) and
        return K.  Failures: one printed line per claim after a reader's change; an
        ``AssertionError`` listing them at the book's setting."""
        from .parameters import changed, skip_line, strict

        self.closed = True
        K = len(self.tests)
        failed = []
        for t in self.tests:
            ok, rule = self._holds(t, K)
            if not ok:
                failed.append((t, rule))
        if not failed:
            return K
        if changed() and not strict():
            for claim in dict.fromkeys(t["claim"] or self.name for t, _ in failed):
                print(skip_line(claim))
            return K
        lines = [f"{len(failed)} of the {K} tests of the family {self.name!r} fail "
                 f"(joint level {self.level}):"]
        for t, rule in failed:
            lines.append(f"- {t['claim'] or '(no claim)'}: {t['what'] or t['kind']}: estimate "
                         f"{t['estimate']:.6g} against {t['value']:.6g} (se {t['se']:.3g}, "
                         f"dof {t['dof']:g}): {rule}")
        raise AssertionError("\n".join(lines))
