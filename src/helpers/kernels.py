r"""Kernel ridge baselines, and the trained features on the same data.

Proposition 1 of Ba et al. (2022) says that, in the proportional limit, kernel ridge
regression with the initial conjugate kernel (CK), the initial neural tangent kernel (NTK) or
any inner-product / Euclidean-distance kernel has prediction risk at least
:math:`\|P_{>1}f_*\|^2 = \mu_2^{*2}` for every penalty.  This module computes those baselines
and, on the very same draw of data, the ridge estimator on the features after one step, so a
chapter can put them side by side.

Kernels (:func:`kernel_matrix`), for inputs :math:`x, x'` in :math:`\mathbb R^d`:

* ``"ck"``: :math:`\frac1N\sigma(W_0^\top x)^\top\sigma(W_0^\top x')` (random features at init);
* ``"ntk"``: :math:`\frac{\langle x, x'\rangle}{d}\cdot\frac1N
  \sigma'(W_0^\top x)^\top\sigma'(W_0^\top x')`, the first-layer NTK at init, i.e. the
  Gram matrix of the features :math:`(Nd)^{-1/2}\mathrm{Vec}(\sigma'(W_0^\top x)x^\top)`;
* ``"rbf"``: :math:`\exp(-\|x - x'\|^2/(2d\,h^2))` (Euclidean-distance kernel, bandwidth h);
* ``"arccos"``: the degree-1 arc-cosine kernel :math:`\frac{\|x\|\|x'\|}{2\pi d}
  (\sin\theta + (\pi - \theta)\cos\theta)`, the infinite-width CK of a ReLU network.

Penalty convention (as in :mod:`helpers.ridge`): for :math:`K = FF^\top` the kernel
estimator :math:`\hat f(x) = k(x)^\top\alpha`, :math:`\alpha = (K/n + \lambda I)^{-1}y/n`,
equals ridge on the features :math:`F` with penalty :math:`\lambda\|b\|^2` on the MSE.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from .model import (
    _check_matrix,
    as_student,
    as_teacher,
    check_nonnegative,
    check_positive,
    first_step_from_streams,
    problem_sizes,
    sample_data,
    spawn_streams,
)
from .ridge import check_lambdas, ridge_path

__all__ = ["KERNEL_NAMES", "kernel_matrix", "kernel_ridge_path", "same_data_risks"]

KERNEL_NAMES = ("ck", "ntk", "rbf", "arccos")


def kernel_matrix(kind: str, X1, X2=None, *, W0=None, student=None,
                  bandwidth: float = 1.0) -> np.ndarray:
    r"""Kernel matrix :math:`K_{ij} = k(x_i, x'_j)`.

    Parameters
    ----------
    kind : {"ck", "ntk", "rbf", "arccos"}
        See the module docstring.
    X1 : ndarray of shape (n1, d)
    X2 : ndarray of shape (n2, d), optional
        Defaults to ``X1``.
    W0 : ndarray of shape (d, N)
        Initial first layer; required for ``"ck"`` and ``"ntk"``.
    student : str, callable or Activation
        Activation; required for ``"ck"`` and ``"ntk"``.
    bandwidth : float, default 1
        ``h`` of the ``"rbf"`` kernel (distances are measured in units of :math:`\sqrt d`).

    Returns
    -------
    K : ndarray of shape (n1, n2)
    """
    if kind not in KERNEL_NAMES:
        raise ValueError(f"kind must be one of {', '.join(KERNEL_NAMES)}; got {kind!r}")
    X1 = _check_matrix("X1", X1, 2)
    X2 = X1 if X2 is None else _check_matrix("X2", X2, 2, (None, X1.shape[1]))
    d = X1.shape[1]
    if kind in ("ck", "ntk"):
        if W0 is None or student is None:
            raise ValueError(f"kind={kind!r} needs W0 (the initial first layer) and student; "
                             f"got W0={'None' if W0 is None else 'array'}, student={student!r}")
        W0 = _check_matrix("W0", W0, 2, (d, None))
        act, N = as_student(student), W0.shape[1]
        P1, P2 = X1 @ W0, X2 @ W0
        if kind == "ck":
            return act(P1) @ act(P2).T / N
        return (X1 @ X2.T / d) * (act.derivative(P1) @ act.derivative(P2).T / N)
    inner = X1 @ X2.T / d
    n1 = np.einsum("ij,ij->i", X1, X1) / d
    n2 = np.einsum("ij,ij->i", X2, X2) / d
    if kind == "rbf":
        check_positive("bandwidth", bandwidth)
        sq = np.maximum(n1[:, None] + n2[None, :] - 2.0 * inner, 0.0)
        return np.exp(-sq / (2.0 * bandwidth**2))
    norms = np.sqrt(np.outer(n1, n2))
    cos = np.clip(inner / np.maximum(norms, 1e-300), -1.0, 1.0)
    theta = np.arccos(cos)
    return norms * (np.sin(theta) + (math.pi - theta) * cos) / (2.0 * math.pi)


def kernel_ridge_path(K, y, lambdas) -> np.ndarray:
    r"""Dual coefficients :math:`\alpha(\lambda) = (K/n + \lambda I)^{-1}y/n` for many penalties.

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
    K = _check_matrix("K", K, 2)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square kernel matrix; got shape {K.shape}")
    y = _check_matrix("y", y, 1, (K.shape[0],))
    lam = check_lambdas(lambdas)
    n = K.shape[0]
    A = 0.5 * (K + K.T) / n
    out = np.empty((n, lam.size))
    for j, l in enumerate(lam):  # one Cholesky per penalty: cheaper than eigh for few L
        try:
            out[:, j] = linalg.cho_solve(linalg.cho_factor(A + l * np.eye(n)), y) / n
        except linalg.LinAlgError as err:
            raise ValueError(f"K + n*lam*I is not positive definite at lam={l}: K must be a "
                             "positive semi-definite kernel matrix") from err
    return out


