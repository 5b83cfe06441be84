"""Helpers for the executable book on one gradient step (Ba et al., NeurIPS 2022).

The modules follow the data path, one concept each::

    activations, teachers -> data -> steps -> feature_maps -> ridge -> risk
                                                  (kernels: the baselines)

:mod:`~helpers.runs` holds the one run that every simulation goes through (a problem, its
steps, a readout and :mod:`~helpers.measures` of what it drew), :mod:`~helpers.seeding` the
streams named for what they draw, :mod:`~helpers.experiments` sweeps the run over a grid and
seeds (through joblib), :mod:`~helpers.spectra` measures matrices, :mod:`~helpers.quadrature`
holds the Gaussian integrals, and :mod:`~helpers.theory` computes the limits beside them (it
imports no simulation module).  :mod:`~helpers.config`, :mod:`~helpers.plotting`,
:mod:`~helpers.legibility` (contrast and pixel density of every figure),
:mod:`~helpers.explorers` (figures a reader drives in the page), :mod:`~helpers.tables` and
:mod:`~helpers.training` serve the chapters; :mod:`~helpers.checks` holds every hidden check's
tools: each chapter's parameters and their ranges (so a reader can change them), one
Bonferroni family of Student t tests per chapter, and how far a discrete answer computed from
floats is from changing.
Submodules load on first use, so ``import helpers.theory`` loads theory only.
"""

from __future__ import annotations

import importlib

_SUBMODULES = (
    "activations", "checks", "config", "data", "experiments", "explorers", "feature_maps",
    "kernels", "legibility", "measures", "plotting", "quadrature", "ridge", "risk", "runs",
    "second_layer", "seeding", "spectra", "steps", "tables", "teachers", "theory", "training",
)

# public name -> the module that defines it
_NAMES = {
    "ACTIVATION_NAMES": "activations", "Activation": "activations",
    "get_activation": "activations", "hermite_coefficients": "activations",
    "scale": "config", "by_scale": "config", "results_dir": "config",
    "chapter_seed": "seeding", "named_seed": "seeding", "stream": "seeding",
    "streams": "seeding",
    "sample_teacher": "data", "sample_data": "data", "init_student": "data",
    "first_step_gradient": "steps", "one_step": "steps",
    "features": "feature_maps",
    "ridge_path": "ridge",
    "prediction_risk": "risk",
    "run": "runs", "draw": "runs", "Run": "runs",
    "OneStepResult": "runs", "simulate_one_step": "runs",
    "sweep": "experiments", "paired_gain": "experiments",
    "SecondLayer": "second_layer", "as_second_layer": "second_layer",
}

__all__ = [*_SUBMODULES, *_NAMES]


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
