r"""The one run: a problem, its steps, a readout and measures; every simulation goes through it.

One run walks the data path of the paper's two-stage procedure (Ba et al. 2022, §2.1)::

    teacher -> first batch (X, y) -> student at init (W0, a) -> gradient G0
    -> W = W0 + eta sqrt(N) G0  (one step, for each step size asked for; or several steps)
    -> ridge on sigma(X~ W) over fresh data for every penalty -> risk on fresh test points

and then evaluates named **measures** of what it drew (:mod:`helpers.measures`: risks,
overlaps, shifts, spectra, or a function a chapter writes).  :func:`draw` returns the draws
(a :class:`Run`); :func:`run` returns their measures as records, the rows
:func:`helpers.sweep` averages over seeds::

    records = helpers.run(student="tanh", teacher="relu", d=128, psi1=4, psi2=2,
                          eta=[0.0, 1.0], lam=[1e-3, 1e-2], measures=("risk",), seed=0)
    # [{"eta": 0.0, "lam": 0.001, "risk": ...}, {"eta": 0.0, "lam": 0.01, ...}, ...]

**The problem**: ``student``, ``teacher`` (a name or a callable of one variable, centred; or a
link of the (n, k) projections with ``k`` given, :mod:`helpers.teachers`), ``d``,
``n = round(psi1 d)`` samples per batch, ``N = round(psi2 d)`` neurons, label ``noise``, the
``second_layer`` (:mod:`helpers.second_layer`), and ``model="population"`` for the population
model of chapter 5's theory in place of the network.

**The steps**: ``eta`` (the book's scaling: ``W1 = W0 + eta sqrt(N) G0``) or ``eta_scale``
(:math:`\tilde\eta = \eta/\sqrt N`), one value or several; each is a weight matrix of the run
and all share one gradient.  ``steps = T > 1`` takes T steps
(:func:`helpers.steps.steps_on_batches`) on ``batches="fresh"`` (a new batch per step) or
``"reused"`` (the first batch again).

**The readout**: ridge with the penalties ``lam`` on one ridge set :math:`(\tilde X,\tilde y)`
of ``n`` fresh samples, and the risk on one set of ``n_test`` test points: both are drawn once
and shared by every weight matrix of the run, so every comparison within a run is paired.

**Seeds**: every draw comes from a stream named for what it draws (:data:`STREAMS`,
:mod:`helpers.seeding`), so two runs with the same seed share every stage they have in common:
runs that differ only in ``eta``, ``lam``, ``batches``, ``initial_output`` or ``second_layer``
(whose signs and :math:`W_0` are the same draws) are paired by construction.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ._validation import (
    check_choice,
    check_integer,
    check_lambdas,
    check_nonnegative,
    check_positive,
    problem_sizes,
)
from .activations import Activation, as_student, as_teacher
from .data import gaussian_inputs_and_labels, init_student, normal_blocks, teacher_labels
from .ridge import ridge_path
from .risk import TEST_BLOCK, risk_from_errors
from .second_layer import DEFAULT, as_second_layer
from .seeding import as_seed, stream
from .steps import first_step_gradient, one_step, steps_on_batches
from .teachers import check_link, remove_linear_part, sample_directions

__all__ = ["STREAMS", "LABELS", "MODELS", "BATCHES", "PRECISIONS", "Run", "draw", "run",
           "default_n_test", "OneStepResult", "simulate_one_step"]

#: The named streams of a run: what each draws.
STREAMS = {
    "teacher": "the teacher direction(s) beta* (or B)",
    "init": "the first layer W0 and the second layer a",
    "step": "the first batch (X, y), on which G0 is computed",
    "batches": "the later fresh batches (steps > 1, batches='fresh')",
    "ridge": "the ridge set (X~, y~) of the readout",
    "test": "the test points of the risk",
    "population": "the population model's U and zeta (model='population')",
}
#: Keys of a record that label it (which weight matrix, penalty, ...) rather than measure it;
#: :func:`helpers.sweep` groups by them.
LABELS = ("eta", "eta_scale", "step", "lam", "model", "index", "degree", "direction")
MODELS = ("network", "population")
BATCHES = ("fresh", "reused")
PRECISIONS = ("float64", "mixed")


def default_n_test(n: int) -> int:
    """Number of fresh test points used when none is given: ``max(2048, n)``."""
    return max(2048, int(n))


def _rates(name, values):
    """A number or a sequence of numbers (each >= 0, or for several steps a tuple of them)."""
    items = [values] if np.ndim(values) == 0 else list(values)
    if not items:
        raise ValueError(f"{name} must be a number >= 0 or a non-empty sequence of them")
    out = []
    for v in items:
        if np.ndim(v) == 0:
            out.append(float(check_nonnegative(name, float(v))))
        else:
            out.append(tuple(float(check_nonnegative(name, float(x))) for x in v))
    return out


@dataclass(eq=False)
class Run:
    r"""What one run drew: the problem, its first batch, the gradient and the weight matrices.

    Attributes
    ----------
    student : Activation
    teacher : Activation or callable
        The centred link (single index), or the link of the (n, k) projections.
    beta : ndarray of shape (d,) or (d, k)
    X, y : ndarray of shapes (n, d), (n,)
        The first batch.
    W0 : ndarray of shape (d, N)
    a : ndarray of shape (N,)
    G0 : ndarray of shape (d, N)
        The negative gradient at ``W0`` on the first batch (None for the population model).
    weights : dict
        ``{labels: W}``, ``labels`` a tuple of (name, value) pairs such as
        ``(("eta", 1.0),)`` or ``(("eta", 1.0), ("step", 2))``.
    lambdas : ndarray or None
        The readout's penalties.
    """

    seed: np.random.SeedSequence = field(repr=False)
    student: Activation
    teacher: object
    k: int | None
    noise: float
    second_layer: object
    model: str
    beta: np.ndarray = field(repr=False)
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    W0: np.ndarray = field(repr=False)
    a: np.ndarray = field(repr=False)
    G0: np.ndarray | None = field(repr=False)
    weights: dict = field(repr=False)
    lambdas: np.ndarray | None = None
    n_test: int = 2048
    linear_removed: bool = False
    precision: str = "float64"
    _affine: dict = field(default_factory=dict, repr=False)   # labels -> eta sqrt(N)
    _cache: dict = field(default_factory=dict, repr=False)

    # ---------------------------------------------------------------- sizes and streams
    @property
    def d(self) -> int:
        """Input dimension."""
        return self.W0.shape[0]

    @property
    def n(self) -> int:
        """Samples per batch (and in the ridge set)."""
        return self.X.shape[0]

    @property
    def N(self) -> int:
        """Neurons."""
        return self.W0.shape[1]

    @property
    def W1(self) -> np.ndarray:
        """The weight matrix of a run with one weight matrix (one step size, one step)."""
        if len(self.weights) != 1:
            raise ValueError(f"W1 is defined for a run with one weight matrix; this one has "
                             f"{len(self.weights)}: use run.weights")
        return next(iter(self.weights.values()))

    def rng(self, name: str) -> np.random.Generator:
        """A new generator of the run's stream ``name`` (the same numbers at every call):
        :data:`STREAMS`, or a name of a measure's own."""
        return stream(self.seed, name)

    # ---------------------------------------------------------------- the readout's data
    def labels_of(self, X) -> np.ndarray:
        """The teacher's value :math:`f_*(x)` (no noise) at the rows of ``X``."""
        return teacher_labels(X, self.beta, self.teacher)

    def ridge_data(self):
        r"""The ridge set :math:`(\tilde X, \tilde y)`: ``n`` fresh samples, drawn once."""
        if "ridge" not in self._cache:
            self._cache["ridge"] = gaussian_inputs_and_labels(
                self.n, self.d, self.labels_of, noise=self.noise, rng=self.rng("ridge"))
        return self._cache["ridge"]

    def test_blocks(self) -> list:
        """The ``n_test`` test points, in blocks of at most :data:`helpers.risk.TEST_BLOCK`
        rows, with the teacher's values: ``[(X_block, f*(X_block)), ...]``, drawn once."""
        if "test" not in self._cache:
            blocks = normal_blocks(self.rng("test"), self.n_test, self.d, block=TEST_BLOCK)
            self._cache["test"] = [(Xt, self.labels_of(Xt)) for Xt in blocks]
        return self._cache["test"]

    # ---------------------------------------------------------------- features
    def features(self, X, labels) -> np.ndarray:
        r""":math:`\sigma(XW)` for the weight matrix ``weights[labels]``.

        The one speed trick of the run (a reader may skip it): a one-step matrix is
        :math:`W_0 + s G_0`, so :math:`XW = XW_0 + s\,XG_0`, and the two products of an input
        set that the run keeps (the ridge set, the test blocks) serve every step size.  With
        one step size that would be two products where one does, so a run with one weight
        matrix multiplies by it directly (the same numbers to rounding).
        ``precision="mixed"`` computes these products in float32.
        """
        dtype = np.float32 if self.precision == "mixed" else np.float64
        if labels in self._affine and len(self._affine) > 1:
            P0, P1 = self._products(X, dtype)
            return self.student(P0 + self._affine[labels] * P1)
        W = self.weights[labels]
        return self.student(X.astype(dtype, copy=False) @ W.astype(dtype, copy=False))

    def _products(self, X, dtype):
        key = ("products", id(X))
        hit = self._cache.get(key)
        if hit is None or hit[0] is not X:
            Xc = X.astype(dtype, copy=False)
            hit = (X, Xc @ self.W0.astype(dtype, copy=False), Xc @ self.G0.astype(dtype,
                                                                                 copy=False))
            self._cache[key] = hit
        return hit[1], hit[2]

    def ridge_fit(self, labels):
        """Ridge coefficients (N, L) on the ridge set for every penalty, and the labels'
        linear part ``(mean, b)`` removed before the fit (``linear_removed``; else None)."""
        if self.lambdas is None:
            raise ValueError("this run has no readout: give lam (the ridge penalties)")
        Xr, yr = self.ridge_data()
        linear = None
        if self.linear_removed:
            yr, mean, b = remove_linear_part(Xr, yr)
            linear = (mean, b)
        return ridge_path(self.features(Xr, labels), yr, self.lambdas), linear

    def test_errors(self, labels, coef, linear=None):
        r"""Prediction minus target on each test block, :math:`\sigma(\tilde X W)b - f_*`,
        one column per penalty (a generator of blocks)."""
        dtype = np.float32 if self.precision == "mixed" else np.float64
        for Xt, target in self.test_blocks():
            pred = self.features(Xt, labels) @ coef.astype(dtype, copy=False)
            if linear is not None:
                pred = pred + (linear[0] + Xt @ linear[1])[:, None]
            yield pred - target[:, None]

    # ---------------------------------------------------------------- records
    def records(self, measures=("risk",)) -> list[dict]:
        """Every measure of this run, as records (see :func:`run`; by default the risk, as
        there, so that a runner of :func:`helpers.sweep` may return the run itself)."""
        from .measures import resolve

        out = []
        per_weight = {labels: [] for labels in self.weights}
        for m in resolve(measures):
            if getattr(m, "per_run", False):
                out.extend(_as_rows(m(self), m))
            else:
                for labels in self.weights:
                    per_weight[labels].extend(_as_rows(m(self, labels), m))
        weight_rows = []
        for labels, rows in per_weight.items():
            weight_rows.extend({**dict(labels), **row} for row in _merge(rows))
        return weight_rows + out


