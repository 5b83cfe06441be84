"""Seeded sweeps over a parameter grid, returning tidy tables.

A sweep calls ``run(seed=..., **fixed, **point)`` (by default the one run, :func:`helpers.run`)
for every point of a grid and every replicate, then averages over replicates: each metric gets
its mean, its standard error over runs (pandas' ``sem``: ``std(ddof=1) / sqrt(runs)``) and the
number of runs.  The seed of a (point, replicate) is the child of the sweep's seed named by the
point's values and the replicate (:func:`point_seed`, :mod:`helpers.seeding`): a point's draws
do not depend on the other points of the grid, their order, the number of workers or where
they run, and two sweeps with the same seed share the draws of the points they have in
common.

The runs go through :class:`joblib.Parallel` and nothing else.  Locally (``n_jobs != 1``)
joblib's default loky backend starts one process per worker and caps each worker's BLAS at
``cores // workers`` threads, so the workers do not fight over the cores.  Any other joblib
backend works unchanged; on a Dask cluster::

    from dask.distributed import Client
    import joblib

    client = Client("scheduler-address:8786")  # or LocalCluster(...)
    with joblib.parallel_config(backend="dask"):
        table = helpers.sweep(run, grid, n_jobs=-1)

Long sweeps draw a tqdm progress bar when :func:`helpers.config.show_progress` says so
(interactive sessions only, never in the built book).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from ._validation import check_integer
from .config import scale as active_scale
from .config import show_progress
from .seeding import as_seed, named_seed

__all__ = ["grid_points", "point_seed", "sweep", "summarise", "paired_gain"]


def grid_points(grid: Mapping[str, Sequence]) -> list[dict]:
    """All combinations of a grid ``{name: values}`` as a list of dicts (last key fastest)."""
    if not isinstance(grid, Mapping) or not grid:
        raise ValueError(f"grid must be a non-empty mapping name -> values; got {grid!r}")
    names = list(grid)
    values = []
    for k in names:
        v = grid[k]
        v = [v] if np.ndim(v) == 0 and not isinstance(v, list | tuple) else list(v)
        if not v:
            raise ValueError(f"grid[{k!r}] must hold at least one value")
        values.append(v)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]


def _canonical(value) -> str:
    """A text for a grid value that is the same in every process (no memory addresses)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int | float | np.integer | np.floating):
        return repr(float(value))
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list | tuple):
        return "(" + ",".join(_canonical(v) for v in value) + ")"
    name = getattr(value, "name", None) or getattr(value, "__qualname__", None)
    if isinstance(name, str):
        return f"<{name}>"
    text = repr(value)
    if " at 0x" in text:
        raise ValueError(f"a grid value must have a name that is the same in every process "
                         f"(a number, a string, or an object with .name); got {text}")
    return text


def point_seed(seed, point: Mapping, replicate: int) -> np.random.SeedSequence:
    """The seed of one (point, replicate) of a sweep: the child of ``seed`` named
    ``"name=value,..."`` (the point's items in sorted order) and then ``"run=<replicate>"``.

    >>> a = point_seed(0, {"psi1": 4, "d": 128}, 2)
    >>> b = point_seed(0, {"d": 128.0, "psi1": 4.0}, 2)
    >>> a.spawn_key == b.spawn_key
    True
    """
    text = ",".join(f"{k}={_canonical(point[k])}" for k in sorted(point)) or "point"
    return named_seed(seed, text, f"run={int(replicate)}")


def _records(out, point: dict, replicate: int) -> list[dict]:
    if hasattr(out, "records") and callable(out.records):
        out = out.records()
    rows = out if isinstance(out, list) else [out]
    records = []
    for row in rows:
        if not isinstance(row, Mapping):
            raise ValueError(f"run must return a dict or a list of dicts; got {type(row).__name__}")
        records.append({**point, **row, "run": replicate})
    return records


