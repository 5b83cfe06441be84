"""Two gradient steps, fresh or reused batch (helpers.two_steps)."""

import math

import numpy as np
import pytest

from helpers import (
    features,
    first_step_gradient,
    get_activation,
    init_student,
    one_step,
    ridge_path,
)
from helpers import two_steps as ts
from helpers.data import sample_data, spawn_streams
from helpers.multi_index import direction_overlaps, sample_directions


def he3(Z):
    return Z[:, 0] ** 3 - 3 * Z[:, 0]


def _setup(seed=0, d=12, n=30, N=8):
    rng = np.random.default_rng(seed)
    B = sample_directions(d, 1, rng=rng)
    W0, a = init_student(d, N, rng=rng, second_layer="rademacher")
    X, X2 = rng.standard_normal((2, n, d))
    return B, W0, a, X, he3(X @ B), X2, he3(X2 @ B)


def test_shapes_and_inputs_untouched():
    B, W0, a, X, y, X2, y2 = _setup()
    W0c = W0.copy()
    Ws = ts.steps_on_batches(W0, a, "relu", [(X, y), (X2, y2), (X, y)], eta=0.5)
    assert len(Ws) == 4 and all(W.shape == W0.shape for W in Ws)
    np.testing.assert_array_equal(W0, W0c)
    np.testing.assert_array_equal(Ws[0], W0)


def test_steps_on_batches_reads_a_generator_one_batch_per_step_and_normalises():
    # Batches drawn on the fly: each is drawn after the step before it was taken.
    B, W0, a, X, y, X2, y2 = _setup(4)
    calls = []  # the student counts its calls: how many steps were taken when a batch came

    def relu(t):
        calls.append(1)
        return np.maximum(t, 0.0)

    student = get_activation(relu, derivative=lambda t: (t > 0).astype(float))
    calls.clear()  # (the activation is evaluated once when it is built)
    seen = []

    def batches():
        for pair in ((X, y), (X2, y2)):
            seen.append(len(calls))
            yield pair

    Ws = ts.steps_on_batches(W0, a, student, batches(), eta=[0.5, 1.0], normalize=True)
    assert seen[0] == 0 < seen[1] and len(Ws) == 3
    W1 = one_step(W0, first_step_gradient(X, y, W0, a, "relu"), 0.5)
    W1 = W1 / np.linalg.norm(W1, axis=0)
    np.testing.assert_array_equal(Ws[1], W1)
    np.testing.assert_allclose(np.linalg.norm(Ws[2], axis=0), 1.0)
    with pytest.raises(ValueError, match="eta must be a number or one per batch"):
        ts.steps_on_batches(W0, a, "relu", [(X, y)] * 3, eta=[1.0, 2.0])


def test_two_steps_match_the_core_step_by_hand():
    B, W0, a, X, y, X2, y2 = _setup(1)
    W1, W2 = ts.two_steps(X, y, W0, a, "tanh", eta1=0.7, eta2=0.3, X2=X2, y2=y2)
    W1h = one_step(W0, first_step_gradient(X, y, W0, a, "tanh"), 0.7)
    W2h = one_step(W1h, first_step_gradient(X2, y2, W1h, a, "tanh"), 0.3)
    np.testing.assert_allclose(W1, W1h, rtol=0, atol=1e-13)
    np.testing.assert_allclose(W2, W2h, rtol=0, atol=1e-13)


def test_reused_differs_from_fresh_only_through_the_batch():
    B, W0, a, X, y, X2, y2 = _setup(2)
    W1r, W2r = ts.two_steps(X, y, W0, a, "relu", eta1=1.0, eta2=1.0)
    W1f, W2f = ts.two_steps(X, y, W0, a, "relu", eta1=1.0, eta2=1.0, X2=X2, y2=y2)
    np.testing.assert_array_equal(W1r, W1f)  # same first step
    # a "fresh" batch that is the first batch again gives the reused run exactly
    _, W2same = ts.two_steps(X, y, W0, a, "relu", eta1=1.0, eta2=1.0, X2=X, y2=y)
    np.testing.assert_array_equal(W2same, W2r)
    assert not np.allclose(W2r, W2f)