def same_data_risks(student, teacher, *, d, psi1, psi2, etas, lam, kernels=(), noise=0.0,
                    seed=0, n_test=2048, kernel_lam=None, kernel_data="ridge",
                    kernel_options=None) -> list[dict]:
    r"""Prediction risks of several estimators fitted on one draw of data.

    One teacher, one initialisation :math:`(W_0, a)`, one step set :math:`(X, y)` and
    gradient :math:`G_0`, one ridge set :math:`(\tilde X, \tilde y)` and one test set are
    drawn (the random streams are those of :func:`helpers.simulate_one_step`, so the same
    seed gives the same :math:`\beta_*, W_0, a, X, \tilde X`).  Then

    * for each learning rate in ``etas``: ridge on :math:`\sigma(\tilde X W_1)`,
      :math:`W_1 = W_0 + \eta\sqrt N G_0` (``eta = 0``: random features);
    * for each kernel in ``kernels``: kernel ridge trained on the ridge set
      :math:`(\tilde X, \tilde y)` (``kernel_data="ridge"``, the same n points as the
      trained estimator's second stage) or on both halves (``"both"``, 2n points), with the
      CK/NTK built on :math:`W_0`.

    Parameters
    ----------
    student, teacher : str, callable or Activation
    d : int
    psi1, psi2 : float
        ``n = round(psi1 d)``, ``N = round(psi2 d)``.
    etas : mapping label -> float
        Learning rates (>= 0) of the trained-feature estimators, with the labels to report.
    lam : float or sequence of float
        Penalties (> 0), in the convention of :mod:`helpers.ridge`.
    kernels : sequence of str
        Names from ``KERNEL_NAMES``.
    kernel_lam : float or sequence of float, optional
        Penalties for the kernels (default ``lam``); kernels usually want smaller ones.
    kernel_data : {"ridge", "both"}
        Training points of the kernels (see above).
    noise : float
        Label-noise standard deviation.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
    n_test : int
        Test points (shared by every estimator); the risk excludes label noise.
    kernel_options : dict, optional
        Extra keyword arguments of :func:`kernel_matrix` (e.g. ``bandwidth``).

    Returns
    -------
    list of dict
        One row per (estimator, penalty): ``{"model": label, "lam": lam, "risk": risk}``.
    """
    d, n, N = problem_sizes(d, psi1, psi2)
    check_nonnegative("noise", noise)
    check_positive("n_test", n_test, integer=True)
    lambdas = check_lambdas(lam)
    if not hasattr(etas, "items") or not etas:
        raise ValueError(f"etas must be a non-empty mapping label -> learning rate; got {etas!r}")
    for label, eta in etas.items():
        check_nonnegative(f"etas[{label!r}]", eta)
    klam = lambdas if kernel_lam is None else check_lambdas(kernel_lam)
    if kernel_data not in ("ridge", "both"):
        raise ValueError(f"kernel_data must be 'ridge' or 'both'; got {kernel_data!r}")
    for k in kernels:
        if k not in KERNEL_NAMES:
            raise ValueError(f"kernels must name kernels from {KERNEL_NAMES}; got {k!r}")
    student, teacher = as_student(student), as_teacher(teacher)
    streams = spawn_streams(seed)
    fs = first_step_from_streams(student, teacher, d=d, n=n, N=N, eta=0.0, noise=noise,
                                 streams=streams)
    beta, W0, X, y, G0 = fs.beta, fs.W0, fs.X, fs.y, fs.G0
    Xr, yr = sample_data(n, beta, teacher, noise=noise, rng=streams["ridge"])
    Xt = streams["test"].standard_normal((n_test, d))
    ft = teacher(Xt @ beta)
    rows = []

    def add(label, pred, lams):  # pred: (n_test, L)
        risk = np.mean((pred - ft[:, None]) ** 2, axis=0)
        rows.extend({"model": label, "lam": float(l), "risk": float(r)}
                    for l, r in zip(lams, risk, strict=True))

    # X W1 = X W0 + eta sqrt(N) X G0: two products per data set serve every learning rate
    Pr0, Pr1, Pt0, Pt1 = Xr @ W0, Xr @ G0, Xt @ W0, Xt @ G0
    for label, eta in etas.items():
        step = eta * math.sqrt(N)
        B = ridge_path(student(Pr0 + step * Pr1), yr, lambdas)
        add(label, student(Pt0 + step * Pt1) @ B, lambdas)
    if kernels:
        Xk, yk = (Xr, yr) if kernel_data == "ridge" else (np.vstack([X, Xr]),
                                                          np.concatenate([y, yr]))
        opts = dict(W0=W0, student=student, **(kernel_options or {}))
        for k in kernels:
            alpha = kernel_ridge_path(kernel_matrix(k, Xk, **opts), yk, klam)
            add(k, kernel_matrix(k, Xt, Xk, **opts) @ alpha, klam)
    return rows
