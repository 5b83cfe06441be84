"""large_step_risk with several second-layer magnitudes and with the Gaussian layer
(helpers.theory.large_step, second_layer=...): exact reductions, the generalised
Marchenko-Pastur resolvent, convergence in the number of atoms, input checks."""

import math
import types

import numpy as np
import pytest

from helpers.second_layer import GAUSSIAN_RULE_ATOMS
from helpers.theory import (
    LargeStepConvergenceError,
    half_normal_rule,
    large_step_parts,
    large_step_risk,
    mei_montanari_risk,
    second_layer_atoms,
)
from helpers.theory import large_step as els

ONE = ([1.0], [1.0])
TWO = ([1.0, 2.0], [0.5, 0.5])


# --------------------------------------------------------------------------- reductions
@pytest.mark.parametrize("psi1,psi2,lam,noise", [(2.0, 1.0, 0.1, 0.0), (4.0, 2.0, 0.01, 0.3),
                                                 (2.0, 0.5, 1e-3, 0.0)])
def test_one_magnitude_is_the_rademacher_result(psi1, psi2, lam, noise):
    """The +-1 layer is one atom at 1 (the same tables and the same solve); splitting that
    atom in two changes nothing (the block structure, with an exactly singular span of mean
    directions)."""
    eta = np.array([0.0, 1.0, 3.0, 6.0])
    kw = dict(psi1=psi1, psi2=psi2, lam=lam, eta_scale=eta, noise=noise)
    rad = large_step_risk("tanh", "tanh", second_layer="rademacher", **kw)
    one = large_step_risk("tanh", "tanh", second_layer=ONE, **kw)
    split = large_step_risk("tanh", "tanh", second_layer=([1.0, 1.0], [0.3, 0.7]), **kw)
    np.testing.assert_array_equal(one, rad)
    np.testing.assert_allclose(split, rad, rtol=0, atol=1e-10)


def test_one_magnitude_x_is_the_rademacher_result_at_x_times_the_step():
    """|xi| = x scales r by x and c_b - 1 by x^2: the +-1 model at eta_scale x eta."""
    got = large_step_risk("erf", "erf", psi1=2.0, psi2=1.5, lam=0.1, eta_scale=[1.0, 2.5],
                          second_layer=([2.0], [1.0]))
    want = large_step_risk("erf", "erf", psi1=2.0, psi2=1.5, lam=0.1, eta_scale=[2.0, 5.0],
                           second_layer="rademacher")
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)


@pytest.mark.parametrize("layer", ["gaussian", TWO, ([0.0, 0.5, 3.0], [0.2, 0.3, 0.5])])
@pytest.mark.parametrize("psi1,psi2", [(2.0, 1.0), (4.0, 2.0), (0.5, 3.0)])
def test_eta_zero_is_the_random_features_risk(layer, psi1, psi2):
    got = large_step_risk("tanh", "tanh", psi1=psi1, psi2=psi2, lam=[1e-3, 0.1],
                          eta_scale=0.0, noise=0.3, second_layer=layer)
    for lam, value in zip([1e-3, 0.1], got, strict=True):
        mm = mei_montanari_risk("tanh", "tanh", psi1=psi1, psi2=psi2, lam=lam, noise=0.3)
        assert abs(value - mm) <= 1e-6 * mm


