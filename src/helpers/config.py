"""The one switch between the quick default and the paper's scale.

Every chapter reads its sizes from :func:`scale`.  By default it returns the quick settings,
sized so that a chapter executes within a minute on two cores.  Setting the environment
variable ``BOOK_SCALE=paper`` (``make paper`` does this) returns the paper's settings:
``d = 512`` and 50 runs per point (Ba et al. 2022, Figure 3).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["Scale", "QUICK", "PAPER", "scale", "SCALE_ENV"]

SCALE_ENV = "BOOK_SCALE"


@dataclass(frozen=True)
class Scale:
    """Sizes for simulations.

    Attributes
    ----------
    name : str
        ``"quick"`` or ``"paper"``.
    d : int
        Input dimension of the main simulations.
    runs : int
        Independent runs (seeds) averaged per point.
    n_jobs : int
        Worker processes for sweeps (joblib convention: -1 = all cores).
    """

    name: str
    d: int
    runs: int
    n_jobs: int

    @property
    def is_paper(self) -> bool:
        return self.name == "paper"


QUICK = Scale(name="quick", d=256, runs=8, n_jobs=1)
PAPER = Scale(name="paper", d=512, runs=50, n_jobs=-1)


def scale(name: str | None = None) -> Scale:
    """Return the active :class:`Scale`.

    Parameters
    ----------
    name : {"quick", "paper"}, optional
        Force a scale; by default read ``$BOOK_SCALE`` (unset or empty means quick).

    Raises
    ------
    ValueError
        If the name (or the environment variable) is not ``quick`` or ``paper``.
    """
    value = os.environ.get(SCALE_ENV, "") if name is None else name
    value = (value or "quick").strip().lower()
    if value == "quick":
        return QUICK
    if value == "paper":
        return PAPER
    source = f"${SCALE_ENV}" if name is None else "name"
    raise ValueError(f"{source} must be 'quick' or 'paper'; got {value!r}")
