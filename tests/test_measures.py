"""helpers.measures: each built-in measure of a run against a brute-force computation, the
records they make, and the functions on matrices they use (overlaps, Hermite alignment,
outliers)."""

import math

import numpy as np
import pytest

from helpers import draw, named_seed, run, stream
from helpers.activations import get_activation
from helpers.measures import (
    MEASURES,
    control_directions,
    count_outliers,
    direction_overlaps,
    hermite_alignment,
    kernel_risk,
    per_run,
    resolve,
    subspace_overlap,
    top_direction_overlap,
    transformed_label_vector,
)
from helpers.teachers import sample_directions, staircase

SEED = named_seed(2026, "tests of the measures")
PROBLEM = dict(student="tanh", teacher="softplus", d=12, psi1=2.0, psi2=1.5, noise=0.25,
               n_test=300, seed=SEED)   # n = 24, N = 18
ETAS, LAMS = [0.0, 1.0, 2.5], [1e-3, 0.1]
F_STAR = get_activation("softplus", centred=True)


@pytest.fixture(scope="module")
def drawn():
    return draw(**PROBLEM, eta=ETAS, lam=LAMS)


def _top_left(M):
    U, s, _ = np.linalg.svd(M)
    return s, U[:, 0]


def _by_eta(rows, key="eta"):
    out = {}
    for row in rows:
        out.setdefault(row[key], []).append(row)
    return out


# --------------------------------------------------------------------------- of a weight matrix
def test_risk_is_ridge_on_the_ridge_set_and_the_mean_error_on_the_test_points(drawn):
    rows = _by_eta(drawn.records(("risk",)))
    Xr, yr = drawn.ridge_data()
    Xt = np.vstack([X for X, _ in drawn.test_blocks()])
    n, N = drawn.n, drawn.N
    for labels, W in drawn.weights.items():
        F = np.tanh(Xr @ W)
        want = []
        for lam in LAMS:
            b = np.linalg.solve(F.T @ F + n * lam * np.eye(N), F.T @ yr)
            want.append(np.mean((np.tanh(Xt @ W) @ b - F_STAR(Xt @ drawn.beta)) ** 2))
        got = rows[labels[0][1]]
        assert [r["lam"] for r in got] == LAMS
        np.testing.assert_allclose([r["risk"] for r in got], want, rtol=1e-8)
        best = MEASURES["best_risk"](drawn, labels)
        assert best == {"risk": min(r["risk"] for r in got)}


def test_gaussian_equivalent_is_ridge_on_mu1_xw_plus_mu2_z(drawn):
    from helpers.risk import ge_prediction_risk
    from helpers.theory import deterministic_equivalent_risk

    sigma = get_activation("tanh")
    Xr, yr = drawn.ridge_data()
    rows = _by_eta(drawn.records(("gaussian_equivalent",)))
    for labels, W in drawn.weights.items():
        # the same noise Z (stream "ge_noise") for every weight matrix
        Z = stream(SEED, "ge_noise").standard_normal((drawn.n, drawn.N))
        F = sigma.mu1 * Xr @ W + sigma.mu2 * Z
        B = np.column_stack([np.linalg.solve(F.T @ F + drawn.n * lam * np.eye(drawn.N),
                                             F.T @ yr) for lam in LAMS])
        got = rows[labels[0][1]]
        np.testing.assert_allclose([r["risk_ge"] for r in got],
                                   ge_prediction_risk(W, B, "tanh", "softplus", drawn.beta),
                                   rtol=1e-7)
        np.testing.assert_allclose([r["risk_de"] for r in got],
                                   deterministic_equivalent_risk(W, "tanh", "softplus",
                                                                 drawn.beta, n=drawn.n,
                                                                 lam=np.array(LAMS),
                                                                 noise=0.25), rtol=1e-12)


