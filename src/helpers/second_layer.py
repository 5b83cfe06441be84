r"""The student's second layer: one object for the simulation and for the theory.

The student is :math:`f(x) = N^{-1/2} a^\top\sigma(W^\top x)` with
:math:`a_i = \xi_i/\sqrt N` (Assumption 1 of Ba et al. 2022 takes :math:`a_i \sim N(0, 1/N)`).
The book uses three kinds of :math:`\xi_i`, all with random signs:

* ``"gaussian"`` (the default everywhere): :math:`\xi_i \sim N(0, 1)`, as in Assumption 1;
* ``"rademacher"``: :math:`\xi_i = \pm 1`, chapter 5's :math:`a_i = \pm 1/\sqrt N`;
* ``(magnitudes, weights)``: :math:`|\xi_i|` takes finitely many values with the given
  probabilities.

A simulation turns standard normal draws :math:`g_i` into :math:`\xi_i` with
:meth:`SecondLayer.scale`: :math:`\xi_i = g_i` for the Gaussian layer,
:math:`\operatorname{sign}(g_i)` for the :math:`\pm 1` layer and
:math:`\operatorname{sign}(g_i)\,Q(2\Phi(|g_i|) - 1)` for finitely many magnitudes
(:math:`Q` the quantile function of their law).  So one seed gives the same :math:`W_0` and
the same signs whatever the layer.  The theory of chapter 5 needs the
law of :math:`|\xi|` as finitely many atoms (:meth:`SecondLayer.atoms`); the Gaussian layer's
half-normal law is replaced by its Gauss rule (:func:`half_normal_rule`).

This module is neither theory nor simulation: both import it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from ._validation import check_positive
from .quadrature import gaussian_rule

__all__ = [
    "DEFAULT",
    "SecondLayer",
    "as_second_layer",
    "half_normal_rule",
    "second_layer_atoms",
]

#: The second layer every function uses unless told otherwise (Assumption 1).
DEFAULT = "gaussian"
#: The named layers.
NAMES = ("gaussian", "rademacher")
#: Atoms of the Gauss rule that stands for the half-normal law in the theory (accuracy:
#: tests/test_large_step_gaussian.py).
GAUSSIAN_RULE_ATOMS = 12

_ALLOWED = ("second_layer must be 'gaussian', 'rademacher', a pair (magnitudes, weights) or "
            "a SecondLayer")


def half_normal_rule(atoms: int):
    r"""The Gauss rule of the half-normal law: the law of :math:`|\xi|`, :math:`\xi\sim N(0,1)`.

    Returns magnitudes :math:`x_j > 0` and probabilities :math:`p_j` (summing to 1) with
    :math:`\sum_j p_j f(x_j) = \int_0^\infty f(x)\,2\varphi(x)\,dx` for every polynomial
    :math:`f` of degree :math:`< 2\,` ``atoms`` (a Gauss rule for the weight
    :math:`e^{-x^2/2}` on the half line: a half-range Gauss-Hermite rule).  Its Jacobi matrix is
    computed by the Lanczos process (with full reorthogonalisation) on a fine discretisation
    of the weight: Gauss-Legendre on 26 unit pieces of :math:`[0, 13]`, 40 nodes each.

    The pair ``half_normal_rule(n)`` is a valid second layer: ``"gaussian"`` in the theory is
    ``half_normal_rule(GAUSSIAN_RULE_ATOMS)``.
    """
    atoms = int(check_positive("atoms", atoms, integer=True))
    z, wz = gaussian_rule(nodes=40, half_width=13.0, pieces=26)
    pos = z > 0
    x, w = z[pos], 2.0 * wz[pos]                 # the half-normal density 2 phi(x)
    if atoms > x.size // 4:
        raise ValueError(f"atoms must be <= {x.size // 4}; got {atoms}")
    q = np.sqrt(w / w.sum())
    Q = np.zeros((x.size, atoms))
    alpha, beta = np.zeros(atoms), np.zeros(atoms)
    q_prev, b = np.zeros_like(q), 0.0
    for k in range(atoms):
        Q[:, k] = q
        v = x * q - b * q_prev
        alpha[k] = q @ v
        v = v - alpha[k] * q
        v -= Q[:, :k + 1] @ (Q[:, :k + 1].T @ v)    # full reorthogonalisation
        b = float(np.linalg.norm(v))
        beta[k] = b
        q_prev, q = q, v / b
    jac = np.diag(alpha) + np.diag(beta[:-1], 1) + np.diag(beta[:-1], -1)
    nodes, vecs = np.linalg.eigh(jac)
    probs = vecs[0] ** 2
    return nodes, probs / probs.sum()


@dataclass(frozen=True)
class SecondLayer:
    r"""A law of :math:`\xi_i = \sqrt N a_i`: its name, and for finitely many magnitudes the
    values of :math:`|\xi|` and their probabilities.  Build one with :func:`as_second_layer`."""

    name: str                       # "gaussian", "rademacher" or "magnitudes"
    magnitudes: tuple = ()          # the values of |xi| ("magnitudes" only)
    weights: tuple = ()             # their probabilities

    def scale(self, g) -> np.ndarray:
        r""":math:`\xi_i` from standard normal draws :math:`g_i` (see the module docstring)."""
        g = np.asarray(g, dtype=float)
        if self.name == "gaussian":
            return g
        if self.name == "rademacher":
            return np.sign(g)
        u = special.erf(np.abs(g) / math.sqrt(2.0))          # 2 Phi(|g|) - 1, uniform on (0, 1)
        j = np.searchsorted(np.cumsum(self.weights), u, side="right")
        return np.sign(g) * np.asarray(self.magnitudes)[np.minimum(j, len(self.weights) - 1)]

    def atoms(self):
        r"""Magnitudes :math:`x_j` and probabilities :math:`p_j` of :math:`|\xi|`, for the theory:
        one atom at 1 (``"rademacher"``), the Gauss rule of the half-normal law
        (``"gaussian"``), or the given pair."""
        if self.name == "rademacher":
            return np.array([1.0]), np.array([1.0])
        if self.name == "gaussian":
            return half_normal_rule(GAUSSIAN_RULE_ATOMS)
        return np.array(self.magnitudes), np.array(self.weights)


def as_second_layer(second_layer=DEFAULT) -> SecondLayer:
    """A :class:`SecondLayer` from a name, a pair ``(magnitudes, weights)`` or a SecondLayer.

    Magnitudes must be finite and >= 0, weights finite, >= 0 and summing to 1 within 1e-9;
    anything else raises ``ValueError`` naming ``second_layer``.
    """
    if isinstance(second_layer, SecondLayer):
        return second_layer
    if isinstance(second_layer, str):
        if second_layer in NAMES:
            return SecondLayer(second_layer)
        raise ValueError(f"{_ALLOWED}; got {second_layer!r}")
    try:
        mags, weights = second_layer
        mags = np.asarray(mags, dtype=float)
        weights = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{_ALLOWED} (two 1-d arrays); got {second_layer!r}") from None
    if mags.ndim != 1 or mags.size == 0:
        raise ValueError("second_layer: the magnitudes must be a non-empty 1-d array; got "
                         f"{second_layer[0]!r}")
    if not np.all(np.isfinite(mags)) or np.any(mags < 0):
        raise ValueError("second_layer: the magnitudes must be finite numbers >= 0; got "
                         f"{second_layer[0]!r}")
    if weights.shape != mags.shape:
        raise ValueError(f"second_layer: {weights.size} weights for {mags.size} magnitudes; "
                         "the two arrays must have the same length")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("second_layer: the weights must be finite numbers >= 0; got "
                         f"{second_layer[1]!r}")
    if abs(weights.sum() - 1.0) > 1e-9:
        raise ValueError(f"second_layer: the weights must sum to 1; they sum to "
                         f"{weights.sum()!r}")
    return SecondLayer("magnitudes", tuple(mags.tolist()), tuple(weights.tolist()))


def second_layer_atoms(second_layer=DEFAULT):
    r"""Magnitudes :math:`x_j` and probabilities :math:`p_j` of :math:`|\xi_i| = |\sqrt N a_i|`
    for the theory (:meth:`SecondLayer.atoms`); ``ValueError`` naming ``second_layer`` for
    anything that is not a second layer."""
    return as_second_layer(second_layer).atoms()