def _as_rows(result, measure) -> list[dict]:
    try:
        rows = [result] if isinstance(result, Mapping) else list(result)
    except TypeError:   # not a dict nor a list: reported below
        rows = [result]
    for row in rows:
        if not isinstance(row, Mapping):
            raise ValueError(f"measure {getattr(measure, '__name__', measure)!r} must return a "
                             f"dict or a list of dicts; got {type(row).__name__}")
    return [dict(row) for row in rows]


def _merge(rows: list[dict]) -> list[dict]:
    """Rows of one weight matrix: those with the same labels (keys of :data:`LABELS`) merge
    into one record; rows with no label (a scalar measure) go into every record."""
    groups: dict[tuple, dict] = {}
    scalars: dict = {}
    for row in rows:
        key = tuple((k, row[k]) for k in LABELS if k in row)
        if key:
            groups.setdefault(key, {}).update(row)
        else:
            scalars.update(row)
    if not groups:
        return [scalars] if scalars else []
    return [{**row, **scalars} for row in groups.values()]


# --------------------------------------------------------------------------- draw and run
def draw(*, student, teacher, d, psi1, psi2, seed, k=None, noise=0.0,
         second_layer=DEFAULT, model="network", eta=None, eta_scale=None, steps=1,
         batches="fresh", record_steps=None, initial_output=True, normalize=False,
         linear_removed=False, lam=None, n_test=None, precision="float64") -> Run:
    r"""Draw one run: the problem, the first batch, the gradient and every weight matrix.

    Parameters
    ----------
    student : str, callable or Activation
        The activation :math:`\sigma`.
    teacher : str, callable or Activation
        The link :math:`\sigma_*` (centred), or with ``k`` a callable of the (n, k) projections.
    d : int
        Input dimension.
    psi1, psi2 : float
        ``n = round(psi1 d)`` samples per batch (and in the ridge set), ``N = round(psi2 d)``.
    seed : int or numpy.random.SeedSequence
        The run's seed; each stage draws from its named child (:data:`STREAMS`).
    k : int, optional
        Number of teacher directions of a k-index teacher (``teacher`` is then its link).
    noise : float
        Label-noise standard deviation.
    second_layer : "gaussian" (default), "rademacher", (magnitudes, weights) or SecondLayer
    model : {"network", "population"}
        ``"population"``: chapter 5's population model at finite d instead of the network
        (needs ``eta_scale``; no gradient is taken).
    eta : float or sequence, optional
        Step sizes in the book's scaling; with several steps an entry may be a tuple of one
        rate per step.  Give ``eta`` or ``eta_scale``, not both; neither means ``eta = 0``.
    eta_scale : float or sequence, optional
        :math:`\tilde\eta = \eta/\sqrt N` instead of ``eta``.
    steps : int
        Steps per step size (>= 1).
    batches : {"fresh", "reused"}
        With ``steps > 1``: a new batch per step, or the first batch every time.
    record_steps : sequence of int, optional
        With ``steps > 1``: which steps t (0 = the initialisation) are weight matrices of the
        run; default every step 1..T.
    initial_output : bool
        ``False`` steps with the residual :math:`y` instead of :math:`y - f_0(x)`.
    normalize : bool
        Rescale every neuron to unit norm after each step.
    linear_removed : bool
        Remove the labels' empirical mean and linear part before each step and before the
        ridge fit (and add it back to the predictions): :func:`helpers.teachers.remove_linear_part`.
    lam : float or sequence of float, optional
        The readout's penalties (> 0); needed by the risk measures.
    n_test : int, optional
        Test points; default :func:`default_n_test`.
    precision : {"float64", "mixed"}
        ``"mixed"`` computes the products of the readout (fresh and test features) in
        float32; the step and the ridge solves stay float64.

    Returns
    -------
    Run
    """
    d, n, N = problem_sizes(d, psi1, psi2)
    check_nonnegative("noise", noise)
    check_choice("model", model, MODELS)
    check_choice("batches", batches, BATCHES)
    check_choice("precision", precision, PRECISIONS)
    steps = check_integer("steps", steps, minimum=1)
    layer = as_second_layer(second_layer)
    student = as_student(student)
    if k is None:
        link = as_teacher(teacher)
    else:
        k = check_integer("k", k, minimum=1)
        if k > d:
            raise ValueError(f"k must be at most d = {d}; got k = {k}")
        link = check_link(teacher)
    if eta is not None and eta_scale is not None:
        raise ValueError("give eta (the step size) or eta_scale (eta / sqrt(N)), not both")
    if eta_scale is not None:
        name, values = "eta_scale", _rates("eta_scale", eta_scale)
    else:
        name, values = "eta", _rates("eta", 0.0 if eta is None else eta)
    scale = math.sqrt(N) if name == "eta_scale" else 1.0
    lambdas = None if lam is None else check_lambdas(lam)
    n_test = default_n_test(n) if n_test is None else check_positive("n_test", n_test,
                                                                     integer=True)
    if model == "population" and (name != "eta_scale" or steps != 1):
        raise ValueError("model='population' is defined by eta_scale, for one step: give "
                         "eta_scale and leave steps at 1")
    seed = as_seed(seed)

    beta = sample_directions(d, 1 if k is None else k, rng=stream(seed, "teacher"))
    beta = beta[:, 0] if k is None else beta
    W0, a = init_student(d, N, rng=stream(seed, "init"), second_layer=layer)
    step_rng = stream(seed, "step")
    X, y = gaussian_inputs_and_labels(n, d, lambda Z: teacher_labels(Z, beta, link),
                                      noise=noise, rng=step_rng)
    y_step = remove_linear_part(X, y)[0] if linear_removed else y
    common = dict(seed=seed, student=student, teacher=link, k=k, noise=float(noise),
                  second_layer=layer, model=model, beta=beta, X=X, y=y, W0=W0, a=a,
                  lambdas=lambdas, n_test=n_test, linear_removed=bool(linear_removed),
                  precision=precision)

    if model == "population":
        return Run(G0=None, weights=_population_weights(seed, student, link, beta, a, d,
                                                        psi1, values, noise), **common)

    G0 = first_step_gradient(X, y_step, W0, a, student, initial_output=bool(initial_output))
    weights, affine = {}, {}
    if steps == 1:
        for v in values:
            if not np.ndim(v) == 0:
                raise ValueError(f"{name}: a tuple of rates needs steps > 1; got {v!r}")
            labels = ((name, v),)
            weights[labels] = one_step(W0, G0, v * scale)
            affine[labels] = v * scale * math.sqrt(N)
        if normalize:
            weights = {lab: W / np.linalg.norm(W, axis=0, keepdims=True)
                       for lab, W in weights.items()}
            affine = {}
        return Run(G0=G0, weights=weights, _affine=affine, **common)

    record = list(range(1, steps + 1)) if record_steps is None else [
        check_integer("record_steps", t, minimum=0) for t in record_steps]
    if any(t > steps for t in record):
        raise ValueError(f"record_steps must lie in 0..{steps}; got {list(record_steps)}")
    later = []
    if batches == "fresh":   # one generator for the later batches, drawn in order
        rng_b = stream(seed, "batches")
        later = [gaussian_inputs_and_labels(n, d, lambda Z: teacher_labels(Z, beta, link),
                                            noise=noise, rng=rng_b) for _ in range(steps - 1)]
    batch_list = [(X, y)] + (later if batches == "fresh" else [(X, y)] * (steps - 1))
    if linear_removed:
        batch_list = [(Xb, remove_linear_part(Xb, yb)[0]) for Xb, yb in batch_list]
    for v in values:
        rates = [v * scale] if np.ndim(v) == 0 else [x * scale for x in v]
        if np.ndim(v) != 0 and len(rates) != steps:
            raise ValueError(f"{name}: {v!r} has {len(rates)} rates for {steps} steps")
        # the first step is W0 + eta sqrt(N) G0 (G0: the gradient on the first batch, above);
        # the same numbers as taking it in steps_on_batches, one gradient fewer
        W1 = one_step(W0, G0, rates[0])
        if normalize:
            W1 = W1 / np.linalg.norm(W1, axis=0, keepdims=True)
        Ws = [W0, *steps_on_batches(W1, a, student, batch_list[1:],
                                    eta=rates[0] if len(rates) == 1 else rates[1:],
                                    normalize=normalize, initial_output=bool(initial_output))]
        for t in record:
            weights[((name, v), ("step", t))] = Ws[t]
    return Run(G0=G0, weights=weights, **common)


