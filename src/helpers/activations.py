r"""Named activations and teachers, their derivatives and Hermite coefficients.

For :math:`z \sim N(0, 1)` the book uses the coefficients of Ba et al. (2022, §2)

.. math::

    \mu_0 = E\,\sigma(z), \qquad \mu_1 = E\,z\sigma(z), \qquad
    \mu_2^2 = E\,\sigma(z)^2 - \mu_0^2 - \mu_1^2 .

:math:`\mu_2` is the norm of the whole nonlinear part of :math:`\sigma`, not its second
Hermite coefficient.  Closed forms are used where they exist; otherwise the Gaussian
integrals are computed by adaptive quadrature on each side of the activation's kinks, which
keeps the error near 1e-12 even for ReLU.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from .quadrature import gaussian_expectation

__all__ = [
    "Activation",
    "ACTIVATION_NAMES",
    "get_activation",
    "hermite_coefficients",
    "is_odd",
    "gaussian_expectation",
    "as_student",
    "as_teacher",
    "is_registered",
]

_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)


def _relu(z):
    return np.maximum(z, 0.0)


def _relu_d(z):
    return (np.asarray(z) > 0).astype(float)


def _softplus(z):
    return np.logaddexp(0.0, z)


def _sigmoid(z):
    return special.expit(z)


def _erf_d(z):
    return 2.0 / math.sqrt(math.pi) * np.exp(-np.square(z))


def _tanh_d(z):
    return 1.0 - np.square(np.tanh(z))


def _identity(z):
    return np.asarray(z, dtype=float)


def _one(z):
    return np.ones_like(np.asarray(z, dtype=float))


def _abs_d(z):
    return np.sign(z)


def _square_minus_one(z):
    return np.square(z) - 1.0


def _two_z(z):
    return 2.0 * np.asarray(z, dtype=float)


# name -> (function, derivative, kinks, closed-form (E s, E z s, E s^2) or None)
_REGISTRY: dict[str, tuple[Callable, Callable, tuple[float, ...], tuple | None]] = {
    "tanh": (np.tanh, _tanh_d, (), (0.0, None, None)),
    "erf": (special.erf, _erf_d, (), (0.0, 2.0 / math.sqrt(3.0 * math.pi),
                                       2.0 / math.pi * math.asin(2.0 / 3.0))),
    "relu": (_relu, _relu_d, (0.0,), (1.0 / _SQRT2PI, 0.5, 0.5)),
    "softplus": (_softplus, _sigmoid, (), None),
    "linear": (_identity, _one, (), (0.0, 1.0, 1.0)),
    # Even activations (mu1 = 0): used to show that the spike needs mu1 != 0.
    "abs": (np.abs, _abs_d, (0.0,), (math.sqrt(2.0 / math.pi), 0.0, 1.0)),
    "quadratic": (_square_minus_one, _two_z, (), (0.0, 0.0, 2.0)),
}
ACTIVATION_NAMES = tuple(sorted(_REGISTRY))


@dataclass(frozen=True)
class Activation:
    r"""A scalar activation :math:`\sigma` with its derivative and Hermite coefficients.

    Use :func:`get_activation` to build one from a name or a callable.  Calling the object
    evaluates :math:`\sigma` elementwise; :meth:`derivative` evaluates :math:`\sigma'`.

    Attributes
    ----------
    name : str
    mu0, mu1, mu2 : float
        :math:`E\sigma(z)`, :math:`E z\sigma(z)` and the norm of the nonlinear part.
    centred : bool
        Whether :math:`\mu_0` was subtracted from the raw function.
    """

    name: str
    fn: Callable = field(repr=False)
    dfn: Callable = field(repr=False)
    shift: float = 0.0
    kinks: tuple = ()
    mu0: float = 0.0
    mu1: float = 0.0
    mu2: float = 0.0
    centred: bool = False

    def __call__(self, z):
        out = self.fn(z)
        return out - self.shift if self.shift else out

    def derivative(self, z):
        """Elementwise derivative of the activation (a.e. for kinked ones)."""
        return self.dfn(z)

    def value_and_derivative(self, z):
        """``(self(z), self.derivative(z))``; for tanh one call serves both
        (:math:`\tanh' = 1 - \tanh^2`)."""
        if self.fn is np.tanh and self.dfn is _tanh_d:
            value = np.tanh(z)
            derivative = 1.0 - value * value
            return (value - self.shift if self.shift else value), derivative
        return self(z), self.derivative(z)

    @property
    def mu2_sq(self) -> float:
        r""":math:`\mu_2^2 = \|P_{>1}\sigma\|^2_{L^2}`."""
        return self.mu2**2

    @property
    def second_moment(self) -> float:
        r""":math:`E\,\sigma(z)^2`."""
        return self.mu0**2 + self.mu1**2 + self.mu2**2

    @functools.cached_property
    def even_part_norm_sq(self) -> float:
        r""":math:`E\,\sigma_{\rm even}(z)^2` with :math:`\sigma_{\rm even}(z) =
        (\sigma(z) + \sigma(-z))/2`; zero exactly for an odd activation."""
        return gaussian_expectation(lambda z: 0.25 * (self(z) + self(-z)) ** 2, self.kinks)

    @functools.cached_property
    def derivative_second_moment(self) -> float:
        r""":math:`E\,\sigma'(z)^2` (the bulk of the first gradient, Proposition 2)."""
        return gaussian_expectation(lambda t: self.derivative(t) ** 2, self.kinks)


def _numerical_derivative(fn: Callable) -> Callable:
    def dfn(z):
        z = np.asarray(z, dtype=float)
        h = 1e-5 * np.maximum(1.0, np.abs(z))
        return (fn(z + h) - fn(z - h)) / (2.0 * h)

    return dfn


def _moments(fn, kinks, closed):
    m0 = closed[0] if closed and closed[0] is not None else gaussian_expectation(fn, kinks)
    m1 = (closed[1] if closed and closed[1] is not None
          else gaussian_expectation(lambda t: t * fn(t), kinks))
    m2 = (closed[2] if closed and closed[2] is not None
          else gaussian_expectation(lambda t: np.square(fn(t)), kinks))
    return m0, m1, m2


def get_activation(spec, *, centred: bool = False, derivative: Callable | None = None,
                   kinks=()) -> Activation:
    """Build an :class:`Activation` from a name, a callable or an existing activation.

    Parameters
    ----------
    spec : str, callable or Activation
        One of ``ACTIVATION_NAMES`` (``"tanh"``, ``"erf"``, ``"relu"``, ``"softplus"``,
        ``"linear"``, ``"abs"``, ``"quadratic"``) or a vectorised function of one variable.
    centred : bool, default False
        Subtract :math:`\\mu_0` so that the result has mean zero under N(0, 1).  Teachers are
        always centred (see :func:`as_teacher`).
    derivative : callable, optional
        Derivative for a callable ``spec``; central differences are used when omitted.
    kinks : sequence of float
        For a callable ``spec``: points where it is not smooth (helps the quadrature).

    Raises
    ------
    ValueError
        If ``spec`` is an unknown name or neither a name nor a callable.
    """
    if isinstance(spec, Activation):
        if centred and not spec.centred and spec.mu0 != 0.0:
            return Activation(spec.name, spec.fn, spec.dfn, spec.shift + spec.mu0, spec.kinks,
                              0.0, spec.mu1, spec.mu2, True)
        return spec
    if isinstance(spec, str):
        key = spec.strip().lower()
        if key not in _REGISTRY:
            raise ValueError(
                f"activation must be one of {', '.join(ACTIVATION_NAMES)} or a callable; "
                f"got {spec!r}"
            )
        return _named_activation(key, bool(centred))
    if callable(spec):
        fn = spec
        dfn = derivative if derivative is not None else _numerical_derivative(spec)
        kinks, closed = tuple(float(k) for k in kinks), None
        return _build(getattr(spec, "__name__", "custom"), fn, dfn, kinks, closed, centred)
    raise ValueError(
        f"activation must be a name ({', '.join(ACTIVATION_NAMES)}) or a callable; "
        f"got an object of type {type(spec).__name__}"
    )


@functools.cache
def _named_activation(key: str, centred: bool) -> Activation:
    """A registered activation, built once per process (its moments need quadrature)."""
    fn, dfn, kinks, closed = _REGISTRY[key]
    return _build(key, fn, dfn, kinks, closed, centred)


def _build(name, fn, dfn, kinks, closed, centred) -> Activation:
    m0, m1, second = _moments(fn, kinks, closed)
    mu2_sq = max(second - m0**2 - m1**2, 0.0)
    if not all(np.isfinite([m0, m1, second])):
        raise ValueError(f"activation {name!r} has no finite Gaussian moments")
    shift = m0 if centred else 0.0
    return Activation(name=name, fn=fn, dfn=dfn, shift=shift, kinks=kinks,
                      mu0=0.0 if centred else m0, mu1=m1, mu2=math.sqrt(mu2_sq),
                      centred=bool(centred and m0 != 0.0))


def hermite_coefficients(spec, *, centred: bool = False) -> tuple[float, float, float]:
    r"""Return :math:`(\mu_0, \mu_1, \mu_2)` of an activation (see the module docstring).

    Examples
    --------
    >>> mu0, mu1, mu2 = hermite_coefficients("relu")
    >>> round(mu1, 12)
    0.5
    """
    act = get_activation(spec, centred=centred)
    return act.mu0, act.mu1, act.mu2


def as_student(spec) -> Activation:
    """The student activation for a name or callable (not centred); a bad ``spec`` raises a
    ``ValueError`` that names the parameter ``student``."""
    try:
        return get_activation(spec)
    except ValueError as err:
        raise ValueError(f"student: {err}") from None


def as_teacher(spec) -> Activation:
    r"""The teacher link for a name or callable, centred so that :math:`\mu_0^* = 0`; a bad
    ``spec`` raises a ``ValueError`` that names the parameter ``teacher``."""
    try:
        return get_activation(spec, centred=True)
    except ValueError as err:
        raise ValueError(f"teacher: {err}") from None


def is_odd(spec) -> bool:
    r"""Whether an activation is odd, :math:`\sigma(-z) = -\sigma(z)`: its even part has
    norm at most 1e-8 of its own (:math:`E\sigma_{\rm even}^2 \le 10^{-16} E\sigma^2`,
    quadrature error far below that).  tanh, erf, linear: True; ReLU, SoftPlus: False."""
    act = spec if isinstance(spec, Activation) else get_activation(spec)
    return act.even_part_norm_sq <= 1e-16 * max(act.second_moment, 1e-300)


def is_registered(act: Activation) -> bool:
    """Whether ``act`` is one of the named activations (its function, not a look-alike)."""
    entry = _REGISTRY.get(act.name)
    return entry is not None and act.fn is entry[0]