def test_movement_and_overlaps_of_a_matrix(drawn):
    B = drawn.beta[:, None]
    for labels, W in drawn.weights.items():
        move = np.mean([np.linalg.norm(W[:, i] - drawn.W0[:, i]) for i in range(drawn.N)])
        assert MEASURES["movement"](drawn, labels) == {"move": pytest.approx(move, rel=1e-12)}
        cos2 = [(W[:, i] @ drawn.beta) ** 2 / (W[:, i] @ W[:, i]) for i in range(drawn.N)]
        assert MEASURES["direction_overlap"](drawn, labels) == [
            {"direction": 1, "overlap": pytest.approx(math.sqrt(np.mean(cos2)), rel=1e-12)}]
        assert MEASURES["subspace_overlap"](drawn, labels) == {
            "subspace": pytest.approx(np.mean(cos2), rel=1e-12)}
        if labels[0][1] > 0:
            _, u = _top_left(W - drawn.W0)
            assert MEASURES["top_direction"](drawn, labels)["top"] == pytest.approx(
                float((B[:, 0] @ u) ** 2), rel=1e-8)
    # with no step the change is zero: the top direction is the SVD's choice, any unit vector
    top0 = MEASURES["top_direction"](drawn, (("eta", 0.0),))["top"]
    assert 0.0 <= top0 <= 1.0


def test_overlaps_of_a_k_index_run_have_one_row_per_direction():
    r = draw(student="relu", teacher=staircase, k=2, d=10, psi1=4, psi2=2, eta=[1.0, 3.0],
             seed=SEED)
    rows = r.records(("direction_overlap", "subspace_overlap", "top_direction", "movement"))
    assert [(row["eta"], row["direction"]) for row in rows] == [(1.0, 1), (1.0, 2),
                                                                (3.0, 1), (3.0, 2)]
    for row in rows:       # the scalar measures of the matrix go into each of its rows
        W = r.weights[(("eta", row["eta"]),)]
        assert row["subspace"] == pytest.approx(subspace_overlap(W, r.beta))
        assert row["overlap"] == pytest.approx(direction_overlaps(W, r.beta)[row["direction"]
                                                                             - 1])
        assert set(row) == {"eta", "direction", "overlap", "subspace", "top", "move"}


def test_control_overlaps_merge_with_the_teachers_and_use_the_runs_control_stream():
    r = draw(student="relu", teacher=staircase, k=2, d=10, psi1=4, psi2=2, eta=[1.0, 3.0],
             seed=SEED)
    C = control_directions(r.beta, stream(SEED, "control"))
    rows = r.records(("direction_overlap", "control_overlap"))
    assert [(row["eta"], row["direction"]) for row in rows] == [(1.0, 1), (1.0, 2),
                                                                (3.0, 1), (3.0, 2)]
    for row in rows:       # one row per direction j: the teacher's and the j-th control's
        W = r.weights[(("eta", row["eta"]),)]
        assert row["control"] == pytest.approx(direction_overlaps(W, C)[row["direction"] - 1])
    again = r.records(("control_overlap",))   # the same controls at every call
    assert [row["control"] for row in again] == [row["control"] for row in rows]


def test_parity_split_is_the_risk_on_the_test_points_and_their_negatives():
    r = draw(**{**PROBLEM, "teacher": "relu"}, eta=[0.0, 1.0], lam=LAMS)
    relu = get_activation("relu", centred=True)
    Xr, yr = r.ridge_data()
    Xt = np.vstack([X for X, _ in r.test_blocks()])
    rows = _by_eta(r.records(("parity", "risk")))
    for labels, W in r.weights.items():
        F = np.tanh(Xr @ W)
        for row, lam in zip(rows[labels[0][1]], LAMS, strict=True):
            b = np.linalg.solve(F.T @ F + r.n * lam * np.eye(r.N), F.T @ yr)
            fp, fm = np.tanh(Xt @ W) @ b, np.tanh(-Xt @ W) @ b
            tp, tm = relu(Xt @ r.beta), relu(-Xt @ r.beta)
            odd, even = (tp - tm) / 2, (tp + tm) / 2
            assert row["parity_risk"] == pytest.approx(
                np.mean(np.r_[(fp - tp) ** 2, (fm - tm) ** 2]), rel=1e-8)
            assert row["odd_error"] == pytest.approx(
                np.mean(np.r_[(fp - odd) ** 2, (fm + odd) ** 2]), rel=1e-8)
            assert row["even_norm"] == pytest.approx(np.mean(even**2), rel=1e-10)
            assert row["even_pred"] < 1e-12          # an odd student: no even part
            # the split is exact for a readout with no even part
            assert row["parity_risk"] == pytest.approx(row["odd_error"] + row["even_norm"],
                                                       rel=1e-9)
            assert row["risk"] == pytest.approx(np.mean((fp - tp) ** 2), rel=1e-8)
    # with the linear part added back the readout has an even part (the labels' mean)
    lin = draw(**{**PROBLEM, "teacher": "relu"}, eta=1.0, lam=LAMS, linear_removed=True)
    assert all(row["even_pred"] > 0 for row in lin.records(("parity",)))


