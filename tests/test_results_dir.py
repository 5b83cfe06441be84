"""helpers.results_dir: where chapters find the committed benchmark results."""

import pytest

import helpers


def test_results_dir_is_the_repository_folder_by_default(monkeypatch):
    monkeypatch.delenv("BOOK_RESULTS", raising=False)
    folder = helpers.results_dir()
    assert folder.is_dir() and folder.parts[-2:] == ("benchmarks", "results")
    assert (folder / "small_step_gain_d.csv").is_file()


def test_results_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("BOOK_RESULTS", str(tmp_path))
    assert helpers.results_dir() == tmp_path
    monkeypatch.setenv("BOOK_RESULTS", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="BOOK_RESULTS"):
        helpers.results_dir()