# --------------------------------------------------------------------------- the resolvent
def test_resolvent_matches_a_random_matrix():
    """First- and second-order traces of R = S^{-1}, two populations, a full-rank V1_hat
    (not of the Silverstein form B U U^T B), against one N = 900 draw (a few % of slack)."""
    rng = np.random.default_rng(3)
    N, d = 900, 600
    p, c = np.array([1 / 3, 2 / 3]), np.array([1.5, 3.0])
    vh1, vh2, lam = np.array([[1.0, -0.4], [-0.4, 0.5]]), np.array([0.2, 0.6]), 0.3
    pop = np.repeat([0, 1], [300, 600])
    W = np.sqrt(c[pop])[:, None] * rng.standard_normal((N, d)) / math.sqrt(d)
    Om = W @ W.T
    R = np.linalg.inv(np.diag(lam + vh2[pop]) + vh1[pop][:, pop] * Om)
    proj = [np.diag((pop == j).astype(float)) for j in range(2)]
    X = [proj[0], proj[1], proj[0] @ Om @ proj[1], proj[1] @ Om @ proj[1]]
    RX = [R @ x for x in X]
    RXs = [R @ (x + x.T) / 2 for x in X]
    emp = np.array([[np.sum(a * b.T) / N for b in RXs] for a in RX])
    det = els._Resolvent(vh1, vh2, lam_eff=lam, c=c, p=p, psi2=N / d)
    np.testing.assert_allclose(det.V2, [np.trace(q @ R) / N for q in proj], rtol=0.02)
    np.testing.assert_allclose(det.V1[0, 1], np.trace(RX[2]) / N, rtol=0.02)
    d1, d2 = np.zeros((4, 2, 2)), np.zeros((4, 2))
    d2[0, 0] = d2[1, 1] = 1.0
    d1[2, 0, 1] = d1[2, 1, 0] = 0.5
    d1[3, 1, 1] = 1.0
    dV1, dV2 = det.derivative(d1, d2)
    theory = -np.stack([dV2[:, 0], dV2[:, 1], dV1[:, 0, 1], dV1[:, 1, 1]])
    np.testing.assert_allclose(theory, emp, rtol=0.03)


def test_half_normal_rule_is_a_gauss_rule():
    x, p = half_normal_rule(10)
    assert np.all(x > 0) and abs(p.sum() - 1) < 1e-14
    for k in range(20):
        exact = 2 ** (k / 2) * math.gamma((k + 1) / 2) / math.sqrt(math.pi)
        assert abs(p @ x**k - exact) < 1e-10 * exact
    gx, gp = second_layer_atoms("gaussian")
    np.testing.assert_array_equal(gx, half_normal_rule(GAUSSIAN_RULE_ATOMS)[0])


# --------------------------------------------------------------------------- the Gaussian
@pytest.mark.parametrize("student,teacher,psi1,lam", [("tanh", "tanh", 2.0, 0.1),
                                                      ("erf", "erf", 4.0, 1e-3)])
def test_gaussian_layer_has_converged_in_the_atoms(student, teacher, psi1, lam):
    """The default rule against a 40-atom one, up to a step beyond the book's range."""
    kw = dict(psi1=psi1, psi2=1.0, lam=lam, eta_scale=np.array([3.0, 10.0]))
    default = large_step_risk(student, teacher, second_layer="gaussian", **kw)
    fine = large_step_risk(student, teacher, second_layer=half_normal_rule(40), **kw)
    assert np.max(np.abs(default - fine)) < 1e-4


def test_gaussian_layer_beats_the_rademacher_one_at_a_large_step():
    kw = dict(psi1=2.0, psi2=1.0, lam=0.1, eta_scale=6.0)
    gauss = large_step_risk("tanh", "tanh", second_layer="gaussian", **kw)
    rad = large_step_risk("tanh", "tanh", second_layer="rademacher", **kw)
    assert rad - gauss > 0.01


def test_parts_have_a_population_axis():
    parts = large_step_parts("tanh", "tanh", psi1=2.0, psi2=1.0, lam=[0.1, 1.0],
                             eta_scale=2.0, second_layer=TWO)
    assert parts["risk"].shape == (2,) and parts["theta"].shape == (2, 2)
    assert parts["q1"].shape == (2, 2, 2)
    np.testing.assert_allclose(parts["q1"], np.swapaxes(parts["q1"], 1, 2), atol=1e-12)
    np.testing.assert_array_equal(parts["magnitudes"], [1.0, 2.0])
    assert np.all(parts["V2"] > 0) and np.all(parts["q2"] > 0)


