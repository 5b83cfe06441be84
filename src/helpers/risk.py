r"""The prediction risk of the fitted model, the last stop of the data path.

Label noise is excluded, as in the paper:
:math:`R = E_x\big(\sigma(W^\top x)^\top b - \sigma_*(x^\top\beta_*)\big)^2`, estimated on
fresh test points (:func:`prediction_risk`, the average and its standard error by
:func:`risk_from_errors`), or computed exactly for the Gaussian-equivalent features
(:func:`ge_prediction_risk`).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_matrix, check_positive, check_rng
from .activations import as_student, as_teacher
from .data import normal_blocks, teacher_labels
from .feature_maps import features
from .theory.deterministic_equivalent import ge_population

__all__ = ["prediction_risk", "risk_from_errors", "ge_prediction_risk", "TEST_BLOCK"]

#: Test points drawn and evaluated per block by default (memory: TEST_BLOCK x N numbers).
TEST_BLOCK = 4096


def _as_columns(name, B, rows):
    B = np.asarray(B, dtype=float)
    return check_matrix(name, B[:, None] if B.ndim == 1 else B, 2, (rows, None))


def prediction_risk(W, B, student, teacher, beta, *, n_test: int, rng: np.random.Generator,
                    chunk: int = TEST_BLOCK, dtype=np.float64, linear_part=None):
    r"""Monte-Carlo prediction risk
    :math:`E_x(\sigma(W^\top x)^\top b - f_*(x))^2`, :math:`f_*(x) = \sigma_*(x^\top\beta_*)`
    (or :math:`g(B_*^\top x)` for a k-index teacher, see :func:`helpers.data.teacher_labels`).

    Test inputs are drawn in blocks of at most ``chunk`` rows, so memory stays at
    ``chunk * N`` numbers whatever ``n_test`` is; the points are the rows of
    ``rng.standard_normal((n_test, d))`` whatever ``chunk`` or ``dtype`` is.

    Parameters
    ----------
    W : ndarray of shape (d, N)
    B : ndarray of shape (N, L)
        Ridge coefficients, one column per penalty (from :func:`helpers.ridge_path`).
    student, teacher : str, callable or Activation
        ``teacher``: the link (centred), or for a k-index ``beta`` a callable of the (n, k)
        projections.
    beta : ndarray of shape (d,) or (d, k)
    n_test : int
        Number of fresh test points.
    rng : numpy.random.Generator
    chunk : int
        Test points per block.
    dtype : {numpy.float64, numpy.float32}
        Precision of the test features and predictions (errors are accumulated in float64).
    linear_part : (float, ndarray of shape (d,)), optional
        ``(m, v)`` adds :math:`m + v^\top x` to every prediction: the labels' mean and linear
        fit, when the ridge was fitted on labels with them removed
        (:func:`helpers.teachers.remove_linear_part`).

    Returns
    -------
    risk : ndarray of shape (L,)
        Mean squared error per penalty.
    se : ndarray of shape (L,)
        Its Monte-Carlo standard error over the test points.
    """
    W = check_matrix("W", W, 2)
    B = _as_columns("B", B, W.shape[1])
    beta = np.asarray(beta, dtype=float)
    if beta.ndim not in (1, 2) or beta.shape[0] != W.shape[0]:
        raise ValueError(f"beta must have shape (d,) or (d, k) with d = {W.shape[0]}; got "
                         f"shape {beta.shape}")
    check_positive("n_test", n_test, integer=True)
    rng = check_rng(rng)
    student = as_student(student)
    teacher = as_teacher(teacher) if beta.ndim == 1 else teacher
    if linear_part is not None:
        mean, v = float(linear_part[0]), check_matrix("linear_part[1]", linear_part[1], 1,
                                                       (W.shape[0],))
    Bc = B.astype(dtype, copy=False)

    def errors():  # sigma(X W) b - f*(x), one block of test points at a time
        for X in normal_blocks(rng, n_test, W.shape[0], block=chunk):
            pred = features(X, W, student, dtype=dtype) @ Bc
            if linear_part is not None:
                pred = pred + (mean + X @ v)[:, None]
            yield pred - teacher_labels(X, beta, teacher)[:, None]

    return risk_from_errors(errors())


def risk_from_errors(errors):
    r"""The risk as the mean squared error over test points, with its Monte-Carlo standard
    error: :math:`\hat R = \frac1m\sum_{i\le m} e_i^2` and
    :math:`\mathrm{se} = \sqrt{s^2/m}`, :math:`s^2` the sample variance of the :math:`e_i^2`.

    The one place where the book's simulated risks are averaged: :func:`prediction_risk`
    and the measures of :mod:`helpers.measures` that share test points between several
    step sizes or kernels pass it their errors.

    Parameters
    ----------
    errors : ndarray of shape (m, ...) or iterable of such arrays
        Prediction minus target, :math:`e_i = \hat f(x_i) - f_*(x_i)`, one row per test
        point (further axes index the models, e.g. one column per penalty); or blocks of
        such rows, which are summed as they come (memory: one block).

    Returns
    -------
    risk, se : ndarray of shape ``errors.shape[1:]``

    >>> risk, se = risk_from_errors(np.array([[1.0, 0.0], [-1.0, 2.0]]))
    >>> risk.tolist(), se.tolist()
    ([1.0, 2.0], [0.0, 2.0])
    """
    blocks = [errors] if isinstance(errors, np.ndarray) else errors
    total = total_sq = 0.0
    m = 0
    for err in blocks:
        sq = np.asarray(err, dtype=float) ** 2
        total = total + sq.sum(axis=0)
        total_sq = total_sq + (sq * sq).sum(axis=0)
        m += sq.shape[0]
    if m == 0:
        raise ValueError("errors must hold at least one test point; got none")
    risk = total / m
    var = np.maximum(total_sq / m - risk**2, 0.0) * m / max(m - 1, 1)
    return risk, np.sqrt(var / m)


def ge_prediction_risk(W, B, student, teacher, beta) -> np.ndarray:
    r"""Exact risk :math:`E(b^\top\varphi_{GE} - f_*)^2 = b^\top\Sigma b - 2b^\top c + E f_*^2`
    of coefficients ``B`` on the Gaussian-equivalent features
    (:math:`\Sigma, c` from :func:`helpers.theory.ge_population`).

    The arguments come in the order of :func:`prediction_risk`.

    Parameters
    ----------
    W : ndarray of shape (d, N)
    B : ndarray of shape (N, L)
        One coefficient vector per column.
    student, teacher : str, callable or Activation
    beta : ndarray of shape (d,)

    Returns
    -------
    ndarray of shape (L,)
    """
    Sigma, c = ge_population(W, student, teacher, beta)
    B = _as_columns("B", B, Sigma.shape[0])
    return np.einsum("il,il->l", B, Sigma @ B) - 2.0 * (c @ B) + as_teacher(teacher).second_moment
