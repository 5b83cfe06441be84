"""Helpers for the executable book on one gradient step (Ba et al., NeurIPS 2022).

Modules, one concept each: :mod:`~helpers.activations`, :mod:`~helpers.model`,
:mod:`~helpers.ridge`, :mod:`~helpers.simulate`, :mod:`~helpers.training`,
:mod:`~helpers.theory`, :mod:`~helpers.experiments`, :mod:`~helpers.config`,
:mod:`~helpers.plotting`.
"""

from . import (
               activations,
               config,
               experiments,
               kernels,
               model,
               plotting,
               ridge,
               tables,
               theory,
               training,
)
from .activations import ACTIVATION_NAMES, Activation, get_activation, hermite_coefficients
from .config import book_seed, scale
from .experiments import sweep
from .kernels import same_data_risks
from .model import (
               features,
               first_step_gradient,
               init_student,
               one_step,
               run_first_step,
               sample_data,
               sample_teacher,
)
from .ridge import prediction_risk, ridge_path
from .simulate import OneStepResult, simulate_one_step

__all__ = [
    "ACTIVATION_NAMES", "Activation", "book_seed", "OneStepResult", "activations", "config",
    "experiments", "features", "first_step_gradient", "get_activation",
    "hermite_coefficients", "init_student", "model", "one_step", "plotting",
    "prediction_risk", "ridge", "ridge_path", "run_first_step", "sample_data",
    "sample_teacher", "scale",
    "simulate_one_step", "sweep", "theory", "training",
    "kernels", "same_data_risks", "tables",
]
