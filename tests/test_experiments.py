"""Seeded sweeps and the quick/paper switch."""

import numpy as np
import pytest

import helpers
from helpers import named_seed
from helpers.config import PAPER, QUICK, scale
from helpers.experiments import grid_points, paired_gain, point_seed, summarise, sweep


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
    # Run r of a point gets the child of the sweep's seed named by the point's values (in
    # sorted order) and then by "run=r" (helpers.experiments.point_seed).
    _, raw = sweep(_noisy, {"mu": [0.0, 1.0]}, runs=3, seed=3, n_jobs=1, return_raw=True)
    for mu, r in [(0.0, 0), (0.0, 2), (1.0, 1)]:
        ss = named_seed(3, f"mu={float(mu)!r}", f"run={r}")
        assert point_seed(3, {"mu": mu}, r).spawn_key == ss.spawn_key
        z = np.random.default_rng(ss).standard_normal()
        row = raw[(raw["mu"] == mu) & (raw["run"] == r)]
        assert row["value"].item() == mu + z
    other = sweep(_noisy, {"mu": [0.0, 1.0]}, runs=3, seed=4, n_jobs=1)
    assert not np.any(other["value"].to_numpy() == raw.groupby("mu")["value"].mean().to_numpy())


def _values(raw, **point):
    rows = raw
    for k, v in point.items():
        rows = rows[rows[k] == v]
    return rows.sort_values("run")["value"].to_list()


def test_a_points_draws_do_not_depend_on_the_rest_of_the_grid_or_its_order():
    kw = dict(runs=3, seed=named_seed(0, "sweep"), n_jobs=1, return_raw=True)
    _, full = sweep(_noisy, {"mu": [0.0, 1.0, 2.0], "shift": [0.0, 5.0]}, **kw)
    _, part = sweep(_noisy, {"shift": [5.0], "mu": [2.0, 1.0]}, **kw)   # other order, fewer
    for mu in (1.0, 2.0):
        assert _values(part, mu=mu, shift=5.0) == _values(full, mu=mu, shift=5.0)
    # the same value written as an integer or as a float is the same point
    _, ints = sweep(_noisy, {"mu": [1], "shift": [5]}, **kw)
    assert _values(ints, mu=1, shift=5) == _values(full, mu=1.0, shift=5.0)
    # different points, different draws
    assert _values(full, mu=1.0, shift=0.0) != [v - 1.0 for v in _values(full, mu=2.0,
                                                                           shift=0.0)]


def test_two_sweeps_with_the_same_seed_share_their_common_points():
    seed = named_seed(1, "section")
    _, a = sweep(_noisy, {"mu": [0.0, 1.0]}, runs=4, seed=seed, n_jobs=1, return_raw=True)
    _, b = sweep(_noisy, {"mu": [1.0, 7.0]}, runs=4, seed=seed, n_jobs=1, return_raw=True)
    assert _values(a, mu=1.0) == _values(b, mu=1.0)
    _, c = sweep(_noisy, {"mu": [1.0]}, runs=4, seed=named_seed(1, "another section"),
                 n_jobs=1, return_raw=True)
    assert _values(c, mu=1.0) != _values(a, mu=1.0)
    # more replicates add runs and keep the first ones
    _, more = sweep(_noisy, {"mu": [1.0]}, runs=6, seed=seed, n_jobs=1, return_raw=True)
    assert _values(more, mu=1.0)[:4] == _values(a, mu=1.0)


def test_fixed_arguments_reach_every_call_and_name_no_seed():
    _, plain = sweep(_noisy, {"mu": [0.0, 1.0]}, runs=2, seed=5, n_jobs=1, return_raw=True)
    table, raw = sweep(_noisy, {"mu": [0.0, 1.0]}, fixed={"shift": 10.0}, runs=2, seed=5,
                       n_jobs=1, return_raw=True)
    assert "shift" not in table.columns
    np.testing.assert_allclose(raw["value"], plain["value"] + 10.0)
    with pytest.raises(ValueError, match=r"fixed and grid both name \['mu'\]"):
        sweep(_noisy, {"mu": [0.0]}, fixed={"mu": 1.0}, runs=1, n_jobs=1)


