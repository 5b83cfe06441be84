"""Checks of the public functions' arguments, in one place (private: not part of the API).

Every check returns the checked value (converted where said) or raises ``ValueError`` naming
the parameter and what is allowed.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np


def check_positive(name: str, value, *, integer: bool = False):
    """Return ``value`` if it is a finite number > 0 (an integer if ``integer``)."""
    ok_type = Integral if integer else Real
    if isinstance(value, bool) or not isinstance(value, ok_type) or not math.isfinite(value) \
            or value <= 0:
        kind = "a positive integer" if integer else "a finite number > 0"
        raise ValueError(f"{name} must be {kind}; got {value!r}")
    return value


def check_nonnegative(name: str, value):
    """Return ``value`` if it is a finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) \
            or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    return value


def check_integer(name: str, value, *, minimum: int | None = None, nonzero: bool = False,
                  hint: str = "") -> int:
    """Return ``int(value)`` if it is an integer (Python's or NumPy's, not a bool), at least
    ``minimum`` where given and not 0 if ``nonzero``; ``hint`` is added to the message."""
    if isinstance(value, bool) or not isinstance(value, Integral) \
            or (minimum is not None and value < minimum) or (nonzero and value == 0):
        kind = {None: "an integer", 0: "a non-negative integer", 1: "a positive integer"}.get(
            minimum, f"an integer >= {minimum}")
        if nonzero:
            kind = "a non-zero integer"
        raise ValueError(f"{name} must be {kind}{hint}; got {value!r}")
    return int(value)


def check_finite(name: str, value, *, hint: str = "") -> float:
    """Return ``float(value)`` if it is a finite real number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value!r}{hint}")
    return float(value)


def check_real(name: str, value) -> float:
    """Return ``float(value)`` if it is a real number (not a bool; may be infinite)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a real number; got {value!r}")
    return float(value)


def check_choice(name: str, value, allowed):
    """Return ``value`` if it is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}; got {value!r}")
    return value


def check_array(name: str, value, *, positive: bool) -> np.ndarray:
    """``value`` as a float array (a number or 1-d), every entry finite and > 0 (``positive``)
    or >= 0."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        arr = np.array([np.nan])   # not a number: reported below
    bad = ~np.isfinite(arr) | ((arr <= 0) if positive else (arr < 0))
    if arr.ndim > 1 or arr.size == 0 or np.any(bad):
        what = "> 0" if positive else ">= 0"
        raise ValueError(f"{name} must be a finite number {what} or a 1-d array of them; got "
                         f"{value!r}")
    return arr


def check_rng(rng) -> np.random.Generator:
    """Return ``rng`` if it is a ``numpy.random.Generator``."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator (np.random.default_rng(seed)); "
            f"got {type(rng).__name__}"
        )
    return rng


def check_matrix(name: str, A, ndim: int, shape=None) -> np.ndarray:
    """``A`` as a float array with ``ndim`` axes and, where ``shape`` is not None, those sizes."""
    A = np.asarray(A, dtype=float)
    if A.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array; got shape {A.shape}")
    if shape is not None:
        for axis, expected in enumerate(shape):
            if expected is not None and A.shape[axis] != expected:
                raise ValueError(
                    f"{name} has shape {A.shape}; expected {tuple(shape)} (None = any)"
                )
    return A


def check_lambdas(lambdas) -> np.ndarray:
    """``lambdas`` as a 1-d float array, all finite and > 0 (ridge penalties)."""
    lam = np.atleast_1d(np.asarray(lambdas, dtype=float))
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError(f"lam must be a number or a 1-d sequence of numbers; got shape "
                         f"{lam.shape}")
    if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
        raise ValueError(f"lam must be finite and > 0 (the ridge penalty); got {lam.tolist()}")
    return lam


def problem_sizes(d, psi1, psi2) -> tuple[int, int, int]:
    """Return ``(d, n, N)`` with ``n = round(psi1 d)``, ``N = round(psi2 d)`` (at least 1).

    Raises ``ValueError`` unless ``d`` is a positive integer and the ratios are > 0.
    """
    check_positive("d", d, integer=True)
    check_positive("psi1", psi1)
    check_positive("psi2", psi2)
    n, N = max(1, round(psi1 * d)), max(1, round(psi2 * d))
    return int(d), int(n), int(N)
