"""Small-step theory: Marchenko-Pastur pieces, the Gaussian-equivalent deterministic
equivalent, the asymptotic risk, and their agreement with simulation.

The student-teacher pair of the statistical checks (erf student, tanh teacher) is not used
in the chapter.
"""

import warnings

import numpy as np
import pytest
from scipy import integrate

from helpers import draw, run
from helpers.data import init_student, sample_teacher
from helpers.feature_maps import ge_features
from helpers.risk import ge_prediction_risk
from helpers.theory import (
    SmallStepWarning,
    deterministic_equivalent_risk,
    kernel_lower_bound,
    mei_montanari_risk,
    rmt,
    small_step_gain,
    small_step_parts,
    small_step_risk,
    solve_effective_penalty,
    spike_strength,
)
from helpers.theory.small_step import _g_and_derivative

PAIR = dict(student="erf", teacher="tanh")


# ----------------------------------------------------------------- Marchenko-Pastur
@pytest.mark.parametrize("ratio", [0.5, 1.0, 2.5])
def test_mp_density_and_atom_have_total_mass_one(ratio):
    lo, hi = rmt.mp_support(ratio)
    mass = integrate.quad(lambda x: rmt.mp_density(x, ratio), lo, hi, limit=200)[0]
    assert abs(mass + rmt.mp_atom(ratio) - 1) < 1e-8


@pytest.mark.parametrize("ratio", [0.5, 2.0])
def test_mp_stieltjes_matches_eigenvalues_of_w0(ratio):
    rng = np.random.default_rng(0)
    d = 300
    W0, _ = init_student(d, int(ratio * d), rng=rng)
    ev = np.linalg.eigvalsh(W0.T @ W0)
    z = np.array([-0.05, -1.0])
    emp = np.mean(1 / (ev[:, None] - z[None, :]), axis=0)
    # fluctuations of a linear spectral statistic are O(1/d); 1% is > 10x that here
    np.testing.assert_allclose(rmt.mp_stieltjes(z, ratio), emp, rtol=1e-2)


def test_mp_stieltjes_derivative_matches_central_difference():
    z, h = np.array([-0.3, -2.0]), 1e-6
    fd = (rmt.mp_stieltjes(z + h, 1.7) - rmt.mp_stieltjes(z - h, 1.7)) / (2 * h)
    np.testing.assert_allclose(rmt.mp_stieltjes_derivative(z, 1.7), fd, rtol=1e-7)


def test_mp_rejects_points_inside_the_spectrum_and_bad_ratio():
    with pytest.raises(ValueError, match="z must be real and <"):
        rmt.mp_stieltjes(0.5, 2.0)
    with pytest.raises(ValueError, match="ratio must be"):
        rmt.mp_support(0.0)


# ----------------------------------------------------------------- asymptotic formula
@pytest.mark.parametrize(("student", "teacher", "psi1", "psi2", "lam", "noise"), [
    ("erf", "tanh", 2.0, 1.5, 1e-3, 0.1),
    ("erf", "relu", 0.7, 3.0, 1e-2, 0.0),
    ("tanh", "softplus", 4.0, 0.5, 1.0, 0.3),
])
def test_eta_zero_equals_mei_montanari(student, teacher, psi1, psi2, lam, noise):
    ours = small_step_risk(student, teacher, psi1=psi1, psi2=psi2, lam=lam, eta=0.0,
                           noise=noise)
    theirs = mei_montanari_risk(student, teacher, psi1=psi1, psi2=psi2, lam=lam, noise=noise)
    assert abs(ours - theirs) < 1e-9 * theirs


def test_woodbury_quadratic_form_matches_a_finite_rank_one_update():
    # g(s) = beta^T (mu1^2 W1 W1^T + s)^-1 beta for W1 = W0 + u a^T built exactly as in the
    # derivation; averaged over 6 draws, within 5 standard errors + 1% (O(1/d) bias).
    from helpers import get_activation
    s_act, eta, psi1, psi2, d = get_activation("erf"), 3.0, 2.0, 1.5, 300
    a2, tau2 = spike_strength("tanh", psi1=psi1, noise=0.1)
    s = s_act.mu2_sq + 0.2
    vals = []
    for rng in np.random.default_rng(1).spawn(6):
        W0, a = init_student(d, int(psi2 * d), rng=rng)
        beta = sample_teacher(d, rng=rng)
        xi = rng.standard_normal(d)
        xi -= beta * (beta @ xi)
        xi *= np.sqrt(tau2) / np.linalg.norm(xi)
        W1 = W0 + np.outer(eta * s_act.mu1 * (np.sqrt(a2) * beta + xi), a)
        M = s_act.mu1**2 * (W1 @ W1.T) + s * np.eye(d)
        vals.append(beta @ np.linalg.solve(M, beta))
    g, _ = _g_and_derivative(np.array(s), np.array(eta), s_act.mu1, psi2, a2, tau2)
    se = np.std(vals, ddof=1) / np.sqrt(len(vals))
    assert abs(np.mean(vals) - g) <= 5 * se + 0.01 * g


