"""The seeded runners share their draws; the layers of the package point one way."""

import subprocess
import sys

import numpy as np
import pytest

from helpers.data import STREAMS, init_student, normal_blocks, spawn_streams
from helpers.simulate import (
    same_data_risks,
    simulate_ck_and_ge,
    simulate_etas,
    simulate_one_step,
)

PAIR = dict(student="tanh", teacher="softplus")
KW = dict(d=20, psi1=3.0, psi2=1.5, noise=0.25, seed=7)

# What theory may load: the package's entry, its argument checks, the activations (Hermite
# coefficients), the second layer's law (shared with the simulation, imports neither) and its
# own modules.  An allow-list, so a new simulation module is caught too.
THEORY_MAY_LOAD = ("helpers", "helpers._validation", "helpers.activations", "helpers.quadrature",
                   "helpers.second_layer")


def test_importing_theory_loads_no_simulation_module():
    code = ("import sys, helpers.theory; "
            "print(' '.join(m for m in sys.modules if m.startswith('helpers')))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    assert "helpers.theory.small_step" in out and "helpers.theory.rmt" in out
    loaded = [m for m in out
              if m not in THEORY_MAY_LOAD and not m.startswith("helpers.theory")]
    assert loaded == [], f"helpers.theory imports simulation code: {loaded}"


def test_streams_are_the_children_of_the_seed_in_order():
    # Adding the "ge_noise" stream at the end left the first five streams unchanged.
    streams = spawn_streams(11)
    children = np.random.default_rng(11).spawn(5)
    for name, child in zip(STREAMS, children, strict=False):
        assert streams[name].standard_normal() == child.standard_normal()


@pytest.mark.parametrize("block", [1, 3, 7, 100])
def test_normal_blocks_are_the_rows_of_one_draw(block):
    blocks = list(normal_blocks(np.random.default_rng(0), 10, 4, block=block))
    assert max(len(b) for b in blocks) == min(block, 10)
    np.testing.assert_array_equal(np.vstack(blocks),
                                  np.random.default_rng(0).standard_normal((10, 4)))


def test_rademacher_second_layer_takes_the_signs_of_the_gaussian_draw():
    W0, a = init_student(6, 50, rng=np.random.default_rng(3))
    W0r, ar = init_student(6, 50, rng=np.random.default_rng(3), second_layer="rademacher")
    np.testing.assert_array_equal(W0, W0r)
    np.testing.assert_array_equal(ar, np.sign(a) / np.sqrt(50))
    lam = [1e-2, 1e-1]
    g = simulate_one_step(**PAIR, lam=lam, eta=1.0, **KW)
    r = simulate_one_step(**PAIR, lam=lam, eta=1.0, second_layer="rademacher", **KW)
    np.testing.assert_array_equal(g.X, r.X)
    np.testing.assert_array_equal(g.W0, r.W0)
    np.testing.assert_array_equal(r.a, np.sign(g.a) / np.sqrt(g.N))
    assert not np.allclose(g.risk, r.risk)  # a different second layer, a different step
    with pytest.raises(ValueError, match="second_layer must be"):
        simulate_one_step(**PAIR, lam=lam, eta=1.0, second_layer="uniform", **KW)


def test_ck_and_ge_share_the_test_points_of_simulate_one_step():
    # The real-feature risk of simulate_ck_and_ge is simulate_one_step's risk for the same
    # seed (same step, ridge data and test points); the GE noise has its own stream.
    lam = [1e-3, 1e-1]
    one = simulate_one_step(**PAIR, lam=lam, eta=1.5, n_test=900, **KW)
    both = simulate_ck_and_ge(**PAIR, lam=lam, eta=1.5, n_test=900, **KW)
    np.testing.assert_allclose(both["risk_ck"], one.risk, rtol=1e-10)
    np.testing.assert_allclose(both["risk_ck_mc_se"], one.risk_se, rtol=1e-8)


def test_one_multi_eta_algorithm_for_both_runners():
    lam = [1e-3, 1e-1]
    etas = [0.0, 0.7, 2.0]
    rows = simulate_etas(**PAIR, lam=lam, etas=etas, n_test=2048, **KW)
    same = same_data_risks(**PAIR, lam=lam, etas=dict(zip("abc", etas, strict=True)),
                           n_test=2048, **KW)
    np.testing.assert_allclose([r["risk"] for r in rows], [r["risk"] for r in same],
                               rtol=1e-12)
    for k, eta in enumerate(etas):
        one = simulate_one_step(**PAIR, lam=lam, eta=eta, n_test=2048, **KW)
        np.testing.assert_allclose([r["risk"] for r in rows[2 * k:2 * k + 2]], one.risk,
                                   rtol=1e-10)


def test_package_attributes_load_lazily_and_unknown_names_fail():
    import helpers

    assert helpers.ridge_path is helpers.ridge.ridge_path
    assert "simulate_one_step" in dir(helpers)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        helpers.nothing  # noqa: B018


def test_pages_import_helpers_one_way():
    """Every page imports from the package's top level (``import helpers``, ``from helpers
    import module, name``), never ``from helpers.module import name``; each name exists."""
    import re
    from pathlib import Path

    import helpers

    root = Path(__file__).resolve().parents[1]
    pages = sorted((root / "chapters").glob("*.md")) + [root / "intro.md"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        deep = re.findall(r"^\s*(?:from|import) helpers\.\w+.*$", text, flags=re.M)
        assert not deep, f"{page.name}: import from the top level of helpers: {deep}"
        for names in re.findall(r"^\s*from helpers import ([^\n(]+)$", text, flags=re.M):
            for name in names.split(","):
                name = name.split(" as ")[0].strip()
                assert name in helpers.__all__, f"{page.name}: helpers has no {name!r}"


def test_the_readme_map_of_the_code_matches_the_package():
    """Every module of src/helpers has its line in the README's map, and every line names a
    module that exists."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "README.md").read_text(encoding="utf-8")
    block = text.split("## Map of the code", 1)[1].split("```", 2)[1]
    helpers_dir = root / "src" / "helpers"
    top = {p.name for p in helpers_dir.glob("*.py") if p.name != "__init__.py"}
    flat = set(re.findall(r"^(\w+\.py)\b", block, flags=re.M))
    assert flat == top, f"README map vs src/helpers: missing {top - flat}, extra {flat - top}"
    # each subpackage (theory/, checks/): a line "name/" and its modules indented below it
    for pkg in sorted(p.parent.name for p in helpers_dir.glob("*/__init__.py")):
        files = {p.name for p in (helpers_dir / pkg).glob("*.py") if p.name != "__init__.py"}
        part = block.split(f"\n{pkg}/", 1)[1]
        part = re.split(r"\n\S", part, maxsplit=1)[0]      # up to the next unindented line
        listed = set(re.findall(r"^  (\w+\.py)\b", part, flags=re.M))
        assert listed == files, \
            f"README map vs {pkg}/: missing {files - listed}, extra {listed - files}"


def test_spawn_streams_names_its_streams_and_refuses_bad_names():
    """The one seeding style: named children of one seed, in the order of the names."""
    import numpy as np
    import pytest

    from helpers import spawn_streams

    s = spawn_streams(3, ("teacher", "data", "init"))
    children = np.random.default_rng(3).spawn(3)
    for name, child in zip(("teacher", "data", "init"), children, strict=True):
        assert s[name].standard_normal(4).tolist() == child.standard_normal(4).tolist()
    for bad in [(), ("a", "a"), ("a", 1)]:
        with pytest.raises(ValueError, match="names must be distinct strings"):
            spawn_streams(0, bad)
