"""The one switch between the quick default and the paper's scale.

Every chapter reads its sizes from :func:`scale`.  By default it returns the quick settings,
sized so that a chapter executes within a minute on two cores.  Setting the environment
variable ``BOOK_SCALE=paper`` (``make paper`` does this) returns the paper's settings:
``d = 512`` and 50 runs per point (Ba et al. 2022, Figure 3).

Progress bars for long sweeps follow ``BOOK_PROGRESS``: ``1`` shows them, ``0`` hides them;
unset, they show only in interactive sessions (a terminal, or a notebook opened in a Jupyter
server) and never while the book is built (a built page must carry no stderr output).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

__all__ = ["Scale", "QUICK", "PAPER", "scale", "by_scale", "SCALE_ENV", "PROGRESS_ENV",
           "RESULTS_ENV", "show_progress", "cpu_count", "results_dir"]

SCALE_ENV = "BOOK_SCALE"
PROGRESS_ENV = "BOOK_PROGRESS"
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


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


# Quick sweeps use two worker processes, Binder's and the book's budget (2 cores): chapter 4
# took 39 s instead of 62 s, chapter 5 47 s instead of 56 s (2 cores, strict, 2026-12-06);
# every run is seeded by its point and replicate, so the numbers do not depend on n_jobs.
QUICK = Scale(name="quick", d=256, runs=8, n_jobs=2)
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


def show_progress() -> bool:
    """Whether sweeps draw progress bars (tqdm, on stderr).

    ``$BOOK_PROGRESS`` decides when set (``1/true/yes/on`` or ``0/false/no/off``).  Unset,
    bars show in a terminal (stderr is a TTY) and in a notebook kernel started by a Jupyter
    server (which sets ``JPY_SESSION_NAME``); a kernel run by ``jupyter-book``/``nbclient``
    has neither, so the built book stays free of progress output.

    Raises
    ------
    ValueError
        If ``$BOOK_PROGRESS`` holds anything else.
    """
    value = os.environ.get(PROGRESS_ENV)
    if value is not None:
        v = value.strip().lower()
        if v in _TRUE:
            return True
        if v in _FALSE:
            return False
        raise ValueError(f"${PROGRESS_ENV} must be 1 or 0 (or true/false); got {value!r}")
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty is not None and isatty()) or bool(os.environ.get("JPY_SESSION_NAME"))


def cpu_count() -> int:
    """CPU cores this process may use (the affinity mask where the OS exposes it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def by_scale(quick, paper):
    """``quick`` at the quick scale, ``paper`` at the paper's (:func:`scale`): a parameter's two
    values side by side in a chapter's parameter cell.

    >>> by_scale(128, 512) == (512 if scale().is_paper else 128)
    True
    """
    return paper if scale().is_paper else quick


RESULTS_ENV = "BOOK_RESULTS"


def results_dir():
    """The folder of the committed benchmark results that some chapters read.

    ``$BOOK_RESULTS`` if set; otherwise ``benchmarks/results`` of the repository this package
    was installed from (``pip install -e .``).  A chapter run elsewhere (downloaded alone) gets a
    ``FileNotFoundError`` that says what to fetch and how to point to it.
    """
    from pathlib import Path

    env = os.environ.get(RESULTS_ENV)
    folder = (Path(env) if env else
              Path(__file__).resolve().parents[2] / "benchmarks" / "results")
    if not folder.is_dir():
        raise FileNotFoundError(
            f"benchmark results not found at {folder}: this chapter reads committed results "
            "from the book's repository (folder benchmarks/results); download that folder and "
            f"set the environment variable {RESULTS_ENV} to its path")
    return folder
