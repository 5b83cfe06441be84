"""The rank-one spike of the first gradient: limits (theory.spike), the matrix tools that
measure it (spectra) and the run's measures of it (helpers.measures)."""

import math

import numpy as np
import pytest

from helpers import draw, named_seed, run, spectra, theory
from helpers.activations import get_activation
from helpers.steps import first_step_gradient


def _first_step(student, teacher, *, d, psi1, psi2, seed, noise=0.0):
    """The first step of the run for a seed (no step taken: the gradient and its data)."""
    return draw(student=student, teacher=teacher, d=d, psi1=psi1, psi2=psi2, noise=noise,
                seed=seed)


# ------------------------------------------------------------------ theory: closed forms
def test_alignment_closed_form_for_linear_teacher():
    # mu1* = 1, mu2* = 0: the overlap is 1 / (1 + (1 + noise^2) / psi1).
    for psi1, noise in [(0.5, 0.0), (2.0, 0.0), (3.0, 0.5)]:
        expected = 1.0 / (1.0 + (1.0 + noise**2) / psi1)
        assert theory.spike_alignment("linear", psi1=psi1, noise=noise) == pytest.approx(expected)


def test_alignment_uses_all_hermite_coefficients_of_the_teacher():
    t = get_activation("relu", centred=True)
    psi1, noise = 1.7, 0.3
    ey2 = t.mu0**2 + t.mu1**2 + t.mu2**2 + noise**2
    expected = t.mu1**2 / (t.mu1**2 + ey2 / psi1)
    assert theory.spike_alignment("relu", psi1=psi1, noise=noise) == pytest.approx(expected)


def test_alignment_grows_with_samples_and_falls_with_noise():
    psis = np.geomspace(0.1, 1e4, 12)
    values = [theory.spike_alignment("tanh", psi1=p) for p in psis]
    assert np.all(np.diff(values) > 0) and 0 < values[0] and values[-1] > 0.999
    noisy = [theory.spike_alignment("tanh", psi1=2.0, noise=s) for s in (0.0, 0.5, 2.0)]
    assert np.all(np.diff(noisy) < 0)


def test_alignment_is_zero_for_a_teacher_without_linear_part():
    assert theory.spike_alignment("quadratic", psi1=3.0) == pytest.approx(0.0, abs=1e-12)


def test_outlier_and_frobenius_for_linear_student():
    # sigma' = 1 = mu1: no bulk, so the outlier carries the whole Frobenius norm.
    for teacher in ("linear", "tanh"):
        s = theory.spike_singular_value("linear", teacher, psi1=2.0, noise=0.1)
        f = theory.gradient_frobenius_norm("linear", teacher, psi1=2.0, noise=0.1)
        assert s == pytest.approx(f)
        assert theory.gradient_bulk_mass("linear", teacher, psi1=2.0, noise=0.1) == pytest.approx(
            0.0, abs=1e-10)
    assert theory.spike_singular_value("linear", "linear", psi1=4.0) == pytest.approx(
        math.sqrt(1 + 1 / 4))


def test_norms_add_up_and_even_students_have_no_spike():
    for student in ("tanh", "erf", "relu", "abs", "quadratic"):
        s = theory.spike_singular_value(student, "softplus", psi1=3.0, noise=0.2)
        f = theory.gradient_frobenius_norm(student, "softplus", psi1=3.0, noise=0.2)
        bulk = theory.gradient_bulk_mass(student, "softplus", psi1=3.0, noise=0.2)
        assert f**2 == pytest.approx(s**2 + bulk, rel=1e-9)
    assert theory.spike_singular_value("quadratic", "tanh", psi1=1.0) == 0.0
    # quadratic student: sigma' = 2z, E sigma'^2 = 4, mu1 = 0.
    ey2 = theory.label_second_moment("tanh")
    assert theory.gradient_bulk_mass("quadratic", "tanh", psi1=2.0) == pytest.approx(4 * ey2 / 2)