# --------------------------------------------------------------------------- of the whole run
def test_overlap_is_the_top_left_singular_vector_of_g0(drawn):
    s, u = _top_left(drawn.G0)
    out = MEASURES["overlap"](drawn)
    assert out["overlap"] == pytest.approx(float((u @ drawn.beta) ** 2), rel=1e-8)
    v = drawn.X.T @ drawn.y
    assert out["overlap_A"] == pytest.approx(float((v @ drawn.beta) ** 2 / (v @ v)), rel=1e-12)
    assert out["bulk_loss"] == out["overlap_A"] - out["overlap"]


def test_gradient_norms_are_the_singular_values_by_svd(drawn):
    N, n = drawn.N, drawn.n
    s = np.linalg.svd(drawn.G0, compute_uv=False)
    mu1 = get_activation("tanh").mu1
    A = mu1 / (n * math.sqrt(N)) * np.outer(drawn.X.T @ drawn.y, drawn.a)
    out = MEASURES["gradient_norms"](drawn)
    want = {"ratio": np.linalg.svd(drawn.G0 - A, compute_uv=False)[0] / s[0],
            "spike": math.sqrt(N) * s[0], "frobenius": math.sqrt(N) * np.linalg.norm(drawn.G0),
            "second": math.sqrt(N) * s[1],
            "W0_op": np.linalg.svd(drawn.W0, compute_uv=False)[0],
            "W0_fro": np.linalg.norm(drawn.W0), "n": 24.0, "N": 18.0}
    assert out == {k: pytest.approx(v, rel=1e-9) for k, v in want.items()}


def test_spectrum_is_every_singular_value_of_sqrt_n_g0(drawn):
    rows = MEASURES["spectrum"](drawn)
    assert [r["index"] for r in rows] == list(range(1, 13))
    np.testing.assert_allclose([r["s"] for r in rows],
                               math.sqrt(18) * np.linalg.svd(drawn.G0, compute_uv=False),
                               rtol=1e-9)
    # a measure of the run comes once, after the records of the matrices
    records = drawn.records(("risk", "spectrum"))
    assert len(records) == len(ETAS) * len(LAMS) + 12
    assert all("eta" not in r for r in records[-12:])


def test_kernel_risk_is_kernel_ridge_on_the_ridge_set(drawn):
    lams = [1e-4, 1e-2]
    measure = kernel_risk(("ck", "rbf"), lam=lams)
    assert measure.per_run
    rows = measure(drawn)
    assert [(r["model"], r["lam"]) for r in rows] == [(k, lam) for k in ("ck", "rbf")
                                                      for lam in lams]
    Xr, yr = drawn.ridge_data()
    Xt = np.vstack([X for X, _ in drawn.test_blocks()])
    target = F_STAR(Xt @ drawn.beta)
    n, N = drawn.n, drawn.N
    F, Ft = np.tanh(Xr @ drawn.W0), np.tanh(Xt @ drawn.W0)
    K, Kt = F @ F.T / N, Ft @ F.T / N      # the conjugate kernel on W0
    for r, lam in zip(rows[:2], lams, strict=True):
        alpha = np.linalg.solve(K + n * lam * np.eye(n), yr)
        assert r["risk"] == pytest.approx(np.mean((Kt @ alpha - target) ** 2), rel=1e-7)
    # "both": the first batch and the ridge set, 2n points
    both = kernel_risk("ck", lam=lams[1], data="both")(drawn)
    Xk, yk = np.vstack([drawn.X, Xr]), np.concatenate([drawn.y, yr])
    Fk = np.tanh(Xk @ drawn.W0)
    alpha = np.linalg.solve(Fk @ Fk.T / N + 2 * n * lams[1] * np.eye(2 * n), yk)
    assert both[0]["risk"] == pytest.approx(np.mean((Ft @ Fk.T / N @ alpha - target) ** 2),
                                            rel=1e-7)
    with pytest.raises(ValueError, match="kinds must be one of"):
        kernel_risk("poly", lam=0.1)
    with pytest.raises(ValueError, match="data must be one of"):
        kernel_risk("ck", lam=0.1, data="all")
    with pytest.raises(ValueError, match="lam must be"):
        kernel_risk("ck", lam=0.0)


