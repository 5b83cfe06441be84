"""Parallel sweeps: worker plan, BLAS threads per worker, progress bars, the env switches."""

import numpy as np
import pytest

from helpers.config import PROGRESS_ENV, cpu_count, show_progress
from helpers.experiments import sweep, worker_plan


def _noisy(seed, mu):
    return {"value": mu + np.random.default_rng(seed).standard_normal()}


def _blas_threads(seed, mu):
    from threadpoolctl import threadpool_info

    blas = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
    return {"threads": max(blas) if blas else 1}


def test_worker_plan_shares_cores_between_workers(monkeypatch):
    monkeypatch.setattr("helpers.experiments.cpu_count", lambda: 8)
    assert worker_plan(1, 100) == (1, 8)
    assert worker_plan(-1, 100) == (8, 1)
    assert worker_plan(2, 100) == (2, 4)
    assert worker_plan(-2, 100) == (7, 1)
    assert worker_plan(-1, 3) == (3, 2)  # never more workers than tasks
    assert worker_plan(-20, 5) == (1, 8)


@pytest.mark.parametrize("bad", [0, 1.5, True, "2"])
def test_worker_plan_rejects_bad_n_jobs(bad):
    with pytest.raises(ValueError, match="n_jobs must be a non-zero integer"):
        worker_plan(bad, 4)


def test_parallel_workers_limit_their_blas_threads():
    # Two workers on this machine's cores: each BLAS gets cores // 2 threads (at least one).
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


def test_cpu_count_is_positive():
    assert cpu_count() >= 1
