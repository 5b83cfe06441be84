"""helpers.second_layer: one object for the second layer of the simulation and the theory."""

import math

import numpy as np
import pytest
from scipy import stats

import helpers
from helpers import second_layer as sl
from helpers.theory import large_step_risk


def test_one_default_everywhere():
    """Every function with a second_layer parameter defaults to the paper's Gaussian layer."""
    import inspect

    from helpers import runs
    from helpers.theory import large_step
    functions = [helpers.init_student, runs.draw, runs.simulate_one_step,
                 large_step.large_step_risk, large_step.large_step_parts]
    for f in functions:
        assert inspect.signature(f).parameters["second_layer"].default == sl.DEFAULT, f
    assert sl.DEFAULT == "gaussian"
    # helpers.run passes its arguments to draw: no second layer given, the same draws
    kw = dict(student="tanh", teacher="tanh", d=6, psi1=1, psi2=2, seed=0)
    np.testing.assert_array_equal(runs.draw(**kw).a, runs.draw(**kw, second_layer="gaussian").a)


def test_named_layers_keep_the_draws():
    g = np.random.default_rng(0).standard_normal(1000)
    np.testing.assert_array_equal(sl.as_second_layer("gaussian").scale(g), g)
    np.testing.assert_array_equal(sl.as_second_layer("rademacher").scale(g), np.sign(g))
    # one atom at 1 is the +-1 layer, in the simulation and in the theory
    np.testing.assert_array_equal(sl.as_second_layer(([1.0], [1.0])).scale(g), np.sign(g))
    np.testing.assert_array_equal(sl.second_layer_atoms("rademacher")[0], [1.0])


def test_finitely_many_magnitudes_have_their_law():
    """|xi| takes each magnitude with its probability (a chi-square test on 20000 draws, at
    level 1e-3), and the signs are those of the Gaussian draws."""
    layer = sl.as_second_layer(([0.5, 1.0, 3.0], [0.2, 0.5, 0.3]))
    g = np.random.default_rng(1).standard_normal(20_000)
    xi = layer.scale(g)
    np.testing.assert_array_equal(np.sign(xi), np.sign(g))
    counts = np.array([np.sum(np.abs(xi) == m) for m in (0.5, 1.0, 3.0)])
    assert counts.sum() == g.size
    assert stats.chisquare(counts, g.size * np.array([0.2, 0.5, 0.3])).pvalue > 1e-3
    # a magnitude of probability 0 is never drawn
    none = sl.as_second_layer(([1.0, 2.0, 3.0], [0.5, 0.0, 0.5])).scale(g)
    assert not np.any(np.abs(none) == 2.0)


def test_the_student_draws_the_layer():
    W0, a = helpers.init_student(20, 4000, rng=np.random.default_rng(2),
                                 second_layer=([1.0, 2.0], [0.5, 0.5]))
    W0g, ag = helpers.init_student(20, 4000, rng=np.random.default_rng(2))
    np.testing.assert_array_equal(W0, W0g)
    assert set(np.round(np.abs(a) * math.sqrt(4000), 12)) == {1.0, 2.0}
    assert abs(np.mean(np.isclose(np.abs(a) * math.sqrt(4000), 2.0)) - 0.5) < 0.03


def test_a_second_layer_object_is_accepted_where_a_name_is():
    layer = sl.as_second_layer("rademacher")
    assert sl.as_second_layer(layer) is layer
    kw = dict(psi1=2.0, psi2=1.0, lam=0.1, eta_scale=1.0)
    assert large_step_risk("tanh", "tanh", second_layer=layer, **kw) == \
        large_step_risk("tanh", "tanh", second_layer="rademacher", **kw)


@pytest.mark.parametrize("bad, match", [
    ("uniform", "second_layer must be"),
    (3.0, "second_layer must be"),
    (([1.0, -1.0], [0.5, 0.5]), "magnitudes must be finite"),
    (([1.0], [0.5]), "sum to 1"),
    (([1.0, 2.0], [1.0]), "2 magnitudes"),
    (([], []), "non-empty"),
    (([1.0, 2.0], [1.5, -0.5]), "weights must be finite"),
])
def test_bad_layers_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        sl.as_second_layer(bad)
    with pytest.raises(ValueError, match="second_layer"):
        helpers.init_student(4, 3, rng=np.random.default_rng(0), second_layer=bad)