# --------------------------------------------------------------------------- records
def test_records_of_one_matrix_with_the_same_labels_merge_into_one_row():
    records = run(**PROBLEM, eta=[0.0, 1.0], lam=LAMS,
                  measures=("risk", "gaussian_equivalent", "movement", "overlap"))
    per_matrix = [r for r in records if "eta" in r]
    assert [(r["eta"], r["lam"]) for r in per_matrix] == [(e, lam) for e in (0.0, 1.0)
                                                          for lam in LAMS]
    for r in per_matrix:   # risk and the GE rows merged on lam; the movement in every row
        assert set(r) == {"eta", "lam", "risk", "risk_ge", "risk_de", "move"}
    assert records[-1].keys() == {"overlap", "overlap_A", "bulk_loss"}
    assert len(records) == 5


def test_a_chapter_measure_merges_with_the_books():
    def squared_norm(run, labels):       # one row per penalty: merges with the risk's rows
        return [{"lam": lam, "twice": 2 * lam} for lam in run.lambdas]

    def width(run, labels):              # a scalar measure of the matrix
        return {"N": run.N}

    @per_run
    def first_label(run):                # a measure of the whole run
        return {"y0": float(run.y[0])}

    records = run(**PROBLEM, eta=[0.5], lam=LAMS, measures=("risk", squared_norm, width,
                                                            first_label))
    assert records[:2] == [{"eta": 0.5, "lam": lam, "risk": pytest.approx(records[i]["risk"]),
                            "twice": 2 * lam, "N": 18} for i, lam in enumerate(LAMS)]
    assert records[2] == {"y0": pytest.approx(draw(**PROBLEM).y[0])}
    assert resolve(squared_norm) == [squared_norm]
    assert resolve("risk") == [MEASURES["risk"]]
    assert resolve(["overlap", width]) == [MEASURES["overlap"], width]


@pytest.mark.parametrize(("measures", "match"), [
    ((), "at least one measure"), ("riks", "names among"), ((3,), "names among"),
])
def test_resolve_refuses_what_is_not_a_measure(measures, match):
    with pytest.raises(ValueError, match=match):
        resolve(measures)


# --------------------------------------------------------------------------- on matrices
def test_overlaps_known_answers():
    B = np.eye(4)[:, :2]
    W = np.stack([np.eye(4)[0], 2 * np.eye(4)[1], np.eye(4)[2], np.eye(4)[3]], axis=1)
    # cos^2 with theta_1: (1, 0, 0, 0); with theta_2: (0, 1, 0, 0)  -> RMS 1/2 each.
    np.testing.assert_allclose(direction_overlaps(W, B), [0.5, 0.5])
    assert subspace_overlap(W, B) == pytest.approx(0.5)
    assert subspace_overlap(B, B) == pytest.approx(1.0)


def test_random_neurons_have_overlap_about_one_over_sqrt_d():
    rng = np.random.default_rng(6)
    d, N = 400, 2000
    B = sample_directions(d, 2, rng=rng)
    m = direction_overlaps(rng.standard_normal((d, N)), B)
    # m^2 is a mean of N cos^2 with mean 1/d and sd ~ sqrt(2)/d: 5 se = 5 sqrt(2/N)/d.
    np.testing.assert_allclose(m**2, 1 / d, atol=5 * math.sqrt(2 / N) / d)


