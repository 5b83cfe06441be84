"""Hidden checks that a reader can change the chapter around.

Each chapter ends its key results with hidden checks (cells tagged ``remove-cell``) that assert
the book's claims at the book's own setting: its activations, ratios, step sizes, grids and
sizes.  A reader who changes one of those parameters should see the chapter run to the end,
not an ``AssertionError`` about a claim they did not touch.  So a chapter names its parameters
once, where it sets them, and wraps each hidden check::

    checks.chapter("spike")                               # at the top of the chapter
    PSI1, PSI2, TEACHER = 4.0, 2.0, "tanh"
    checks.setting(PSI1=PSI1, PSI2=PSI2, TEACHER=TEACHER) # after the parameters are set
    ...
    with checks.claims("the spike's alignment"):          # a hidden check cell
        assert ...

At the book's setting (every parameter named so far equals the value in :data:`BOOK_SETTINGS`)
a check runs and fails as a plain ``assert`` does.  Once a parameter differs, a check that
fails prints one line saying that it checks the book's setting and is skipped here, and the
chapter goes on.  The book's own build and tests set ``BOOK_STRICT=1`` (the Makefile does):
there a changed setting is itself an error, so every check runs at the book's setting and a
skipped check cannot pass unnoticed.

The book's values live here, in one table, because the chapter's own cell is what the reader
edits: it cannot also be the record of what the book checked.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..config import scale

__all__ = [
    "STRICT_ENV",
    "BOOK_SETTINGS",
    "ByScale",
    "chapter",
    "setting",
    "changed",
    "claims",
    "strict",
    "SettingChanged",
]

STRICT_ENV = "BOOK_STRICT"


@dataclass(frozen=True)
class ByScale:
    """A book value that depends on the scale switch (:func:`helpers.config.scale`)."""

    quick: object
    paper: object

    def value(self):
        return self.paper if scale().is_paper else self.quick


# chapter -> parameter -> the value the book's checks were written for
BOOK_SETTINGS: dict[str, dict[str, object]] = {
    "setting": {
        "d": 128,
        "n": 512,
        "N": 256,
        "eta": 1.0,
        "lam": 0.01,
        "noise": 0.1,
        "n_test": 2048,
        "RF_TEACHER": "tanh",
        "RF_PSI2": 8.0,
        "RF_D": ByScale(128, 256),
        "RF_PSI1S": [0.5, 1, 2, 4, 8, 16],
        "RF_RUNS": ByScale(8, 20),
        "LAMBDAS": np.logspace(-3, 1, 9),
        "GAP_PSI1": 4,
        "DIMS": ByScale([32, 64, 128, 256], [64, 128, 256, 512]),
        "PSI1": 4.0,
        "PSI2": 2.0,
        "D_FIG2": ByScale(64, 256),
    },
    "spike": {
        "PSI1": 4.0,
        "PSI2": 2.0,
        "TEACHER": "tanh",
        "STUDENTS": ["tanh", "abs", "quadratic"],
        "PSI1S": [0.5, 1.0, 2.0, 4.0, 8.0],
        "NOISES": [0.0, 0.5],
        "TEACHERS": ["tanh", "relu"],
    },
    "small_step": {
        "kw_ge": {
            "student": "tanh",
            "teacher": "erf",
            "psi1": 4.0,
            "psi2": 1.0,
            "lam": 0.001,
            "noise": 0.1,
        },
        "runs_ge": ByScale({32: 32, 64: 32, 128: 32}, {32: 40, 64: 40, 128: 40, 256: 30, 512: 20}),
        "d_fig": ByScale(128, 512),
        "runs_fig": ByScale(20, 50),
        "etas": [0.0, 2.0, 4.0, 8.0],
        "fig3a": {
            "student": "tanh",
            "teacher": "softplus",
            "psi2": 2.0,
            "lam": 0.0001,
            "noise": 0.25,
        },
        "fig3b": {"student": "tanh", "teacher": "relu", "psi1": 5.0, "lam": 0.01, "noise": 0.1},
        "psi1_grid": ByScale([0.5, 1.0, 4.0], [0.5, 1.0, 1.5, 3.0, 4.0, 6.0, 8.0, 10.0]),
        "psi2_grid": ByScale([0.5, 1.0, 4.0], [0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0]),
        "fact4": {"student": "tanh", "teacher": "erf", "psi2": 8.0, "lam": 0.01, "noise": 0.1},
        "etas4": [0.0, 4.0],
        "psi1_f4": [1.0, 4.0, 16.0],
        "d_f4": ByScale(64, 128),
        "runs_f4": ByScale(6, 20),
        "kw3a": {"student": "tanh", "teacher": "softplus", "psi1": 4.0, "psi2": 2.0, "noise": 0.25},
        "lams": [0.0001, 0.01, 0.1],
    },
    "large_step": {
        "PSI2": 2.0,
        "LAM": 0.001,
        "NOISE": 0.1,
        "ALPHAS": [0.0, 0.125, 0.25, 0.375, 0.5],
        "D_K": ByScale(128, 256),
        "PSI1_K": 8,
        "KERNELS": ["ck", "ntk", "rbf", "arccos"],
        "LAM_FEATURES": np.logspace(-5, 1, 7),
        "LAM_KERNELS": np.logspace(-6, -3, 4),
        "K_RUNS": ByScale(3, 12),
        "WIDTH": 0.2,
        "D_L6": ByScale(128, 256),
        "PSI2_L6": 4.0,
        "PSI1_L6": [4, 8, 16, 32],
        "LAM_PAIRS": [0.001, 0.01, 0.1, 1.0],
    },
    "exact_large_step": {
        "RUNS": ByScale(10, 12),
        "D": ByScale(256, 512),
        "PSI2": 1.0,
        "LAM": 0.1,
        "PSI1S": [1.0, 2.0, 4.0, 8.0],
        "ETA_PSI1": [1.0, 3.0],
        "ETA_GRID": [0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0],
        "D_GAP": ByScale([128, 256, 512], [256, 512, 1024, 2048]),
        "ETA_GAUSS": [1.0, 2.0, 4.0, 6.0],
        "PSI1_OPT": [1.0, 2.0, 4.0, 8.0, 16.0],
        "MAP_PSI1": [1.0, 2.0, 4.0, 8.0, 16.0],
        "MAP_ETA": [0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0],
        "MAP_PSI2": [0.5, 2.0],
        "ETA_F0": [0.5, 1.0, 2.0],
        "FIG3B": {"psi1": 5.0, "psi2": 0.5, "lam": 0.01, "noise": 0.1},
        "CELL": {"psi1": 16.0, "psi2": 0.5, "lam": 0.1},
        "ETA_FW": [0.5, 1.0, 2.0],
        "FIG1": {"psi2": 2.0, "lam": 0.001, "noise": 0.1},
        "PSI1_FIG1": [1.0, 2.0, 4.0, 7.0, 10.0],
        "PSI1_PAR": [2.0, 4.0, 8.0, 16.0, 32.0],
    },
    "beyond_one_step": {
        "RUNS": ByScale(4, 8),
        "RUNS_OVERLAP": ByScale(16, 32),
        "LAMS": [0.01, 0.1, 1.0, 10.0],
        "D1": ByScale(96, 192),
        "PSI1_1": 8,
        "PSI2_1": 2,
        "DIMS1": ByScale([64, 128, 256], [128, 256, 512]),
        "D2": ByScale(96, 192),
        "ALPHAS": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5],
        "DIMS2": ByScale([64, 256], [128, 512]),
        "ALPHAS_D": [0.0, 0.3, 0.45],
        "RUNS2": ByScale(24, 32),
        "DIMS3": ByScale([32, 64], [64, 128]),
        "KAPPAS": [1.0, 1.5, 2.0],
        "RUNS3": ByScale(8, 16),
        "DIMS4": ByScale([64, 256], [128, 512]),
    },
    "two_steps": {
        "RUNS": ByScale(8, 16),
        "PSI1": 4,
        "DIMS2": ByScale([128, 256, 512], [256, 512, 1024]),
        "LAMS": [0.01, 0.1, 1.0, 10.0],
        "PSI2": 0.125,
        "DIMS_NET": ByScale([128, 512], [256, 1024]),
        "RUNS_NET": ByScale({"He3": 64, "He2": 12}, {"He3": 96, "He2": 16}),
        "RISK_RUNS": ByScale(6, 8),
        "POINTS": [[0.25, 0.125], [0.25, 0.375], [0.375, 0.4375], [0.45, 0.3]],
        "DIMS_OUT": ByScale([256, 512], [512, 1024]),
        "RUNS_OUT": {"tanh": 3, "He3": 12},
    },
}


class SettingChanged(RuntimeError):
    """A chapter ran with a changed setting where the book's claims must hold (BOOK_STRICT)."""


