"""The movement phase of a game whose stones move as a cyclic tier (builder/games/tier_kernels.py): its
kernels bound to the table's root, over stones/kernel.py's steps and un-steps."""
from __future__ import annotations

import numpy as np

from tablebase.builder.games.grid.decoding import digit_table
from tablebase.builder.games.grid.spec import Spec
from tablebase.builder.games.grid.tier import orbit_sizes
from tablebase.builder.games.stones.kernel import (
    distinct,
    step_children,
    step_outcome,
    step_parents,
)
from tablebase.builder.games.stones.rules import max_steps, step_masks
from tablebase.builder.games.tier_kernels import OPEN
from tablebase.compiled import njit


class StepKernels:
    """The movement tier's kernels for one table's root (grid/root.py's Root.cyclic_kernels):
    its maps as `weights` (Root.image_weights: the whole board's, or those that keep the
    start) and the lines as bitmasks with the cells beyond their ends (Root.line_rules)."""

    def __init__(self, spec: Spec, weights: np.ndarray, masks: np.ndarray, ends: np.ndarray
                 ) -> None:
        self.cells = spec.cells
        self.weights = np.ascontiguousarray(weights)
        self.moves = np.ascontiguousarray(step_masks(spec))
        self.side = 3 ** spec.cells
        self.masks, self.ends_ = np.ascontiguousarray(masks), np.ascontiguousarray(ends)
        self.misere = spec.misere
        self.room = max(max_steps(spec), 1)
        self.table = digit_table(self.weights)

    def ends(self, codes: np.ndarray, out: np.ndarray) -> None:
        """The value of each finished position (a line made), else OPEN."""
        _ends(codes, self.cells, self.weights, self.moves, self.masks, self.ends_, self.misere,
              out)

    def children(self, codes: np.ndarray, out: np.ndarray) -> int:
        """Every step's canonical child of each code into out; how many."""
        return _children(codes, self.cells, self.weights, self.moves, self.side, self.room, out)

    def counts(self, codes: np.ndarray, ends: np.ndarray, out: np.ndarray) -> None:
        """Distinct children of each open code (0 for a finished one)."""
        _counts(codes, ends, self.cells, self.weights, self.moves, self.side, self.room, out)

    def orbits(self, codes: np.ndarray, out: np.ndarray) -> None:
        """The board's orbit size of each code (the side to move is the same in every image)."""
        orbit_sizes(codes, self.table, out)

    def parents(self, codes: np.ndarray, out: np.ndarray) -> int:
        """Distinct canonical parents (un-steps) of each code, with its index; how many."""
        return _parents(codes, self.cells, self.weights, self.moves, self.side, self.room, out)


@njit(cache=True, nogil=True)
def _ends(codes, cells, weights, moves, masks, ends, misere, out):  # type: ignore[no-untyped-def]
    img = np.empty(weights.shape[1], dtype=np.int64)
    for i in range(codes.shape[0]):
        s = step_outcome(codes[i], cells, weights, moves, masks, ends, misere, img)
        out[i] = OPEN if s == 0 else (1 if s > 0 else -1)


@njit(cache=True, nogil=True)
def _children(codes, cells, weights, moves, side, room, out):  # type: ignore[no-untyped-def]
    img = np.empty(weights.shape[1], dtype=np.int64)
    n = 0
    for i in range(codes.shape[0]):
        n += step_children(codes[i], cells, weights, moves, side, img, out[n:n + room])
    return n


@njit(cache=True, nogil=True)
def _counts(codes, ends, cells, weights, moves, side, room, out):  # type: ignore[no-untyped-def]
    img = np.empty(weights.shape[1], dtype=np.int64)
    kids = np.empty(room, dtype=np.int64)
    for i in range(codes.shape[0]):
        if ends[i] != OPEN:
            out[i] = 0
            continue
        n = step_children(codes[i], cells, weights, moves, side, img, kids)
        out[i] = distinct(kids, n)


@njit(cache=True, nogil=True)
def _parents(codes, cells, weights, moves, side, room, out):  # type: ignore[no-untyped-def]
    img = np.empty(weights.shape[1], dtype=np.int64)
    kids = np.empty(room, dtype=np.int64)
    n = 0
    for i in range(codes.shape[0]):
        k = distinct(kids, step_parents(codes[i], cells, weights, moves, side, img, kids))
        for t in range(k):
            out[0, n] = kids[t]
            out[1, n] = i
            n += 1
    return n
