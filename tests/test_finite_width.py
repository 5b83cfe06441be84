"""The finite-width theory of the large step (large_step_risk(..., d=d), issue 31) and the
population model it describes (helpers.run(..., model="population"))."""

import math

import numpy as np
import pytest
from scipy import stats

from helpers import named_seed, run
from helpers.theory import kernel_lower_bound, large_step_parts, large_step_risk

CELL = dict(psi1=16.0, psi2=0.5, lam=0.1)   # chapter 5's slow map cell


def population_model_risks(student, teacher, *, etas, seed, **kw):
    """The risk of the population model at each step size eta / sqrt(N) in ``etas``."""
    return np.array([r["risk"] for r in run(student=student, teacher=teacher,
                                            model="population", eta_scale=etas, seed=seed,
                                            **kw)])


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


@pytest.mark.parametrize("model, near", [("network", (-0.4, -0.2)), ("population", (-0.5, -0.3))])
def test_finite_width_excess_is_a_crossover_not_a_power(model, near):
    """Gaussian layer, eta_scale = 1: the excess over the limit falls like d^-0.3 (the
    network) or d^-0.4 (the population model) at the simulated sizes and steeper far beyond
    them (about d^-0.7 at d = 2^26): a local slope that drifts, not one rate."""
    def excess(d):
        kw = dict(eta_scale=1.0, second_layer="gaussian", **CELL)
        return (large_step_risk("tanh", "tanh", d=d, model=model, **kw)
                - large_step_risk("tanh", "tanh", **kw))

    def slope(d):
        return math.log(excess(2 * d) / excess(d)) / math.log(2)

    assert near[0] < slope(512) < near[1]
    assert slope(2**26) < -0.6


def test_splitting_an_atom_changes_nothing_at_finite_width():
    kw = dict(eta_scale=np.array([0.5, 2.0]), d=512, **CELL)
    one = large_step_risk("tanh", "tanh", second_layer=([1.0], [1.0]), **kw)
    split = large_step_risk("tanh", "tanh", second_layer=([1.0, 1.0], [0.3, 0.7]), **kw)
    rad = large_step_risk("tanh", "tanh", second_layer="rademacher", **kw)
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
                                             second_layer=layer,
                                             seed=named_seed(31, "population", f"run={s}"),
                                             **CELL)[0]
                      for s in range(8)])
    band = stats.t.ppf(0.9995, risks.size - 1) * risks.std(ddof=1) / math.sqrt(risks.size)
    finite = large_step_risk("tanh", "tanh", eta_scale=1.0, second_layer=layer, d=256,
                             model="population", **CELL)
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
    np.testing.assert_array_equal(   # one atom at 1 is the +-1 layer
        population_model_risks("tanh", "tanh", lam=0.1, seed=3, second_layer=([1.0], [1.0]),
                               **kw),
        population_model_risks("tanh", "tanh", lam=0.1, seed=3, second_layer="rademacher",
                               **kw))
    # several penalties: one risk per step size and penalty, the same draws
    both = population_model_risks("tanh", "tanh", lam=[0.1, 1.0], seed=3, **kw)
    np.testing.assert_allclose(both[::2], a, rtol=1e-12)
    with pytest.raises(ValueError, match="second_layer"):
        population_model_risks("tanh", "tanh", lam=0.1, seed=3, second_layer=([1.0], [0.5]),
                               **kw)
    with pytest.raises(ValueError, match="second_layer"):
        population_model_risks("tanh", "tanh", lam=0.1, seed=3, second_layer="uniform", **kw)
    with pytest.raises(ValueError, match="eta_scale"):
        population_model_risks("tanh", "tanh", lam=0.1, seed=3, **{**kw, "etas": [-1.0]})


# --------------------------------------------------------------------------- the initial output
def test_models_share_the_limit():
    """The initial output and the step's correlated noise change the bulk along one direction:
    O(1/N) in the fixed point, so every model has the same limit (d=None ignores it)."""
    etas = np.array([1.0, 3.0])
    for layer in ("rademacher", "gaussian"):
        limit = large_step_risk("tanh", "tanh", eta_scale=etas, second_layer=layer, **CELL)
        for model in ("residual-y", "population"):
            np.testing.assert_array_equal(
                large_step_risk("tanh", "tanh", eta_scale=etas, second_layer=layer,
                                model=model, **CELL), limit)
        far = large_step_risk("tanh", "tanh", eta_scale=etas, second_layer=layer, d=10**12,
                              **CELL)
        np.testing.assert_allclose(far, limit, rtol=1e-5)


def _random_resolvent(J=3, seed=0):
    from helpers.theory.large_step import _Resolvent
    rng = np.random.default_rng(seed)
    L = rng.standard_normal((J, J))
    vh1 = 0.3 * L @ L.T + 0.2 * np.eye(J)
    vh2 = rng.uniform(0.1, 0.5, J)
    c, p = rng.uniform(1.0, 2.0, J), rng.dirichlet(np.ones(J))

    def make(dvh1=0.0, dvh2=0.0):
        return _Resolvent(vh1 + dvh1, vh2 + dvh2, lam_eff=0.3, c=c, p=p, psi2=0.7)

    return make, vh2, p, rng