def test_g_derivative_matches_central_difference():
    args = (np.array(1.3), 0.65, 2.0, 0.4, 0.3)
    h = 1e-6
    gp = _g_and_derivative(np.array(0.2 + h), *args)[0]
    gm = _g_and_derivative(np.array(0.2 - h), *args)[0]
    assert abs(_g_and_derivative(np.array(0.2), *args)[1] - (gp - gm) / (2 * h)) < 1e-6


def test_asymptotic_risk_matches_deterministic_equivalent_at_large_width():
    # stage (ii): the d -> infinity formula against the deterministic equivalent of ridge on
    # GE features for actual W1 (real gradient step), 3 draws at d = 300.  Tolerance:
    # 5 standard errors over draws + 1% for O(1/d) corrections of the averaged equivalent.
    kw = dict(psi1=2.0, psi2=1.5, noise=0.1)
    lam = np.array([1e-3, 1e-1])
    for eta in (0.0, 3.0):
        des = []
        for seed in range(3):
            st = draw(**PAIR, d=300, eta=eta, seed=seed, **kw)
            des.append(deterministic_equivalent_risk(st.W1, PAIR["student"],
                                                        PAIR["teacher"], st.beta, n=600,
                                                        lam=lam, noise=0.1))
        des = np.array(des)
        se = des.std(0, ddof=1) / np.sqrt(len(des))
        th = small_step_risk(**PAIR, lam=lam, eta=eta, **kw)
        assert np.all(np.abs(des.mean(0) - th) <= 5 * se + 0.01 * th), (eta, des, th)


def test_asymptotic_risk_matches_real_feature_simulation():
    # stage (iii): ridge on sigma(X W1) at d = 150, 6 paired runs, eta in {0, 3}. Tolerance:
    # 5 standard errors + 0.6/sqrt(d) relative finite-size allowance (as in the chapter).
    kw = dict(psi1=2.0, psi2=1.5, noise=0.1, lam=1e-2)
    etas = [0.0, 3.0]
    risks = np.array([[r["risk"] for r in run(**PAIR, d=150, eta=etas, n_test=3000,
                                              seed=s, **kw)]
                      for s in range(6)])
    se = risks.std(0, ddof=1) / np.sqrt(len(risks))
    th = small_step_risk(**PAIR, eta=np.array(etas), **kw)
    assert np.all(np.abs(risks.mean(0) - th) <= 5 * se + 0.6 / np.sqrt(150) * th)


def test_gain_positive_and_risk_above_the_floor():
    floor = kernel_lower_bound("tanh")
    for p1 in (0.5, 3.0, 30.0):
        for p2 in (0.5, 3.0, 30.0):
            kw = dict(psi1=p1, psi2=p2, lam=np.array([1e-5, 1e-2, 1.0]), noise=0.2)
            assert np.all(small_step_risk(**PAIR, eta=4.0, **kw) >= floor)
            assert np.all(small_step_gain(**PAIR, eta=4.0, **kw) > 0)


def test_limits_of_theorem_5():
    kw = dict(lam=1e-2, noise=0.1)
    big_n = small_step_gain(**PAIR, psi1=1e3, psi2=2.0, eta=np.array([1.0, 2.0, 4.0]), **kw)
    assert np.all(np.diff(big_n) > 0)
    wide = [small_step_gain(**PAIR, psi1=3.0, psi2=p2, eta=4.0, **kw) for p2 in (1.0, 1e2, 1e4)]
    assert wide[2] < wide[1] < wide[0] and wide[2] < 1e-3 * wide[0]


def test_vectorises_over_eta_and_lam():
    kw = dict(psi1=2.0, psi2=1.5, noise=0.1)
    lam = np.array([1e-3, 1e-1])
    r = small_step_risk(**PAIR, lam=lam, eta=2.0, **kw)
    assert r.shape == (2,)
    assert r[1] == pytest.approx(small_step_risk(**PAIR, lam=1e-1, eta=2.0, **kw), rel=1e-12)
    r = small_step_risk(**PAIR, lam=1e-2, eta=[0.0, 1.0, 2.0], **kw)
    assert r.shape == (3,) and isinstance(small_step_risk(**PAIR, lam=1e-2, eta=1.0, **kw),
                                          float)
    parts = small_step_parts(**PAIR, lam=lam, eta=2.0, **kw)
    np.testing.assert_allclose(parts["risk"], parts["floor"] + parts["s2"] + parts["bias"]
                               + parts["variance"])


@pytest.mark.parametrize(("kw", "match"), [
    (dict(lam=0.0), "lam must be"),
    (dict(lam=-1.0), "lam must be"),
    (dict(psi1=0.0), "psi1 must be"),
    (dict(psi2=-1.0), "psi2 must be"),
    (dict(noise=-0.1), "noise must be"),
    (dict(eta=-1.0), "eta must be"),
    (dict(width=0), "width must be"),
])
def test_rejects_bad_inputs(kw, match):
    args = dict(psi1=2.0, psi2=1.5, lam=1e-2, eta=1.0, noise=0.0) | kw
    with pytest.raises(ValueError, match=match):
        small_step_risk(**PAIR, **args)


