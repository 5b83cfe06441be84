"""Helpers for the executable book on one gradient step (Ba et al., NeurIPS 2022).

The modules follow the data path, one concept each::

    activations -> data -> first_step -> feature_maps -> ridge -> risk
                                                  (kernels: the baselines)

:mod:`~helpers.simulate` holds every seeded runner built on that path,
:mod:`~helpers.experiments` sweeps a runner over a grid and seeds (through joblib),
:mod:`~helpers.spectra` measures matrices, :mod:`~helpers.quadrature` holds the Gaussian
integrals, and :mod:`~helpers.theory` computes the limits
beside them (it imports no simulation module).  :mod:`~helpers.config`,
:mod:`~helpers.plotting`, :mod:`~helpers.legibility` (contrast and pixel density of every
figure), :mod:`~helpers.explorers` (figures a reader drives in the page),
:mod:`~helpers.tables` and :mod:`~helpers.training` serve the chapters;
:mod:`~helpers.multi_index` carries chapter 6 (k-index teachers, several steps) and
:mod:`~helpers.two_steps` chapter 7 (fresh or reused batches); :mod:`~helpers.checks` holds
every hidden check's tools: the book's setting of each chapter (so a reader can change it
without the checks stopping the notebook), Student t bands in Bonferroni families, and how far
a discrete answer computed from floats is from changing.
Submodules load on first use, so ``import helpers.theory`` loads theory only.
"""

from __future__ import annotations

import importlib

_SUBMODULES = (
    "activations", "checks", "config", "data", "experiments", "explorers", "feature_maps",
    "first_step", "kernels", "legibility", "multi_index", "plotting", "quadrature", "ridge",
    "risk", "simulate", "second_layer", "spectra", "tables", "theory", "training", "two_steps",
)

# public name -> the module that defines it
_NAMES = {
    "ACTIVATION_NAMES": "activations", "Activation": "activations",
    "get_activation": "activations", "hermite_coefficients": "activations",
    "book_seed": "config", "scale": "config", "results_dir": "config",
    "sample_teacher": "data", "sample_data": "data", "init_student": "data",
    "spawn_streams": "data",
    "first_step_gradient": "first_step", "one_step": "first_step",
    "run_first_step": "first_step", "FirstStep": "first_step",
    "features": "feature_maps",
    "ridge_path": "ridge",
    "prediction_risk": "risk",
    "OneStepResult": "simulate", "simulate_one_step": "simulate",
    "simulate_etas": "simulate", "same_data_risks": "simulate",
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
