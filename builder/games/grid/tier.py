"""A loop-free tier of a grid table as its compiled kernels (builder/games/tier_kernels.py's
TierKernels), bound once to a root and a ply (Root.tier_kernels): children, marks, ends and
orbits, and the solve of a tier against the next one, one position at a time in machine code
(numba) over a block of codes on one core (the builder splits the blocks over both).

A code is decoded once, CHUNK digits at a time through a small table (decoding.py), into its
images under the table's symmetry maps (sums of digit * weight, Root.image_weights) and
bitmasks of its stones; a child's images are its parent's plus one stone's weight, so each
child costs one addition and one comparison per map, and the legal moves are a bitmask.

    weights  (cells, S) int64   weights[i, s] = 3**(where map s sends free cell i)
    table    (P, 3**CHUNK, S + 2) int64   digit_table(weights)
    below    (cells,)   int64   gravity: the free cell under free cell i, or -1 (plays anywhere)
    masks    (L,)       int64   the lines a player can still make, bits over free cells
    ends     (L,)       int64   the free cells beyond each line's ends (+exact; else 0)
"""
from __future__ import annotations

import numpy as np

from tablebase.builder.games.grid.decoding import (
    canonical_child,
    decode,
    decoded_moves,
    digit_table,
    gravity_support,
    moves_of,
    pop_move,
    stones_of,
)
from tablebase.builder.games.grid.kernel import backup, distinct_images, made_mask
from tablebase.builder.games.tier_kernels import OPEN
from tablebase.builder.games.tier_lookup import (
    DIRECT,
    EMPTY_KEY,
    GROUP,
    HASHED,
    MISSING,
    OFFSET,
    UNSET,
    NextTier,
    hashed_score,
    home,
    kernel_array,
    lower_bound,
    prefetch,
    probe_from,
    set_bit,
)
from tablebase.compiled import njit

NO_LINES = np.zeros(0, dtype=np.int64)


class GridTier:
    """The kernels of tier `ply` (stones on the root's free cells) of a grid table: a stone of
    the side to move goes on an empty free cell (where stones drop, the lowest of its
    column); the game ends where the last mover made a line, or on a full board."""

    def __init__(self, weights: np.ndarray, below: np.ndarray, gravity: bool, stone: int,
                 room: int, last: int, last_lines: tuple[np.ndarray, np.ndarray], full: bool,
                 mine: tuple[np.ndarray, np.ndarray], misere: bool) -> None:
        """Bound to a table's maps (`weights`: Root.image_weights), its free cells' supports
        (`below`, where stones drop: `gravity`), the side to move's digit (`stone`) and at
        most `room` moves; the ends are `last`'s lines made (`last_lines`, Root.line_rules)
        or a `full` board; `mine`, the side to move's lines, decide a position without
        look-ups (none under misère, where such a move loses)."""
        self.weights = kernel_array(weights, np.int64)
        self.table = digit_table(self.weights)
        self.below = kernel_array(below, np.int64)
        self.gravity, self.stone, self.room, self.misere = gravity, stone, room, misere
        self.last, self.full = last, full
        self.last_masks = kernel_array(last_lines[0], np.int64)
        self.last_ends = kernel_array(last_lines[1], np.int64)
        self.masks, self.ends_ = kernel_array(mine[0], np.int64), kernel_array(mine[1], np.int64)

    def children(self, codes: np.ndarray, out: np.ndarray) -> int:
        """The canonical child of every move of every code into out; how many (-1: more than
        out holds)."""
        return _expand(codes, self.weights, self.table, self.below, self.gravity, self.stone,
                       out)

    def mark(self, codes: np.ndarray, target: np.ndarray) -> None:
        """Every canonical child of every code marked in `target`: a bit of a uint64 bitmap,
        or a byte of a direct table (set to 1)."""
        _mark(codes, self.weights, self.table, self.below, self.gravity, self.stone, target,
              target.dtype == np.uint64)

    def classify(self, codes: np.ndarray, ends: np.ndarray, orbits: np.ndarray) -> None:
        """ends[i]: the value where the game is over at codes[i] (the last mover's line: -1,
        misère +1; a full board: 0), else OPEN; orbits[i]: its orbit's size."""
        _classify(codes, self.table, self.last, self.last_masks, self.last_ends, self.full,
                  1 if self.misere else -1, OPEN, ends, orbits)

    def solve(self, codes: np.ndarray, term: np.ndarray, lookup: NextTier,
              best: np.ndarray) -> int:
        """best[i]: term[i] where the game is over, else the best backed-up score of the
        children, read from the next tier (UNSET where there is none); the first child
        missing from it, or MISSING."""
        return _solve(codes, term, self.weights, self.table, self.below, self.gravity,
                      self.stone, self.masks, self.ends_, -lookup.win, lookup.mode,
                      lookup.slots, lookup.keys, lookup.values, lookup.shift, best)