def test_rejects_a_linear_student():
    with pytest.raises(ValueError, match="nonlinear part"):
        small_step_risk("linear", "tanh", psi1=2.0, psi2=1.5, lam=1e-2, eta=1.0)


def test_warns_for_large_steps_and_non_odd_students():
    kw = dict(psi1=2.0, psi2=1.5, lam=1e-2)
    with pytest.warns(SmallStepWarning, match="does not apply"):
        small_step_risk(**PAIR, eta=50.0, width=256, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        small_step_risk(**PAIR, eta=2.0, width=256, **kw)
    with pytest.warns(SmallStepWarning, match="odd student"):
        small_step_risk("relu", "tanh", eta=1.0, **kw)
    # Without a width, the check uses the paper's size d = 512 (N = 1.5 * 512 here).
    with pytest.warns(SmallStepWarning, match=r"\(d = 512\)"):
        small_step_risk(**PAIR, eta=1e3, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        small_step_risk(**PAIR, eta=8.0, **kw)
        # on purpose beyond the regime: no warning, the same number
        quiet = small_step_risk(**PAIR, eta=50.0, width=256, check_regime=False, **kw)
    with pytest.warns(SmallStepWarning):
        assert small_step_risk(**PAIR, eta=50.0, width=256, **kw) == quiet


def test_solver_failures_raise():
    with pytest.raises(RuntimeError, match="bracket"):
        solve_effective_penalty(np.array([1.0]), lambda k: 2.0 + 0 * k, upper=1.0)
    with pytest.raises(RuntimeError, match="did not converge"):
        solve_effective_penalty(np.array([1.0]), lambda k: 0.5 + 0 * k, upper=5.0,
                                   max_iter=2)
    with pytest.raises(RuntimeError, match="did not converge"):
        mei_montanari_risk(**PAIR, psi1=2.0, psi2=1.5, lam=1e-2, max_iter=3)


# ----------------------------------------------------------------- Gaussian equivalent
def test_ge_prediction_risk_is_the_population_formula():
    rng = np.random.default_rng(3)
    d, N = 30, 20
    W, _ = init_student(d, N, rng=rng)
    beta = sample_teacher(d, rng=rng)
    B = rng.standard_normal((N, 2)) * 0.2
    X = rng.standard_normal((200_000, d))
    from helpers import get_activation
    err = ge_features(X, W, "erf", rng=rng) @ B - get_activation("tanh", centred=True)(
        X @ beta)[:, None]
    mc, se = np.mean(err**2, 0), np.std(err**2, 0) / np.sqrt(len(X))
    exact = ge_prediction_risk(W, B, "erf", "tanh", beta)
    assert np.all(np.abs(mc - exact) <= 5 * se)


def test_deterministic_equivalent_matches_ridge_on_ge_features():
    # stage (i): one W1, ridge fitted on GE features for 6 training sets; 5 se + 3%.
    st = draw(**PAIR, d=150, psi1=2.0, psi2=1.5, eta=2.0, noise=0.1, seed=4)
    lam = np.array([1e-3, 1e-1])
    de = deterministic_equivalent_risk(st.W1, "erf", "tanh", st.beta, n=300, lam=lam,
                                          noise=0.1)
    fits = []
    for rng in np.random.default_rng(5).spawn(6):
        from helpers import ridge_path, sample_data
        X, y = sample_data(300, st.beta, "tanh", noise=0.1, rng=rng)
        B = ridge_path(ge_features(X, st.W1, "erf", rng=rng), y, lam)
        fits.append(ge_prediction_risk(st.W1, B, "erf", "tanh", st.beta))
    fits = np.array(fits)
    se = fits.std(0, ddof=1) / np.sqrt(len(fits))
    assert np.all(np.abs(fits.mean(0) - de) <= 5 * se + 0.03 * de)
    r, parts = deterministic_equivalent_risk(st.W1, "erf", "tanh", st.beta, n=300,
                                                lam=1e-2, return_parts=True)
    assert isinstance(r, float) and parts["kappa"].shape == (1,)


def test_gaussian_equivalent_records_per_penalty():
    kw = dict(d=40, psi1=2.0, psi2=1.5, eta=1.0, noise=0.1, seed=2, n_test=500)
    rows = run(**PAIR, lam=1e-2, measures=("risk", "gaussian_equivalent"), **kw)
    assert len(rows) == 1 and set(rows[0]) == {"eta", "lam", "risk", "risk_ge", "risk_de"}
    assert all(isinstance(v, float) for v in rows[0].values())
    rows = run(**PAIR, lam=[1e-2, 1e-1], measures=("gaussian_equivalent",), **kw)
    assert [r["lam"] for r in rows] == [1e-2, 1e-1]