def test_init_operator_norm_is_the_marchenko_pastur_edge():
    assert theory.init_operator_norm(psi2=4.0) == pytest.approx(3.0)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: theory.spike_alignment("tanh", psi1=0.0), "psi1 must be"),
        (lambda: theory.spike_alignment("tanh", psi1=-1.0), "psi1 must be"),
        (lambda: theory.spike_alignment("tanh", psi1=1.0, noise=-0.1), "noise must be"),
        (lambda: theory.spike_alignment("tanh", psi1=float("inf")), "psi1 must be"),
        (lambda: theory.spike_singular_value("tanh", "tanh", psi1=0), "psi1 must be"),
        (lambda: theory.spike_singular_value("tanh", "tanh", psi1=1, noise=-1), "noise must be"),
        (lambda: theory.gradient_bulk_mass("tanh", "tanh", psi1=-2), "psi1 must be"),
        (lambda: theory.gradient_frobenius_norm("tanh", "tanh", psi1=0), "psi1 must be"),
        (lambda: theory.init_operator_norm(psi2=0), "psi2 must be"),
    ],
)
def test_theory_validation(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------ spectra: exact identities
def test_rank_one_part_is_exact_up_to_the_output_for_a_linear_student():
    # sigma' = 1 = mu1, so G0 - A = -(1 / (n sqrt N)) X^T f(X) a^T exactly.
    fs = _first_step("linear", "tanh", d=20, psi1=2, psi2=1.5, seed=1)
    n, N = fs.n, fs.N
    A = spectra.rank_one_part(fs.X, fs.y, fs.a, "linear")
    f = fs.X @ fs.W0 @ fs.a / math.sqrt(N)
    np.testing.assert_allclose(fs.G0 - A, -np.outer(fs.X.T @ f, fs.a) / (n * math.sqrt(N)),
                               atol=1e-14)
    assert np.linalg.matrix_rank(A) == 1


@pytest.mark.parametrize("shape", [(6, 9), (9, 6)])
def test_singular_values_and_vectors_match_svd(shape):
    G = np.random.default_rng(2).standard_normal(shape)
    U, s, _ = np.linalg.svd(G)
    np.testing.assert_allclose(spectra.singular(G), s, rtol=1e-10)
    np.testing.assert_allclose(spectra.singular(G, top=3), s[:3], rtol=1e-10)
    top, u = spectra.singular(G, 2, left=True)
    np.testing.assert_allclose(top, s[:2], rtol=1e-10)
    assert u.shape == (shape[0], 2)
    np.testing.assert_allclose(np.abs(np.sum(u * U[:, :2], axis=0)), 1.0, rtol=1e-10)


def test_squared_overlap_is_scale_free():
    u, v = np.array([3.0, 4.0]), np.array([1.0, 0.0])
    assert spectra.squared_overlap(u, v) == pytest.approx(9 / 25)
    assert spectra.squared_overlap(-2 * u, 5 * v) == pytest.approx(9 / 25)


def test_loglog_slope_recovers_a_power_law():
    x = np.array([10.0, 20.0, 40.0, 80.0])
    y = 3.0 * x**-0.5
    slope, se = spectra.loglog_slope(x, y)
    assert slope == pytest.approx(-0.5) and se == pytest.approx(0.0, abs=1e-10)
    slope_w, se_w = spectra.loglog_slope(x, y, se=0.01 * y)
    assert slope_w == pytest.approx(-0.5)
    # With 1% errors on y, log y has errors 0.01: se = 0.01 / sqrt(sum (log x - mean)^2).
    lx = np.log(x)
    assert se_w == pytest.approx(0.01 / math.sqrt(((lx - lx.mean()) ** 2).sum()))


# ------------------------------------------------------------------ measurements
def test_measurements_use_the_seeded_first_step():
    kw = dict(student="tanh", teacher="relu", d=24, psi1=2, psi2=1.5, noise=0.1,
              seed=named_seed(5, "spike"))
    overlaps, norms = run(**kw, measures=("overlap", "gradient_norms"))   # a record each
    m = {**overlaps, **norms}
    fs = draw(**kw)
    s = np.linalg.svd(fs.G0, compute_uv=False)
    assert m["spike"] == pytest.approx(math.sqrt(36) * s[0])
    assert m["second"] == pytest.approx(math.sqrt(36) * s[1])
    assert m["frobenius"] == pytest.approx(math.sqrt(36) * np.linalg.norm(fs.G0))
    assert m["W0_fro"] == pytest.approx(np.linalg.norm(fs.W0))
    assert (m["n"], m["N"]) == (48, 36)
    assert m["bulk_loss"] == pytest.approx(m["overlap_A"] - m["overlap"])
    (light,) = run(**kw, measures=("overlap",))
    assert set(light) == {"overlap", "overlap_A", "bulk_loss"}
    assert light["overlap"] == m["overlap"]


def test_gradient_singular_values_records():
    kw = dict(student="tanh", teacher="tanh", d=16, psi1=2, psi2=2, seed=0)
    recs = run(**kw, measures=("spectrum",))
    assert [r["index"] for r in recs] == list(range(1, 17))
    values = [r["s"] for r in recs]
    assert np.all(np.diff(values) <= 0)
    fs = draw(**kw)
    np.testing.assert_allclose(values, math.sqrt(32) * np.linalg.svd(fs.G0, compute_uv=False))


def test_overlap_matches_the_limit_in_simulation():
    # 12 runs at d = 200, psi1 = 2 (tanh student and teacher); tol = 5 standard errors plus a
    # 1/d finite-size allowance (see the chapter's derivation).
    runs = [run(student="tanh", teacher="tanh", d=200, psi1=2.0, psi2=1.0,
                seed=named_seed(11, "overlap", f"run={r}"), measures=("overlap",))[0]["overlap"]
            for r in range(12)]
    mean, se = np.mean(runs), np.std(runs, ddof=1) / math.sqrt(len(runs))
    assert abs(mean - theory.spike_alignment("tanh", psi1=2.0)) <= 5 * se + 1 / 200


def test_even_student_gradient_has_no_rank_one_part():
    fs = _first_step("quadratic", "tanh", d=12, psi1=2, psi2=1, seed=3)
    assert np.all(spectra.rank_one_part(fs.X, fs.y, fs.a, "quadratic") == 0.0)
    # sigma' = 2z: G0 = (2 / (n sqrt N)) X^T diag(r) X W0 diag(a), computed independently.
    n, N = fs.n, fs.N
    r = fs.y - (fs.X @ fs.W0) ** 2 @ fs.a / math.sqrt(N) + fs.a.sum() / math.sqrt(N)
    expected = 2 * fs.X.T @ (r[:, None] * fs.X) @ fs.W0 * fs.a / (n * math.sqrt(N))
    np.testing.assert_allclose(first_step_gradient(fs.X, fs.y, fs.W0, fs.a, "quadratic"),
                               expected, atol=1e-13)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: spectra.squared_overlap(np.zeros(3), np.ones(3)), "nonzero"),
        (lambda: spectra.squared_overlap(np.ones(3), np.ones(4)), "shape"),
        (lambda: spectra.singular(np.ones(3)), "2-d float array"),
        (lambda: spectra.singular(np.ones((3, 2), dtype=int)), "2-d float array"),
        (lambda: spectra.singular(np.ones((3, 2)), 0), "top must be a positive integer"),
        (lambda: spectra.singular(np.ones((3, 2)), 3), "top must be at most"),
        (lambda: spectra.rank_one_part(np.ones((3, 2)), np.ones(4), np.ones(2), "tanh"), "shape"),
        (lambda: spectra.loglog_slope([1, 2], [1, 2]), "at least 3"),
        (lambda: spectra.loglog_slope([1, 2, 0], [1, 2, 3]), "positive"),
        (lambda: spectra.loglog_slope([1, 2, 3], [1, 2, 3], se=[1, 0, 1]), "se must be"),
        (lambda: run(student="tanh", teacher="tanh", d=4, psi1=-1, psi2=1, seed=0,
                     measures=("overlap",)), "psi1 must"),
    ],
)
def test_spectra_validation(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_singular_of_the_centred_matrix_matches_its_svd():
    # what the removed spectra.top_singular did: the top singular pairs of F with its columns
    # centred (the chapters centre the columns themselves)
    rng = np.random.default_rng(3)
    F = rng.standard_normal((60, 12)) + np.linspace(0, 3, 12)  # columns with nonzero means
    s, U = spectra.singular(F - F.mean(axis=0), 3, left=True)
    U_ref, s_ref, _ = np.linalg.svd(F - F.mean(axis=0), full_matrices=False)
    np.testing.assert_allclose(s, s_ref[:3], rtol=1e-10)
    np.testing.assert_allclose(np.abs(np.sum(U * U_ref[:, :3], axis=0)), 1.0, rtol=1e-10)
    F32 = (F - F.mean(axis=0)).astype(np.float32)
    s32, U32 = spectra.singular(F32, 1, left=True)
    assert U32.dtype == np.float32 and s32[0] == pytest.approx(s_ref[0], rel=1e-5)
