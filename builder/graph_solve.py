"""Retrograde analysis of a game graph with cycles (builder/graph.py), by child counters, level
by level in numpy: the value of every position for the side to move and its depth.

    depth 0: the positions where the game is over (their outcome; no move and no outcome: lost)
    a win in d + 1: some move leads to a loss in d (found at level d: the winner hurries)
    a loss in d + 1: every move leads to a win, the longest in d (its last child decided at
                     level d: the loser delays)
    a draw: what is left. A finished draw has depth 0; a draw from which one is reached through
            drawn positions has the plies to the nearest (GamesCrafters' convention for ties);
            any other is a draw by endless play, depth NO_DEPTH.

A child counter counts a position's moves (repeats kept, as the edges are); each move to a
won position takes one off, and a position whose count reaches 0 has only losing moves.
"""
from __future__ import annotations

import numpy as np

from tablebase.builder.graph import OPEN, Graph
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory

NO_DEPTH = -1


def parents_of(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """The reverse edges: position i's parents are parents[first[i]:first[i + 1]] (a parent
    once per move that reaches i)."""
    n = graph.size
    degree = np.diff(graph.first)
    # A child's parents may come in any order (the solve counts and gathers them): numpy's
    # unstable sort, of 32-bit numbers where they fit, is twice as fast as a stable sort of
    # 64-bit ones (clobber-3x6's 14 million moves: 0.4 s against 0.9; the solve 2.1 -> 1.6 s).
    narrow = n < 2**31
    by_child = np.argsort(graph.kids.astype(np.int32) if narrow else graph.kids)
    # The parents as 32-bit numbers where they fit, made after the sort: the solve's peak is
    # here (clobber-3x6: some 110 MiB less than 64-bit numbers made before it).
    source = np.repeat(np.arange(n, dtype=np.int32 if narrow else np.int64), degree)
    first = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(graph.kids, minlength=n), out=first[1:])
    return first, source[by_child]


def _parents(first: np.ndarray, parents: np.ndarray, of: np.ndarray) -> np.ndarray:
    """The parents of every position of `of`, repeats kept, in one array."""
    if not len(of):
        return np.empty(0, dtype=np.int64)
    starts, ends = first[of], first[of + 1]
    sizes = ends - starts
    total = int(sizes.sum())
    if not total:
        return np.empty(0, dtype=np.int64)
    # Position k of the result is parents[starts[g] + (k - offset of g)], g its group.
    offsets = np.cumsum(sizes) - sizes
    at = np.arange(total, dtype=np.int64) - np.repeat(offsets - starts, sizes)
    return parents[at]


def solve_graph(graph: Graph, progress: ProgressFactory = NO_PROGRESS
                ) -> tuple[np.ndarray, np.ndarray]:
    """(value int8, depth int32) of every position of `graph`: see the module's picture."""
    n = graph.size
    first, parents = parents_of(graph)
    counters = np.diff(graph.first).astype(np.int64)
    value = np.zeros(n, dtype=np.int8)
    depth = np.full(n, NO_DEPTH, dtype=np.int32)
    decided = graph.term != OPEN
    value[decided] = graph.term[decided]
    lost_at_once = (~decided) & (counters == 0)  # no move and no outcome: lost
    value[lost_at_once] = -1
    decided |= lost_at_once
    depth[decided] = 0
    level = np.flatnonzero(decided & (value != 0))
    stamp = np.empty(n, dtype=np.int64)  # scratch of _distinct
    d = 0
    with progress(desc="  solve", total=n, unit="pos", unit_scale=True) as bar:
        bar.update(int(decided.sum()))
        while len(level):
            losses, wins = level[value[level] < 0], level[value[level] > 0]
            winners = _distinct(_undecided(_parents(first, parents, losses), decided), stamp)
            value[winners], depth[winners] = 1, d + 1
            decided[winners] = True
            hit = _undecided(_parents(first, parents, wins), decided)
            np.subtract.at(counters, hit, 1)
            losers = _distinct(hit[counters[hit] == 0], stamp)
            value[losers], depth[losers] = -1, d + 1
            decided[losers] = True
            level = np.concatenate([winners, losers])
            bar.update(len(level))
            d += 1
        _tie_depths(graph, first, parents, value, decided, depth, stamp)
    return value, depth


def _undecided(found: np.ndarray, decided: np.ndarray) -> np.ndarray:
    """The positions of `found` not decided yet (repeats kept)."""
    return found[~decided[found]]


def _distinct(found: np.ndarray, stamp: np.ndarray) -> np.ndarray:
    """`found` with each position once, in linear time (np.unique sorts): each writes its
    index into `stamp`, and the one whose index stayed there is kept."""
    at = np.arange(len(found), dtype=np.int64)
    stamp[found] = at
    return found[stamp[found] == at]


def _tie_depths(graph: Graph, first: np.ndarray, parents: np.ndarray, value: np.ndarray,
                decided: np.ndarray, depth: np.ndarray, stamp: np.ndarray) -> None:
    """Depths of the draws: 0 for a finished one, the plies to the nearest finished draw
    through drawn positions, else NO_DEPTH (left as it is)."""
    drawn = ~decided
    level = np.flatnonzero(graph.term == 0)
    d = 0
    while len(level):
        found = _parents(first, parents, level)
        found = _distinct(found[drawn[found] & (depth[found] == NO_DEPTH)], stamp)
        depth[found] = d + 1
        level = found
        d += 1
    value[drawn] = 0