@njit(cache=True, nogil=True)
def _expand(codes: np.ndarray, weights: np.ndarray, table: np.ndarray, below: np.ndarray,
            gravity: bool, stone: int, kids: np.ndarray) -> int:
    cells, maps = weights.shape
    bottom, step = gravity_support(below)
    img = np.empty(maps, dtype=np.int64)
    n = 0
    room = kids.shape[0]
    for r in range(codes.shape[0]):
        moves = decoded_moves(codes[r], table, img, cells, gravity, bottom, step, below)
        while moves:
            c, moves = pop_move(moves)
            if n == room:
                return -1  # more moves than the caller's bound: nothing is written past it
            kids[n] = canonical_child(img, weights, stone, c)
            n += 1
    return n


@njit(cache=True, nogil=True)
def _mark(codes: np.ndarray, weights: np.ndarray, table: np.ndarray, below: np.ndarray,
          gravity: bool, stone: int, target: np.ndarray, bits: bool) -> None:
    cells, maps = weights.shape
    bottom, step = gravity_support(below)
    img = np.empty(maps, dtype=np.int64)
    for r in range(codes.shape[0]):
        moves = decoded_moves(codes[r], table, img, cells, gravity, bottom, step, below)
        while moves:
            c, moves = pop_move(moves)
            kid = canonical_child(img, weights, stone, c)
            if bits:
                set_bit(target, kid)
            else:
                target[kid] = 1


@njit(cache=True, nogil=True)
def _classify(codes: np.ndarray, table: np.ndarray, last: int, masks: np.ndarray,
              ends: np.ndarray, full: bool, won: int, open_mark: int, term: np.ndarray,
              orbits: np.ndarray) -> None:
    img = np.empty(table.shape[2] - 2, dtype=np.int64)
    for r in range(codes.shape[0]):
        occupied, xs = decode(codes[r], table, img)
        orbits[r] = distinct_images(img)
        if made_mask(stones_of(occupied, xs, last), masks, ends):
            term[r] = won
        elif full:
            term[r] = 0
        else:
            term[r] = open_mark


@njit(cache=True, nogil=True)
def orbit_sizes(codes: np.ndarray, table: np.ndarray, orbits: np.ndarray) -> None:
    """orbits[i]: how many distinct images codes[i] has under `table`'s maps (its board's
    digits: a side to move's digit above them is the same in every image)."""
    img = np.empty(table.shape[2] - 2, dtype=np.int64)
    for r in range(codes.shape[0]):
        decode(codes[r], table, img)
        orbits[r] = distinct_images(img)


