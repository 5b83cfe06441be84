"""helpers.checks.margins: the distance of a discrete answer from changing (issue 30)."""

import numpy as np
import pytest

from helpers.checks import margins
from helpers.measures import count_outliers


def test_threshold_margin_is_the_smallest_relative_distance():
    assert margins.threshold_margin([0.5, 0.98, 1.5], 1.0) == pytest.approx(0.02)
    # one threshold per value (broadcast), negative thresholds by their size
    assert margins.threshold_margin([[1.0, 2.0]], [[2.0, 2.5]]) == pytest.approx(0.2)
    assert margins.threshold_margin([-1.1], -1.0) == pytest.approx(0.1)


def test_a_comparison_keeps_its_answer_within_the_margin():
    rng = np.random.default_rng(0)
    v, t = rng.uniform(0.5, 1.5, 200), 1.0
    m = margins.threshold_margin(v, t)
    for rel in (0.9 * m, -0.9 * m):
        assert np.array_equal(v * (1 + rel) > t, v > t)


def test_argmin_margin():
    assert margins.argmin_margin([3.0, 1.0, 1.1]) == pytest.approx(0.1)
    assert margins.argmin_margin([2.0, 2.0]) == 0.0  # a tie: no margin at all
    v = np.array([1.0, 1.0 + 1e-3, 1.2])
    m = margins.argmin_margin(v)
    assert np.argmin(v * (1 + 0.4 * m * np.array([1, -1, 0]))) == 0


@pytest.mark.parametrize(("call", "match"), [
    (lambda: margins.threshold_margin([], 1.0), "values"),
    (lambda: margins.threshold_margin([np.nan], 1.0), "values"),
    (lambda: margins.threshold_margin([1.0], 0.0), "threshold"),
    (lambda: margins.argmin_margin([1.0]), "at least two"),
    (lambda: margins.argmin_margin([0.0, 1.0]), "smallest value is 0"),
])
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_outlier_count_survives_a_perturbation_below_its_margin():
    # the count of chapter 7: values above (1 + margin) x edge; moving every singular value by
    # a relative 1e-12 (another CPU's last bits) leaves it unchanged when the margin is larger
    s = np.array([2.5, 1.02, 1.0, 0.97, 0.5])
    edge, margin = 1.0, 0.03
    m = margins.threshold_margin(s, (1 + margin) * edge)
    assert m > margins.FLOAT_MARGIN
    rng = np.random.default_rng(1)
    for _ in range(20):
        moved = s * (1 + 1e-12 * rng.uniform(-1, 1, s.size))
        assert count_outliers(moved, edge, margin=margin) == count_outliers(s, edge,
                                                                            margin=margin) == 1
