r"""Every random draw of the book comes from a stream named for what it draws.

A *seed* here is a :class:`numpy.random.SeedSequence`.  A child is keyed by a **name**, not by a
position or an order::

    SEED = chapter_seed("spike")              # the chapter's seed, BOOK_SEED mixed in
    section = named_seed(SEED, "overlaps")    # one section of it
    rng = stream(section, "teacher")          # the generator that draws the teacher

The child of ``seed`` named ``name`` is the :class:`~numpy.random.SeedSequence` with the same
entropy and ``spawn_key = seed.spawn_key + (key(name),)``, where ``key(name)`` is the first eight
bytes of the SHA-256 of the name (an integer, the same on every machine).  So the same name
always gives the same stream, whatever else is drawn, in whatever order, and two different
names give independent streams (NumPy's SeedSequence mixes the whole spawn key into the state).
Plain NumPy does the same in two lines (chapter 1 shows them)::

    key = int.from_bytes(hashlib.sha256(b"teacher").digest()[:8], "little")
    rng = np.random.default_rng(np.random.SeedSequence(0, spawn_key=(key,)))

Functions
---------
chapter_seed   the seed of a chapter (its name and ``$BOOK_SEED``)
named_seed     the child of a seed keyed by one or more names
stream         a generator for a named child
streams        a dict of generators, one per name
name_key       the integer key of a name
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from numbers import Integral

import numpy as np

__all__ = ["SEED_ENV", "book_seed_value", "chapter_seed", "name_key", "as_seed", "named_seed",
           "stream", "streams"]

SEED_ENV = "BOOK_SEED"


def name_key(name: str) -> int:
    """The integer key of ``name``: the first eight bytes of its SHA-256, little-endian.

    >>> name_key("teacher") == int.from_bytes(hashlib.sha256(b"teacher").digest()[:8], "little")
    True
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"a stream name must be a non-empty string; got {name!r}")
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "little")


def as_seed(seed) -> np.random.SeedSequence:
    """``seed`` as a SeedSequence: a non-negative integer (its entropy) or a SeedSequence.

    Raises ``ValueError`` for anything else (a Generator is not a seed: its state moves as it
    draws, so it cannot name a stream).
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, Integral) and not isinstance(seed, bool) and seed >= 0:
        return np.random.SeedSequence(int(seed))
    raise ValueError("seed must be a non-negative integer or a numpy.random.SeedSequence "
                     f"(e.g. helpers.named_seed(SEED, 'section')); got {seed!r}")


def named_seed(seed, *names: str) -> np.random.SeedSequence:
    """The child of ``seed`` keyed by ``names`` (each name one level down).

    >>> a = named_seed(0, "ridge")
    >>> b = named_seed(0, "ridge")
    >>> a.generate_state(2).tolist() == b.generate_state(2).tolist()
    True
    >>> c = named_seed(0, "test")
    >>> a.generate_state(2).tolist() != c.generate_state(2).tolist()
    True
    """
    ss = as_seed(seed)
    if not names:
        raise ValueError("named_seed needs at least one name")
    return np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, *map(name_key, names)),
                                  pool_size=ss.pool_size)


def stream(seed, *names: str) -> np.random.Generator:
    """A new generator for the child of ``seed`` named ``names``: the same numbers every time
    it is asked for (two calls give two generators at the same start)."""
    return np.random.default_rng(named_seed(seed, *names))


def streams(seed, names: Iterable[str]) -> dict:
    """``{name: stream(seed, name)}`` for each of ``names``: the streams of one run.

    The stream of a name does not depend on the other names asked for, nor on their order.

    >>> a = streams(0, ("teacher", "ridge"))["ridge"].random()
    >>> b = streams(0, ("ridge", "test", "init"))["ridge"].random()
    >>> a == b
    True
    """
    names = tuple(names)
    if not names or len(set(names)) != len(names) or not all(isinstance(k, str) for k in names):
        raise ValueError(f"names must be distinct strings, at least one; got {names!r}")
    ss = as_seed(seed)
    return {name: stream(ss, name) for name in names}


def book_seed_value() -> int:
    """``$BOOK_SEED`` as an integer >= 0 (0 when unset or empty).

    Raises ``ValueError`` when it is anything else.
    """
    value = os.environ.get(SEED_ENV, "").strip()
    try:
        k = int(value) if value else 0
    except ValueError:
        k = -1
    if k < 0:
        raise ValueError(f"${SEED_ENV} must be a non-negative integer; got {value!r}")
    return k


def chapter_seed(chapter: str) -> np.random.SeedSequence:
    """The seed of a chapter: entropy ``$BOOK_SEED`` (default 0), keyed by the chapter's name.

    Two chapters never share a stream (their names differ); ``BOOK_SEED=k`` reruns every
    chapter on other draws (``benchmarks/tools/seed_sweep.py`` sweeps k = 0-31).
    """
    return named_seed(book_seed_value(), chapter)