def summarise(raw: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Average a table of runs: ``<metric>`` (mean), ``<metric>_se`` and ``runs`` per group.

    Groups are formed by every column of ``raw`` that is neither a metric nor ``run``.
    """
    keys = [c for c in raw.columns if c not in metrics and c != "run"]
    g = raw.groupby(keys, sort=False, dropna=False) if keys else raw.groupby(lambda _: 0)
    out = g[list(metrics)].mean()
    sem = g[list(metrics)].sem()
    for m in metrics:
        out[f"{m}_se"] = sem[m]
    out["runs"] = g["run"].nunique()
    return out.reset_index(drop=not keys)


def paired_gain(raw: pd.DataFrame, over: str, baseline, *, value: str = "risk",
                name: str = "gain") -> pd.DataFrame:
    """Paired gains of a sweep's runs: ``value`` at ``over == baseline`` minus ``value``.

    ``raw`` is the table of runs of :func:`sweep` (``return_raw=True``) with one metric
    column ``value``: every other column but ``run`` labels the rows.  Within each run and
    setting the gain at each other level of ``over`` is the baseline's ``value`` minus its
    own, on the same draws; the gains are then averaged like :func:`sweep` (``<name>``,
    ``<name>_se`` and ``runs``).  For example the gain of a step over random features:
    ``paired_gain(raw, "eta", 0.0)``.
    """
    if not isinstance(raw, pd.DataFrame) or not {value, over, "run"} <= set(raw.columns):
        raise ValueError(f"raw must be a table of runs with the columns {value!r}, {over!r} "
                         f"and 'run'")
    keys = [c for c in raw.columns if c not in (value, over, "run")]
    at_base = raw[over] == baseline
    if not at_base.any():
        raise ValueError(f"no run has {over} == {baseline!r}; the levels are "
                         f"{sorted(raw[over].unique().tolist())}")
    base = raw[at_base].set_index([*keys, "run"])[value]
    rest = raw[~at_base]
    index = pd.MultiIndex.from_frame(rest[[*keys, "run"]])
    gains = rest[[*keys, over, "run"]].assign(
        **{name: base.reindex(index).to_numpy() - rest[value].to_numpy()})
    if gains[name].isna().any():
        raise ValueError(f"some runs have no baseline row ({over} == {baseline!r})")
    return summarise(gains, [name])


def _run_one(run, fixed: dict, point: dict, replicate: int,
             seed: np.random.SeedSequence) -> list[dict]:
    """One (point, replicate) evaluation as records (a module-level function: picklable)."""
    return _records(run(seed=seed, **fixed, **point), point, replicate)


def sweep(run: Callable | None, grid: Mapping[str, Sequence], *, fixed: Mapping | None = None,
          runs: int | None = None, seed=0, by: Sequence[str] = (),
          paired: Sequence[str] = (), n_jobs: int | None = None, return_raw: bool = False,
          progress: bool | None = None):
    """Run ``run(seed=SeedSequence, **fixed, **point)`` over a grid and average over replicates.

    Parameters
    ----------
    run : callable or None
        ``None`` is the one run, :func:`helpers.run`.  Returns a dict of scalar metrics (and
        optionally labels such as ``lam``), or a list of such dicts (for example one per
        penalty).  Every returned key that is not a label is a metric and is averaged; the
        labels are the keys named in ``by`` and those of :data:`helpers.runs.LABELS`.
    grid : mapping
        ``{parameter: values}``; every combination is run.
    fixed : mapping, optional
        Arguments passed to every call (not part of the table or of the seeds).
    runs : int, optional
        Replicates per point; default ``helpers.scale().runs``.
    seed : int or numpy.random.SeedSequence
        Seed of the whole sweep, e.g. ``helpers.named_seed(SEED, "section")``.
    by : sequence of str
        Further keys returned by ``run`` that label rows rather than measure them.
    paired : sequence of str
        Grid keys whose values share seeds (common random numbers): for example
        ``paired=("student",)`` runs every student on the same data and initialisation.
    n_jobs : int, optional
        Workers of :class:`joblib.Parallel` (joblib's convention: -1 = every core); default
        ``helpers.scale().n_jobs``.  1 runs in-process, unless a ``joblib.parallel_config``
        block chooses another backend (e.g. ``"dask"``), which then runs every task.
    return_raw : bool
        Also return the table of individual runs.
    progress : bool, optional
        Draw a progress bar (tqdm, stderr); default :func:`helpers.config.show_progress`,
        which is off while the book is built.

    Returns
    -------
    pandas.DataFrame
        One row per point (and extra key), metric means, ``<metric>_se`` and ``runs``.
    """
    if run is None:
        from .runs import run
    from .runs import LABELS

    cfg = active_scale()
    runs = cfg.runs if runs is None else runs
    n_jobs = cfg.n_jobs if n_jobs is None else n_jobs
    check_integer("runs", runs, minimum=1)
    seed = as_seed(seed)
    fixed = dict(fixed or {})
    unknown = set(paired) - set(grid)
    if unknown:
        raise ValueError(f"paired names keys that are not in the grid: {sorted(unknown)}")
    clash = set(fixed) & set(grid)
    if clash:
        raise ValueError(f"fixed and grid both name {sorted(clash)}; give each once")
    points = grid_points(grid)
    tasks = []
    for point in points:
        key = {k: v for k, v in point.items() if k not in paired}
        for r in range(runs):
            tasks.append((point, r, point_seed(seed, key, r)))

    n_jobs = check_integer("n_jobs", n_jobs, nonzero=True, hint=" (-1 = all cores)")
    progress = show_progress() if progress is None else bool(progress)
    results = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_run_one)(run, fixed, point, r, ss) for point, r, ss in tasks)
    if progress and len(tasks) > 1:
        from tqdm import tqdm

        results = tqdm(results, total=len(tasks), desc="sweep", unit="run", file=sys.stderr,
                       dynamic_ncols=True, leave=False)
    chunks = list(results)
    raw = pd.DataFrame([rec for chunk in chunks for rec in chunk])
    missing = [k for k in by if k not in raw.columns]
    if missing:
        raise ValueError(f"by names keys that run did not return: {missing}")
    by = [*by, *(k for k in LABELS if k in raw.columns and k not in by and k not in grid)]
    metrics = [c for c in raw.columns if c not in grid and c not in by and c != "run"]
    table = summarise(raw[[*grid, *by, *metrics, "run"]], metrics)
    return (table, raw) if return_raw else table
