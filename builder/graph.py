"""The reachable graph of a game whose positions are Python values (a `Game`, such as a user's
class): every position from the start, one per orbit of the game's symmetries, numbered in the
order a breadth-first walk meets them, with its moves as edges.

    position i: its children are kids[first[i]:first[i + 1]] (indices, repeats kept),
    term[i] its outcome where the game is over (OPEN while it goes on),
    ply[i] the fewest moves that reach it from the start, key[i] its stored text (or, where
    every position is a small number whose key is its digits, numbers[i] the position).

The walk calls the class's `moves` and `outcome` once a position (and `symmetries` and `text`
once a new one), in a loop kept as plain as the floor it is measured against: the time those
calls alone take. A position whose orbit was met before is looked up by any of its images.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

import numpy as np

from tablebase.builder.games.errors import BuildTooLargeError
from tablebase.builder.games.protocol import NUMBER_KEYS_BELOW, Game, GameFault
from tablebase.builder.memory import current_bytes
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory

# In `term`: a position where play goes on.
OPEN = 2
# The memory is looked at every this many positions walked (a read of /proc: some microseconds).
_CHECK_EVERY = 1 << 12
# What the walk holds a reachable position in (its entry in the index of every image met,
# numbered, and its share of the graph's arrays): 2.8 GiB for six men's morris's 42,381,185.
WALK_BYTES = 72
# The walk goes on in compiled code from this many positions (a multiple of _CHECK_EVERY) where
# every one is a small int: a smaller game's walk is over before loading the compiler (some 0.5 s
# of CPU) and starting the workers would pay (clobber-5x3's 206,805 positions: 1.5-2.0 s of CPU
# walked plainly, 2.0-2.5 s compiled from 65,536, no sooner done).
NUMBERS_FROM = 1 << 18
# Texts read back, to check the class reads what it writes: every one of the first this many
# positions, then one in _READ_BACK_EVERY.
_READ_BACK_ALL, _READ_BACK_EVERY = 1_000, 211
# 10, 100, ... 10**16: a number below NUMBER_KEYS_BELOW has 1 + (how many it reaches) digits.
_POWERS = 10 ** np.arange(1, 17, dtype=np.int64)
assert NUMBER_KEYS_BELOW == 10 ** 17  # rank_numbers pads to 17 digits


@dataclass
class Graph:
    """The reachable positions of a game (see the module's picture)."""

    first: np.ndarray  # int64, len N + 1
    kids: np.ndarray  # int64
    term: np.ndarray  # int8: -1, 0, +1 where the game is over, OPEN where it goes on
    ply: np.ndarray  # int32
    orbit: np.ndarray  # int32: distinct positions each stored one stands for
    keys: list[str] | None  # None where `numbers` stands for them
    # int64: the positions, where each one's key is its decimal digits (Game.plain_numbers):
    # the keys are made as they are written, the positions ranked as numbers (`rank_numbers`)
    numbers: np.ndarray | None
    # int64: the positions in the order of their keys; None until `rank` (every key a repr or
    # a number: no two alike, so the sort may wait and run beside the solve)
    ranked: np.ndarray | None

    @property
    def size(self) -> int:
        """How many positions (orbits) the graph holds."""
        return len(self.term)

    def rank(self) -> np.ndarray:
        """The positions in the order of their keys (`rank_numbers` or `rank_keys`)."""
        if self.numbers is not None:
            return rank_numbers(self.numbers)
        assert self.keys is not None
        return rank_keys(self.keys)


def check_walk_fits(game: Game, memory_budget: int) -> None:
    """BuildTooLargeError, before anything is walked, where the game bounds the positions play
    can reach (`positions_at_most`) and that many would not fit in `memory_budget` bytes."""
    bound = game.positions_at_most()
    if bound is not None and bound * WALK_BYTES > memory_budget:
        raise BuildTooLargeError(
            f"{game.name}: up to {bound:,} positions, held in memory while they are walked"
            f" (about {bound * WALK_BYTES / 2**30:,.1f} GiB), past the memory budget of"
            f" {memory_budget / 2**30:,.1f} GiB: nothing built (a larger --memory, or a smaller"
            " game)")


def walk(game: Game, start: Any, memory_budget: int,
         progress: ProgressFactory = NO_PROGRESS, compiled: bool = True,
         workers: int | None = None) -> Graph:
    """Every position reachable from `start` (checked: GameFault for a fault of the class);
    BuildTooLargeError once the process passes `memory_budget` bytes, before anything is
    written. Where every position is a small int (`Game.plain_numbers`) and there are many,
    the walk goes on in compiled code (builder/graph_numbers.py), the class's calls made by
    `workers` processes (default: one a core; 1: this one): the same graph, made faster (not
    if `compiled` is false)."""
    index: dict[Any, int] = {start: 0}
    order: list[Any] = [start]
    keys: list[str] = []
    orbit_sizes = array("i")
    symmetric = game.has_symmetries
    if symmetric:
        _meet(game, start, 0, index, keys, orbit_sizes)
    first, kids, term = array("q", [0]), array("q"), array("b")
    moves, outcome = game.fast_moves, game.fast_outcome
    checked_outcome = game.checked_outcome
    # Bound once: the loop below is the build's floor plus these calls.
    setdefault, order_append, kids_append, term_append, first_append = (
        index.setdefault, order.append, kids.append, term.append, first.append)
    # Breadth first, so a ply's positions follow one another: level_ends[d] is where ply d ends.
    level_ends = array("q")
    n = level_end = 1
    # Where the walk goes on in compiled code if every position so far is a small int.
    numbers_at = NUMBERS_FROM if compiled and not symmetric else 0
    gave_up = False  # the compiled walk met what it cannot number: the plain walk starts again
    with progress(desc=f"walk {game.name}", unit="pos", unit_scale=True) as bar:
        for i, p in enumerate(order):  # `order` grows while it is walked
            if i == level_end:
                level_ends.append(level_end)
                level_end = n
            if not i & _CHECK_EVERY - 1 and i:
                if i == numbers_at and game.plain_numbers(order) is not None:
                    # numba loaded only here: a small game's build does without it
                    from tablebase.builder.graph_numbers import NotNumbers, walk_numbers
                    from tablebase.builder.threads import THREADS

                    index.clear()
                    ends = np.array([*level_ends, level_end], dtype=np.int64)
                    plies = np.searchsorted(ends, np.arange(n), side="right")
                    try:
                        parts = walk_numbers(game, order, plies, i, first, kids, term,
                                             memory_budget, bar.update,
                                             THREADS if workers is None else workers)
                    except NotNumbers:
                        gave_up = True
                        break
                    return _numbers_graph(game, *parts)
                bar.update(_CHECK_EVERY)
                if current_bytes() > memory_budget:
                    raise BuildTooLargeError.walk_stopped(game.name, n, memory_budget)
            try:
                o = outcome(p)
            except Exception as e:
                raise game.raised("outcome", p, e) from e
            if o is not None:
                term_append(checked_outcome(p, o) or 0)  # checked: -1, 0 or +1
            else:
                term_append(OPEN)
                try:
                    for _name, child in moves(p):
                        j = setdefault(child, n)
                        if j == n:  # met for the first time
                            if symmetric:
                                _meet(game, child, n, index, keys, orbit_sizes)
                            n += 1
                            order_append(child)
                        kids_append(j)
                except GameFault:
                    raise
                except Exception as e:
                    raise _diagnosed(game, p, e) from e
            first_append(len(kids))
    if gave_up:  # from the start (walk_numbers has emptied `order`)
        return walk(game, start, memory_budget, progress, compiled=False)
    level_ends.append(n)
    ends = np.frombuffer(level_ends, dtype=np.int64)
    plies = np.repeat(np.arange(len(ends), dtype=np.int32), np.diff(ends, prepend=0))
    # Plain values' keys need no check (the game says which: `plain_numbers`, `plain_keys`);
    # any other key is.
    numbers = None if symmetric else game.plain_numbers(order)
    plain = None if symmetric or numbers is not None else game.plain_keys(order)
    ranked = None
    if plain is not None:
        keys = plain
    elif numbers is None:
        if not symmetric:
            keys = _keys(game, order)
        _check_texts(game, order, keys)
        # A text key may be shared by two positions (a fault to name while they are at hand);
        # no two plain values share a repr.
        ranked = _ranked(game, order, keys) if any(k.startswith("~") for k in keys) else None
    _check_reads_back(game, order)
    orbits = np.frombuffer(orbit_sizes, dtype=np.int32) if symmetric \
        else np.ones(len(order), dtype=np.int32)
    return Graph(np.frombuffer(first, dtype=np.int64), np.frombuffer(kids, dtype=np.int64),
                 np.frombuffer(term, dtype=np.int8), plies, orbits,
                 None if numbers is not None else keys, numbers, ranked)


def _numbers_graph(game: Game, first: np.ndarray, kids: np.ndarray, term: np.ndarray,
                   ply: np.ndarray, numbers: np.ndarray) -> Graph:
    """The graph walk_numbers found, its texts' reading back checked as the walk's are."""
    _check_reads_back(game, numbers)
    return Graph(first, kids, term, ply, np.ones(len(numbers), dtype=np.int32), None, numbers,
                 None)


def _keys(game: Game, order: list[Any]) -> list[str]:
    """The keys of positions without symmetries (`fast_key`); a fault of the class's `text`
    named by the checked text of the first position whose key fails."""
    try:
        return [game.fast_key(p) for p in order]
    except Exception:
        for p in order:
            game.key(p)
        raise


def _diagnosed(game: Game, position: Any, error: Exception) -> GameFault:
    """The fault behind `error`, met while the moves of `position` were walked: the checked
    methods name it (moves that raise or are not pairs, a child not hashable, a text that
    fails), else it is the walk's own."""
    for _name, child in game.moves(position):
        game.text(child)
        game.orbit(child)
    return game.raised("moves", position, error)


def _meet(game: Game, position: Any, j: int, index: dict[Any, int], keys: list[str],
          orbit_sizes: array) -> None:
    """Number a position met for the first time `j`, with every image its symmetries give."""
    orbit = game.orbit(position)
    if j < _READ_BACK_ALL or j % _READ_BACK_EVERY == 0:
        _check_group(game, position, orbit)
    # `position` itself is numbered j already; an image numbered before is another orbit's.
    others = orbit[1:]
    if not index.keys().isdisjoint(others):
        image = next(i for i in others if i in index)
        raise game.fault("symmetries", position, "gives a position of another orbit (one"
                                                 f" met before: {game.shown(image)}); the"
                                                 " symmetries must form a group")
    index.update(dict.fromkeys(others, j))
    keys.append(game.key_of(orbit))
    orbit_sizes.append(len(orbit))


def _check_texts(game: Game, order: list[Any], keys: list[str]) -> None:
    """GameFault unless every key `fast_key` gave unchecked is one line (a text the class's own
    `text` gave is checked again where one is not)."""
    if all(type(k) is str for k in keys) and "\n".join(keys).count("\n") == len(keys) - 1 \
            and "\r" not in "".join(keys) and all(keys):
        return
    for p in order:
        game.key(p)  # the checked text names the first that is not one line


def _check_group(game: Game, position: Any, orbit: list[Any]) -> None:
    """GameFault unless every image of `position` has the same orbit (a sample of positions
    is checked, as for texts: the symmetries must form a group, or a position's key would
    depend on which image was met first)."""
    whole = set(orbit)
    for image in orbit[1:]:
        if set(game.orbit(image)) != whole:
            raise game.fault("symmetries", position, f"gives {game.shown(image)}, whose own"
                                                     " symmetries give another set; the"
                                                     " symmetries must form a group")


def _check_reads_back(game: Game, order: list[Any] | np.ndarray) -> None:
    """GameFault unless a sample of positions' texts read back to them (numbers as ints)."""
    sample = order[:_READ_BACK_ALL] + order[_READ_BACK_ALL::_READ_BACK_EVERY] \
        if isinstance(order, list) else \
        np.concatenate([order[:_READ_BACK_ALL], order[_READ_BACK_ALL::_READ_BACK_EVERY]]).tolist()
    for p in sample:
        game.check_reads_back(p, game.text(p))


def rank_keys(keys: list[str]) -> np.ndarray:
    """The positions in the order of their keys (int64), and where two are alike the first of
    them, as bytes in numpy where every key is ASCII (reprs mostly are: twice as fast as
    sorting strs, and numpy lets the other core run meanwhile)."""
    try:
        as_bytes = np.array(keys, dtype="S")
    except UnicodeEncodeError:
        return _python_order(keys)
    order = np.argsort(as_bytes, kind="stable")
    ranked = as_bytes[order]
    # numpy's bytes drop trailing NULs, so keys that differ ("a", "a\x00") can compare equal
    # there: wherever two do, Python's order decides (it tells them apart or finds them one).
    if len(keys) > 1 and bool((ranked[1:] == ranked[:-1]).any()):
        return _python_order(keys)
    return order.astype(np.int64)


def rank_numbers(numbers: np.ndarray) -> np.ndarray:
    """The positions in the order of their keys where each key is the decimal digits of a
    number from 0 to below NUMBER_KEYS_BELOW (Game.plain_numbers), in numpy without a text
    made: digits compare as the number padded with zeros to 17 digits, and where two pad alike
    (12 and 120) the shorter first. No two numbers share a key, so any sort will do."""
    digits = np.searchsorted(_POWERS, numbers, side="right") + 1
    padded = numbers * np.power(10, 17 - digits)
    return np.argsort(padded * 32 + digits).astype(np.int64)


def _python_order(keys: list[str]) -> np.ndarray:
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)


def _ranked(game: Game, order: list[Any], keys: list[str]) -> np.ndarray:
    """`rank_keys`, checked: GameFault unless every key names one position only."""
    ranked = rank_keys(keys)
    for a, b in zip(ranked.tolist(), ranked[1:].tolist()):
        if keys[a] == keys[b]:
            raise game.fault("text", order[b], f"gives {keys[b].removeprefix('~')!r:.60}, the"
                                               f" text of another position too"
                                               f" ({order[a]!r:.60})")
    return ranked