def _population_weights(seed, student, teacher, beta, a, d, psi1, eta_scales, noise):
    r"""Chapter 5's population model: neuron i is
    :math:`\sqrt{c_i}\,u_i + \xi_i r v` with :math:`u_i \sim N(0, I_d/d)`,
    :math:`c_i = 1 + \xi_i^2(c_b - 1)`, :math:`v = \gamma\beta_* + \sqrt{1-\gamma^2}\zeta` and
    :math:`(r, c_b, \gamma)` from :func:`helpers.theory.spiked_rf_parameters` at each step."""
    from .theory.large_step import spiked_rf_parameters

    if np.ndim(beta) != 1:
        raise ValueError("model='population' needs a single-index teacher (k left out)")
    N = a.shape[0]
    xi = np.abs(a) * math.sqrt(N)
    rng = stream(seed, "population")
    U = rng.standard_normal((d, N)) / math.sqrt(d)
    zeta = rng.standard_normal(d)
    zeta -= (zeta @ beta) * beta
    zeta /= np.linalg.norm(zeta)
    weights = {}
    for e in eta_scales:
        r, cb, gamma = spiked_rf_parameters(student, teacher, psi1=psi1, eta_scale=e,
                                            noise=noise)
        v = gamma * beta + math.sqrt(1 - gamma**2) * zeta
        weights[(("eta_scale", e),)] = (np.sqrt(1 + xi**2 * (cb - 1))[None, :] * U
                                        + np.outer(v, xi * r))
    return weights


