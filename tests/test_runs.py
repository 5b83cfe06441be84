"""helpers.runs: the one run (draw, run) and its preset simulate_one_step.

Each property is checked against plain NumPy on the run's named streams (the lines of chapter
1's from-scratch cell), so the fast paths of the run (one gradient for every step size, the
products X W0 and X G0 kept for every matrix, float32 products) are tested against the
definition, not against themselves.
"""

import copy
import math
import pickle

import numpy as np
import pytest

import helpers
from helpers import draw, named_seed, run, simulate_one_step, stream
from helpers.activations import get_activation
from helpers.risk import TEST_BLOCK
from helpers.runs import LABELS, STREAMS, OneStepResult, default_n_test
from helpers.teachers import remove_linear_part, sample_directions, single_index, staircase
from helpers.theory import kernel_lower_bound

PROBLEM = dict(student="tanh", teacher="softplus", d=12, psi1=2.0, psi2=1.5, noise=0.25,
               n_test=300)   # n = 24, N = 18
SEED = named_seed(2026, "tests of the run")
LAMS = [1e-3, 0.1, 2.0]
SIGMA = get_activation("tanh")
F_STAR = get_activation("softplus", centred=True)


# --------------------------------------------------------------------------- plain NumPy
def _draws(seed, d=12, n=24, N=18, noise=0.25, n_test=300):
    """The draws of a run from its named streams, by hand (chapter 1's from-scratch cell)."""
    s = {name: stream(seed, name) for name in ("teacher", "init", "step", "ridge", "test")}
    beta = s["teacher"].standard_normal(d)
    beta /= np.linalg.norm(beta)
    W0 = s["init"].standard_normal((d, N)) / math.sqrt(d)
    a = s["init"].standard_normal(N) / math.sqrt(N)
    X = s["step"].standard_normal((n, d))
    y = F_STAR(X @ beta) + noise * s["step"].standard_normal(n)
    Xr = s["ridge"].standard_normal((n, d))
    yr = F_STAR(Xr @ beta) + noise * s["ridge"].standard_normal(n)
    Xt = s["test"].standard_normal((n_test, d))
    return dict(beta=beta, W0=W0, a=a, X=X, y=y, Xr=Xr, yr=yr, Xt=Xt)


def _gradient(X, y, W, a, *, initial_output=True):
    """The negative gradient of eq. (2.1), written out for the tanh student."""
    n, N = X.shape[0], W.shape[1]
    pre = X @ W
    e = y - np.tanh(pre) @ a / math.sqrt(N) if initial_output else y
    return X.T @ ((e[:, None] * a[None, :]) * (1 - np.tanh(pre) ** 2)) / (n * math.sqrt(N))


def _risks(W, Xr, yr, Xt, beta, lams, linear=None):
    """Ridge min_b (1/n)|yr - F b|^2 + lam |b|^2 on F = tanh(Xr W), its risk on Xt."""
    F, n = np.tanh(Xr @ W), Xr.shape[0]
    out = []
    for lam in lams:
        b = np.linalg.solve(F.T @ F + n * lam * np.eye(F.shape[1]), F.T @ yr)
        pred = np.tanh(Xt @ W) @ b
        if linear is not None:
            pred = pred + linear[0] + Xt @ linear[1]
        out.append(np.mean((pred - F_STAR(Xt @ beta)) ** 2))
    return np.array(out)


def _risk_table(records):
    return {(r.get("eta", r.get("eta_scale")), r.get("step"), r["lam"]): r["risk"]
            for r in records if "risk" in r}


# --------------------------------------------------------------------------- the arguments
BASE = dict(PROBLEM, seed=0, lam=0.1, eta=1.0)


