r"""Two (or a few) gradient steps on the first layer: fresh batches or the same batch (chapter 7).

The step is the book's (:mod:`helpers.first_step`, eq. 2.1 of Ba et al.):
:math:`W_{t+1} = W_t + \eta\sqrt N\,G(W_t; X_t, y_t)`, the second layer fixed.  A *fresh*
protocol draws a new batch :math:`(X_t, y_t)` of ``n`` samples for every step; a *reused*
protocol takes every step on the first batch (multi-pass gradient descent, as in Dandi et al.,
2024).  Both start from the same :math:`W_0` and take their first step on the same batch, so
they differ only through the batches of the later steps.

Functions
---------
steps_on_batches        W_0, ..., W_T for a given list of batches (from helpers.first_step)
two_steps               W_1, W_2 for a first batch and (optionally) a second one
transformed_label_vector  (1/n) X^T T(y): the direction a step on transformed labels points to
top_direction_overlap   share of span(B) in the top left singular vector of a weight change
run_steps               one seeded run of the three protocols (one step, fresh, reused)
singular_values         the largest singular values of a weight matrix
count_outliers          how many singular values lie above a measured bulk edge
second_step_spectra     one seeded run: spectra of W_0, W_1 and W_2 (fresh and reused) and what
                        the second step's change points to
"""

from __future__ import annotations

import copy

import numpy as np
from scipy import linalg

from ._validation import (
    check_integer,
    check_lambdas,
    check_matrix,
    check_nonnegative,
    check_positive,
)
from .data import init_student, sample_data, spawn_streams
from .feature_maps import features
from .first_step import steps_on_batches
from .multi_index import direction_overlaps, sample_directions
from .ridge import ridge_path
from .risk import prediction_risk
from .second_layer import DEFAULT, as_second_layer

__all__ = ["PROTOCOLS", "RUN_STREAMS", "steps_on_batches", "two_steps", "transformed_label_vector",
           "top_direction_overlap", "run_steps", "singular_values", "count_outliers",
           "second_step_spectra"]

#: The protocols of :func:`run_steps`, in order.
PROTOCOLS = ("one step", "fresh", "reused")

#: The named streams of one run of :func:`run_steps` (children of its seed, in this order):
#: the teacher, :math:`(W_0, a)`, the first batch, the fresh batches, the ridge data and the
#: test points.  :func:`second_step_spectra` uses the first four.
RUN_STREAMS = ("teacher", "init", "batch", "fresh", "ridge", "test")


def two_steps(X, y, W0, a, student, *, eta1, eta2, X2=None, y2=None):
    r"""Two steps: the first on ``(X, y)``, the second on ``(X2, y2)`` (fresh) or, when these
    are omitted, on ``(X, y)`` again (reused).

    Returns
    -------
    W1, W2 : ndarray of shape (d, N)
    """
    if (X2 is None) != (y2 is None):
        raise ValueError("X2 and y2 must be given together (fresh batch) or both omitted "
                         "(reused batch)")
    second = (X, y) if X2 is None else (X2, y2)
    _, W1, W2 = steps_on_batches(W0, a, student, [(X, y), second], eta=[eta1, eta2])
    return W1, W2


def transformed_label_vector(X, y, transform=None) -> np.ndarray:
    r""":math:`\frac1n X^\top T(y)`, the direction that a gradient on the labels
    :math:`T(y)` points to (``transform=None``: :math:`T(y) = y`); shape (d,)."""
    X = check_matrix("X", X, 2)
    y = check_matrix("y", y, 1, (X.shape[0],))
    t = y if transform is None else np.asarray(transform(y), dtype=float)
    if t.shape != y.shape:
        raise ValueError(f"transform must map shape {y.shape} to the same shape; got {t.shape}")
    return X.T @ t / X.shape[0]


def top_direction_overlap(dW, B) -> float:
    r"""Share of span(B) in the top left singular vector :math:`u_1` of ``dW`` (d, N):
    :math:`\|B^\top u_1\|^2` (about k/d for a direction that knows nothing)."""
    dW = check_matrix("dW", dW, 2)
    B = check_matrix("B", B, 2, (dW.shape[0], None))
    s, vecs, left = _top_eigh(dW, 1)  # the top eigenvector of the smaller Gram matrix
    if left:
        u1 = vecs[:, 0]
    elif s[0] > 0:
        u1 = dW @ vecs[:, 0] / s[0]
    else:  # dW = 0: no direction; any unit vector (the SVD's choice)
        u1 = np.linalg.svd(dW, full_matrices=False)[0][:, 0]
    return float(np.sum((B.T @ u1) ** 2))


