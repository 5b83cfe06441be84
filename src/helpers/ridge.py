r"""Ridge regression for a whole grid of penalties from one decomposition.

The paper's estimator (§2.1) on normalised features :math:`\Phi = N^{-1/2}\sigma(\tilde X W)`

.. math::

    \hat a = \arg\min_a \frac1n\|\tilde y - \Phi a\|^2 + \frac{\lambda}{N}\|a\|^2

is, with :math:`b = a/\sqrt N` and unnormalised features :math:`F = \sigma(\tilde XW)`,
plain ridge :math:`\min_b \frac1n\|\tilde y - Fb\|^2 + \lambda\|b\|^2`.  Kernel ridge with a
kernel matrix :math:`K = FF^\top` is the same estimator in its dual form
(:func:`kernel_ridge_path`).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from scipy.linalg import lapack

from ._validation import check_lambdas, check_matrix

__all__ = ["ridge_path", "kernel_ridge_path", "CHOLESKY_MAX_PENALTIES"]

# Up to this many penalties, one Cholesky factorisation per penalty beats one tridiagonal
# reduction shared by all of them (m^3/3 BLAS-3 flops each against about 4m^3/3 mostly
# BLAS-2 flops; measured at m = 1024 and 2560 on 2 cores).
CHOLESKY_MAX_PENALTIES = 2


class _NotPositiveDefinite(Exception):
    pass


def _cholesky_solves(S, r, lam):
    r"""Solve :math:`(S + \lambda_l I)x_l = r` by one Cholesky factorisation per penalty."""
    Z = np.empty((S.shape[0], lam.size), order="F")
    for l, lv in enumerate(lam):
        A = S + lv * np.eye(S.shape[0])
        try:
            factor = linalg.cho_factor(A, lower=True, overwrite_a=True, check_finite=False)
        except linalg.LinAlgError as err:
            raise _NotPositiveDefinite from err
        Z[:, l] = linalg.cho_solve(factor, r, check_finite=False)
    return Z


def _tridiagonal_solves(S, r, lam, *, strict: bool):
    r"""Solve :math:`(S + \lambda_l I)x_l = r` for every penalty from :math:`S = QTQ^\top`."""
    m = S.shape[0]
    lwork = int(lapack.dsytrd_lwork(m, lower=1)[0])
    A, diag, off, tau, info = lapack.dsytrd(S, lower=1, lwork=max(lwork, m))
    if info != 0:  # pragma: no cover - LAPACK argument error
        raise RuntimeError(f"dsytrd failed (info={info})")
    V = A[1:, :-1]  # Householder vectors of Q = diag(1, Q'), in QR storage
    q = np.array(r, dtype=float)  # q = Q^T r
    q[1:] = lapack.dormqr("L", "T", V, tau, q[1:, None], lwork=max(m, 1))[0][:, 0]
    Z = np.empty((m, lam.size), order="F")
    for l, lv in enumerate(lam):  # (T + lam I) z = q: O(m) per penalty
        *_, z, info = lapack.dptsv(diag + lv, off, q)
        if info != 0:
            if strict:
                raise _NotPositiveDefinite
            # T + lam I is not numerically positive definite (lam far below the rounding
            # of S): LU with partial pivoting needs only non-singularity.
            *_, z, info = lapack.dgtsv(off, diag + lv, off, q)
            if info != 0:
                raise np.linalg.LinAlgError(
                    f"ridge system is singular at lam={float(lv)!r} (tridiagonal solve)")
        Z[:, l] = z
    Z[1:] = lapack.dormqr("L", "N", V, tau, Z[1:], lwork=max(64 * lam.size, m))[0]  # Q z
    return Z


def _shifted_solves(S, r, lam, *, strict: bool = False) -> np.ndarray:
    r"""Solve :math:`(S + \lambda_l I)x_l = r` for every penalty; ``S`` symmetric PSD.

    Few penalties: one Cholesky each; more: one tridiagonal reduction shared by all.  With
    ``strict`` a matrix that is not numerically positive definite raises
    ``_NotPositiveDefinite`` instead of falling back to a pivoted solve.  Returns (m, L).
    """
    if S.shape[0] == 1:
        return r[:, None] / (S[0, 0] + lam[None, :])
    if lam.size <= CHOLESKY_MAX_PENALTIES:
        try:
            return _cholesky_solves(S, r, lam)
        except _NotPositiveDefinite:
            if strict:
                raise
    return _tridiagonal_solves(S, r, lam, strict=strict)


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
    **One decomposition for every penalty.**  Let :math:`S` be the smaller of the two Gram
    matrices: :math:`S = F^\top F/n` (N x N, when :math:`N \le n`) with
    :math:`b = (S + \lambda I)^{-1}r`, :math:`r = F^\top y/n`; or the dual
    :math:`S = FF^\top/n` (n x n) with :math:`b = F^\top(S + \lambda I)^{-1}y/n` (the two
    agree since :math:`F^\top(FF^\top/n + \lambda)^{-1} = (F^\top F/n + \lambda)^{-1}F^\top`).
    Reduce :math:`S` once to tridiagonal form, :math:`S = QTQ^\top` with :math:`Q`
    orthogonal (LAPACK ``sytrd``, Householder, backward stable).  Then

    .. math::

        S + \lambda I = Q(T + \lambda I)Q^\top \quad\Longrightarrow\quad
        (S + \lambda I)^{-1}r = Q\,(T + \lambda I)^{-1}\,Q^\top r ,

    so :math:`Q^\top r` is formed once, each penalty costs one :math:`O(m)` tridiagonal
    solve, and :math:`Q` is applied to all solutions at once.  This is the idea of
    scikit-learn's ``_solve_svd`` (one SVD for every :math:`\lambda`) without building the
    eigenvectors, about a quarter of the cost of ``eigh``.  For at most
    ``CHOLESKY_MAX_PENALTIES`` penalties one Cholesky factorisation each is cheaper still.
    Computation is in float64 (the systems at small :math:`\lambda` are ill-conditioned).
    """
    F = check_matrix("F", F, 2)
    y = check_matrix("y", y, 1, (F.shape[0],))
    lam = check_lambdas(lambdas)
    n, N = F.shape
    if N <= n:
        return _shifted_solves(F.T @ F / n, F.T @ y / n, lam)
    return F.T @ _shifted_solves(F @ F.T / n, y, lam) / n


def kernel_ridge_path(K, y, lambdas) -> np.ndarray:
    r"""Dual coefficients :math:`\alpha(\lambda) = (K/n + \lambda I)^{-1}y/n` for many penalties.

    The dual form of :func:`ridge_path` for a kernel matrix :math:`K` (for :math:`K = FF^\top`
    the predictions :math:`K_{\rm new}\alpha` equal those of ridge on :math:`F`), with the
    same one decomposition for every penalty.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric positive semi-definite kernel matrix of the training points.
    y : ndarray of shape (n,)
    lambdas : float or array of shape (L,)
        Penalties > 0.

    Returns
    -------
    alpha : ndarray of shape (n, L)
        Predictions at new points are ``K_new @ alpha`` with ``K_new`` of shape (m, n).
    """
    K = check_matrix("K", K, 2)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square kernel matrix; got shape {K.shape}")
    y = check_matrix("y", y, 1, (K.shape[0],))
    lam = check_lambdas(lambdas)
    n = K.shape[0]
    try:
        return _shifted_solves(0.5 * (K + K.T) / n, y, lam, strict=True) / n
    except _NotPositiveDefinite:
        raise ValueError("K/n + lam*I is not positive definite: K must be a positive "
                         "semi-definite kernel matrix") from None