@pytest.mark.parametrize(("change", "match"), [
    (dict(student="tanhh"), "student: activation must be one of"),
    (dict(teacher="relux"), "teacher: activation must be one of"),
    (dict(second_layer="uniform"), "second_layer must be"),
    (dict(d=0), "d must be a positive integer"),
    (dict(d=-4), "d must be a positive integer"),
    (dict(d=12.5), "d must be a positive integer"),
    (dict(psi1=0.0), "psi1 must be a finite number > 0"),
    (dict(psi1=-1.0), "psi1 must be"),
    (dict(psi2=0.0), "psi2 must be a finite number > 0"),
    (dict(psi2=-2.0), "psi2 must be"),
    (dict(eta=-0.5), "eta must be a finite number >= 0"),
    (dict(eta=[0.0, -1.0]), "eta must be a finite number >= 0"),
    (dict(eta=[]), "eta must be a number >= 0 or a non-empty sequence"),
    (dict(eta=1.0, eta_scale=1.0), "give eta .* or eta_scale .*, not both"),
    (dict(eta=None, eta_scale=-1.0), "eta_scale must be"),
    (dict(k=13, teacher=staircase), "k must be at most d = 12"),
    (dict(k=0, teacher=staircase), "k must be a positive integer"),
    (dict(k=2, teacher="tanh"), "teacher must be a callable"),
    (dict(model="population"), "model='population' is defined by eta_scale"),
    (dict(model="population", eta=None, eta_scale=1.0, steps=2), "leave steps at 1"),
    (dict(model="population", eta=None, eta_scale=1.0, k=2, teacher=staircase),
     "single-index teacher"),
    (dict(model="net"), "model must be one of"),
    (dict(batches="same"), "batches must be one of"),
    (dict(precision="half"), "precision must be one of"),
    (dict(steps=0), "steps must be a positive integer"),
    (dict(steps=2, record_steps=[3]), r"record_steps must lie in 0..2"),
    (dict(steps=2, record_steps=[-1]), "record_steps must be"),
    (dict(eta=[(1.0, 2.0)]), "a tuple of rates needs steps > 1"),
    (dict(eta=[(1.0, 2.0, 3.0)], steps=2), "has 3 rates for 2 steps"),
    (dict(lam=0.0), "lam must be"),
    (dict(lam=[0.1, -1.0]), "lam must be"),
    (dict(noise=-0.1), "noise must be"),
    (dict(n_test=0), "n_test must be"),
    (dict(measures=("risk", "riks")), "measures must be names among"),
    (dict(measures=()), "measures must name at least one measure"),
    (dict(lam=None), "no readout: give lam"),
    (dict(measures=(lambda r, labels: 1.0,)), "must return a dict or a list of dicts"),
])
def test_a_bad_argument_is_refused_naming_it(change, match):
    with pytest.raises(ValueError, match=match):
        run(**{**BASE, **change})


def test_every_risk_measure_needs_lam():
    for measure in ("risk", "best_risk", "gaussian_equivalent"):
        with pytest.raises(ValueError, match="give lam"):
            run(**{**BASE, "lam": None}, measures=(measure,))
    # the measures that need no readout run without it
    rows = run(**{**BASE, "lam": None}, measures=("movement", "overlap"))
    assert {"move", "overlap"} <= set().union(*rows)


# --------------------------------------------------------------------------- the draws
def test_the_same_seed_gives_the_same_draws_across_runs_that_differ_elsewhere():
    ref = draw(**PROBLEM, seed=SEED, eta=1.0, lam=0.1)
    others = [draw(**PROBLEM, seed=SEED, eta=[0.0, 2.0, 5.0], lam=LAMS),
              draw(**PROBLEM, seed=SEED, eta_scale=0.3),
              draw(**PROBLEM, seed=SEED, eta=1.0, steps=2, batches="reused", lam=0.1),
              draw(**PROBLEM, seed=SEED, eta=1.0, steps=3, batches="fresh"),
              draw(**PROBLEM, seed=SEED, eta=1.0, initial_output=False),
              draw(**PROBLEM, seed=SEED, eta=1.0, normalize=True, precision="mixed"),
              draw(**PROBLEM, seed=SEED, eta=1.0, second_layer="rademacher")]
    for r in others:
        for name in ("beta", "W0", "X", "y"):
            np.testing.assert_array_equal(getattr(r, name), getattr(ref, name), err_msg=name)
        for got, want in zip(r.ridge_data(), ref.ridge_data(), strict=True):
            np.testing.assert_array_equal(got, want)
        for (Xt, ft), (Xt0, ft0) in zip(r.test_blocks(), ref.test_blocks(), strict=True):
            np.testing.assert_array_equal(Xt, Xt0)
            np.testing.assert_array_equal(ft, ft0)
    for r in others[:-1]:
        np.testing.assert_array_equal(r.a, ref.a)
    # the +-1 layer takes the signs of the Gaussian draws
    np.testing.assert_array_equal(others[-1].a, np.sign(ref.a) / math.sqrt(ref.N))
    # the same seed again: the same numbers; another seed: other numbers
    again = run(**PROBLEM, seed=SEED, eta=[0.0, 1.0], lam=LAMS)
    assert again == run(**PROBLEM, seed=SEED, eta=[0.0, 1.0], lam=LAMS)
    other = draw(**PROBLEM, seed=named_seed(2026, "another run"), eta=1.0)
    assert not np.array_equal(other.W0, ref.W0) and not np.array_equal(other.X, ref.X)