def run(*, measures=("risk",), **arguments) -> list[dict]:
    r"""The one run: :func:`draw` with ``arguments``, then every measure, as records.

    Parameters
    ----------
    measures : sequence of str, callables or Measure
        Names of :data:`helpers.measures.MEASURES` (``"risk"``, ``"best_risk"``,
        ``"overlap"``, ``"spectrum"``, ...) or functions ``f(run, labels)`` of one weight
        matrix (``f(run)`` for a measure of the whole run, marked with
        :func:`helpers.measures.per_run`).  Each returns a dict or a list of dicts.
    **arguments
        Those of :func:`draw` (``seed`` among them).

    Returns
    -------
    list of dict
        For each weight matrix, its labels (``eta`` or ``eta_scale``, ``step``) with the
        measures' values: rows of one matrix with the same labels (for example the same
        ``lam``) are one record, and a measure with one value per matrix goes into each of its
        records; then the records of the measures of the whole run.  :func:`helpers.sweep`
        averages them over seeds, grouped by the keys of :data:`LABELS`.
    """
    from .measures import resolve

    resolve(measures)   # a misspelt measure stops before the run, not after it
    return draw(**arguments).records(measures)


# --------------------------------------------------------------------------- a preset
@dataclass(kw_only=True)
class OneStepResult:
    """What :func:`simulate_one_step` returns: the run (its draws) and its risk per penalty.

    ``risk`` and ``risk_se`` are floats when ``lam`` was a number and arrays of shape (L,)
    when it was a sequence; ``risk_se`` is the Monte-Carlo standard error over test points.
    """

    run: Run = field(repr=False)
    risk: float | np.ndarray
    risk_se: float | np.ndarray
    lambdas: np.ndarray
    B: np.ndarray = field(repr=False)

    def __getattr__(self, name):   # the draws: beta, X, y, W0, a, G0, W1, d, n, N
        if name in ("run", "__setstate__") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.run, name)


def simulate_one_step(student, teacher, *, d, psi1, psi2, lam, eta, noise=0.0, seed=0,
                      n_test=None, precision="float64", second_layer=DEFAULT) -> OneStepResult:
    r"""One run with one step size and its risk (a preset of :func:`draw`): the paper's
    two-stage procedure once.  Arguments as in :func:`draw`; ``eta`` one number."""
    if np.ndim(eta) != 0:
        raise ValueError(f"eta must be one number here (helpers.run takes several); got {eta!r}")
    r = draw(student=student, teacher=teacher, d=d, psi1=psi1, psi2=psi2, lam=lam, eta=eta,
             noise=noise, seed=seed, n_test=n_test, precision=precision,
             second_layer=second_layer)
    (labels,) = r.weights
    coef, linear = r.ridge_fit(labels)
    risk, se = risk_from_errors(r.test_errors(labels, coef, linear))
    if np.ndim(lam) == 0:
        risk, se = float(risk[0]), float(se[0])
    return OneStepResult(run=r, risk=risk, risk_se=se, lambdas=r.lambdas, B=coef)

