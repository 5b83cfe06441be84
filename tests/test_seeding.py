"""helpers.seeding: every draw comes from a stream keyed by a name, never by a position."""

import hashlib

import numpy as np
import pytest

import helpers
from helpers.seeding import (
    SEED_ENV,
    as_seed,
    book_seed_value,
    chapter_seed,
    name_key,
    named_seed,
    stream,
    streams,
)


def _state(seed):
    return named_seed(seed, "probe").generate_state(4).tolist()


def test_a_name_gives_the_same_stream_whatever_else_is_drawn_and_in_any_order():
    alone = stream(5, "ridge").standard_normal(6)
    # other streams drawn before, in another order, from the same seed
    for others in (("teacher", "init"), ("test", "init", "teacher"), ()):
        for name in others:
            stream(5, name).standard_normal(100)
        np.testing.assert_array_equal(stream(5, "ridge").standard_normal(6), alone)
    # asked for among other names, in any order
    for names in (("ridge",), ("teacher", "ridge"), ("test", "ridge", "init"),
                  ("ridge", "init", "teacher", "step")):
        np.testing.assert_array_equal(streams(5, names)["ridge"].standard_normal(6), alone)
    # two calls give two generators at the same start
    g1, g2 = stream(5, "ridge"), stream(5, "ridge")
    g1.standard_normal(50)
    np.testing.assert_array_equal(g2.standard_normal(6), alone)


def test_different_names_give_independent_streams():
    names = ("teacher", "init", "step", "ridge", "test", "teacher ")
    first = {name: stream(0, name).standard_normal(20_000) for name in names}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            # the correlation of independent N(0, 1) samples is N(0, 1/m): 5 sd is 0.035
            assert abs(np.corrcoef(first[a], first[b])[0, 1]) < 5 / np.sqrt(20_000), (a, b)
    # and different seeds give different streams for the same name
    assert not np.array_equal(stream(0, "ridge").standard_normal(4),
                              stream(1, "ridge").standard_normal(4))


def test_the_key_is_the_names_sha256_as_chapter_one_computes_it():
    key = int.from_bytes(hashlib.sha256(b"teacher").digest()[:8], "little")
    assert name_key("teacher") == key
    seed = named_seed(7, "first run")
    plain = np.random.default_rng(np.random.SeedSequence(seed.entropy,
                                                         spawn_key=(*seed.spawn_key, key)))
    np.testing.assert_array_equal(stream(seed, "teacher").standard_normal(5),
                                  plain.standard_normal(5))


def test_several_names_go_down_one_level_each():
    a = named_seed(3, "section", "d=128")
    b = named_seed(named_seed(3, "section"), "d=128")
    assert a.spawn_key == b.spawn_key and a.entropy == b.entropy == 3
    assert a.spawn_key == (name_key("section"), name_key("d=128"))
    assert _state(a) == _state(b)
    assert _state(named_seed(3, "d=128", "section")) != _state(a)   # the order of levels counts
    # the pool size of the parent is kept
    big = np.random.SeedSequence(3, pool_size=8)
    assert named_seed(big, "x").pool_size == 8


def test_chapter_seed_mixes_book_seed_and_the_chapter(monkeypatch):
    monkeypatch.delenv(SEED_ENV, raising=False)
    assert book_seed_value() == 0
    base = chapter_seed("spike")
    assert base.entropy == 0 and base.spawn_key == (name_key("spike"),)
    assert _state(chapter_seed("spike")) == _state(base)               # reproducible
    assert _state(chapter_seed("small_step")) != _state(base)          # chapters differ
    monkeypatch.setenv(SEED_ENV, "")
    assert _state(chapter_seed("spike")) == _state(base)               # empty is unset
    monkeypatch.setenv(SEED_ENV, "0")
    assert _state(chapter_seed("spike")) == _state(base)
    monkeypatch.setenv(SEED_ENV, "3")
    assert book_seed_value() == 3
    other = chapter_seed("spike")
    assert other.entropy == 3 and _state(other) != _state(base)
    assert _state(other) == _state(named_seed(3, "spike"))
    monkeypatch.setenv(SEED_ENV, "4")
    assert _state(chapter_seed("spike")) not in (_state(base), _state(other))
    assert helpers.chapter_seed is chapter_seed and helpers.stream is stream


@pytest.mark.parametrize("value", ["-1", "x", "1.5"])
def test_book_seed_rejects_bad_environment(monkeypatch, value):
    monkeypatch.setenv(SEED_ENV, value)
    with pytest.raises(ValueError, match="BOOK_SEED must be a non-negative integer"):
        book_seed_value()
    with pytest.raises(ValueError, match="BOOK_SEED"):
        chapter_seed("setting")


def test_a_seed_is_an_integer_or_a_seed_sequence():
    ss = np.random.SeedSequence(11)
    assert as_seed(ss) is ss
    assert as_seed(11).entropy == 11 and as_seed(np.int64(11)).entropy == 11
    assert _state(11) == _state(ss)


@pytest.mark.parametrize("bad", [np.random.default_rng(0), -1, True, 1.5, "0", [0, 1], None])
def test_a_generator_or_anything_else_is_refused_as_a_seed(bad):
    with pytest.raises(ValueError, match="seed must be a non-negative integer or a numpy"):
        as_seed(bad)
    with pytest.raises(ValueError, match="seed must be"):
        stream(bad, "x")


def test_a_generator_is_refused_by_the_run_and_the_sweep():
    with pytest.raises(ValueError, match="a Generator is not a seed|seed must be"):
        helpers.run(student="tanh", teacher="tanh", d=4, psi1=1, psi2=1, lam=0.1,
                    seed=np.random.default_rng(0))
    with pytest.raises(ValueError, match="seed must be"):
        helpers.sweep(lambda seed, x: {"v": x}, {"x": [1.0]}, runs=1, n_jobs=1,
                      seed=np.random.default_rng(0))


@pytest.mark.parametrize(("call", "match"), [
    (lambda: named_seed(0), "at least one name"),
    (lambda: named_seed(0, ""), "non-empty string"),
    (lambda: named_seed(0, 3), "non-empty string"),
    (lambda: name_key(b"teacher"), "non-empty string"),
    (lambda: streams(0, ()), "names must be distinct strings"),
    (lambda: streams(0, ("a", "a")), "names must be distinct strings"),
    (lambda: streams(0, ("a", 1)), "names must be distinct strings"),
])
def test_bad_names_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()