def test_the_draws_are_the_named_streams_of_the_seed():
    r = draw(**PROBLEM, seed=SEED, eta=1.5, lam=LAMS)
    hand = _draws(SEED)
    for name in ("beta", "W0", "a", "X", "y"):
        np.testing.assert_allclose(getattr(r, name), hand[name], rtol=1e-13, atol=1e-15,
                                   err_msg=name)
    Xr, yr = r.ridge_data()
    np.testing.assert_array_equal(Xr, hand["Xr"])
    np.testing.assert_allclose(yr, hand["yr"], rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(np.vstack([Xt for Xt, _ in r.test_blocks()]), hand["Xt"])
    assert (r.d, r.n, r.N, r.n_test) == (12, 24, 18, 300)
    np.testing.assert_allclose(r.G0, _gradient(hand["X"], hand["y"], hand["W0"], hand["a"]),
                               rtol=1e-10, atol=1e-14)
    assert set(STREAMS) >= {"teacher", "init", "step", "batches", "ridge", "test",
                            "population"}
    np.testing.assert_array_equal(r.rng("ridge").standard_normal(3),
                                  stream(SEED, "ridge").standard_normal(3))
    # the ridge set and the test points are drawn once and kept
    assert r.ridge_data() is r.ridge_data() and r.test_blocks() is r.test_blocks()


def test_test_points_come_in_blocks_that_are_the_rows_of_one_draw():
    r = draw(**{**PROBLEM, "d": 4, "n_test": TEST_BLOCK + 37}, seed=SEED, eta=1.0, lam=0.1)
    blocks = r.test_blocks()
    assert [len(Xt) for Xt, _ in blocks] == [TEST_BLOCK, 37]
    np.testing.assert_array_equal(np.vstack([Xt for Xt, _ in blocks]),
                                  stream(SEED, "test").standard_normal((TEST_BLOCK + 37, 4)))
    assert default_n_test(10) == 2048 and default_n_test(5000) == 5000
    assert draw(**{**PROBLEM, "n_test": None}, seed=0).n_test == 2048


# --------------------------------------------------------------------------- the readout
def test_every_weight_matrix_sees_the_same_ridge_set_and_test_points():
    """Each risk of a run with several step sizes is the brute-force risk of its matrix on
    one ridge set and one set of test points, drawn by hand from the named streams."""
    etas = [0.0, 0.5, 2.0]
    records = run(**PROBLEM, seed=SEED, eta=etas, lam=LAMS)
    assert [(r["eta"], r["lam"]) for r in records] == [(e, lam) for e in etas for lam in LAMS]
    hand = _draws(SEED)
    G0 = _gradient(hand["X"], hand["y"], hand["W0"], hand["a"])
    table = _risk_table(records)
    for eta in etas:
        W = hand["W0"] + eta * math.sqrt(18) * G0
        want = _risks(W, hand["Xr"], hand["yr"], hand["Xt"], hand["beta"], LAMS)
        got = [table[(eta, None, lam)] for lam in LAMS]
        np.testing.assert_allclose(got, want, rtol=1e-8)


def test_simulate_one_step_is_plain_numpy_on_the_named_streams():
    res = simulate_one_step("tanh", "softplus", d=12, psi1=2.0, psi2=1.5, noise=0.25,
                            n_test=300, lam=LAMS, eta=1.5, seed=SEED)
    hand = _draws(SEED)
    G0 = _gradient(hand["X"], hand["y"], hand["W0"], hand["a"])
    W1 = hand["W0"] + 1.5 * math.sqrt(18) * G0
    np.testing.assert_allclose(res.W1, W1, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(res.risk, _risks(W1, hand["Xr"], hand["yr"], hand["Xt"],
                                                hand["beta"], LAMS), rtol=1e-8)
    F = np.tanh(hand["Xr"] @ W1)
    b = np.linalg.solve(F.T @ F + 24 * LAMS[1] * np.eye(18), F.T @ hand["yr"])
    np.testing.assert_allclose(res.B[:, 1], b, rtol=1e-7, atol=1e-12)
    # the errors' spread over the test points is the standard error
    sq = (np.tanh(hand["Xt"] @ W1) @ b - F_STAR(hand["Xt"] @ hand["beta"])) ** 2
    assert res.risk_se[1] == pytest.approx(sq.std(ddof=1) / math.sqrt(300), rel=1e-6)
    # the preset is a run with one step size: the same risks
    rows = run(**PROBLEM, seed=SEED, eta=1.5, lam=LAMS)
    np.testing.assert_allclose([r["risk"] for r in rows], res.risk, rtol=1e-12)


def test_one_step_result_holds_the_draws_and_floats_for_one_penalty():
    one = simulate_one_step("erf", "erf", d=40, psi1=2.0, psi2=1.5, lam=1e-2, eta=1.0, seed=0,
                            n_test=500)
    assert isinstance(one, OneStepResult) and isinstance(one.run, helpers.Run)
    assert isinstance(one.risk, float) and isinstance(one.risk_se, float)
    many = simulate_one_step("erf", "erf", d=40, psi1=2.0, psi2=1.5, lam=[1e-3, 1e-2, 1e-1],
                             eta=1.0, seed=0, n_test=500)
    assert (many.d, many.n, many.N) == (40, 80, 60)
    assert many.B.shape == (60, 3) and many.risk.shape == (3,) and many.W1.shape == (40, 60)
    assert many.risk[1] == pytest.approx(one.risk, rel=1e-12)
    np.testing.assert_array_equal(many.lambdas, [1e-3, 1e-2, 1e-1])
    with pytest.raises(AttributeError):
        many.no_such_attribute  # noqa: B018
    for clone in (copy.deepcopy(many), pickle.loads(pickle.dumps(many))):
        np.testing.assert_array_equal(clone.W1, many.W1)
    with pytest.raises(ValueError, match="eta must be one number"):
        simulate_one_step("erf", "erf", d=4, psi1=1, psi2=1, lam=0.1, eta=[1.0, 2.0])


@pytest.mark.parametrize(("kw", "match"), [
    (dict(d=0), "d must be a positive integer"), (dict(psi1=-1.0), "psi1 must be"),
    (dict(psi2=0.0), "psi2 must be"), (dict(lam=0.0), "lam must be"),
    (dict(eta=-0.5), "eta must be"), (dict(noise=-0.1), "noise must be"),
    (dict(n_test=-5), "n_test must be"), (dict(precision="half"), "precision must be one of"),
    (dict(second_layer="uniform"), "second_layer must be"),
])
def test_simulate_one_step_refuses_bad_inputs(kw, match):
    args = dict(d=20, psi1=1.0, psi2=1.0, lam=1e-2, eta=1.0, noise=0.0, n_test=100)
    with pytest.raises(ValueError, match=match):
        simulate_one_step("tanh", "tanh", **{**args, **kw})


def test_random_features_do_not_beat_the_kernel_bound():
    # Proposition 1: ridge on the initial features cannot go below mu2*^2 (up to MC error).
    r = simulate_one_step("tanh", "relu", d=60, psi1=4, psi2=2, lam=1e-3, eta=0.0,
                          seed=named_seed(1, "kernel bound"), n_test=4000)
    assert r.risk > kernel_lower_bound("relu") - 5 * r.risk_se


# --------------------------------------------------------------------------- step sizes
def test_the_affine_fast_path_equals_sigma_of_x_w():
    r = draw(**PROBLEM, seed=SEED, eta=[0.0, 1.0, 3.0], lam=LAMS)
    Xr, _ = r.ridge_data()
    Xt, _ = r.test_blocks()[0]
    for labels, W in r.weights.items():
        for X in (Xr, Xt, Xr):     # the products of a kept input set are computed once
            np.testing.assert_allclose(r.features(X, labels), np.tanh(X @ W), rtol=1e-11,
                                       atol=1e-13)
    # a run with one step size multiplies by its matrix: the same features
    one = draw(**PROBLEM, seed=SEED, eta=3.0, lam=LAMS)
    np.testing.assert_allclose(one.features(Xr, (("eta", 3.0),)),
                               r.features(Xr, (("eta", 3.0),)), rtol=1e-11, atol=1e-13)


def test_the_step_is_linear_in_eta():
    r = draw(**PROBLEM, seed=SEED, eta=[0.0, 1.0, 3.0])
    W = {labels[0][1]: M for labels, M in r.weights.items()}
    np.testing.assert_array_equal(W[0.0], r.W0)
    np.testing.assert_allclose(W[1.0] - r.W0, math.sqrt(r.N) * r.G0, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(W[3.0] - r.W0, 3 * (W[1.0] - r.W0), rtol=1e-10, atol=1e-14)
    with pytest.raises(ValueError, match="W1 is defined for a run with one weight matrix"):
        r.W1  # noqa: B018


def test_several_etas_in_one_run_equal_separate_runs():
    etas = [0.0, 0.7, 2.0]
    together = _risk_table(run(**PROBLEM, seed=SEED, eta=etas, lam=LAMS))
    for eta in etas:
        alone = _risk_table(run(**PROBLEM, seed=SEED, eta=eta, lam=LAMS))
        for lam in LAMS:
            assert together[(eta, None, lam)] == pytest.approx(alone[(eta, None, lam)],
                                                               rel=1e-10)


@pytest.mark.parametrize("layer", ["gaussian", "rademacher", ([1.0, 2.0], [0.5, 0.5])])
def test_the_second_layer_reaches_the_run_and_its_preset(layer):
    rows = run(**PROBLEM, seed=SEED, eta=[0.0, 3.0], lam=0.1, second_layer=layer)
    one = simulate_one_step("tanh", "softplus", d=12, psi1=2.0, psi2=1.5, noise=0.25,
                            n_test=300, lam=0.1, eta=3.0, seed=SEED, second_layer=layer)
    assert rows[1]["risk"] == pytest.approx(one.risk, rel=1e-10)
    np.testing.assert_allclose(np.abs(one.a) * math.sqrt(18),
                               np.abs(helpers.as_second_layer(layer).scale(
                                   stream(SEED, "init").standard_normal(12 * 18 + 18)[-18:])))
    if layer != "gaussian":
        gaussian = run(**PROBLEM, seed=SEED, eta=[0.0, 3.0], lam=0.1)
        assert rows[0]["risk"] == gaussian[0]["risk"]   # no step: the layer plays no part
        assert rows[1]["risk"] != gaussian[1]["risk"]


def test_eta_scale_is_eta_over_sqrt_n():
    N = 18
    scaled = run(**PROBLEM, seed=SEED, eta_scale=[0.0, 0.5], lam=0.1)
    plain = run(**PROBLEM, seed=SEED, eta=[0.0, 0.5 * math.sqrt(N)], lam=0.1)
    assert [r["eta_scale"] for r in scaled] == [0.0, 0.5] and "eta" not in scaled[0]
    np.testing.assert_allclose([r["risk"] for r in scaled], [r["risk"] for r in plain],
                               rtol=1e-12)
    # neither eta nor eta_scale: no step (eta = 0)
    none = draw(**PROBLEM, seed=SEED)
    assert list(none.weights) == [(("eta", 0.0),)]
    np.testing.assert_array_equal(none.W1, none.W0)


def test_the_step_without_the_initial_output_is_the_residual_y():
    r = draw(**PROBLEM, seed=SEED, eta=1.0, initial_output=False)
    np.testing.assert_allclose(r.G0, _gradient(r.X, r.y, r.W0, r.a, initial_output=False),
                               rtol=1e-10, atol=1e-14)
    assert not np.allclose(r.G0, draw(**PROBLEM, seed=SEED, eta=1.0).G0)


# --------------------------------------------------------------------------- several steps
def test_two_steps_reused_and_fresh_share_their_first_step():
    kw = dict(PROBLEM, seed=SEED, eta=0.8, steps=2, record_steps=[0, 1, 2])
    reused, fresh = draw(**kw, batches="reused"), draw(**kw, batches="fresh")
    W = {p: {labels[1][1]: M for labels, M in r.weights.items()}
         for p, r in (("reused", reused), ("fresh", fresh))}
    one = draw(**PROBLEM, seed=SEED, eta=0.8)
    for p in W:
        np.testing.assert_array_equal(W[p][0], one.W0)
        np.testing.assert_allclose(W[p][1], one.W1, rtol=1e-12, atol=1e-15)
    # the second step by hand: on the first batch again, or on the stream "batches"
    s = 0.8 * math.sqrt(18)
    W1 = W["reused"][1]
    np.testing.assert_allclose(W["reused"][2], W1 + s * _gradient(one.X, one.y, W1, one.a),
                               rtol=1e-10, atol=1e-14)
    rng = stream(SEED, "batches")
    X2 = rng.standard_normal((24, 12))
    y2 = F_STAR(X2 @ one.beta) + 0.25 * rng.standard_normal(24)
    np.testing.assert_allclose(W["fresh"][2], W1 + s * _gradient(X2, y2, W1, one.a),
                               rtol=1e-10, atol=1e-14)
    assert not np.allclose(W["fresh"][2], W["reused"][2])
    # paired: with no step every protocol keeps W0, so their risks are one number
    rows = [run(**{**kw, "eta": 0.0, "lam": LAMS}, batches=b) for b in ("reused", "fresh")]
    assert [r["risk"] for r in rows[0]] == [r["risk"] for r in rows[1]]


def test_record_steps_chooses_the_matrices_and_labels_the_records():
    r = draw(**PROBLEM, seed=SEED, eta=[0.5, 1.0], steps=3)
    assert list(r.weights) == [(("eta", e), ("step", t)) for e in (0.5, 1.0) for t in (1, 2, 3)]
    chosen = draw(**PROBLEM, seed=SEED, eta=[0.5, 1.0], steps=3, record_steps=[0, 2])
    assert list(chosen.weights) == [(("eta", e), ("step", t)) for e in (0.5, 1.0)
                                    for t in (0, 2)]
    for labels, M in chosen.weights.items():
        np.testing.assert_allclose(M, r.W0 if labels[1][1] == 0 else r.weights[labels],
                                   rtol=1e-12)
    rows = run(**PROBLEM, seed=SEED, eta=0.5, steps=3, record_steps=[1, 3], lam=0.1)
    assert [(row["eta"], row["step"], row["lam"]) for row in rows] == [(0.5, 1, 0.1),
                                                                       (0.5, 3, 0.1)]
    assert {"eta", "step", "lam"} <= set(LABELS)


def test_one_rate_per_step():
    r = draw(**PROBLEM, seed=SEED, eta=[(0.5, 2.0)], steps=2, batches="reused")
    (labels_1, W1), (labels_2, W2) = r.weights.items()
    assert labels_1 == (("eta", (0.5, 2.0)), ("step", 1))
    s = math.sqrt(18)
    np.testing.assert_allclose(W1, r.W0 + 0.5 * s * r.G0, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(W2, W1 + 2.0 * s * _gradient(r.X, r.y, W1, r.a), rtol=1e-10,
                               atol=1e-14)


def test_normalize_gives_unit_neurons_and_the_readout_uses_them():
    one = draw(**PROBLEM, seed=SEED, eta=[1.0, 2.0], normalize=True, lam=LAMS)
    plain = draw(**PROBLEM, seed=SEED, eta=[1.0, 2.0])
    for labels, W in one.weights.items():
        np.testing.assert_allclose(np.linalg.norm(W, axis=0), 1.0, rtol=1e-12)
        Wp = plain.weights[labels]
        np.testing.assert_allclose(W, Wp / np.linalg.norm(Wp, axis=0), rtol=1e-12)
    hand = _draws(SEED)
    table = _risk_table(one.records(("risk",)))
    W = one.weights[(("eta", 2.0),)]
    np.testing.assert_allclose([table[(2.0, None, lam)] for lam in LAMS],
                               _risks(W, hand["Xr"], hand["yr"], hand["Xt"], hand["beta"],
                                      LAMS), rtol=1e-8)
    several = draw(**PROBLEM, seed=SEED, eta=2.0, steps=2, normalize=True)
    for W in several.weights.values():
        np.testing.assert_allclose(np.linalg.norm(W, axis=0), 1.0, rtol=1e-12)


def test_linear_removed_steps_on_the_rest_and_adds_the_linear_part_back():
    r = draw(**PROBLEM, seed=SEED, eta=[0.0, 1.5], lam=LAMS, linear_removed=True)
    hand = _draws(SEED)
    rest = remove_linear_part(hand["X"], hand["y"])[0]
    np.testing.assert_allclose(r.G0, _gradient(hand["X"], rest, hand["W0"], hand["a"]),
                               rtol=1e-10, atol=1e-14)
    np.testing.assert_array_equal(r.y, draw(**PROBLEM, seed=SEED).y)   # the labels kept
    # the readout: ridge on the ridge labels minus their linear part, which the predictions
    # add back
    yr_rest, mean, b = remove_linear_part(hand["Xr"], hand["yr"])
    table = _risk_table(r.records(("risk",)))
    for eta in (0.0, 1.5):
        W = r.weights[(("eta", eta),)]
        want = _risks(W, hand["Xr"], yr_rest, hand["Xt"], hand["beta"], LAMS,
                      linear=(mean, b))
        np.testing.assert_allclose([table[(eta, None, lam)] for lam in LAMS], want,
                                   rtol=1e-8)
    # several steps step on each batch's rest too
    two = draw(**PROBLEM, seed=SEED, eta=1.5, steps=2, batches="reused", linear_removed=True)
    W1 = two.weights[(("eta", 1.5), ("step", 1))]
    np.testing.assert_allclose(two.weights[(("eta", 1.5), ("step", 2))],
                               W1 + 1.5 * math.sqrt(18) * _gradient(hand["X"], rest, W1,
                                                                     hand["a"]),
                               rtol=1e-10, atol=1e-14)


def test_mixed_precision_is_close_to_float64():
    kw = dict(d=40, psi1=3.0, psi2=2.0, lam=[1e-4, 1e-2, 0.3, 5.0], eta=1.0, noise=0.25,
              seed=named_seed(3, "mixed precision"))
    ref = simulate_one_step("tanh", "softplus", **kw)
    mix = simulate_one_step("tanh", "softplus", precision="mixed", **kw)
    np.testing.assert_array_equal(ref.W1, mix.W1)  # the step itself stays float64
    assert np.all(np.abs(mix.risk - ref.risk) < 1e-3 * ref.risk_se)
    assert mix.B.dtype == np.float64
    # and on the fast path of several step sizes
    args = dict(PROBLEM, seed=SEED, eta=[0.0, 1.0, 2.0], lam=LAMS)
    r64 = draw(**args)
    r32 = draw(**args, precision="mixed")
    Xr, _ = r32.ridge_data()
    assert r32.features(Xr, (("eta", 1.0),)).dtype == np.float32
    se = simulate_one_step("tanh", "softplus", d=12, psi1=2.0, psi2=1.5, noise=0.25,
                           n_test=300, lam=LAMS, eta=2.0, seed=SEED).risk_se
    risk64 = _risk_table(r64.records(("risk",)))
    risk32 = _risk_table(r32.records(("risk",)))
    for lam, s in zip(LAMS, se, strict=True):
        assert abs(risk32[(2.0, None, lam)] - risk64[(2.0, None, lam)]) < 1e-3 * s


# --------------------------------------------------------------------------- teachers and models
def test_a_k_index_teacher_is_drawn_from_the_same_streams():
    r = draw(student="relu", teacher=staircase, k=2, d=7, psi1=40 / 7, psi2=5 / 7, eta=0.7,
             noise=0.1, seed=SEED)
    B = sample_directions(7, 2, rng=stream(SEED, "teacher"))
    np.testing.assert_array_equal(r.beta, B)
    np.testing.assert_allclose(B.T @ B, np.eye(2), atol=1e-12)
    rng = stream(SEED, "step")
    X = rng.standard_normal((40, 7))
    y = staircase(X @ B) + 0.1 * rng.standard_normal(40)
    np.testing.assert_array_equal(r.X, X)
    np.testing.assert_allclose(r.y, y, rtol=1e-13)
    pre = X @ r.W0
    e = y - np.maximum(pre, 0) @ r.a / math.sqrt(5)
    G0 = X.T @ ((e / math.sqrt(5))[:, None] * r.a[None, :] * (pre > 0)) / 40
    np.testing.assert_allclose(r.G0, G0, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r.W1, r.W0 + 0.7 * math.sqrt(5) * G0, rtol=1e-12, atol=1e-15)
    # k = 1 with a centred link is the single-index run of the same seed
    one = draw(student="relu", teacher=single_index(np.tanh), k=1, d=12, psi1=3, psi2=2,
               eta=1.0, seed=5)
    core = draw(student="relu", teacher="tanh", d=12, psi1=3, psi2=2, eta=1.0, seed=5)
    np.testing.assert_allclose(one.beta[:, 0], core.beta, rtol=1e-12, atol=1e-15)
    for name in ("W0", "a", "X"):
        np.testing.assert_array_equal(getattr(one, name), getattr(core, name))
    np.testing.assert_allclose(one.y, core.y, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(one.W1, core.W1, rtol=1e-10, atol=1e-12)


def test_the_population_model_is_its_formula_on_the_named_streams():
    from helpers.theory import spiked_rf_parameters

    kw = dict(student="tanh", teacher="tanh", d=16, psi1=2.0, psi2=1.0, seed=SEED,
              model="population", eta_scale=[0.5, 2.0], lam=0.1, n_test=200)
    r = draw(**kw, second_layer="rademacher")
    assert r.G0 is None
    rng = stream(SEED, "population")
    U = rng.standard_normal((16, 16)) / 4.0
    zeta = rng.standard_normal(16)
    zeta -= (zeta @ r.beta) * r.beta
    zeta /= np.linalg.norm(zeta)
    xi = np.abs(r.a) * 4.0
    np.testing.assert_allclose(xi, 1.0)
    for e in (0.5, 2.0):
        rr, cb, gamma = spiked_rf_parameters("tanh", "tanh", psi1=2.0, eta_scale=e)
        v = gamma * r.beta + math.sqrt(1 - gamma**2) * zeta
        W = np.sqrt(1 + xi**2 * (cb - 1))[None, :] * U + np.outer(v, xi * rr)
        np.testing.assert_allclose(r.weights[(("eta_scale", e),)], W, rtol=1e-12, atol=1e-14)
    # reproducible; one atom at 1 is the +-1 layer
    rows = run(**kw, second_layer="rademacher")
    assert rows == run(**kw, second_layer="rademacher")
    assert rows == run(**kw, second_layer=([1.0], [1.0]))
    assert [row["eta_scale"] for row in rows] == [0.5, 2.0]
    with pytest.raises(ValueError, match="second_layer"):
        run(**kw, second_layer=([1.0], [0.5]))
    # no gradient is taken: the measures of the gradient say so
    for measure in ("overlap", "gradient_norms", "spectrum"):
        with pytest.raises(ValueError, match=f"the measure '{measure}' needs the gradient G0"):
            run(**kw, measures=(measure,))


def test_a_large_first_step_plants_one_outlier_and_the_second_step_points_to_beta():
    """A linear teacher and a large first step: W1 has one singular value above the edge of
    W0 (the first step's spike, along beta*), and the top direction of the second step's own
    change W2 - W1 is beta* on either batch (about 1/d for a direction that knows nothing)."""
    from helpers.measures import count_outliers, top_direction_overlap
    from helpers.spectra import singular

    kw = dict(student="tanh", teacher="linear", d=60, psi1=8, psi2=1, eta=3.0, steps=2,
              record_steps=[0, 1, 2], seed=named_seed(0, "second step spectra"))
    for batches in ("reused", "fresh"):
        r = draw(**kw, batches=batches)
        W0, W1, W2 = r.weights.values()
        s0 = singular(W0, 4)
        edge = s0[0]
        assert count_outliers(s0, edge, margin=0.0) == 0
        assert count_outliers(singular(W1, 4), edge, margin=0.1) == 1
        assert top_direction_overlap(W1 - W0, r.beta[:, None]) > 0.5
        assert top_direction_overlap(W2 - W1, r.beta[:, None]) > 0.5, batches
    # no step at all: every matrix is W0
    r0 = draw(**{**kw, "eta": 0.0}, batches="reused")
    for W in r0.weights.values():
        np.testing.assert_array_equal(W, r0.W0)