def test_control_directions_are_orthonormal_and_orthogonal_to_the_teachers():
    rng = np.random.default_rng(4)
    B = sample_directions(9, 3, rng=rng)
    C = control_directions(B, rng)
    assert C.shape == (9, 3)
    np.testing.assert_allclose(C.T @ C, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(B.T @ C, 0.0, atol=1e-12)
    # a teacher direction that is not unit (one column): controls still orthogonal to it
    np.testing.assert_allclose(control_directions(3 * B[:, :1], rng).T @ B[:, 0], 0.0,
                               atol=1e-12)


def test_hermite_alignment_known_answers():
    t = np.random.default_rng(9).standard_normal(300)
    h2 = t**2 - 1
    U = (h2 / np.linalg.norm(h2))[:, None]
    al = hermite_alignment(U, t, [1, 2])
    assert al[1] == pytest.approx(1.0)
    assert al[0] < 0.05  # He_1 and He_2 are orthogonal in L2; sample overlap ~ 1/n
    full = np.linalg.qr(np.column_stack([t, h2, t**3 - 3 * t]))[0]
    np.testing.assert_allclose(hermite_alignment(full, t, [1, 2, 3]), 1.0)


def test_transformed_label_vector_and_top_overlap():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 7))
    y = rng.standard_normal(50)
    np.testing.assert_allclose(transformed_label_vector(X, y), X.T @ y / 50)
    np.testing.assert_allclose(transformed_label_vector(X, y, np.abs), X.T @ np.abs(y) / 50)
    B = np.eye(7)[:, :1]
    dW = np.outer(B[:, 0], np.ones(5)) * 10 + 0.01 * rng.standard_normal((7, 5))
    assert top_direction_overlap(dW, B) == pytest.approx(1.0, abs=1e-4)
    assert 0.0 <= top_direction_overlap(np.zeros((7, 5)), B) <= 1.0


def test_count_outliers_known_spectrum():
    s = np.array([5.0, 2.2, 2.03, 1.9])
    assert count_outliers(s, 2.0, margin=0.02) == 2  # 5 and 2.2; 2.03 < 2.04
    assert count_outliers(s, 2.0, margin=0.0) == 3
    assert count_outliers(s, 6.0, margin=0.0) == 0


@pytest.mark.parametrize(("call", "match"), [
    (lambda: direction_overlaps(np.zeros((4, 2)), np.eye(4)[:, :2]), "zero column"),
    (lambda: subspace_overlap(np.ones((5, 2)), np.eye(4)[:, :2]), "B has shape"),
    (lambda: top_direction_overlap(np.ones(4), np.eye(4)[:, :1]), "dW must be a 2-d"),
    (lambda: hermite_alignment(np.ones((3, 1)), np.ones(3), [0]), "degrees must be"),
    (lambda: hermite_alignment(np.ones((4, 1)), np.ones(3), [1]), "U has shape"),
    (lambda: count_outliers([1.0], -1.0, margin=0.0), "edge"),
    (lambda: count_outliers([1.0], 2.0, margin=-0.1), "margin"),
    (lambda: control_directions(np.eye(5)[:, :3], np.random.default_rng(0)), "at most d/2"),
    (lambda: transformed_label_vector(np.ones((5, 2)), np.ones(5), lambda t: t[:3]),
     "transform"),
    (lambda: transformed_label_vector(np.ones((5, 2)), np.ones(4)), "y has shape"),
])
def test_bad_input_is_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_a_per_run_partial_stays_per_run_in_worker_processes():
    """joblib's workers rebuild a functools.partial without its attributes: the mark of
    per_run must survive the trip (a chapter's measure with a fixed argument, n_jobs=2)."""
    import functools

    from helpers import measures, sweep

    def labelled(run, names):
        return [{"T": n, "d_seen": float(run.d)} for n in names]

    measure = measures.per_run(functools.partial(labelled, names=("a", "b")))
    table = sweep(None, {"d": [8]}, runs=2, seed=1, n_jobs=2, by=("T",),
                  fixed=dict(student="tanh", teacher="tanh", psi1=1, psi2=0.5,
                             measures=[measure]))
    assert list(table["T"]) == ["a", "b"] and (table["d_seen"] == 8).all()
