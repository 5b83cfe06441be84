"""Kernel ridge baselines (helpers.kernels) and their comparison with the trained features on
the same data (helpers.measures.kernel_risk in a run)."""

import math

import numpy as np
import pytest

from helpers import get_activation, named_seed, ridge_path, run, simulate_one_step
from helpers.kernels import KERNEL_NAMES, kernel_matrix, quadratic_features
from helpers.measures import kernel_risk
from helpers.ridge import kernel_ridge_path


@pytest.fixture
def data(rng):
    X = rng.standard_normal((30, 8))
    X2 = rng.standard_normal((12, 8))
    W0 = rng.standard_normal((8, 20)) / math.sqrt(8)
    return X, X2, W0


def test_ck_is_the_gram_matrix_of_the_features(data):
    X, X2, W0 = data
    F, F2 = np.tanh(X @ W0), np.tanh(X2 @ W0)
    np.testing.assert_allclose(kernel_matrix("ck", X, X2, W0=W0, student="tanh"),
                               F @ F2.T / W0.shape[1], rtol=1e-12)


def test_ntk_is_the_gram_matrix_of_the_explicit_ntk_features(data):
    X, X2, W0 = data
    d, N = W0.shape
    act = get_activation("tanh")

    def phi(Z):  # (Nd)^{-1/2} Vec(sigma'(W0^T x) x^T), one row per input
        return np.einsum("ni,nj->nij", act.derivative(Z @ W0), Z).reshape(len(Z), -1) \
            / math.sqrt(N * d)

    np.testing.assert_allclose(kernel_matrix("ntk", X, X2, W0=W0, student="tanh"),
                               phi(X) @ phi(X2).T, rtol=1e-10)


def test_arccos_matches_relu_random_features(rng):
    # E_w relu(w.x) relu(w.x'), w ~ N(0, I/d): Monte Carlo with 2e5 features, tol = 5 se.
    d = 6
    X = rng.standard_normal((3, d))
    W = rng.standard_normal((d, 200_000)) / math.sqrt(d)
    R = np.maximum(X @ W, 0)
    prods = R[:, None, :] * R[None, :, :]
    mc, se = prods.mean(-1), prods.std(-1) / math.sqrt(W.shape[1])
    assert np.all(np.abs(kernel_matrix("arccos", X) - mc) <= 5 * se)


def test_rbf_and_arccos_are_symmetric_psd(data):
    X, _, _ = data
    for kind in ("rbf", "arccos"):
        K = kernel_matrix(kind, X)
        np.testing.assert_allclose(K, K.T, atol=1e-14)
        assert np.linalg.eigvalsh(K).min() > -1e-10
    np.testing.assert_allclose(np.diag(kernel_matrix("rbf", X, bandwidth=2.0)), 1.0)


def test_kernel_ridge_equals_feature_ridge(rng):
    # primal-dual: with K = F F^T the kernel predictor equals ridge on F (same penalty scale)
    F, Ft = rng.standard_normal((40, 15)), rng.standard_normal((7, 15))
    y = rng.standard_normal(40)
    lams = [1e-3, 1e-1, 2.0]
    alpha = kernel_ridge_path(F @ F.T, y, lams)
    np.testing.assert_allclose(Ft @ F.T @ alpha, Ft @ ridge_path(F, y, lams), rtol=1e-8,
                               atol=1e-10)


def test_the_kernels_share_the_runs_data_and_leave_its_risks_unchanged():
    kw = dict(student="tanh", teacher="relu", d=24, psi1=2.0, psi2=1.5, noise=0.1,
              seed=named_seed(11, "kernels"), n_test=600)
    rows = run(**kw, eta=1.5, lam=[1e-3, 1e-1],
               measures=("risk", kernel_risk(("ck", "ntk"), lam=[1e-4])))
    sim = simulate_one_step(**kw, lam=[1e-3, 1e-1], eta=1.5)
    np.testing.assert_allclose([r["risk"] for r in rows[:2]], sim.risk, rtol=1e-9)
    assert [r.get("model") for r in rows] == [None, None, "ck", "ntk"]


def test_kernel_rows_and_shared_data():
    kw = dict(student="erf", teacher="erf", d=16, psi1=2.0, psi2=1.0, noise=0.1, seed=3,
              n_test=300, eta=[0.0, 4.0], lam=[1e-2])
    rows = run(**kw, measures=("risk", kernel_risk(KERNEL_NAMES, lam=[1e-4, 1e-3])))
    assert [r.get("eta") for r in rows[:2]] == [0.0, 4.0]
    assert [r["model"] for r in rows[2:]] == [k for k in KERNEL_NAMES for _ in range(2)]
    both = run(**kw, measures=("risk", kernel_risk(("ck",), lam=[1e-4, 1e-3], data="both")))
    assert both[0]["risk"] == rows[0]["risk"]  # same seed, same data for the features
    assert [r["risk"] for r in both[2:]] != [r["risk"] for r in rows[2:4]]  # 2n vs n points
    # the rbf kernel takes its bandwidth
    wide = run(**kw, measures=(kernel_risk("rbf", lam=1e-3, bandwidth=3.0),))
    narrow = run(**kw, measures=(kernel_risk("rbf", lam=1e-3, bandwidth=0.5),))
    assert wide[0]["risk"] != narrow[0]["risk"]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda X: kernel_matrix("poly", X), "kind"),
        (lambda X: kernel_matrix("ck", X), "W0"),
        (lambda X: kernel_matrix("rbf", X, bandwidth=0.0), "bandwidth"),
        (lambda X: kernel_matrix("rbf", X, X[:, :3]), "X2"),
        (lambda X: kernel_ridge_path(np.ones((3, 4)), np.ones(3), 1.0), "square"),
        (lambda X: kernel_ridge_path(-np.eye(3), np.ones(3), 0.1), "positive"),
        (lambda X: kernel_ridge_path(-np.eye(3), np.ones(3), [0.1, 0.2, 0.3]), "positive"),
        (lambda X: kernel_ridge_path(np.eye(3), np.ones(3), 0.0), "lam"),
        (lambda X: kernel_risk(("poly",), lam=1.0), "kinds"),
        (lambda X: kernel_risk(("ck",), lam=1.0, data="all"), "data"),
        (lambda X: kernel_risk(("ck",), lam=[]), "lam"),
    ],
)
def test_bad_inputs_raise(data, call, match):
    with pytest.raises(ValueError, match=match):
        call(data[0])


def test_quadratic_kernel_is_the_gram_matrix_of_its_features(rng):
    X1, X2 = rng.standard_normal((7, 5)), rng.standard_normal((4, 5))
    F1, F2 = quadratic_features(X1), quadratic_features(X2)
    assert F1.shape == (7, 5 + 15)
    t = X1 @ X2.T / 5
    np.testing.assert_allclose(kernel_matrix("quadratic", X1, X2), t + t**2, atol=1e-12)
    np.testing.assert_allclose(F1 @ F2.T, t + t**2, atol=1e-12)