def test_labels_are_grouped_on_without_being_named():
    def run(seed, mu):
        rng = np.random.default_rng(seed)
        return [{"eta": e, "lam": lam, "step": 1, "risk": mu * e + lam + rng.standard_normal()}
                for e in (0.0, 1.0) for lam in (0.1, 1.0)]

    table = sweep(run, {"mu": [1.0, 2.0]}, runs=3, n_jobs=1)
    assert list(table.columns) == ["mu", "eta", "step", "lam", "risk", "risk_se", "runs"]
    assert len(table) == 8 and (table["runs"] == 3).all()


def test_the_one_run_is_the_default_runner():
    fixed = dict(student="tanh", teacher="tanh", psi1=2.0, psi2=1.0, eta=[0.0, 1.0], lam=0.1,
                 n_test=200)
    seed = named_seed(2, "one run")
    table, raw = sweep(None, {"d": [8, 12]}, fixed=fixed, runs=2, seed=seed, n_jobs=1,
                       return_raw=True)
    assert list(table.columns) == ["d", "eta", "lam", "risk", "risk_se", "runs"]
    assert len(table) == 4
    for r in range(2):
        want = helpers.run(**fixed, d=12, seed=point_seed(seed, {"d": 12}, r))
        got = raw[(raw["d"] == 12) & (raw["run"] == r)]
        np.testing.assert_array_equal(got["risk"].to_numpy(), [w["risk"] for w in want])


def test_a_runner_may_return_the_run_itself():
    fixed = dict(student="tanh", teacher="tanh", psi1=2.0, psi2=1.0, eta=[0.0, 1.0], lam=0.1,
                 n_test=200)
    by_draw = sweep(helpers.draw, {"d": [8]}, fixed=fixed, runs=2, seed=3, n_jobs=1)
    by_run = sweep(None, {"d": [8]}, fixed=fixed, runs=2, seed=3, n_jobs=1)
    assert by_draw.equals(by_run)


def test_paired_gain_needs_a_baseline_row_in_every_run():
    import pandas as pd

    raw = pd.DataFrame({"eta": [0.0, 1.0, 1.0], "risk": [1.0, 0.5, 0.6], "run": [0, 0, 1]})
    with pytest.raises(ValueError, match="some runs have no baseline row"):
        paired_gain(raw, "eta", 0.0)


def test_grid_values_need_a_name_that_is_the_same_in_every_process():
    from helpers.activations import get_activation

    assert point_seed(0, {"student": get_activation("tanh")}, 0).spawn_key == \
        point_seed(0, {"student": get_activation("tanh")}, 0).spawn_key
    assert point_seed(0, {"g": np.tanh}, 0).spawn_key == named_seed(0, "g=<tanh>",
                                                                    "run=0").spawn_key
    assert point_seed(0, {"eta": (0.5, 1)}, 0).spawn_key == named_seed(
        0, "eta=(0.5,1.0)", "run=0").spawn_key
    assert point_seed(0, {"flag": True, "x": None}, 1).spawn_key == named_seed(
        0, "flag=True,x=None", "run=1").spawn_key
    assert point_seed(0, {"teacher": "tanh", "d": 8}, 0).spawn_key == named_seed(
        0, "d=8.0,teacher='tanh'", "run=0").spawn_key
    from fractions import Fraction

    # no name, but a repr without an address
    assert point_seed(0, {"q": Fraction(1, 3)}, 0).spawn_key == named_seed(
        0, "q=Fraction(1, 3)", "run=0").spawn_key
    with pytest.raises(ValueError, match="a grid value must have a name"):
        point_seed(0, {"w": object()}, 0)


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
        (dict(seed=np.random.default_rng(0)), "seed must be a non-negative integer or a"),
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