def run_steps(teacher, *, d: int, psi1: float, psi2: float, eta: float, k: int = 1,
              steps: int = 2, student="relu", second_layer=DEFAULT,
              lam=None, n_test: int = 4000, seed=0) -> dict:
    r"""One seeded run of three protocols on shared draws: ``"one step"`` (:math:`W_1`),
    ``"fresh"`` (``steps`` steps, a new batch each) and ``"reused"`` (``steps`` steps on
    the first batch).

    The protocols are paired: one teacher, one :math:`(W_0, a)` and one first batch, so
    all three share the first step :math:`W_1`; the readout risk of every protocol is ridge
    on the same fresh data, measured on the same test points.  Each stage draws from its
    own child of ``seed`` (:data:`RUN_STREAMS`, :func:`helpers.data.spawn_streams`).

    Parameters
    ----------
    teacher : callable
        Maps the projections ``Z = X @ B`` of shape (n, k) to labels of shape (n,).
    d : int
    psi1, psi2 : float
        ``n = round(psi1 d)`` samples per batch, ``N = round(psi2 d)`` neurons.
    eta : float
        Learning rate of every step (book's scaling: the neuron moves by about
        :math:`\eta |a_i|\sqrt N` times the average gradient).
    k : int
        Number of teacher directions.
    steps : int
        Steps of the fresh and reused protocols (>= 2).
    student : str, callable or Activation
    second_layer : "gaussian" (default), "rademacher", (magnitudes, weights) or SecondLayer
        The law of :math:`\sqrt N a_i` (:mod:`helpers.second_layer`).
    lam : float or sequence, optional
        Ridge penalties for the readout risk (ridge on ``n`` fresh samples, then
        :func:`helpers.risk.prediction_risk`); None skips the risk.
    n_test : int
    seed : int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator

    Returns
    -------
    dict
        protocol -> {"Ws": the weights ``[W_0, W_1, ...]`` of its steps;
        "overlaps": RMS cosine of the neurons with each direction, shape (k,);
        "top": :func:`top_direction_overlap` of :math:`W_T - W_0`;
        "risk": ndarray (one per penalty) when ``lam`` is given}.
    """
    check_positive("d", d, integer=True)
    check_positive("psi1", psi1)
    check_positive("psi2", psi2)
    check_nonnegative("eta", eta)
    check_integer("k", k, minimum=1)
    check_integer("steps", steps, minimum=2)
    as_second_layer(second_layer)
    check_positive("n_test", n_test, integer=True)
    if not callable(teacher):
        raise ValueError(f"teacher must be a callable of the (n, k) projections; got "
                         f"{type(teacher).__name__}")
    lam = None if lam is None else check_lambdas(lam)
    n, N = max(1, round(psi1 * d)), max(1, round(psi2 * d))
    streams = spawn_streams(seed, RUN_STREAMS)
    B = sample_directions(d, k, rng=streams["teacher"])
    W0, a = init_student(d, N, rng=streams["init"], second_layer=second_layer)
    first = sample_data(n, B, teacher, rng=streams["batch"])
    fresh = [sample_data(n, B, teacher, rng=streams["fresh"]) for _ in range(steps - 1)]
    W1 = steps_on_batches(W0, a, student, [first], eta=eta)[1]  # the shared first step
    runs = {"one step": [W0, W1],
            "fresh": [W0, *steps_on_batches(W1, a, student, fresh, eta=eta)],
            "reused": [W0, *steps_on_batches(W1, a, student, [first] * (steps - 1),
                                             eta=eta)]}
    if lam is not None:  # drawn once: every protocol's ridge sees the same data
        Xr, yr = sample_data(n, B, teacher, rng=streams["ridge"])
    out = {}
    for name, Ws in runs.items():
        W = Ws[-1]
        res = {"Ws": Ws, "overlaps": direction_overlaps(W, B),
               "top": top_direction_overlap(W - W0, B)}
        if lam is not None:  # a copy of the test stream: the same test points for each W
            coef = ridge_path(features(Xr, W, student), yr, lam)
            res["risk"] = prediction_risk(W, coef, student, teacher, B, n_test=n_test,
                                          rng=copy.deepcopy(streams["test"]))[0]
        out[name] = res
    return out