_state: dict[str, object] = {"chapter": None, "changed": {}}


def strict() -> bool:
    """True when the book's claims must hold (``BOOK_STRICT`` set to 1, true, yes or on)."""
    return os.environ.get(STRICT_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def chapter(name: str) -> None:
    """Start the checks of chapter ``name`` (a key of :data:`BOOK_SETTINGS`): no parameter
    is changed yet."""
    if name not in BOOK_SETTINGS:
        raise ValueError(f"chapter must be one of {sorted(BOOK_SETTINGS)}, got {name!r}")
    _state["chapter"] = name
    _state["changed"] = {}


def _same(now, book) -> bool:
    if isinstance(book, ByScale):
        book = book.value()
    if isinstance(book, str) or isinstance(now, str) or callable(now) or callable(book):
        return now == book
    if isinstance(book, Mapping) or isinstance(now, Mapping):
        if not (isinstance(book, Mapping) and isinstance(now, Mapping)):
            return False
        return book.keys() == now.keys() and all(_same(now[k], book[k]) for k in book)
    if isinstance(book, list | tuple) and isinstance(now, list | tuple):
        return len(now) == len(book) and all(_same(x, y) for x, y in zip(now, book, strict=True))
    try:
        a, b = np.asarray(now, dtype=float), np.asarray(book, dtype=float)
    except (TypeError, ValueError):
        return now == book
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=0.0))


