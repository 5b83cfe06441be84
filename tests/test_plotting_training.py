"""Figure helpers, full-batch training and the setting chapter's theory."""

import math
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from helpers import plotting  # noqa: E402
from helpers.data import init_student, sample_data, sample_teacher  # noqa: E402
from helpers.theory import kernel_lower_bound, label_second_moment, neuron_movement  # noqa: E402
from helpers.training import train_two_layer  # noqa: E402


def test_style_and_helpers_draw_on_given_axes():
    plotting.use_book_style()
    fig, ax = plt.subplots()
    assert plotting.plot_simulation(ax, [1, 2], [0.1, 0.2], [0.01, 0.02], label="sim") is ax
    assert plotting.plot_theory(ax, [1, 2], [0.1, 0.2], label="theory") is ax
    assert plotting.plot_bound(ax, 0.05, label="bound") is ax
    assert len(ax.lines) >= 2
    assert plotting.log_axis(ax, [1, 2, 4]) is ax and ax.get_xscale() == "log"
    assert plotting.log_axis(ax, [0.1, 1], axis="y").get_yscale() == "log"
    with pytest.raises(ValueError, match="axis must be 'x' or 'y'"):
        plotting.log_axis(ax, [1], axis="z")
    with pytest.raises(ValueError, match="x and mean must have the same shape"):
        plotting.plot_simulation(ax, [1, 2, 3], [0.1, 0.2])
    plt.close(fig)


def test_region_outline_draws_the_edges_between_inside_and_outside():
    fig, ax = plt.subplots()
    inside = np.array([[True, True, False],
                       [True, False, False]])
    assert plotting.region_outline(ax, inside, linestyle="--") is ax
    segs = {tuple(map(tuple, np.asarray(s).tolist())) for s in ax.collections[-1].get_segments()}
    # vertical: right of (0, 1) and of (1, 0); horizontal: below (0, 1)
    assert segs == {((2, 0), (2, 1)), ((1, 1), (1, 2)), ((1, 1), (2, 1))}
    plotting.region_outline(ax, np.zeros((2, 3), bool))          # no region: no edge
    assert len(ax.collections[-1].get_segments()) == 0
    with pytest.raises(ValueError, match="inside must be a 2-d"):
        plotting.region_outline(ax, [True, False])
    plt.close(fig)


def _toy(rng, d=8, n=60, N=20):
    beta = sample_teacher(d, rng=rng)
    X, y = sample_data(n, beta, "relu", rng=rng)
    W0, a = init_student(d, N, rng=rng)
    return X, y, W0, a * math.sqrt(N), beta


def test_training_decreases_the_loss_and_records(rng):
    X, y, W0, a0, beta = _toy(rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        tr = train_two_layer(X, y, W0, a0, "relu", parameterization="ntk", lr=0.5,
                             max_steps=200, tol=1e-8, record_every=50, project=beta[:, None])
    assert tr.loss[-1] < tr.loss[0]
    assert tr.W.shape == (len(tr.steps), 1, W0.shape[1])
    assert not tr.converged


def test_training_stops_at_tolerance(rng):
    X, y, W0, a0, _ = _toy(rng)
    tr = train_two_layer(X, y, W0, a0, "relu", parameterization="mean-field", lr=0.5,
                         max_steps=50, tol=10.0)
    assert tr.converged and len(tr.steps) == 1


def test_training_warns_when_not_converged(rng):
    X, y, W0, a0, _ = _toy(rng)
    with pytest.warns(RuntimeWarning, match="did not reach tol"):
        train_two_layer(X, y, W0, a0, "relu", parameterization="ntk", lr=0.1, max_steps=3)


def test_training_bad_arguments(rng):
    X, y, W0, a0, _ = _toy(rng)
    with pytest.raises(ValueError, match="parameterization must be one of"):
        train_two_layer(X, y, W0, a0, "relu", parameterization="mup", lr=0.1, max_steps=3)
    with pytest.raises(ValueError, match="lr must be"):
        train_two_layer(X, y, W0, a0, "relu", parameterization="ntk", lr=0.0, max_steps=3)
    with pytest.raises(ValueError, match="diverged"):
        train_two_layer(X, 1e200 * y, W0, a0, "relu", parameterization="ntk", lr=1e3,
                        max_steps=5)


def test_kernel_bound_and_label_moment():
    assert kernel_lower_bound("linear") == 0.0
    assert kernel_lower_bound("relu") == pytest.approx(0.25 - 1 / (2 * math.pi), abs=1e-12)
    assert label_second_moment("linear", noise=0.5) == pytest.approx(1.25)
    with pytest.raises(ValueError, match="noise must be"):
        label_second_moment("linear", noise=-1.0)


def test_neuron_movement_matches_simulation():
    # ||w_i^1 - w_i^0|| / (eta |a_i|) averaged over neurons at d = 400; the spread over
    # neurons is O(sqrt(d/n)) relative, the mean over N = 400 neurons is much tighter.
    from helpers import simulate_one_step

    r = simulate_one_step("tanh", "tanh", d=400, psi1=4, psi2=1, lam=1e-2, eta=1.0, seed=0,
                          n_test=10)
    ratio = np.linalg.norm(r.W1 - r.W0, axis=0) / np.abs(r.a)
    theory = neuron_movement("tanh", "tanh", psi1=4)
    assert ratio.mean() == pytest.approx(theory, rel=0.05)
    with pytest.raises(ValueError, match="psi1 must be"):
        neuron_movement("tanh", "tanh", psi1=0)


def test_simulated_ticks_keep_every_value_or_every_other():
    from helpers.plotting import simulated_ticks

    assert simulated_ticks([1, 2, 4]) == [1, 2, 4]
    assert simulated_ticks([1, 2, 3, 4, 5]) == [1, 3, 5]
    assert simulated_ticks((1, 2, 3), most=2) == [1, 3]
    with pytest.raises(ValueError, match="most"):
        simulated_ticks([1, 2], most=0)


@pytest.mark.parametrize("values", [[0.027, 0.21], [1, 1.2], [5], [1e-4, 1e2], [0.3, 0.31],
                                    [3, 300], [0.9, 1.1], [100, 10_000], [2, 2.9],
                                    [0.0, -1.0, 0.5, 4.0, float("nan")]])
@pytest.mark.parametrize("most", [3, 5])
def test_log_ticks_are_plain_numbers_in_the_range_of_the_values(values, most):
    from helpers.plotting import log_ticks

    ticks = log_ticks(values, most=most)
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    lo, hi = v.min(), v.max()
    assert 2 <= len(ticks) <= most and ticks == sorted(set(ticks)), ticks
    for t in ticks:   # m 10^k with m among 1, 1.5, 2, 3, 5, 7: a plain number
        k = np.floor(np.log10(t) + 1e-12)
        assert round(t / 10**k, 9) in (1, 1.5, 2, 3, 5, 7), (t, ticks)
        assert f"{t:g}" == f"{float(f'{t:.6g}'):g}"
    inside = [t for t in ticks if lo <= t <= hi]
    if len(inside) < 2:   # too few inside: the nearest outside on either side are added
        assert ticks[0] <= lo and ticks[-1] >= hi, (values, ticks)
    else:
        assert inside == ticks, (values, ticks)


def test_log_ticks_refuse_values_without_a_positive_number():
    from helpers.plotting import log_ticks

    assert log_ticks([0.027, 0.21]) == [0.05, 0.1, 0.2]
    for bad in ([], [0.0, -1.0], [float("nan")]):
        with pytest.raises(ValueError, match="at least one finite positive number"):
            log_ticks(bad)
