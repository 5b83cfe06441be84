"""The end-to-end run: reproducibility, common random numbers, sanity of the risk."""

import numpy as np
import pytest

from helpers import simulate_one_step
from helpers.theory import kernel_lower_bound

KW = dict(d=40, psi1=2.0, psi2=1.5, noise=0.1, n_test=500)


def test_same_seed_identical_results():
    r1 = simulate_one_step("tanh", "softplus", lam=[1e-3, 1e-1], eta=1.0, seed=7, **KW)
    r2 = simulate_one_step("tanh", "softplus", lam=[1e-3, 1e-1], eta=1.0, seed=7, **KW)
    np.testing.assert_array_equal(r1.risk, r2.risk)
    np.testing.assert_array_equal(r1.W1, r2.W1)
    r3 = simulate_one_step("tanh", "softplus", lam=[1e-3, 1e-1], eta=1.0, seed=8, **KW)
    assert not np.array_equal(r1.W0, r3.W0)


def test_eta_shares_data_and_initialisation():
    r0 = simulate_one_step("tanh", "relu", lam=1e-2, eta=0.0, seed=3, **KW)
    r1 = simulate_one_step("tanh", "relu", lam=1e-2, eta=2.0, seed=3, **KW)
    np.testing.assert_array_equal(r0.W0, r1.W0)
    np.testing.assert_array_equal(r0.W1, r0.W0)
    np.testing.assert_allclose(r1.W1 - r1.W0, 2.0 * np.sqrt(r1.N) * r1.G0)
    assert isinstance(r0.risk, float) and isinstance(r0.risk_se, float)


def test_sizes_and_shapes():
    r = simulate_one_step("erf", "erf", lam=[1e-3, 1e-2, 1e-1], eta=1.0, seed=0, **KW)
    assert (r.d, r.n, r.N) == (40, 80, 60)
    assert r.B.shape == (60, 3) and r.risk.shape == (3,) and r.W1.shape == (40, 60)


def test_random_features_do_not_beat_the_kernel_bound():
    # Proposition 1: ridge on the initial features cannot go below mu2*^2 (up to MC error).
    r = simulate_one_step("tanh", "relu", d=60, psi1=4, psi2=2, lam=1e-3, eta=0.0, seed=1,
                          n_test=4000)
    assert r.risk > kernel_lower_bound("relu") - 5 * r.risk_se


def test_seed_can_be_a_generator():
    # A Generator seeds the run like its own seed sequence does: the same draws.
    r = simulate_one_step("tanh", "tanh", lam=1e-2, eta=1.0, seed=np.random.default_rng(0),
                          **KW)
    ref = simulate_one_step("tanh", "tanh", lam=1e-2, eta=1.0,
                            seed=np.random.default_rng(0).bit_generator.seed_seq, **KW)
    assert r.risk == ref.risk and np.array_equal(r.W1, ref.W1)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        (dict(d=0), "d must be a positive integer"),
        (dict(psi1=-1.0), "psi1 must be"),
        (dict(psi2=0.0), "psi2 must be"),
        (dict(lam=0.0), "lam must be"),
        (dict(eta=-0.5), "eta must be"),
        (dict(noise=-0.1), "noise must be"),
        (dict(n_test=-5), "n_test must be"),
    ],
)
def test_bad_inputs_raise(kw, match):
    args = dict(d=20, psi1=1.0, psi2=1.0, lam=1e-2, eta=1.0, noise=0.0, n_test=100)
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        simulate_one_step("tanh", "tanh", **args)


def test_unknown_activation_raises():
    with pytest.raises(ValueError, match="activation must be one of"):
        simulate_one_step("tanhh", "tanh", d=10, psi1=1, psi2=1, lam=1e-2, eta=1.0)