# --------------------------------------------------------------------------- input, errors
@pytest.mark.parametrize("layer,match", [
    ("uniform", "second_layer must be"),
    (([1.0, 2.0], [0.7, -0.3]), "weights must be finite numbers >= 0"),
    (([1.0, 2.0], [0.5, 0.6]), "weights must sum to 1"),
    (([], []), "magnitudes must be a non-empty"),
    (([-1.0], [1.0]), "magnitudes must be finite numbers >= 0"),
    (([np.inf], [1.0]), "magnitudes must be finite numbers >= 0"),
    (([1.0, 2.0], [1.0]), "1 weights for 2 magnitudes"),
    ((1.0, 2.0, 3.0), "second_layer must be"),
    (None, "second_layer must be"),
])
def test_bad_second_layers_are_refused(layer, match):
    with pytest.raises(ValueError, match=match):
        large_step_risk("tanh", "tanh", psi1=2.0, psi2=1.0, lam=0.1, eta_scale=1.0,
                        second_layer=layer)


def test_weights_summing_to_one_within_tolerance_are_accepted():
    a = large_step_risk("tanh", "tanh", psi1=2.0, psi2=1.0, lam=0.1, eta_scale=1.0,
                        second_layer=([1.0, 2.0], [0.5, 0.5 + 1e-12]))
    assert math.isfinite(a)


def test_non_odd_students_are_refused_for_every_layer():
    with pytest.raises(ValueError, match="student must be odd"):
        large_step_risk("relu", "tanh", psi1=2.0, psi2=1.0, lam=0.1, eta_scale=1.0,
                        second_layer="gaussian")


def test_fixed_points_that_do_not_converge_raise(monkeypatch):
    kw = dict(psi1=2.0, psi2=1.0, lam=0.1, eta_scale=3.0, second_layer=TWO)
    monkeypatch.setattr(els, "_T_ITER", 1)
    with pytest.raises(LargeStepConvergenceError, match="Marchenko-Pastur"):
        large_step_risk("tanh", "tanh", **kw)
    monkeypatch.undo()
    monkeypatch.setattr(els, "_ITER", 1)
    monkeypatch.setattr(els.optimize, "root",
                        lambda fun, x0, **_: types.SimpleNamespace(x=1.5 * x0))
    with pytest.raises(LargeStepConvergenceError, match="2 populations"):
        large_step_risk("tanh", "tanh", **kw)


def test_the_root_finder_finishes_a_cut_short_iteration(monkeypatch):
    kw = dict(psi1=2.0, psi2=1.0, lam=0.01, eta_scale=3.0, second_layer=TWO)
    full = large_step_risk("tanh", "tanh", **kw)
    monkeypatch.setattr(els, "_ITER", 2)
    assert abs(large_step_risk("tanh", "tanh", **kw) - full) < 1e-9


def test_atoms_of_the_named_layers():
    x, p = second_layer_atoms("rademacher")
    assert list(x) == [1.0] and list(p) == [1.0]
    with pytest.raises(ValueError, match="atoms must be"):
        half_normal_rule(10**4)


def test_the_remembered_tables_change_nothing_and_are_read_only():
    kw = dict(psi1=3.0, lam=0.1, eta_scale=[1.0, 2.5], second_layer="gaussian")
    els._tables.cache_clear()
    first = {w: large_step_risk("tanh", "tanh", psi2=w, **kw) for w in (0.5, 2.0)}
    info = els._tables.cache_info()
    assert info.misses == 2 and info.hits == 2          # the second width reuses both tables
    els._tables.cache_clear()
    for w, risk in first.items():
        np.testing.assert_array_equal(large_step_risk("tanh", "tanh", psi2=w, **kw), risk)
    r, cb, gamma = els.spiked_rf_parameters("tanh", "tanh", psi1=3.0, eta_scale=1.0)
    P = els._tables(els.as_student("tanh"), els.as_teacher("tanh"), r, cb, gamma,
                    (1.0, 2.0), (0.5, 0.5))
    with pytest.raises(ValueError, match="read-only"):
        P.M0[0, 0] = 1.0
