"""The plumbing behind the fast run: SciPy-BLAS products, the thread limit during a run,
background draws and block-wise test points (same numbers as the plain computation)."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import helpers
from helpers import blas
from helpers.activations import get_activation
from helpers.model import (
    as_student,
    as_teacher,
    draw_inputs,
    first_step_from_streams,
    label_data,
    normal_blocks,
    sample_data,
    spawn_streams,
)
from helpers.ridge import prediction_risk, ridge_path


def _operands(rng, dtype):
    A = rng.standard_normal((7, 5)).astype(dtype)
    B = rng.standard_normal((5, 3)).astype(dtype)
    return [
        (A, B),                                    # C, C
        (np.asfortranarray(A), B),                 # F, C
        (A, np.asfortranarray(B)),                 # C, F
        (rng.standard_normal((5, 7)).astype(dtype).T, B.T.copy().T),  # transposed views
        (rng.standard_normal((7, 10)).astype(dtype)[:, ::2], B),       # strided: copied
    ]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matmul_equals_numpy_for_every_memory_layout(dtype):
    rng = np.random.default_rng(0)
    tol = 1e-12 if dtype is np.float64 else 1e-5
    for A, B in _operands(rng, dtype):
        C = blas.matmul(A, B)
        assert C.dtype == dtype and C.flags.c_contiguous and C.shape == (A.shape[0], 3)
        np.testing.assert_allclose(C, A @ B, rtol=tol, atol=tol)


def test_matmul_falls_back_to_numpy_and_checks_shapes():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((4, 3))
    v = rng.standard_normal(3)
    np.testing.assert_array_equal(blas.matmul(A, v), A @ v)  # 1-D
    np.testing.assert_array_equal(blas.matmul(np.ones((2, 3), int), np.ones((3, 2), int)),
                                  np.full((2, 2), 3))  # integers
    np.testing.assert_array_equal(blas.matmul(A, np.ones((3, 2), np.float32)),
                                  A @ np.ones((3, 2), np.float32))  # mixed dtypes
    assert blas.matmul(np.ones((0, 3)), np.ones((3, 2))).shape == (0, 2)
    with pytest.raises(ValueError, match="shapes"):
        blas.matmul(A, rng.standard_normal((4, 2)))


@pytest.mark.parametrize("order", ["C", "F"])
def test_gram_is_the_lower_triangle_of_both_products(order):
    F = np.asarray(np.random.default_rng(2).standard_normal((6, 4)), order=order)
    np.testing.assert_allclose(blas.gram(F, scale=0.5), np.tril(0.5 * F.T @ F), atol=1e-13)
    np.testing.assert_allclose(blas.gram(F, side="rows"), np.tril(F @ F.T), atol=1e-13)
    with pytest.raises(ValueError, match="side"):
        blas.gram(F, side="diagonal")
    with pytest.raises(ValueError, match="2-D"):
        blas.gram(np.ones(3))


def test_numpy_blas_is_single_threaded_only_inside_the_block():
    controller = blas._numpy_only_blas()
    if controller is None:
        pytest.skip("NumPy and SciPy share one BLAS here: nothing to limit")
    before = [lib.num_threads for lib in controller.lib_controllers]
    with blas.numpy_blas_single_threaded():
        assert all(lib.num_threads == 1 for lib in controller.lib_controllers)
    assert [lib.num_threads for lib in controller.lib_controllers] == before


@pytest.mark.parametrize("block", [1, 7, 50, 64, 1000])
@pytest.mark.parametrize("prefetch", [False, True])
def test_normal_blocks_are_the_rows_of_one_draw(block, prefetch):
    whole = np.random.default_rng(3).standard_normal((50, 4))
    rng = np.random.default_rng(3)
    with ThreadPoolExecutor(max_workers=1) as pool:
        blocks = list(normal_blocks(rng, 50, 4, block=block, pool=pool if prefetch else None))
    assert all(b.shape[0] <= block for b in blocks)
    np.testing.assert_array_equal(np.vstack(blocks), whole)
    # the generator has consumed exactly the rows: the next draw continues the stream
    reference = np.random.default_rng(3)
    reference.standard_normal((50, 4))
    np.testing.assert_array_equal(rng.standard_normal(3), reference.standard_normal(3))


@pytest.mark.parametrize("noise", [0.0, 0.3])
def test_draw_inputs_and_label_data_are_sample_data(noise):
    beta = np.ones(5) / np.sqrt(5)
    teacher = as_teacher("softplus")
    X, y = sample_data(40, beta, teacher, noise=noise, rng=np.random.default_rng(4))
    X2, y2 = label_data(*draw_inputs(40, 5, noise=noise, rng=np.random.default_rng(4)),
                        beta, teacher)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


@pytest.mark.parametrize("precision", ["float64", "mixed"])
def test_run_with_background_draws_equals_its_building_blocks(precision):
    # simulate_one_step draws the ridge data and the test points in a background thread;
    # the plain sequence of building blocks on the same streams gives the same risk.
    kw = dict(d=32, psi1=3.0, psi2=1.5, eta=2.0, noise=0.2)
    lam = np.array([1e-3, 0.1, 1.0])
    res = helpers.simulate_one_step("tanh", "softplus", lam=lam, seed=9, n_test=300,
                                    precision=precision, **kw)
    st, te = as_student("tanh"), as_teacher("softplus")
    streams = spawn_streams(9)
    fs = first_step_from_streams(st, te, d=32, n=res.n, N=res.N, eta=2.0, noise=0.2,
                                 streams=streams)
    Xr, yr = sample_data(res.n, fs.beta, te, noise=0.2, rng=streams["ridge"])
    B = ridge_path(st(Xr @ fs.W1), yr, lam)
    dtype = np.float64 if precision == "float64" else np.float32
    risk, se = prediction_risk(fs.W1, B, st, te, fs.beta, n_test=300, rng=streams["test"],
                               chunk=64, dtype=dtype)
    rtol = 1e-10 if precision == "float64" else 1e-4
    np.testing.assert_allclose(res.risk, risk, rtol=rtol)
    np.testing.assert_allclose(res.risk_se, se, rtol=max(rtol, 1e-8))


def test_named_activations_are_built_once():
    assert get_activation("tanh") is get_activation(" TANH ")
    assert get_activation("softplus", center=True) is not get_activation("softplus")
    assert get_activation("softplus", center=True).mu0 == 0.0


def test_row_blocks_cover_the_rows_once_and_propagate_errors():
    seen = np.zeros(10, int)

    def mark(rows):
        seen[rows] += 1

    blas.on_row_blocks(mark, 10, row_size=blas.MIN_BLOCK_ELEMENTS, threads=3)
    np.testing.assert_array_equal(seen, 1)
    calls = []
    blas.on_row_blocks(calls.append, 10, row_size=1, threads=4)  # too small to split
    assert calls == [slice(0, 10)]

    def fail(rows):
        if rows.start > 0:
            raise RuntimeError("block failed")

    with pytest.raises(RuntimeError, match="block failed"):
        blas.on_row_blocks(fail, 10, row_size=blas.MIN_BLOCK_ELEMENTS, threads=2)
    assert blas.blas_threads() >= 1


@pytest.mark.parametrize("name", ["tanh", "relu", "softplus", "erf"])
def test_in_place_activations_equal_the_plain_ones(name):
    act = get_activation(name, center=True)
    z = np.random.default_rng(5).standard_normal((4, 6))
    np.testing.assert_array_equal(act.apply_inplace(z.copy()), act(z))
    d = np.empty_like(z)
    v = act.value_and_derivative_into(z.copy(), d)
    np.testing.assert_array_equal(v, act(z))
    np.testing.assert_array_equal(d, act.derivative(z))


def test_gradient_and_features_do_not_depend_on_the_thread_split(monkeypatch):
    # Elementwise work is split in row blocks over the BLAS threads; the numbers must be
    # the same for any split (here 1 block against 3 small ones).
    rng = np.random.default_rng(6)
    X, W = rng.standard_normal((90, 8)), rng.standard_normal((8, 5)) / np.sqrt(8)
    a, y = rng.standard_normal(5) / np.sqrt(5), rng.standard_normal(90)

    def compute():
        return (helpers.model.first_step_gradient(X, y, W, a, "tanh"),
                helpers.model.features(X, W, "relu"))

    monkeypatch.setattr(blas, "blas_threads", lambda: 1)
    one = compute()
    monkeypatch.setattr(blas, "blas_threads", lambda: 3)
    monkeypatch.setattr(blas, "MIN_BLOCK_ELEMENTS", 1)
    calls = []
    real = blas.on_row_blocks

    def spy(fn, n_rows, **kw):
        calls.append(n_rows)
        return real(fn, n_rows, **kw)

    monkeypatch.setattr(helpers.model, "on_row_blocks", spy)
    three = compute()
    assert calls  # the split path ran
    for u, v in zip(one, three, strict=True):
        np.testing.assert_array_equal(u, v)
    # and both agree with the textbook formula
    act = np.tanh(X @ W)
    resid = (y - act @ a / np.sqrt(5)) / np.sqrt(5)
    G0 = X.T @ ((1 - act**2) * resid[:, None] * a[None, :]) / 90
    np.testing.assert_allclose(one[0], G0, rtol=1e-12, atol=1e-15)
