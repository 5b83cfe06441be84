"""Seeded sweeps and the quick/paper switch."""

import numpy as np
import pytest

from helpers.config import PAPER, QUICK, scale
from helpers.experiments import grid_points, summarise, sweep


def _noisy(seed, mu, shift=0.0):
    rng = np.random.default_rng(seed)
    return {"value": mu + shift + rng.standard_normal()}


def test_grid_points_cover_the_product():
    pts = grid_points({"a": [1, 2], "b": [10, 20, 30]})
    assert len(pts) == 6 and pts[0] == {"a": 1, "b": 10} and pts[-1] == {"a": 2, "b": 30}
    assert grid_points({"a": 3}) == [{"a": 3}]


def test_sweep_mean_and_standard_error():
    table = sweep(_noisy, {"mu": [0.0, 5.0]}, runs=400, seed=1, n_jobs=1)
    assert list(table.columns) == ["mu", "value", "value_se", "runs"]
    assert (table["runs"] == 400).all()
    # Standard normal noise: se = 1/sqrt(400) = 0.05; the mean is within 5 se of mu.
    np.testing.assert_allclose(table["value_se"], 0.05, rtol=0.2)
    assert np.all(np.abs(table["value"] - table["mu"]) < 5 * 0.05)


def test_sweep_seeds_are_the_documented_seed_sequences():
    # Seeds follow the point's position in the grid and the replicate (no claim about
    # reordering the grid): run r of point i gets SeedSequence(seed, spawn_key=(i, r)).
    _, raw = sweep(_noisy, {"mu": [0.0, 1.0]}, runs=3, seed=3, n_jobs=1, return_raw=True)
    for (i, mu), r in [((0, 0.0), 0), ((0, 0.0), 2), ((1, 1.0), 1)]:
        z = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(i, r))).standard_normal()
        row = raw[(raw["mu"] == mu) & (raw["run"] == r)]
        assert row["value"].item() == mu + z
    other = sweep(_noisy, {"mu": [0.0, 1.0]}, runs=3, seed=4, n_jobs=1)
    assert not np.any(other["value"].to_numpy() == raw.groupby("mu")["value"].mean().to_numpy())


def test_paired_keys_share_seeds():
    _, raw = sweep(_noisy, {"mu": [0.0], "shift": [0.0, 10.0]}, runs=3, seed=0,
                   paired=("shift",), n_jobs=1, return_raw=True)
    a = raw[raw["shift"] == 0.0]["value"].to_numpy()
    b = raw[raw["shift"] == 10.0]["value"].to_numpy()
    np.testing.assert_allclose(b - a, 10.0)


def test_list_of_records_with_label_keys():
    def run(seed, mu):
        return [{"lam": lam, "risk": mu * lam} for lam in (0.1, 1.0)]

    table = sweep(run, {"mu": [1.0, 2.0]}, runs=2, by=("lam",), n_jobs=1)
    assert len(table) == 4 and set(table.columns) == {"mu", "lam", "risk", "risk_se", "runs"}
    assert table.loc[(table.mu == 2.0) & (table.lam == 1.0), "risk"].item() == 2.0


def test_summarise_without_keys():
    import pandas as pd

    raw = pd.DataFrame({"x": [1.0, 3.0], "run": [0, 1]})
    out = summarise(raw, ["x"])
    assert out["x"].item() == 2.0 and out["runs"].item() == 2


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        (dict(runs=0), "runs must be a positive integer"),
        (dict(seed=-1), "seed must be a non-negative integer"),
        (dict(paired=("nu",)), "paired names keys that are not in the grid"),
        (dict(by=("lam",)), "by names keys that run did not return"),
    ],
)
def test_sweep_bad_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        sweep(_noisy, {"mu": [0.0]}, **{"runs": 2, "n_jobs": 1, **kw})


def test_grid_must_be_nonempty():
    with pytest.raises(ValueError, match="grid must be a non-empty mapping"):
        grid_points({})
    with pytest.raises(ValueError, match=r"grid\['a'\] must hold at least one value"):
        grid_points({"a": []})


def test_run_must_return_dicts():
    with pytest.raises(ValueError, match="run must return a dict"):
        sweep(lambda seed, mu: 1.0, {"mu": [0.0]}, runs=1, n_jobs=1)


def test_scale_switch(monkeypatch):
    monkeypatch.delenv("BOOK_SCALE", raising=False)
    assert scale() is QUICK and not QUICK.is_paper
    monkeypatch.setenv("BOOK_SCALE", "paper")
    assert scale() is PAPER and PAPER.d == 512 and PAPER.runs == 50
    assert scale("quick") is QUICK
    monkeypatch.setenv("BOOK_SCALE", "huge")
    with pytest.raises(ValueError, match="BOOK_SCALE must be 'quick' or 'paper'"):
        scale()
    with pytest.raises(ValueError, match="name must be 'quick' or 'paper'"):
        scale("big")


def test_paired_gain_is_the_mean_of_run_by_run_differences():
    from helpers.experiments import paired_gain

    def run(seed, x):
        rng = np.random.default_rng(seed)
        shared = rng.standard_normal()  # the draw both levels share
        return [{"eta": e, "risk": 1.0 + shared - 0.1 * e * x + 0.01 * rng.standard_normal()}
                for e in (0.0, 1.0, 2.0)]

    table, raw = sweep(run, {"x": [1.0, 2.0]}, runs=6, by=("eta",), n_jobs=1, return_raw=True)
    gain = paired_gain(raw, "eta", 0.0)
    assert list(gain.columns) == ["x", "eta", "gain", "gain_se", "runs"]
    for _, row in gain.iterrows():
        runs = raw[raw.x == row.x].pivot(index="run", columns="eta", values="risk")
        diff = runs[0.0] - runs[row.eta]
        assert row.gain == pytest.approx(diff.mean()) and row.gain_se == pytest.approx(diff.sem())
        assert row.gain == pytest.approx(0.1 * row.eta * row.x, abs=0.05)
        assert row.gain_se < 0.02  # the shared draw cancels: paired, not independent
    assert (table.risk_se > 3 * gain.gain_se.max()).all()  # unpaired: the shared draw's spread
    with pytest.raises(ValueError, match="no run has eta == 5"):
        paired_gain(raw, "eta", 5.0)
    with pytest.raises(ValueError, match="columns 'loss'"):
        paired_gain(raw, "eta", 0.0, value="loss")
