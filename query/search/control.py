"""What the search's two kernels (compiled_search.py for m,n,k boards, gravity.py for Connect Four) and
the Python driving them share, without compiling anything: the score scale, the indices of the
control words a run is steered and counted by, what the m,n,k kernel may prove without search,
and a stored table loaded for use at the leaves. Kept apart so that a gravity board's search
does not load the m,n,k kernel's modules (some 10 ms of a process's start)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.builder.games.grid.root import Root

WS = 1024  # the kernel's win score: far beyond any depth on a board of up to 128 cells
# The control words (`ctl`): nodes searched, the node limit, the stop flag set by another
# thread, table hits, transposition hits, a run cut short, pairing searches run and pairings
# that proved a bound, and the root's zone (two words: boards of up to 128 cells).
NODES, LIMIT, STOP, TABLE_HITS, TT_HITS, ABORTED, PAIR_SEARCHES, PAIRED, ROOT_ZONE, \
    ROOT_ZONE_HIGH = range(10)

# What the kernel may prove without search (boards without gravity): nothing (the plain
# alpha-beta, kept for comparison), dead lines and pairings, and with them zones.
PLAIN, PAIRINGS, ZONES = 0, 1, 2


@dataclass(frozen=True)
class LeafTable:
    """A stored table loaded for use at the leaves: its root, and its canonical codes (sorted)
    with their scores on the kernel's scale."""

    root: Root
    codes: np.ndarray
    scores: np.ndarray


def leaf_table(root: Root, codes: np.ndarray, value: np.ndarray, depth: np.ndarray) -> LeafTable:
    """A LeafTable from a loaded table's arrays (value for the side to move, depth in plies)."""
    v = np.asarray(value, dtype=np.int64)
    scores = np.where(v == 0, 0, v * (WS - np.asarray(depth, dtype=np.int64)))
    return LeafTable(root, np.ascontiguousarray(codes, dtype=np.int64), scores.astype(np.int16))