@njit(cache=True, nogil=True)
def _solve(codes: np.ndarray, term: np.ndarray, weights: np.ndarray, table: np.ndarray,
           below: np.ndarray, gravity: bool, stone: int, masks: np.ndarray, ends: np.ndarray,
           won: int, mode: int, slots: np.ndarray, keys: np.ndarray, values: np.ndarray,
           shift: int, best: np.ndarray) -> int:
    """best[r]: term[r] where code r is terminal (term[r] != UNSET, the enumerator's OPEN),
    else the mover's best backed-up child score of code r (UNSET with no move). A move that
    makes one of the mover's lines (`masks`, `ends`; none under misère) ends the game with
    the child's score `won`, the best there is: the others are not looked up. Each other
    child's score is read from the next tier (tier_lookup.py's `mode`).

    GROUP parents at a time: first every child of the group, each look-up prefetched, then
    each parent's best; the look-ups of a group wait on memory together."""
    cells, maps = weights.shape
    bottom, step = gravity_support(below)
    img = np.empty(maps, dtype=np.int64)
    size = keys.shape[0]
    kids = np.empty(GROUP * cells, dtype=np.int64)
    homes = np.empty(GROUP * cells, dtype=np.int64)
    until = np.zeros(GROUP + 1, dtype=np.int64)
    quick = np.zeros(GROUP, dtype=np.bool_)
    n = codes.shape[0]
    for a in range(0, n, GROUP):
        b = min(a + GROUP, n)
        k = 0
        for r in range(a, b):
            # A terminal position has no children to read: its own score, and no decoding.
            quick[r - a] = term[r] != UNSET
            if quick[r - a]:
                moves = np.uint64(0)
            else:
                occupied, xs = decode(codes[r], table, img)
                moves = moves_of(occupied, cells, gravity, bottom, step, below)
                if masks.shape[0]:
                    mine, left = stones_of(occupied, xs, stone), moves
                    while left:
                        c, left = pop_move(left)
                        if made_mask(mine | (np.int64(1) << c), masks, ends):
                            quick[r - a], moves = True, np.uint64(0)
                            break
            while moves:
                c, moves = pop_move(moves)
                kid = canonical_child(img, weights, stone, c)
                kids[k] = kid
                if mode == DIRECT:
                    prefetch(slots, kid)
                elif mode == HASHED:
                    homes[k] = home(kid, shift)
                    prefetch(keys, homes[k])
                k += 1
            until[r - a + 1] = k
        for r in range(a, b):
            if quick[r - a]:
                best[r] = term[r] if term[r] != UNSET else backup(won)
                continue
            top = UNSET
            for k in range(until[r - a], until[r - a + 1]):
                kid = kids[k]
                if mode == DIRECT:
                    raw = np.int64(slots[kid])
                    if raw < OFFSET - 64:
                        return kid
                    score = int(raw) - OFFSET
                elif mode == HASHED:
                    entry = keys[probe_from(keys, homes[k], kid)]
                    if entry == EMPTY_KEY:
                        return kid
                    score = hashed_score(entry)
                else:
                    lo = lower_bound(keys, 0, size, kid)
                    if lo == size or keys[lo] != kid:
                        return kid
                    score = int(values[lo])
                value = backup(score)
                if value > top:
                    top = value
            best[r] = top
    return MISSING


def warm_up() -> None:
    """Load every kernel of a grid tier once (compiling it on a machine's first run), on tiny
    inputs of the types a build passes: the one-off cost of a process's first build."""
    codes, weights, below = np.zeros(1, np.int64), np.ones((2, 2), np.int64), np.full(2, -1)
    table = digit_table(weights)
    _expand(codes, weights, table, below, False, 1, np.empty(2, np.int64))
    _mark(codes, weights, table, below, False, 1, np.zeros(9, np.uint8), False)
    _mark(codes, weights, table, below, False, 1, np.zeros(1, np.uint64), True)
    line, beyond = np.ones(1, np.int64), np.zeros(1, np.int64)
    _classify(codes, table, 1, line, beyond, False, -1, OPEN, np.empty(1, np.int8),
              np.empty(1, np.int64))
    keys = np.full(8, EMPTY_KEY, np.int64)  # 8 slots: shift 61
    _solve(codes, np.full(1, UNSET, np.int8), weights, table, below, False, 1, line, beyond,
           -64, HASHED, np.zeros(0, np.uint8), keys, np.zeros(0, np.int8), 61,
           np.empty(1, np.int8))