def _top_eigh(W, top: int):
    """The ``top`` largest eigenpairs of the smaller Gram matrix of ``W`` (decreasing), and
    whether that Gram is :math:`W W^\\top` (left vectors) or :math:`W^\\top W`."""
    left = W.shape[0] <= W.shape[1]
    C = W @ W.T if left else W.T @ W
    m = C.shape[0]
    top = min(top, m)
    vals, vecs = linalg.eigh(C, subset_by_index=[m - top, m - 1])
    return np.sqrt(np.clip(vals[::-1], 0.0, None)), vecs[:, ::-1], left


def singular_values(W, top: int | None = None) -> np.ndarray:
    """The singular values of ``W`` in decreasing order (the ``top`` largest when given;
    these come from the top eigenvalues of the smaller Gram matrix, several times faster
    than a full SVD at the sizes of chapter 7)."""
    W = check_matrix("W", W, 2)
    if top is None:
        return np.linalg.svd(W, compute_uv=False)
    check_integer("top", top, minimum=1)
    return _top_eigh(W, top)[0]


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


def second_step_spectra(teacher, *, d: int, psi1: float, psi2: float, eta1: float,
                        eta2: float, student, second_layer=DEFAULT, top: int = 4,
                        seed=0) -> dict:
    r"""One seeded run of a first step and a second step on the same or on a fresh batch.

    From :math:`W_0` and a first batch, :math:`W_1` is one step of size ``eta1``; then
    :math:`W_2` is one step of size ``eta2`` on the first batch again (``"reused"``) or on a
    fresh one (``"fresh"``).  Returns the largest singular values of each matrix, and the
    squared cosine of :math:`\beta_*` with the top left singular vector of the second step's
    own change :math:`W_2 - W_1` (about :math:`1/d` for a direction that knows nothing).

    Parameters
    ----------
    teacher : callable
        Maps the projections ``Z = X @ beta[:, None]`` of shape (n, 1) to labels of shape
        (n,) (as in :func:`run_steps`; no centring by quadrature).
    d : int
    psi1, psi2 : float
        ``n = round(psi1 d)`` samples per batch, ``N = round(psi2 d)`` neurons.
    eta1, eta2 : float
        Learning rates (>= 0) of the two steps in the book's scaling.
    student : str, callable or Activation
    second_layer : "gaussian" (default), "rademacher", (magnitudes, weights) or SecondLayer
        The law of :math:`\sqrt N a_i` (:mod:`helpers.second_layer`).
    top : int
        How many singular values to return per matrix.
    seed : int or sequence of int

    Returns
    -------
    dict
        ``"W0"``, ``"W1"``, ``"reused"``, ``"fresh"``: ndarray (top,) of singular values;
        ``"cos2"``: {"reused": float, "fresh": float}.
    """
    check_positive("d", d, integer=True)
    check_positive("psi1", psi1)
    check_positive("psi2", psi2)
    check_nonnegative("eta1", eta1)
    check_nonnegative("eta2", eta2)
    as_second_layer(second_layer)
    check_integer("top", top, minimum=1)
    if not callable(teacher):
        raise ValueError(f"teacher must be a callable of the (n, 1) projections; got "
                         f"{type(teacher).__name__}")
    n, N = max(1, round(psi1 * d)), max(1, round(psi2 * d))
    streams = spawn_streams(seed, RUN_STREAMS[:4])  # the streams of run_steps
    B = sample_directions(d, 1, rng=streams["teacher"])
    W0, a = init_student(d, N, rng=streams["init"], second_layer=second_layer)
    first = sample_data(n, B, teacher, rng=streams["batch"])
    fresh = sample_data(n, B, teacher, rng=streams["fresh"])
    W1 = steps_on_batches(W0, a, student, [first], eta=eta1)[-1]
    W2 = {name: steps_on_batches(W1, a, student, [batch], eta=eta2)[-1]
          for name, batch in (("reused", first), ("fresh", fresh))}
    out = {"W0": singular_values(W0, top), "W1": singular_values(W1, top)}
    out.update({name: singular_values(W, top) for name, W in W2.items()})
    out["cos2"] = {name: top_direction_overlap(W - W1, B) for name, W in W2.items()}
    return out
