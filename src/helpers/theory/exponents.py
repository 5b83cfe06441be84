r"""Information and generative exponents of a teacher (chapter 7).

For a link :math:`g` of :math:`z \sim N(0, I_k)` (a single-index teacher is :math:`k = 1`)
and labels :math:`y = g(z)`:

* the **information exponent** is the smallest degree :math:`j \ge 1` with a non-zero
  Hermite coefficient, :math:`E[g(z)\,\mathrm{He}_\alpha(z)] \ne 0` for some multi-index
  :math:`|\alpha| = j` (Ben Arous et al., 2021; for :math:`k > 1` this is the lowest degree,
  not Abbe et al.'s leap);
* the **generative exponent** is the smallest degree :math:`j \ge 1` with
  :math:`E[\mathrm{He}_\alpha(z)\,|\,y] \ne 0` for some :math:`|\alpha| = j`, that is, the
  smallest degree that some transformation :math:`T(y)` of the label correlates with:
  :math:`\sup_T E[T(y)\mathrm{He}_\alpha(z)]^2/E[T(y)^2] = E\big[E[\mathrm{He}_\alpha(z)|y]^2\big]`
  (Damian et al., 2024, who write it :math:`k^\star`; Lee et al., 2024, write it :math:`p_*`).
  Taking :math:`T(y) = y` shows that it is at most the information exponent.

Both are computed numerically.  The information exponent by a tensor product of the book's
Gauss-Legendre rule (:func:`helpers.quadrature.gaussian_rule`, 30 nodes on each half-line
piece, cut at 0 and at a named link's kinks; about 1e-13 for the links of the tests).  A
callable with a jump or kink away from 0 converges slowly on that rule: a coefficient that
vanishes exactly can then come out near 1e-5 and pass ``tol`` (the information exponent
comes out too small); give such a link as an :class:`Activation` with its ``kinks``.
The generative exponent by a fine midpoint grid with Gaussian weights, the grid points
grouped into bins of (weighted) quantiles of :math:`y` (labels that are equal up to rounding
always share a bin: see below), and

.. math::

    V_j = \sum_{|\alpha| = j} \frac{1}{\alpha!}\sum_b P(b)\,E[\mathrm{He}_\alpha(z)\,|\,b]^2,

a lower bound of :math:`\sum_\alpha E[E[\mathrm{He}_\alpha|y]^2]/\alpha!` that converges to it
as the bins shrink.  A degree counts when :math:`V_j` exceeds ``tol``.  A symmetry of the link
that forces :math:`E[\mathrm{He}_\alpha|y] = 0` (e.g. :math:`g` even) holds on the grid,
which is symmetric about 0 and avoids 0, as long as the points that the symmetry maps onto
each other share a bin; then such degrees give :math:`V_j` at the level of rounding (about
1e-30), far below ``tol``.  Their labels agree only up to rounding: :math:`z^4` and
:math:`(-z)^4` can differ in the last bit, and do on some CPUs (NumPy's vectorised power
takes different paths).  So labels are not grouped by exact equality but by closeness:
sorted labels closer than ``_TIE_RTOL`` (1e-12) times :math:`\max|y|` to their neighbour
share a group, and a group never straddles two bins (:func:`_label_bins`).  Merging labels
that close only coarsens the partition by :math:`y`, so :math:`V_j` stays a lower bound of the
same limit.  ``tests/test_exponents.py`` perturbs every label by a relative 1e-14 and checks
that every known answer survives.

Functions
---------
information_exponent   smallest degree with a non-zero Hermite coefficient of g
generative_exponent    smallest degree that a transformation of y reaches
hermite_energy         the V_j above (and the Hermite energies) for degrees 1..max_degree
conditional_mean       y -> E[He_j(z) | y] of a single-index link, as a callable
transformed_label_alignment
                       limit of the squared cosine between (1/n) X^T T(y) and the teacher
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
from numpy.polynomial import hermite_e

from .._validation import check_choice, check_integer, check_positive
from ..activations import Activation, get_activation
from ..quadrature import gaussian_rule

__all__ = ["information_exponent", "generative_exponent", "hermite_energy", "conditional_mean",
           "transformed_label_alignment"]

#: Grid points per axis (midpoint rule on [-L, L]) and number of y-bins, by k.
_GRID = {1: (100_000, 1000), 2: (600, 200), 3: (64, 40)}
_HALF_WIDTH = 8.0  # the Gaussian tail beyond 8 weighs 1.2e-15
#: Sorted labels within _TIE_RTOL * max|y| of their neighbour are one group (ties up to
#: rounding: a few ulps of the largest label, far below any real difference on the grid).
_TIE_RTOL = 1e-12


def _link(link, k: int) -> Callable:
    """A function of an (n, k) array of Gaussian coordinates, returning shape (n,)."""
    if k == 1:
        if isinstance(link, str | Activation):
            act = link if isinstance(link, Activation) else get_activation(link)
            return lambda Z: np.asarray(act(Z[:, 0]), dtype=float)
        if not callable(link):
            raise ValueError(f"link must be a name, an Activation or a callable; got "
                             f"{type(link).__name__}")
        return lambda Z: np.asarray(link(Z[:, 0]), dtype=float)
    if not callable(link):
        raise ValueError(f"link of a k-index teacher (k = {k}) must be a callable of an "
                         f"(n, k) array; got {type(link).__name__}")
    return lambda Z: np.asarray(link(Z), dtype=float)


def _multi_indices(k: int, j: int):
    """All alpha in N^k with |alpha| = j."""
    for cut in itertools.combinations(range(j + k - 1), k - 1):
        edges = (-1, *cut, j + k - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(k))


def _hermite_columns(Z, max_degree):
    """He_0..He_max(z_i) for each coordinate: array (k, max_degree + 1, n)."""
    eye = np.eye(max_degree + 1)
    return np.stack([np.stack([hermite_e.hermeval(Z[:, i], eye[j])
                               for j in range(max_degree + 1)]) for i in range(Z.shape[1])])


def _he_alpha(H, alpha):
    out = H[0, alpha[0]].copy()
    for i in range(1, len(alpha)):
        out *= H[i, alpha[i]]
    return out


def _alpha_factorial(alpha):
    return math.prod(math.factorial(a) for a in alpha)


def _check(k, max_degree):
    check_integer("k", k, minimum=1)
    check_choice("k", k, tuple(_GRID))
    check_integer("max_degree", max_degree, minimum=1)


def _values(g, Z, k):
    y = g(Z)
    if y.shape != (Z.shape[0],):
        raise ValueError(f"link must map an (n, {k}) array to shape (n,); got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise ValueError("link returned non-finite values on the Gaussian grid")
    return y


def _coefficient_energy(link, k, max_degree, nodes=30):
    """sum_{|alpha|=j} E[g He_alpha]^2 / alpha! for j = 0..max_degree (a tensor rule of
    :func:`helpers.quadrature.gaussian_rule`: Gauss-Legendre on [-12, 0] and [0, 12])."""
    act = link if isinstance(link, Activation) else (
        get_activation(link) if k == 1 and isinstance(link, str) else None)
    z, w = gaussian_rule(act.kinks if act is not None else (), nodes=nodes)
    Z = np.stack([c.ravel() for c in np.meshgrid(*[z] * k, indexing="ij")], axis=1)
    W = np.prod(np.stack([c.ravel() for c in np.meshgrid(*[w] * k, indexing="ij")]), axis=0)
    y = _values(_link(link, k), Z, k)
    H = _hermite_columns(Z, max_degree)
    energy = np.zeros(max_degree + 1)
    for j in range(max_degree + 1):
        for alpha in _multi_indices(k, j):
            c = W @ (y * _he_alpha(H, alpha))
            energy[j] += c * c / _alpha_factorial(alpha)
    return energy, float(W @ (y * y))


def _label_bins(y, W, bins: int):
    """Bin of each label: ``bins`` bins of (weighted) quantiles of ``y``, with labels that are
    equal up to rounding always in the same bin.

    The labels are sorted; a label within ``_TIE_RTOL * max|y|`` of its sorted predecessor
    joins its group, and a group's bin is set by the weight strictly before its first member.
    """
    order = np.argsort(y, kind="stable")
    ys, cw = y[order], np.cumsum(W[order]) - W[order]  # weight strictly before each point
    starts = np.ones(ys.size, dtype=bool)
    starts[1:] = np.diff(ys) > _TIE_RTOL * np.max(np.abs(ys))
    first = np.flatnonzero(starts)[np.cumsum(starts) - 1]  # first member of each one's group
    bin_sorted = np.minimum((cw[first] * bins).astype(int), bins - 1)
    bin_id = np.empty_like(bin_sorted)
    bin_id[order] = bin_sorted
    return bin_id


def _binned_grid(link, k, grid=None, bins=None):
    """Midpoint grid (an (m^k, k) array), its weights, the labels and their y-bins."""
    m, b = _GRID[k]
    m, b = grid or m, bins or b
    half = (np.arange(m // 2) + 0.5) * (2 * _HALF_WIDTH / m)
    z = np.concatenate([-half[::-1], half])  # midpoints: exactly symmetric, never 0
    w = np.exp(-0.5 * z * z)
    Z = np.stack([c.ravel() for c in np.meshgrid(*[z] * k, indexing="ij")], axis=1)
    W = np.prod(np.stack([c.ravel() for c in np.meshgrid(*[w] * k, indexing="ij")]), axis=0)
    W = W / W.sum()
    y = _values(_link(link, k), Z, k)
    return Z, W, y, _label_bins(y, W, b), b


def _conditional_energies(link, k, max_degree, grid=None, bins=None):
    """Yield V_j of the module docstring for j = 1..max_degree, one degree at a time."""
    Z, W, y, bin_id, b = _binned_grid(link, k, grid, bins)
    mass = np.bincount(bin_id, weights=W, minlength=b)
    keep = mass > 0
    H = _hermite_columns(Z, max_degree)
    for j in range(1, max_degree + 1):
        v = 0.0
        for alpha in _multi_indices(k, j):
            s = np.bincount(bin_id, weights=W * _he_alpha(H, alpha), minlength=b)[keep]
            v += float(np.sum(s * s / mass[keep])) / _alpha_factorial(alpha)
        yield v


def hermite_energy(link, *, k: int = 1, max_degree: int = 6):
    r"""Per degree :math:`j = 0, \dots,` ``max_degree``: the Hermite energy of the link,
    :math:`\sum_{|\alpha|=j} E[g\,\mathrm{He}_\alpha]^2/\alpha!` (relative to
    :math:`E g^2`), and the conditional energy :math:`V_j` of the module docstring (the share
    of degree :math:`j` that transformations of :math:`y` reach; :math:`V_0 = 1`).

    Parameters
    ----------
    link : str, Activation or callable
        ``k = 1``: a name (``helpers.ACTIVATION_NAMES``), an Activation or a scalar callable.
        ``k > 1``: a callable mapping an (n, k) array to shape (n,).
    k : {1, 2, 3}
        Number of teacher directions.
    max_degree : int

    Returns
    -------
    coefficient_share : ndarray of shape (max_degree + 1,)
    conditional : ndarray of shape (max_degree + 1,)
    """
    _check(k, max_degree)
    energy, second = _coefficient_energy(link, k, max_degree)
    if second <= 0:
        raise ValueError("link is zero on the Gaussian grid; its exponents are undefined")
    return energy / second, np.array([1.0, *_conditional_energies(link, k, max_degree)])


def information_exponent(link, *, k: int = 1, max_degree: int = 8, tol: float = 1e-10) -> int:
    r"""Smallest degree :math:`j \ge 1` with :math:`\sum_{|\alpha|=j}
    E[g\,\mathrm{He}_\alpha]^2/\alpha! > ` ``tol`` :math:`\times E g^2`.

    Known answers: tanh, ReLU, erf: 1; :math:`\mathrm{He}_2`, :math:`|z|`: 2;
    :math:`\mathrm{He}_3`: 3; :math:`z_1 z_2`: 2.

    Raises
    ------
    ValueError
        If no degree up to ``max_degree`` qualifies (e.g. a constant link).
    """
    _check(k, max_degree)
    check_positive("tol", tol)
    energy, second = _coefficient_energy(link, k, max_degree)
    for j in range(1, max_degree + 1):
        if second > 0 and energy[j] > tol * second:
            return j
    raise ValueError(f"link has no Hermite component of degree 1..{max_degree}; raise "
                     f"max_degree (got {max_degree}) or check the link")


def generative_exponent(link, *, k: int = 1, max_degree: int = 8, tol: float = 1e-6,
                        grid: int | None = None, bins: int | None = None) -> int:
    r"""Smallest degree :math:`j \ge 1` at which some transformation of the label reaches
    :math:`\mathrm{He}_j`: :math:`E[\mathrm{He}_\alpha(z)\,|\,y] \ne 0` for some
    :math:`|\alpha| = j`, measured by :math:`V_j >` ``tol`` (module docstring).

    Known answers: tanh, ReLU, erf: 1; :math:`\mathrm{He}_2`, :math:`|z|`: 2 (even links: no
    transformation of :math:`y` is odd in :math:`z`); :math:`\mathrm{He}_3`: 1 (its
    information exponent is 3); :math:`z_1 z_2`: 2; :math:`\mathrm{sign}(z_1 z_2 z_3)`: 3.

    Parameters
    ----------
    link, k, max_degree : as in :func:`hermite_energy`
    tol : float
        Threshold on :math:`V_j` (a share of :math:`E\,\mathrm{He}_\alpha^2 = \alpha!`).
    grid, bins : int, optional
        Grid points per axis (even) and number of y-bins; defaults by ``k``:
        (100000, 1000), (600, 200), (64, 40).

    Raises
    ------
    ValueError
        If no degree up to ``max_degree`` qualifies (a constant link).
    """
    _check(k, max_degree)
    check_positive("tol", tol)
    if grid is not None:
        check_integer("grid", grid, minimum=2)
        if grid % 2:
            raise ValueError(f"grid must be even (so that 0 is not a grid point); got {grid}")
    if bins is not None:
        check_integer("bins", bins, minimum=2)
    for j, v in enumerate(_conditional_energies(link, k, max_degree, grid, bins), start=1):
        if v > tol:
            return j
    raise ValueError(f"no transformation of y reaches a Hermite degree 1..{max_degree}; raise "
                     f"max_degree (got {max_degree}) or check the link (is it constant?)")


def _single_index_grid(link):
    """Midpoint grid, weights, labels and y-bins of a single-index link (k = 1)."""
    Z, w, y, bin_id, b = _binned_grid(link, 1)
    return Z[:, 0], w, y, bin_id, b


def conditional_mean(link, *, degree: int = 1) -> Callable:
    r"""The function :math:`T_j(y) = E[\mathrm{He}_j(z)\,|\,y]` of a single-index link,
    from the y-bins of :func:`generative_exponent` (linear interpolation between the bins'
    mean labels; constant beyond the extreme bins).

    For ``degree = 1``, :math:`T_1(y) = E[z|y]` is the transformation of the label that
    correlates best with :math:`z`: :math:`E[T_1(y) z] = E[T_1(y)^2] = V_1`.
    """
    check_integer("degree", degree, minimum=1)
    z, w, y, bin_id, b = _single_index_grid(link)
    mass = np.bincount(bin_id, weights=w, minlength=b)
    keep = mass > 0
    y_mean = np.bincount(bin_id, weights=w * y, minlength=b)[keep] / mass[keep]
    he = hermite_e.hermeval(z, np.eye(degree + 1)[degree])
    t_mean = np.bincount(bin_id, weights=w * he, minlength=b)[keep] / mass[keep]
    order = np.argsort(y_mean, kind="stable")
    y_mean, t_mean = y_mean[order], t_mean[order]

    def transform(labels):
        return np.interp(np.asarray(labels, dtype=float), y_mean, t_mean)

    transform.__name__ = f"E[He_{degree}(z) | y]"
    return transform


def transformed_label_alignment(link, transform=None, *, psi1: float) -> float:
    r"""Limit (:math:`n = \psi_1 d`, :math:`d\to\infty`) of the squared cosine between
    :math:`v = \frac1n X^\top T(y)` and the teacher direction :math:`\beta_*`:

    .. math::

        \frac{E[T(y)z]^2}{E[T(y)z]^2 + E[T(y)^2]/\psi_1},

    since :math:`v = E[T(y)z]\,\beta_* + \xi` with :math:`\|\xi\|^2 \to E[T(y)^2]/\psi_1`
    (the same computation as Proposition 2's spike, chapter 2).  ``transform=None`` takes
    the best transformation :math:`T = E[z|y]` (:func:`conditional_mean`), for which the
    value is :math:`\psi_1 V_1/(\psi_1 V_1 + 1)`: non-zero exactly when the generative
    exponent is 1.  Expectations on the grid of :func:`generative_exponent`.
    """
    check_positive("psi1", psi1)
    z, w, y, bin_id, b = _single_index_grid(link)
    if transform is None:
        mass = np.bincount(bin_id, weights=w, minlength=b)
        keep = mass > 0
        s = np.bincount(bin_id, weights=w * z, minlength=b)[keep]
        v1 = float(np.sum(s * s / mass[keep]))
        return psi1 * v1 / (psi1 * v1 + 1.0)
    if not callable(transform):
        raise ValueError(f"transform must be a callable of the labels or None; got "
                         f"{type(transform).__name__}")
    t = np.asarray(transform(y), dtype=float)
    if t.shape != y.shape:
        raise ValueError(f"transform must map labels of shape {y.shape} to the same shape; "
                         f"got {t.shape}")
    etz, et2 = float(w @ (t * z)), float(w @ (t * t))
    if et2 <= 0:
        raise ValueError("transform is zero on the labels; the alignment is undefined")
    return etz**2 / (etz**2 + et2 / psi1)