def _show(value) -> str:
    text = repr(value.value() if isinstance(value, ByScale) else value)
    return text if len(text) <= 40 else text[:37] + "..."


def setting(**parameters) -> dict:
    """Record the chapter's parameters as set now; return those that differ from the book's.

    Raises
    ------
    ValueError
        No chapter was started, or a parameter is not in the chapter's table.
    SettingChanged
        A parameter differs from the book's value while ``BOOK_STRICT`` is set.
    """
    name = _state["chapter"]
    if name is None:
        raise ValueError("call checks.chapter(name) before checks.setting(...)")
    book = BOOK_SETTINGS[name]
    unknown = sorted(set(parameters) - set(book))
    if unknown:
        raise ValueError(
            f"parameters of chapter {name!r} must be among {sorted(book)}, got {unknown}"
        )
    now = {k: (book[k], v) for k, v in parameters.items() if not _same(v, book[k])}
    if now and strict():
        raise SettingChanged(
            f"{STRICT_ENV} is set, so chapter {name!r} must run at the book's setting; "
            + ", ".join(f"{k} = {_show(v)} (the book: {_show(b)})" for k, (b, v) in now.items())
            + ". If the change is meant, update helpers.checks.BOOK_SETTINGS."
        )
    _state["changed"].update(now)
    for k in parameters:  # a parameter set back to the book's value
        if k not in now:
            _state["changed"].pop(k, None)
    return dict(now)


def changed() -> dict:
    """The parameters of the current chapter that differ from the book's: name -> (book, now)."""
    return dict(_state["changed"])


@contextmanager
def claims(what: str):
    """Run a hidden check of the book's claim ``what``.

    At the book's setting a failure propagates as it is.  After a parameter was changed
    (:func:`setting`), a failure prints one line and is skipped.
    """
    try:
        yield
    except Exception as err:
        now = changed()
        if not now or strict():
            if hasattr(err, "add_note"):  # Python >= 3.11: the traceback names the claim
                err.add_note(f"The failed check is of the claim: {what} "
                             f"(chapter {_state['chapter']!r}).")
            raise
        what_changed = ", ".join(
            f"{k} = {_show(v)} instead of {_show(b)}" for k, (b, v) in now.items()
        )
        print(
            f"Skipped a check of the book's setting (chapter {_state['chapter']!r}: {what}): "
            f"this run has {what_changed}, and the check does not hold here "
            f"({type(err).__name__})."
        )
