"""Parallel sweeps: joblib workers and their BLAS threads, a Dask cluster, progress bars."""

import numpy as np
import pandas as pd
import pytest

from helpers.config import PROGRESS_ENV, cpu_count, show_progress
from helpers.experiments import sweep


def _noisy(seed, mu):
    return {"value": mu + np.random.default_rng(seed).standard_normal()}


def _scaled(seed, mu, sd):
    return {"value": mu + sd * np.random.default_rng(seed).standard_normal()}


def _on_dask(seed, mu):
    import threading

    return {"on_dask": float("Dask" in threading.current_thread().name)}


def _blas_threads(seed, mu):
    from threadpoolctl import threadpool_info

    blas = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
    return {"threads": max(blas) if blas else 1}


@pytest.mark.parametrize("bad", [0, 1.5, True, "2"])
def test_sweep_rejects_bad_n_jobs(bad):
    with pytest.raises(ValueError, match="n_jobs must be a non-zero integer"):
        sweep(_noisy, {"mu": [0.0]}, runs=1, n_jobs=bad)


def test_parallel_workers_limit_their_blas_threads():
    # joblib's loky workers cap their BLAS at cores // workers threads (at least one).
    table = sweep(_blas_threads, {"mu": [0.0, 1.0]}, runs=2, n_jobs=2, progress=False)
    assert (table["threads"] <= max(1, cpu_count() // 2)).all()


def test_parallel_sweep_equals_serial_sweep():
    t1 = sweep(_noisy, {"mu": [0.0, 1.0, 2.0]}, runs=4, seed=9, n_jobs=1, progress=False)
    t2 = sweep(_noisy, {"mu": [0.0, 1.0, 2.0]}, runs=4, seed=9, n_jobs=-1, progress=False)
    np.testing.assert_array_equal(t1["value"], t2["value"])
    np.testing.assert_array_equal(t1["value_se"], t2["value_se"])


def test_progress_bar_goes_to_stderr_only_when_asked(capsys):
    sweep(_noisy, {"mu": [0.0, 1.0]}, runs=3, n_jobs=1, progress=True)
    captured = capsys.readouterr()
    assert "sweep" in captured.err and "/6" in captured.err and captured.out == ""
    sweep(_noisy, {"mu": [0.0, 1.0]}, runs=3, n_jobs=1, progress=False)
    assert capsys.readouterr().err == ""


def test_progress_switch(monkeypatch):
    monkeypatch.setenv(PROGRESS_ENV, "1")
    assert show_progress() is True
    monkeypatch.setenv(PROGRESS_ENV, "off")
    assert show_progress() is False
    monkeypatch.setenv(PROGRESS_ENV, "maybe")
    with pytest.raises(ValueError, match="BOOK_PROGRESS must be 1 or 0"):
        show_progress()
    # unset: a kernel run by jupyter-book/nbclient (no TTY, no Jupyter server) shows nothing
    monkeypatch.delenv(PROGRESS_ENV)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert show_progress() is False
    monkeypatch.setenv("JPY_SESSION_NAME", "chapters/03_small_step.md")
    assert show_progress() is True


def test_default_progress_is_silent_in_a_build(monkeypatch, capsys):
    monkeypatch.setenv(PROGRESS_ENV, "0")
    sweep(_noisy, {"mu": [0.0, 1.0]}, runs=3, n_jobs=1)
    assert capsys.readouterr().err == ""


def test_a_sweep_on_a_dask_cluster_gives_the_same_table():
    # joblib.parallel_config(backend="dask") and nothing else sends a sweep to a cluster.
    distributed = pytest.importorskip("distributed")
    import joblib

    grid = {"mu": [0.0, 1.0, 2.0], "sd": [1.0, 2.0]}
    kw = dict(runs=3, seed=4, paired=("sd",), progress=False)
    local = sweep(_scaled, grid, n_jobs=1, **kw)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with joblib.parallel_config(backend="dask"):
            remote = sweep(_scaled, grid, n_jobs=-1, **kw)
            on_default_jobs = sweep(_scaled, grid, **kw)
            where = sweep(_on_dask, {"mu": [0.0, 1.0]}, runs=2, progress=False)
        assert len(client.scheduler_info()["workers"]) == 2
    assert (where["on_dask"] == 1.0).all()  # every run went to the cluster's workers
    pd.testing.assert_frame_equal(local, remote)
    pd.testing.assert_frame_equal(local, on_default_jobs)