def test_transformed_label_vector_and_top_overlap():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 7))
    y = rng.standard_normal(50)
    np.testing.assert_allclose(ts.transformed_label_vector(X, y), X.T @ y / 50)
    np.testing.assert_allclose(ts.transformed_label_vector(X, y, np.abs), X.T @ np.abs(y) / 50)
    B = np.eye(7)[:, :1]
    dW = np.outer(B[:, 0], np.ones(5)) * 10 + 0.01 * rng.standard_normal((7, 5))
    assert ts.top_direction_overlap(dW, B) == pytest.approx(1.0, abs=1e-4)


def test_run_steps_reproducible_and_protocols_share_the_first_step():
    d, n, N, eta, lam, n_test = 16, 32, 16, 2 * math.sqrt(16), [0.1, 1.0], 200
    kw = dict(d=d, psi1=n / d, psi2=N / d, eta=eta, lam=lam, n_test=n_test,
              second_layer="rademacher")
    r1 = ts.run_steps(he3, seed=[0, 5], **kw)
    assert tuple(r1) == ts.PROTOCOLS
    # The draws, by hand from the named streams of the seed.
    s = spawn_streams([0, 5], ts.RUN_STREAMS)
    B = sample_directions(d, 1, rng=s["teacher"])
    W0, a = init_student(d, N, rng=s["init"], second_layer="rademacher")
    X, y = sample_data(n, B, he3, rng=s["batch"])
    X2, y2 = sample_data(n, B, he3, rng=s["fresh"])

    def step(W, X, y):
        return one_step(W, first_step_gradient(X, y, W, a, "relu"), eta)

    W1 = step(W0, X, y)
    want = {"one step": [W0, W1], "fresh": [W0, W1, step(W1, X2, y2)],
            "reused": [W0, W1, step(W1, X, y)]}
    for p in ts.PROTOCOLS:  # one W0 and one first step for all three protocols
        assert len(r1[p]["Ws"]) == len(want[p])
        for got, w in zip(r1[p]["Ws"], want[p], strict=True):
            np.testing.assert_array_equal(got, w)
        np.testing.assert_allclose(r1[p]["overlaps"], direction_overlaps(want[p][-1], B))
    # One ridge set and one test set for all three: each risk by hand on the same draws.
    Xr, yr = sample_data(n, B, he3, rng=s["ridge"])
    Xt = s["test"].standard_normal((n_test, d))
    for p in ts.PROTOCOLS:
        W = want[p][-1]
        coef = ridge_path(features(Xr, W, "relu"), yr, lam)
        risk = np.mean((features(Xt, W, "relu") @ coef - he3(Xt @ B)[:, None]) ** 2, axis=0)
        np.testing.assert_allclose(r1[p]["risk"], risk, rtol=1e-12)
    # Paired: with eta = 0 every protocol keeps W0, so the three risks are one number.
    r0 = ts.run_steps(he3, seed=[0, 5], **{**kw, "eta": 0.0})
    for p in ts.PROTOCOLS:
        np.testing.assert_array_equal(r0[p]["risk"], r0["one step"]["risk"])
    # Reproducible for a seed, different for another.
    r2 = ts.run_steps(he3, seed=[0, 5], **kw)
    for p in ts.PROTOCOLS:
        for key in ("overlaps", "risk", "top"):
            np.testing.assert_array_equal(r1[p][key], r2[p][key])
    r3 = ts.run_steps(he3, seed=[1, 5], **kw)
    assert not np.array_equal(r1["reused"]["overlaps"], r3["reused"]["overlaps"])


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"d": 0}, "d must be"), ({"psi1": -1.0}, "psi1"), ({"eta": -1.0}, "eta"),
    ({"steps": 1}, "steps"), ({"second_layer": "uniform"}, "second_layer"),
    ({"lam": [-1.0]}, "lam"), ({"n_test": 0}, "n_test"),
])
def test_run_steps_bad_arguments(kwargs, match):
    kw = dict(d=8, psi1=2, psi2=1, eta=1.0)
    kw.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ts.run_steps(he3, **kw)


