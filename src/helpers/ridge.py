r"""Ridge regression on features for a whole grid of penalties, and the prediction risk.

The paper's estimator (§2.1) on normalised features :math:`\Phi = N^{-1/2}\sigma(\tilde X W)`

.. math::

    \hat a = \arg\min_a \frac1n\|\tilde y - \Phi a\|^2 + \frac{\lambda}{N}\|a\|^2

is, with :math:`b = a/\sqrt N` and unnormalised features :math:`F = \sigma(\tilde XW)`,
plain ridge :math:`\min_b \frac1n\|\tilde y - Fb\|^2 + \lambda\|b\|^2`, whose solution is
:math:`b = (F^\top F/n + \lambda I)^{-1}F^\top\tilde y/n`.  One decomposition of the smaller
of :math:`F^\top F/n` (N x N) and :math:`FF^\top/n` (n x n) serves every :math:`\lambda` (the
idea of scikit-learn's ``_solve_svd``); we use a tridiagonal reduction, which is all that
shifted solves need and costs about a quarter of a full eigendecomposition.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import linalg
from scipy.linalg import lapack

from .blas import gram, matmul, numpy_blas_single_threaded
from .model import (
    _check_matrix,
    _features,
    as_student,
    as_teacher,
    check_positive,
    check_rng,
    normal_blocks,
)

__all__ = ["check_lambdas", "ridge_path", "prediction_risk", "risk_over_blocks", "TEST_BLOCK"]

#: Test points drawn and evaluated per block by default (memory: TEST_BLOCK x N numbers).
TEST_BLOCK = 4096


def check_lambdas(lambdas) -> np.ndarray:
    """Return ``lambdas`` as a 1-d float array, raising ``ValueError`` unless all are > 0."""
    lam = np.atleast_1d(np.asarray(lambdas, dtype=float))
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError(f"lam must be a number or a 1-d sequence of numbers; got shape "
                         f"{lam.shape}")
    if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
        raise ValueError(f"lam must be finite and > 0 (the ridge penalty); got {lam.tolist()}")
    return lam


# Up to this many penalties, one Cholesky factorisation per penalty beats one tridiagonal
# reduction shared by all of them (measured at m = 1024 and 2560 on 2 cores: 0.15 s per
# Cholesky of a 2560 x 2560 matrix against 1.9 s for the reduction).
CHOLESKY_MAX_PENALTIES = 2


def _cholesky_solves(S, r, lam):
    r"""Solve :math:`(S + \lambda_l I)x_l = r` by Cholesky, or return None if not PD."""
    m = S.shape[0]
    Z = np.empty((m, lam.size), order="F")
    diag = S.diagonal().copy()
    for l, lv in enumerate(lam):
        A = S.copy()  # S stays intact for the fallback
        A[np.diag_indices(m)] = diag + lv
        try:
            factor = linalg.cho_factor(A, lower=True, overwrite_a=True, check_finite=False)
        except linalg.LinAlgError:
            return None
        Z[:, l] = linalg.cho_solve(factor, r, check_finite=False)
    return Z


def _shifted_solves(S, r, lam) -> np.ndarray:
    r"""Solve :math:`(S + \lambda_l I)x_l = r` for every penalty from one decomposition.

    ``S`` (m x m, symmetric positive semi-definite; only its lower triangle is read) is
    reduced once to tridiagonal form,
    :math:`S = QTQ^\top` (LAPACK ``sytrd``, blocked; Householder, backward stable).  Each
    penalty then costs one O(m) tridiagonal solve of :math:`(T + \lambda I)z = Q^\top r`, and
    :math:`x = Qz` is applied to all penalties at once (``ormqr``).  This is the cheapest
    factorisation that serves every :math:`\lambda`: it skips the eigenvectors that
    ``eigh`` would also build (about 4x less time at m = 1024).

    For at most ``CHOLESKY_MAX_PENALTIES`` penalties one Cholesky factorisation per penalty
    is cheaper still (m^3/3 flops in BLAS-3, against about 4m^3/3 mostly BLAS-2 flops for the
    reduction), so that path is taken first; it falls back to the reduction if
    :math:`S + \lambda I` is not numerically positive definite.

    ``S`` is overwritten.  Returns ``X`` of shape (m, L).
    """
    m, L = S.shape[0], lam.size
    if m == 1:
        return r[:, None] / (S[0, 0] + lam[None, :])
    if L <= CHOLESKY_MAX_PENALTIES:
        Z = _cholesky_solves(S, r, lam)
        if Z is not None:
            return Z
    lwork = int(lapack.dsytrd_lwork(m, lower=1)[0])
    A, diag, off, tau, info = lapack.dsytrd(S, lower=1, lwork=max(lwork, m), overwrite_a=1)
    if info != 0:  # pragma: no cover - LAPACK argument error
        raise RuntimeError(f"dsytrd failed (info={info})")
    V = A[1:, :-1]  # Householder vectors of Q = diag(1, Q'), in QR storage (as dormtr uses)
    q = r.astype(float, copy=True)
    q[1:] = lapack.dormqr("L", "T", V, tau, q[1:, None], lwork=max(m, 1))[0][:, 0]
    Z = np.empty((m, L), order="F")
    for l in range(L):
        *_, z, info = lapack.dptsv(diag + lam[l], off, q)
        if info != 0:
            # T + lam I is not numerically positive definite (lam far below rounding of S):
            # fall back to LU with partial pivoting, which needs only non-singularity.
            *_, z, info = lapack.dgtsv(off, diag + lam[l], off, q)
            if info != 0:
                raise np.linalg.LinAlgError(
                    f"ridge system is singular at lam={float(lam[l])!r} "
                    f"(tridiagonal solve, info={info})")
        Z[:, l] = z
    Z[1:] = lapack.dormqr("L", "N", V, tau, Z[1:], lwork=max(64 * L, m))[0]
    return Z


@numpy_blas_single_threaded()
def ridge_path(F, y, lambdas) -> np.ndarray:
    r"""Ridge coefficients :math:`b(\lambda) = (F^\top F/n + \lambda I)^{-1}F^\top y/n` for many
    penalties from one decomposition.

    Parameters
    ----------
    F : ndarray of shape (n, N)
        Features (unnormalised, :math:`\sigma(\tilde XW)`).
    y : ndarray of shape (n,)
        Targets.
    lambdas : float or array of shape (L,)
        Penalties, all > 0 (penalty :math:`\lambda\|b\|^2` on the mean squared error).

    Returns
    -------
    B : ndarray of shape (N, L)
        Column ``l`` holds :math:`b(\lambda_l)`.

    Notes
    -----
    When :math:`N \le n` the N x N Gram matrix :math:`S = F^\top F/n` is formed (one BLAS
    ``syrk``) and :math:`b = (S + \lambda I)^{-1}F^\top y/n`; otherwise the dual form
    :math:`b = F^\top(FF^\top/n + \lambda I)^{-1}y/n` uses the n x n matrix.  Either way the
    matrix is reduced once to tridiagonal form, :math:`S = QTQ^\top`, and every penalty costs
    only an O(m) tridiagonal solve plus applying :math:`Q` (see ``benchmarks/``): the same
    one-decomposition idea as an eigendecomposition, without building eigenvectors.
    Computation is in float64 (the ridge systems at small :math:`\lambda` are ill-conditioned).
    """
    F = _check_matrix("F", F, 2)
    y = _check_matrix("y", y, 1, (F.shape[0],))
    lam = check_lambdas(lambdas)
    n, N = F.shape
    if N <= n:  # lower triangle of F^T F / n by syrk, in SciPy's BLAS (see helpers.blas)
        return _shifted_solves(gram(F, scale=1.0 / n), F.T @ y / n, lam)
    Z = _shifted_solves(gram(F, scale=1.0 / n, side="rows"), y, lam)
    return matmul(F.T, Z) / n


def _check_dtype(dtype):
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"dtype must be numpy.float64 or numpy.float32; got {dtype!r}")
    return dt


def _ridge_path_eigh(F, y, lambdas) -> np.ndarray:
    """Reference implementation of :func:`ridge_path` by a full eigendecomposition."""
    F = _check_matrix("F", F, 2)
    lam = check_lambdas(lambdas)
    n, N = F.shape
    if N <= n:
        s, V = np.linalg.eigh(F.T @ F / n)
        return V @ ((V.T @ (F.T @ y / n))[:, None] / (s[:, None] + lam[None, :]))
    s, U = np.linalg.eigh(F @ F.T / n)
    return F.T @ (U @ ((U.T @ y)[:, None] / (s[:, None] + lam[None, :]))) / n


@numpy_blas_single_threaded()
def prediction_risk(W, B, student, teacher, beta, *, n_test: int, rng: np.random.Generator,
                    chunk: int = TEST_BLOCK, dtype=np.float64):
    r"""Monte-Carlo prediction risk
    :math:`E_x(\sigma(W^\top x)^\top b - \sigma_*(x^\top\beta_*))^2`.

    Label noise is excluded, as in the paper.  Test inputs are drawn in chunks of at most
    ``chunk`` rows, so memory stays at ``chunk * N`` numbers whatever ``n_test`` is.
    The draws do not depend on ``chunk`` or ``dtype``: the same ``rng`` gives the same points.

    Parameters
    ----------
    W : ndarray of shape (d, N)
    B : ndarray of shape (N, L)
        Ridge coefficients, one column per penalty (from :func:`ridge_path`).
    student, teacher : str, callable or Activation
    beta : ndarray of shape (d,)
    n_test : int
        Number of fresh test points.
    rng : numpy.random.Generator
    chunk : int
        Test points per block.
    dtype : {numpy.float64, numpy.float32}
        Precision of the test features :math:`\sigma(XW)` and of the predictions (the points
        are always drawn in float64, and errors are accumulated in float64).  float32 halves
        the time of the largest product; ``benchmarks/`` measures its effect on the risk
        (orders of magnitude below the Monte-Carlo standard error).

    Returns
    -------
    risk : ndarray of shape (L,)
        Mean squared error per penalty.
    se : ndarray of shape (L,)
        Its Monte-Carlo standard error over the test points.
    """
    W = _check_matrix("W", W, 2)
    B = np.asarray(B, dtype=float)
    if B.ndim == 1:
        B = B[:, None]
    B = _check_matrix("B", B, 2, (W.shape[1], None))
    beta = _check_matrix("beta", beta, 1, (W.shape[0],))
    check_positive("n_test", n_test, integer=True)
    check_positive("chunk", chunk, integer=True)
    rng = check_rng(rng)
    dtype = _check_dtype(dtype)
    student, teacher = as_student(student), as_teacher(teacher)
    with ThreadPoolExecutor(max_workers=1) as pool:
        blocks = normal_blocks(rng, n_test, W.shape[0], block=chunk, pool=pool)
        return risk_over_blocks(blocks, W, B, student, teacher, beta, dtype=dtype)


def risk_over_blocks(blocks, W, B, student, teacher, beta, *, dtype=np.float64):
    """The computation of :func:`prediction_risk` on given blocks of test inputs (arrays of
    shape (m, d), e.g. from :func:`helpers.model.normal_blocks`); inputs already checked,
    ``student`` and ``teacher`` are :class:`Activation` objects."""
    Wc, Bc = W.astype(dtype, copy=False), B.astype(dtype, copy=False)  # once, not per block
    total = np.zeros(B.shape[1])
    total_sq = np.zeros(B.shape[1])
    n_test = 0
    for X in blocks:
        pred = matmul(_features(X, Wc, student, dtype), Bc)
        err = pred.astype(float, copy=False) - teacher(X @ beta)[:, None]
        err *= err
        total += err.sum(axis=0)
        total_sq += (err * err).sum(axis=0)
        n_test += X.shape[0]
    mean = total / n_test
    var = np.maximum(total_sq / n_test - mean**2, 0.0) * n_test / max(n_test - 1, 1)
    return mean, np.sqrt(var / n_test)