def test_mean_metric_without_contraction_is_the_limit_bookkeeping():
    """E^2 = I: the metric is diag(V_2) and the source is the resolvent's derivative along
    N m_hat^2 (Result 5.3 without the initial output, as before)."""
    from helpers.theory.large_step import _MeanMetric
    make, vh2, p, rng = _random_resolvent()
    R = make()
    metric = _MeanMetric(R, 0.3 + vh2, p)
    np.testing.assert_allclose(metric.G, np.diag(R.V2), rtol=1e-12, atol=1e-14)
    m_hat, width = rng.standard_normal(p.size), 1000
    g1, g2 = metric.source(width, m_hat)
    d1, d2 = R.derivative(np.zeros((1, p.size, p.size)), (width * m_hat**2)[None])
    np.testing.assert_allclose(g1, d1[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g2, d2[0], rtol=1e-9, atol=1e-12)


def test_mean_metric_source_is_its_gradient():
    """With a contraction E^2 = I - beta nu nu^T the source is the gradient of
    N m_hat^T G m_hat in (V1_hat, V2_hat): central finite differences, step 1e-6."""
    from helpers.theory.large_step import _MeanMetric
    make, vh2, p, rng = _random_resolvent(seed=1)
    nu = rng.uniform(0.2, 1.0, p.size)
    E2 = np.eye(p.size) - 0.6 * np.outer(nu, nu) / (nu @ nu)
    m_hat, width, h = rng.standard_normal(p.size), 500, 1e-6

    def phi(dvh1=0.0, dvh2=0.0):
        G = _MeanMetric(make(dvh1, dvh2), 0.3 + vh2 + dvh2, p, E2).G
        return width * m_hat @ G @ m_hat

    g1, g2 = _MeanMetric(make(), 0.3 + vh2, p, E2).source(width, m_hat)
    J = p.size
    for j in range(J):
        e = np.zeros(J)
        e[j] = h
        np.testing.assert_allclose((phi(dvh2=e) - phi(dvh2=-e)) / (2 * h), g2[j], rtol=1e-6)
        for k in range(j, J):
            D = np.zeros((J, J))
            D[j, k] = D[k, j] = h
            fd = (phi(dvh1=D) - phi(dvh1=-D)) / (2 * h)
            want = g1[j, k] + (g1[k, j] if k != j else 0.0)
            np.testing.assert_allclose(fd, want, rtol=1e-6)


@pytest.mark.parametrize("layer", ["rademacher", "gaussian"])
def test_network_initial_output_effect_matches_theory(layer):
    """The network stepped with the residual y - f0 (the book's step) against the same network
    stepped with y alone: same seeds, so the difference is the initial output's effect.  At
    the map cell, d = 256, eta_scale = 0.5 and 1, 12 paired seeds: the mean difference is
    within the two-sided 99.9% t band of the finite-width theory's difference (with minus
    without the initial output), and below zero by more than that band (the effect is seen).
    Measured at 16 seeds: -0.363 +- 0.013 and -0.226 +- 0.008 floors against -0.373 and
    -0.228 (+-1 layer)."""
    d, etas, runs = 256, np.array([0.5, 1.0]), 12

    def risks(seed, initial_output):
        return [r["risk"] for r in run(
            student="tanh", teacher="tanh", d=d, eta_scale=etas,
            seed=named_seed(41, "initial output", f"run={seed}"), second_layer=layer,
            initial_output=initial_output, **CELL)]

    diff = np.array([np.subtract(risks(k, True), risks(k, False)) for k in range(runs)])
    band = stats.t.ppf(0.9995, runs - 1) * diff.std(0, ddof=1) / math.sqrt(runs)
    kw = dict(eta_scale=etas, second_layer=layer, d=d, **CELL)
    theory_diff = (large_step_risk("tanh", "tanh", **kw)
                   - large_step_risk("tanh", "tanh", model="residual-y", **kw))
    assert np.all(np.abs(diff.mean(0) - theory_diff) < band), (diff.mean(0), theory_diff, band)
    assert np.all(diff.mean(0) < -band), (diff.mean(0), band)


def test_unknown_finite_width_model_is_refused():
    with pytest.raises(ValueError, match="model must be one of"):
        large_step_risk("tanh", "tanh", eta_scale=1.0, d=256, model="net", **CELL)


def test_residual_y_lies_between_population_and_network():
    """At chapter 5's setting (psi1 = 2, psi2 = 1, eta_scale = 2) the step's correlated noise
    raises the bulk's variance along the mean direction (residual-y above the population
    model), and the initial output lowers it (the network below residual-y)."""
    kw = dict(psi1=2.0, psi2=1.0, lam=0.1, eta_scale=2.0, d=256, second_layer="rademacher")
    net, res_y, pop = (large_step_risk("tanh", "tanh", model=m, **kw)
                       for m in ("network", "residual-y", "population"))
    assert net < res_y and pop < res_y, (net, res_y, pop)