def test_bad_batches_raise():
    B, W0, a, X, y, X2, y2 = _setup()
    with pytest.raises(ValueError, match="batches"):
        ts.steps_on_batches(W0, a, "relu", [], eta=1.0)
    with pytest.raises(ValueError, match="eta must be a number or one per batch"):
        ts.steps_on_batches(W0, a, "relu", [(X, y)], eta=[1.0, 2.0])
    with pytest.raises(ValueError, match="eta"):
        ts.steps_on_batches(W0, a, "relu", [(X, y)], eta=-1.0)
    with pytest.raises(ValueError, match="X of batch 0"):
        ts.steps_on_batches(W0, a, "relu", [(X[:, :3], y)], eta=1.0)
    with pytest.raises(ValueError, match="together"):
        ts.two_steps(X, y, W0, a, "relu", eta1=1.0, eta2=1.0, X2=X2)
    with pytest.raises(ValueError, match="teacher"):
        ts.run_steps("tanh", d=8, psi1=1, psi2=1, eta=1.0, second_layer="rademacher")
    with pytest.raises(ValueError, match="transform"):
        ts.transformed_label_vector(X, y, lambda t: t[:3])


def test_singular_values_top_match_the_svd():
    rng = np.random.default_rng(3)
    for shape in [(9, 14), (14, 9)]:
        W = rng.standard_normal(shape)
        full = np.linalg.svd(W, compute_uv=False)
        np.testing.assert_allclose(ts.singular_values(W), full)
        np.testing.assert_allclose(ts.singular_values(W, top=3), full[:3], rtol=1e-10)
    with pytest.raises(ValueError, match="top"):
        ts.singular_values(W, top=0)


def test_count_outliers_known_spectrum():
    s = np.array([5.0, 2.2, 2.03, 1.9])
    assert ts.count_outliers(s, 2.0, margin=0.02) == 2  # 5 and 2.2; 2.03 < 2.04
    assert ts.count_outliers(s, 2.0, margin=0.0) == 3
    assert ts.count_outliers(s, 6.0, margin=0.0) == 0
    with pytest.raises(ValueError, match="edge"):
        ts.count_outliers(s, -1.0, margin=0.0)
    with pytest.raises(ValueError, match="margin"):
        ts.count_outliers(s, 2.0, margin=-0.1)


def test_second_step_spectra_a_planted_spike_and_reproducibility():
    # a linear teacher with a large first step: W_1 has one outlier along beta (known answer:
    # the first step's spike), and the second step's change points to beta on either batch
    def lin(Z):
        return Z[:, 0]

    kw = dict(d=60, psi1=8, psi2=1, eta1=3.0, eta2=3.0, student="tanh", top=4)
    r = ts.second_step_spectra(lin, seed=[0, 1], **kw)
    assert set(r) == {"W0", "W1", "reused", "fresh", "cos2"}
    assert all(r[k].shape == (4,) for k in ("W0", "W1", "reused", "fresh"))
    assert ts.count_outliers(r["W0"], r["W0"][0], margin=0.0) == 0
    assert ts.count_outliers(r["W1"], r["W0"][0], margin=0.1) == 1
    assert min(r["cos2"].values()) > 0.5  # 1/d = 0.017 for a direction that knows nothing
    r2 = ts.second_step_spectra(lin, seed=[0, 1], **kw)
    np.testing.assert_array_equal(r["reused"], r2["reused"])
    assert r["cos2"] == r2["cos2"]
    # no step at all: every matrix is W_0
    r0 = ts.second_step_spectra(lin, seed=[0, 1], **{**kw, "eta1": 0.0, "eta2": 0.0})
    np.testing.assert_allclose(r0["reused"], r0["W0"])


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"d": 0}, "d must be"), ({"psi2": 0.0}, "psi2"), ({"eta1": -1.0}, "eta1"),
    ({"eta2": -1.0}, "eta2"), ({"second_layer": "uniform"}, "second_layer"),
    ({"top": 0}, "top"),
])
def test_second_step_spectra_bad_arguments(kwargs, match):
    kw = dict(d=8, psi1=2, psi2=1, eta1=1.0, eta2=1.0, student="tanh")
    kw.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ts.second_step_spectra(he3, **kw)
    with pytest.raises(ValueError, match="teacher"):
        ts.second_step_spectra("tanh", d=8, psi1=2, psi2=1, eta1=1.0, eta2=1.0, student="tanh")
