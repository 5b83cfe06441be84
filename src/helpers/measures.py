r"""Measures: named functions of what one run drew (:func:`helpers.run`).

A measure of a weight matrix is ``f(run, labels) -> dict or list of dicts``, ``run`` the
:class:`helpers.runs.Run` and ``labels`` the key of the matrix in ``run.weights`` (its step
size and step); a measure of the whole run (of the gradient :math:`G_0`, or a kernel baseline)
is ``f(run)``, marked with :func:`per_run`.  :data:`MEASURES` names the book's; a chapter passes
a function of its own where it measures something new.

Measures of a weight matrix :math:`W`
-------------------------------------
risk              ridge on :math:`\sigma(\tilde X W)` for every penalty, its risk on the test
                  points: rows ``{"lam", "risk"}``
best_risk         the smallest of those risks: ``{"risk"}``
gaussian_equivalent  ridge on the Gaussian-equivalent features of the same ridge set
                  (``risk_ge``, its exact risk) and the deterministic equivalent
                  (``risk_de``), per penalty
movement          the mean distance a neuron moved, :math:`\frac1N\sum_i\|w_i - w^0_i\|`
direction_overlap root-mean-square cosine of the neurons with each teacher direction
control_overlap   the same with as many control directions, orthogonal to span(B): the
                  level of neurons that learned nothing, measured on the same matrix
subspace_overlap  mean share of a neuron's squared norm inside span(B)
top_direction     share of span(B) in the top left singular vector of :math:`W - W_0`
parity            the risk on the test points and their negatives, split exactly into the
                  error on the teacher's odd part and the energy of its even part

Measures of the run
-------------------
overlap           :math:`\langle u, \beta_*\rangle^2`, u the top left singular vector of
                  :math:`G_0`, the same for :math:`X^\top y` (``overlap_A``), their difference
gradient_norms    norms of :math:`G_0`, of its rank-one part's remainder, of :math:`W_0`
spectrum          the singular values of :math:`\sqrt N G_0`: rows ``{"index", "s"}``
kernel_risk(...)  kernel ridge on the ridge set (a factory: the kernels and penalties)

Functions on matrices (used by the measures, and by chapters on their own matrices)
------------------------------------------------------------------------------------
direction_overlaps, control_directions, subspace_overlap, top_direction_overlap,
hermite_alignment, count_outliers, transformed_label_vector
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from numpy.polynomial import hermite_e

from ._validation import (
    check_choice,
    check_lambdas,
    check_matrix,
    check_nonnegative,
    check_positive,
)
from .feature_maps import ge_features
from .kernels import KERNEL_NAMES, kernel_matrix
from .ridge import kernel_ridge_path, ridge_path
from .risk import ge_prediction_risk, risk_from_errors
from .spectra import rank_one_part, singular, squared_overlap
from .theory.deterministic_equivalent import deterministic_equivalent_risk

__all__ = ["MEASURES", "per_run", "resolve", "risk", "best_risk", "gaussian_equivalent",
           "movement", "direction_overlap", "control_overlap", "subspace_overlap_measure",
           "top_direction", "parity_split", "overlap", "gradient_norms", "spectrum",
           "kernel_risk", "direction_overlaps", "control_directions", "subspace_overlap",
           "top_direction_overlap", "hermite_alignment", "count_outliers",
           "transformed_label_vector"]


def per_run(f: Callable) -> Callable:
    """``f(run)`` as a measure of the whole run (called once, not per weight matrix).

    The mark is carried by a wrapper, not set on ``f``: joblib's worker processes rebuild a
    ``functools.partial`` without its attributes, so a marked partial would arrive unmarked."""

    @functools.wraps(f)
    def measure(run):
        return f(run)

    measure.per_run = True
    return measure


# --------------------------------------------------------------------------- functions on matrices
def _cosines_sq(W, B):
    W = check_matrix("W", W, 2)
    B = check_matrix("B", B, 2, (W.shape[0], None))
    norms = np.linalg.norm(W, axis=0)
    if np.any(norms == 0):
        raise ValueError("W has a zero column (a neuron of norm 0); cosines are undefined")
    return (B.T @ W) ** 2 / norms**2  # (k, N)


def direction_overlaps(W, B) -> np.ndarray:
    r"""Root-mean-square cosine between the neurons (columns of ``W``) and each direction,
    :math:`m_j = \big(\frac1N\sum_i \cos^2(w_i, \theta_j)\big)^{1/2}`, shape (k,).

    For neurons independent of :math:`B` (e.g. at initialisation) :math:`m_j \approx
    1/\sqrt d`; a neuron aligned with :math:`\theta_j` contributes 1.
    """
    return np.sqrt(_cosines_sq(W, B).mean(axis=1))


def control_directions(B, rng) -> np.ndarray:
    r"""``k`` orthonormal directions orthogonal to span(B), shape (d, k): a Gaussian draw with
    span(B) projected out, then orthonormalised.

    For Gaussian inputs the projections on them are independent of the projections on
    :math:`B`, so labels :math:`f_*(B^\top x)` carry nothing about them: a neuron's cosine with
    a control direction is what it is with a teacher direction when it has learned nothing.
    """
    B = check_matrix("B", B, 2)
    d, k = B.shape
    if d < 2 * k:
        raise ValueError(f"B must have at most d/2 columns (room for as many controls); got "
                         f"d={d}, k={k}")
    Q = np.linalg.qr(B)[0]
    G = rng.standard_normal((d, k))
    return np.linalg.qr(G - Q @ (Q.T @ G))[0]


def subspace_overlap(W, B) -> float:
    r"""Mean fraction of each neuron's squared norm inside span(B),
    :math:`\frac1N\sum_i \|B^\top w_i\|^2/\|w_i\|^2` (about k/d for random neurons)."""
    return float(_cosines_sq(W, B).sum(axis=0).mean())


def top_direction_overlap(dW, B) -> float:
    r"""Share of span(B) in the top left singular vector :math:`u_1` of ``dW`` (d, N):
    :math:`\|B^\top u_1\|^2` (about k/d for a direction that knows nothing)."""
    dW = check_matrix("dW", dW, 2)
    B = check_matrix("B", B, 2, (dW.shape[0], None))
    if not np.any(dW):   # no direction: any unit vector (the SVD's choice)
        return float(np.sum((B.T @ np.linalg.svd(dW, full_matrices=False)[0][:, 0]) ** 2))
    _, U = singular(dW, 1, left=True)
    return float(np.sum((B.T @ U[:, 0]) ** 2))


def hermite_alignment(U, t, degrees) -> np.ndarray:
    r"""Share of each Hermite polynomial :math:`He_j(t)` (over the samples) that lies in
    the span of the columns of ``U``: :math:`\|P_U h_j\|^2/\|h_j\|^2` with
    :math:`h_j = (He_j(t_1), \dots, He_j(t_n))`.

    Parameters
    ----------
    U : ndarray of shape (n, r)
        Orthonormal columns (e.g. left singular vectors of a feature matrix).
    t : ndarray of shape (n,)
        The teacher's index :math:`\langle\beta_*, x_i\rangle` of each sample.
    degrees : sequence of int
        Degrees j >= 1 (probabilists' Hermite polynomials).

    Returns
    -------
    ndarray of shape (len(degrees),), values in [0, 1].
    """
    t = check_matrix("t", t, 1)
    U = check_matrix("U", U, 2, (t.shape[0], None))
    degrees = [int(j) for j in np.atleast_1d(degrees)]
    if not degrees or min(degrees) < 1:
        raise ValueError(f"degrees must be integers >= 1; got {degrees}")
    out = []
    for j in degrees:
        h = hermite_e.hermeval(t, [0.0] * j + [1.0])
        proj = U.T @ h
        out.append(float(proj @ proj / (h @ h)))
    return np.array(out)


def count_outliers(s, edge: float, *, margin: float) -> int:
    r"""How many of the singular values ``s`` exceed the bulk edge by more than a relative
    ``margin``: :math:`\#\{j : s_j > (1 + \text{margin})\,\text{edge}\}`.

    ``edge`` is measured, for example as the largest singular value of :math:`W_0`; the
    margin should come from that edge's run-to-run spread.
    """
    s = check_matrix("s", s, 1)
    check_positive("edge", edge)
    check_nonnegative("margin", margin)
    return int(np.sum(s > (1.0 + margin) * edge))


def transformed_label_vector(X, y, transform=None) -> np.ndarray:
    r""":math:`\frac1n X^\top T(y)`, the direction that a gradient on the labels
    :math:`T(y)` points to (``transform=None``: :math:`T(y) = y`); shape (d,)."""
    X = check_matrix("X", X, 2)
    y = check_matrix("y", y, 1, (X.shape[0],))
    t = y if transform is None else np.asarray(transform(y), dtype=float)
    if t.shape != y.shape:
        raise ValueError(f"transform must map shape {y.shape} to the same shape; got {t.shape}")
    return X.T @ t / X.shape[0]


def _directions(run) -> np.ndarray:
    return run.beta[:, None] if run.beta.ndim == 1 else run.beta


def _gradient(run, measure: str) -> np.ndarray:
    """The run's gradient G0; ``ValueError`` for the population model, which takes none."""
    if run.G0 is None:
        raise ValueError(f"the measure {measure!r} needs the gradient G0; the population model "
                         f"(model='population') takes no step")
    return run.G0


# --------------------------------------------------------------------------- of a weight matrix
def risk(run, labels) -> list[dict]:
    r"""Ridge on :math:`\sigma(\tilde XW)` for every penalty of the run, and its prediction risk
    :math:`E_x(\sigma(W^\top x)^\top b - f_*(x))^2` on the run's test points (label noise
    excluded): rows ``{"lam": lam, "risk": risk}``."""
    coef, linear = run.ridge_fit(labels)
    values, _ = risk_from_errors(run.test_errors(labels, coef, linear))
    return [{"lam": float(lv), "risk": float(r)} for lv, r in zip(run.lambdas, values,
                                                                    strict=True)]


def best_risk(run, labels) -> dict:
    """The smallest risk over the run's penalties: ``{"risk": ...}``."""
    return {"risk": min(row["risk"] for row in risk(run, labels))}


def gaussian_equivalent(run, labels) -> list[dict]:
    r"""Gaussian equivalence on the run's ridge set (chapter 3): ridge on
    :math:`\mu_1\tilde XW + \mu_2 Z` (:math:`Z` from the stream ``"ge_noise"``, the same for
    every weight matrix) and its exact risk ``risk_ge``; the deterministic equivalent of the
    ridge risk for this :math:`W` (``risk_de``); per penalty."""
    if run.lambdas is None:
        raise ValueError("this run has no readout: give lam (the ridge penalties)")
    W = run.weights[labels]
    Xr, yr = run.ridge_data()
    coef = ridge_path(ge_features(Xr, W, run.student, rng=run.rng("ge_noise")), yr,
                      run.lambdas)
    ge = ge_prediction_risk(W, coef, run.student, run.teacher, run.beta)
    de = np.atleast_1d(deterministic_equivalent_risk(W, run.student, run.teacher, run.beta,
                                                     n=run.n, lam=run.lambdas,
                                                     noise=run.noise))
    return [{"lam": float(lv), "risk_ge": float(g), "risk_de": float(e)}
            for lv, g, e in zip(run.lambdas, ge, de, strict=True)]


def movement(run, labels) -> dict:
    r"""The mean distance a neuron moved: :math:`\frac1N\sum_i\|w_i - w^0_i\|`."""
    return {"move": float(np.linalg.norm(run.weights[labels] - run.W0, axis=0).mean())}


def direction_overlap(run, labels) -> list[dict]:
    """:func:`direction_overlaps` of the matrix with the teacher's directions: rows
    ``{"direction": j, "overlap": m_j}`` (j = 1, ..., k)."""
    m = direction_overlaps(run.weights[labels], _directions(run))
    return [{"direction": j + 1, "overlap": float(v)} for j, v in enumerate(m)]


def control_overlap(run, labels) -> list[dict]:
    """:func:`direction_overlaps` of the matrix with as many control directions as the
    teacher has (:func:`control_directions`, from the run's stream ``"control"``, the same for
    every matrix of the run): rows ``{"direction": j, "control": m_j}``, which merge with
    :func:`direction_overlap`'s rows of the same ``j``."""
    C = control_directions(_directions(run), run.rng("control"))
    m = direction_overlaps(run.weights[labels], C)
    return [{"direction": j + 1, "control": float(v)} for j, v in enumerate(m)]


def subspace_overlap_measure(run, labels) -> dict:
    """:func:`subspace_overlap` of the matrix with span(B): ``{"subspace": ...}``."""
    return {"subspace": subspace_overlap(run.weights[labels], _directions(run))}


def top_direction(run, labels) -> dict:
    """:func:`top_direction_overlap` of :math:`W - W_0`: ``{"top": ...}``."""
    return {"top": top_direction_overlap(run.weights[labels] - run.W0, _directions(run))}


def parity_split(run, labels) -> list[dict]:
    r"""The risk split by parity (chapter 1's Proposition 1.1), on the run's test points
    :math:`x` and their negatives :math:`-x`: with :math:`P_{\rm odd}f(x) = \tfrac12(f(x) -
    f(-x))` and :math:`P_{\rm even}f(x) = \tfrac12(f(x) + f(-x))`, the risk on the pairs is
    exactly ``odd_error + even_norm`` (the cross term cancels pair by pair) for a readout
    :math:`f` whose even part is zero, as is that of an odd student without biases.  Rows per
    penalty: ``{"lam", "parity_risk", "odd_error", "even_norm", "even_pred"}`` with
    ``parity_risk`` :math:`E(f - f_*)^2`, ``odd_error`` :math:`E(f - P_{\rm odd}f_*)^2`,
    ``even_norm`` :math:`E(P_{\rm even}f_*)^2` and ``even_pred`` the largest
    :math:`|P_{\rm even}f|` over the pairs (zero to rounding for an odd student), all on the
    :math:`2\times` ``n_test`` points."""
    if "negated test" not in run._cache:   # -x and f*(-x), drawn once with the test points
        run._cache["negated test"] = [(-Xt, run.labels_of(-Xt)) for Xt, _ in run.test_blocks()]
    coef, linear = run.ridge_fit(labels)
    dtype = np.float32 if run.precision == "mixed" else np.float64
    sums = np.zeros((2, run.lambdas.size))
    even_norm, even_pred, m = 0.0, np.zeros(run.lambdas.size), 0
    for (Xt, f_plus), (Xm, f_minus) in zip(run.test_blocks(), run._cache["negated test"],
                                            strict=True):
        pred = [run.features(X, labels) @ coef.astype(dtype, copy=False) for X in (Xt, Xm)]
        if linear is not None:
            pred = [p + (linear[0] + X @ linear[1])[:, None]
                    for p, X in zip(pred, (Xt, Xm), strict=True)]
        f_odd = ((f_plus - f_minus) / 2)[:, None]            # P_odd f* at x (minus it at -x)
        sums[0] += (((pred[0] - f_plus[:, None]) ** 2 + (pred[1] - f_minus[:, None]) ** 2)
                    / 2).sum(axis=0)
        sums[1] += (((pred[0] - f_odd) ** 2 + (pred[1] + f_odd) ** 2) / 2).sum(axis=0)
        even_norm += float((((f_plus + f_minus) / 2) ** 2).sum())
        even_pred = np.maximum(even_pred, np.abs(pred[0] + pred[1]).max(axis=0) / 2)
        m += Xt.shape[0]
    return [{"lam": float(lv), "parity_risk": float(r), "odd_error": float(o),
             "even_norm": even_norm / m, "even_pred": float(e)}
            for lv, r, o, e in zip(run.lambdas, sums[0] / m, sums[1] / m, even_pred,
                                   strict=True)]


# --------------------------------------------------------------------------- of the whole run
@per_run
def overlap(run) -> dict:
    r"""What Proposition 2 is about: ``overlap`` :math:`\langle u, \beta_*\rangle^2` for the
    top left singular vector u of :math:`G_0`; ``overlap_A`` the same for
    :math:`X^\top y`, the direction of the rank-one part A; ``bulk_loss`` their difference
    (for a k-index teacher, with its first direction)."""
    beta = _directions(run)[:, 0]
    _, U = singular(_gradient(run, "overlap"), 1, left=True)
    out = {"overlap": squared_overlap(U[:, 0], beta),
           "overlap_A": squared_overlap(run.X.T @ run.y, beta)}
    out["bulk_loss"] = out["overlap_A"] - out["overlap"]
    return out


@per_run
def gradient_norms(run) -> dict:
    r"""Norms of the first step (chapter 2): ``ratio`` :math:`\|G_0 - A\|/\|G_0\|`; ``spike``
    :math:`\sqrt N\|G_0\|`; ``frobenius`` :math:`\sqrt N\|G_0\|_F`; ``second``
    :math:`\sqrt N s_2(G_0)`; ``W0_op`` :math:`\|W_0\|`; ``W0_fro`` :math:`\|W_0\|_F`; and
    ``n``, ``N``."""
    N = run.N
    sv = singular(_gradient(run, "gradient_norms"))
    A = rank_one_part(run.X, run.y, run.a, run.student)
    return {"ratio": float(singular(run.G0 - A, 1)[0] / sv[0]),
            "spike": math.sqrt(N) * float(sv[0]),
            "frobenius": math.sqrt(N) * float(np.linalg.norm(run.G0)),
            "second": math.sqrt(N) * float(sv[1]) if sv.size > 1 else 0.0,
            "W0_op": float(singular(run.W0, 1)[0]),
            "W0_fro": float(np.linalg.norm(run.W0)),
            "n": float(run.n), "N": float(N)}


@per_run
def spectrum(run) -> list[dict]:
    r"""Every singular value of :math:`\sqrt N G_0`, decreasing: rows ``{"index": i, "s"}``."""
    sv = math.sqrt(run.N) * singular(_gradient(run, "spectrum"))
    return [{"index": i + 1, "s": float(s)} for i, s in enumerate(sv)]


def kernel_risk(kinds, *, lam, data: str = "ridge", **options) -> Callable:
    r"""A measure of the run: kernel ridge with each kernel of ``kinds``
    (:func:`helpers.kernels.kernel_matrix`, the CK and NTK built on the run's :math:`W_0`) for
    the penalties ``lam``, fitted on the ridge set (``data="ridge"``, the n points the trained
    features' readout sees) or on the first batch and the ridge set (``"both"``, 2n points),
    its risk on the run's test points: rows ``{"model": kind, "lam", "risk"}``."""
    kinds = [check_choice("kinds", k, KERNEL_NAMES) for k in np.atleast_1d(kinds)]
    lambdas = check_lambdas(lam)
    check_choice("data", data, ("ridge", "both"))

    @per_run
    def kernel_ridge(run) -> list[dict]:
        Xr, yr = run.ridge_data()
        Xk, yk = (Xr, yr) if data == "ridge" else (np.vstack([run.X, Xr]),
                                                   np.concatenate([run.y, yr]))
        opts = dict(W0=run.W0, student=run.student, **options)
        rows = []
        for kind in kinds:
            alpha = kernel_ridge_path(kernel_matrix(kind, Xk, **opts), yk, lambdas)
            errors = (kernel_matrix(kind, Xt, Xk, **opts) @ alpha - target[:, None]
                      for Xt, target in run.test_blocks())
            values, _ = risk_from_errors(errors)
            rows += [{"model": str(kind), "lam": float(lv), "risk": float(r)}
                     for lv, r in zip(lambdas, values, strict=True)]
        return rows

    return kernel_ridge


#: The book's measures by name.
MEASURES = {
    "risk": risk,
    "best_risk": best_risk,
    "gaussian_equivalent": gaussian_equivalent,
    "movement": movement,
    "direction_overlap": direction_overlap,
    "control_overlap": control_overlap,
    "subspace_overlap": subspace_overlap_measure,
    "top_direction": top_direction,
    "parity": parity_split,
    "overlap": overlap,
    "gradient_norms": gradient_norms,
    "spectrum": spectrum,
}


def resolve(measures) -> list[Callable]:
    """The measures named or given: names of :data:`MEASURES`, or callables."""
    items = [measures] if isinstance(measures, str) or callable(measures) else list(measures)
    if not items:
        raise ValueError("measures must name at least one measure")
    out = []
    for m in items:
        if callable(m):
            out.append(m)
        elif isinstance(m, str) and m in MEASURES:
            out.append(MEASURES[m])
        else:
            raise ValueError(f"measures must be names among {sorted(MEASURES)} or functions; "
                             f"got {m!r}")
    return out
