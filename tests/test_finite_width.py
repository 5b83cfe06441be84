"""The finite-width theory of the large step (large_step_risk(..., d=d), issue 31) and the
population model it describes (helpers.simulate.population_model_risks)."""

import math

import numpy as np
import pytest
from scipy import stats

from helpers.simulate import population_model_risks
from helpers.theory import kernel_lower_bound, large_step_parts, large_step_risk

CELL = dict(psi1=16.0, psi2=0.5, lam=0.1)   # chapter 5's slow map cell


@pytest.mark.parametrize("layer", ["rademacher", "gaussian"])
def test_finite_width_falls_to_the_limit(layer):
    etas = np.array([0.5, 1.0, 3.0])
    limit = large_step_risk("tanh", "tanh", eta_scale=etas, second_layer=layer, **CELL)
    by_d = np.array([large_step_risk("tanh", "tanh", eta_scale=etas, second_layer=layer,
                                     d=d, **CELL) for d in (256, 1024, 4096, 2**20)])
    assert np.all(np.diff(by_d, axis=0) < 0)          # falls with d ...
    assert np.all(by_d > limit)                       # ... from above the limit ...
    far = large_step_risk("tanh", "tanh", eta_scale=etas[1:], second_layer=layer, d=10**12,
                          **CELL)
    np.testing.assert_allclose(far, limit[1:], rtol=1e-5)  # ... and reaches it (slowly at 0.5)


def test_finite_width_excess_is_a_crossover_not_a_power():
    """Gaussian layer, eta_scale = 1: the excess over the limit falls like d^-0.4 at the
    simulated sizes and steeper far beyond them (about d^-0.7 at d = 2^26): a local slope that
    drifts, not one rate."""
    def excess(d):
        kw = dict(eta_scale=1.0, second_layer="gaussian", **CELL)
        return large_step_risk("tanh", "tanh", d=d, **kw) - large_step_risk("tanh", "tanh", **kw)

    def slope(d):
        return math.log(excess(2 * d) / excess(d)) / math.log(2)

    assert -0.5 < slope(512) < -0.3
    assert slope(2**26) < -0.6


def test_splitting_an_atom_changes_nothing_at_finite_width():
    kw = dict(eta_scale=np.array([0.5, 2.0]), d=512, **CELL)
    one = large_step_risk("tanh", "tanh", second_layer=([1.0], [1.0]), **kw)
    split = large_step_risk("tanh", "tanh", second_layer=([1.0, 1.0], [0.3, 0.7]), **kw)
    rad = large_step_risk("tanh", "tanh", **kw)
    np.testing.assert_allclose(split, one, rtol=1e-9)
    np.testing.assert_allclose(rad, one, rtol=1e-12)   # +-1 takes the population path at finite d


def test_finite_width_mean_directions_are_penalised():
    """The limit leaves the mean directions free: at a small step it puts them on the rare
    atoms of large |a_i| (small p_j), whose readout costs sum_j m_j^2 / p_j; at finite width
    that squared norm is much smaller."""
    kw = dict(eta_scale=1.0, second_layer="gaussian", **CELL)
    free = large_step_parts("tanh", "tanh", **kw)
    small = large_step_parts("tanh", "tanh", d=256, **kw)
    norm_free = np.sum(free["m"] ** 2 / free["weights"])
    norm_small = np.sum(small["m"] ** 2 / small["weights"])
    assert norm_small < norm_free / 10, (norm_small, norm_free)


@pytest.mark.parametrize("layer", ["rademacher", "gaussian"])
def test_population_model_follows_the_finite_width_theory(layer):
    """8 seeds of the population model at d = 256 (the cell, eta_scale = 1): the mean is
    within the two-sided 99.9% t band of the finite-width theory, and above the N -> infinity
    limit by more than that band (tolerances from the seeds' spread; no allowance)."""
    risks = np.array([population_model_risks("tanh", "tanh", d=256, etas=[1.0],
                                             second_layer=layer, seed=[31, s], **CELL)[0]
                      for s in range(8)])
    band = stats.t.ppf(0.9995, risks.size - 1) * risks.std(ddof=1) / math.sqrt(risks.size)
    finite = large_step_risk("tanh", "tanh", eta_scale=1.0, second_layer=layer, d=256, **CELL)
    limit = large_step_risk("tanh", "tanh", eta_scale=1.0, second_layer=layer, **CELL)
    assert abs(risks.mean() - finite) < band, (risks.mean(), finite, band)
    assert risks.mean() - limit > band, (risks.mean(), limit, band)
    assert limit < finite and finite / kernel_lower_bound("tanh") > 1.0


@pytest.mark.parametrize("d", [0, -3, 2.5, True, "512"])
def test_bad_widths_are_refused(d):
    with pytest.raises(ValueError, match="d must be"):
        large_step_risk("tanh", "tanh", eta_scale=1.0, d=d, **CELL)


def test_population_model_input_checks_and_seeds():
    kw = dict(d=64, psi1=2.0, psi2=0.5, etas=[1.0, 2.0])
    a = population_model_risks("tanh", "tanh", lam=0.1, seed=3, **kw)
    b = population_model_risks("tanh", "tanh", lam=0.1, seed=3, **kw)
    np.testing.assert_array_equal(a, b)
    xi = np.ones(32)
    np.testing.assert_array_equal(
        population_model_risks("tanh", "tanh", lam=0.1, seed=3, second_layer=xi, **kw),
        population_model_risks("tanh", "tanh", lam=0.1, seed=3, second_layer="rademacher",
                               **kw))
    with pytest.raises(ValueError, match="lam must be one"):
        population_model_risks("tanh", "tanh", lam=[0.1, 1.0], **kw)
    with pytest.raises(ValueError, match="second_layer"):
        population_model_risks("tanh", "tanh", lam=0.1, second_layer=np.ones(5), **kw)
    with pytest.raises(ValueError, match="second_layer"):
        population_model_risks("tanh", "tanh", lam=0.1, second_layer="uniform", **kw)
    with pytest.raises(ValueError, match="etas"):
        population_model_risks("tanh", "tanh", lam=0.1, **{**kw, "etas": [-1.0]})
