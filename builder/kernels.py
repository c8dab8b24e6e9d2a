"""Compiled inner loops of the builder: children, classification and solving, one position at a
time in machine code (numba), over whole chunks of a tier.

A code is decoded once, CHUNK digits at a time through a small table (`digit_table`), into
its images under the table's symmetry maps (sums of digit * weight, Root.image_weights) and
bitmasks of its stones; a child's images are its parent's plus one stone's weight, so each
child costs one addition and one comparison per map, and the legal moves are a bitmask.
Every kernel releases the GIL, so `split_rows` runs them on both cores with plain threads (no
numba threading layer: a Dask worker may call them from several threads at once).

The arrays a kernel sees:

    weights  (cells, S) int64   weights[i, s] = 3**(where map s sends free cell i)
    table    (P, 3**CHUNK, S + 2) int64   digit_table(weights), made by the Python side
    below    (cells,)   int64   gravity: the free cell under free cell i, or -1 (plays anywhere)
    masks    (L,)       int64   the lines the last mover can still make, bits over free cells
    ends     (L,)       int64   the free cells beyond each line's ends (+exact; else 0)
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from tablebase.builder.decoding import (
    canonical_child,
    decode,
    decoded_moves,
    digit_table,
    gravity_support,
    moves_of,
    pop_move,
    stones_of,
)
from tablebase.builder.games.grid.kernel import (
    backup,
    distinct_images,
    lower_bound,
    made_mask,
    prefetch,
)
from tablebase.builder.hashtable import (
    EMPTY_KEY,
    GROUP,
    fill_part,
    hash_fill,
    hashed_score,
    home,
    probe_from,
)
from tablebase.builder.threads import one_thread, split_rows
from tablebase.compiled import njit
from tablebase.db.scores import WIN_SCORE

__all__ = ["one_thread", "split_rows"]  # re-exported: the verify pass splits its rows too

# How `solve` finds a child's score: its byte, its slot in a hash table, or a binary search.
DIRECT, HASHED, SORTED = 0, 1, 2
# Scores live in [-64, 64]; a direct table slot holds score + OFFSET so that 0 means "absent"
# and a fresh np.zeros table (lazily allocated by the OS) starts empty.
OFFSET = 66
UNSET = np.iinfo(np.int8).min  # below every real score (-64): a parent with no move yet
MISSING = -1  # where a kernel found a child that is not in the loaded tier
NO_LINES = np.zeros(0, dtype=np.int64)


@njit(cache=True, nogil=True)
def _expand(codes: np.ndarray, weights: np.ndarray, table: np.ndarray, below: np.ndarray,
            gravity: bool, stone: int, kids: np.ndarray) -> int:
    """Fill `kids` with the canonical child of every legal move of every code, parent by
    parent; return how many, or -1 if they do not fit."""
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
    """Mark every canonical child of every code: a bit of `target` as a uint64 bitmap
    (`bits`), or a byte of it as a direct table (set to 1)."""
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
    """term[r]: `won` when the last mover (digit `last`) has made a line, else 0 on a
    full board, else open_mark; orbits[r]: how many distinct images code r has."""
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


# --- sets of codes as bitmaps: one bit per code ----------------------------------------------
#
# Eight times smaller than a byte per code, a bitmap fits where a direct table does not (5x4:
# 3**20 codes in 436 MB against 3.5 GB), and reading it back sorted costs one pass over its
# words instead of a sort of every child: code c is bit c & 63 of word c >> 6.

@njit(cache=True, nogil=True, inline="always")
def set_bit(words: np.ndarray, code: int) -> None:
    """Add `code` to the set."""
    words[code >> 6] |= np.uint64(1) << np.uint64(code & 63)


@njit(cache=True, nogil=True)
def take_bits(words: np.ndarray, other: np.ndarray, start: int, out: np.ndarray) -> tuple[int, int]:
    """Move the codes of words | other from word `start` on into `out`, ascending, clearing
    both as it goes, until `out` may not hold another word; return (codes written, next word)."""
    n = 0
    w = start
    limit = out.shape[0] - 64
    has_other = other.shape[0] > 0
    while w < words.shape[0] and n <= limit:
        word = words[w]
        if has_other:
            word |= other[w]
            if other[w]:
                other[w] = 0
        if word:
            words[w] = 0
            base = w << 6
            while word:
                out[n] = base + trailing_zeros(word)  # type: ignore[call-arg]  # numba's intrinsic
                n += 1
                word &= word - np.uint64(1)
        w += 1
    return n, w


@njit(cache=True, nogil=True)
def _solve(codes: np.ndarray, term: np.ndarray, weights: np.ndarray, table: np.ndarray,
           below: np.ndarray, gravity: bool, stone: int, masks: np.ndarray, ends: np.ndarray,
           won: int, mode: int, slots: np.ndarray, keys: np.ndarray, values: np.ndarray,
           shift: int, best: np.ndarray) -> int:
    """best[r]: term[r] where code r is terminal (term[r] != UNSET, the enumerator's OPEN),
    else the mover's best backed-up child score of code r (UNSET with no move). A move that
    makes one of the mover's lines (`masks`, `ends`: Root.line_rules; none under misère) ends
    the game with the child's score `won`, the best there is: the others are not looked up.
    Each other child's score found by `mode`: DIRECT, its byte in `slots`; HASHED, its slot
    in the hash table `keys` (`shift`); SORTED, binary search in sorted `keys` with `values`.
    Returns the first child missing from the loaded tier, or MISSING.

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


# --- the Python side: chunks of a tier, on both cores -------------------------------------

def _arr(a: np.ndarray, dtype: type) -> np.ndarray:
    """`a` as a contiguous, writable array of `dtype`: one machine-code version per kernel
    (numba compiles, caches and loads another for every read-only argument)."""
    a = np.ascontiguousarray(a, dtype=dtype)
    return a if a.flags.writeable else a.copy()


def expand(codes: np.ndarray, weights: np.ndarray, below: np.ndarray, gravity: bool,
           stone: int, moves: int, out: np.ndarray | None = None) -> np.ndarray:
    """The canonical child of every legal move from every code, parent by parent; `moves`
    bounds the legal moves of one parent (its empty cells; with gravity, its columns). `out`:
    where to write them (room for len(codes) * moves); the result is then its first part."""
    codes, weights, below = _arr(codes, np.int64), _arr(weights, np.int64), _arr(below, np.int64)
    table = digit_table(weights)

    def part(_: int, a: int, b: int) -> np.ndarray:
        # Sized by the bound, not by the cells: fresh pages cost a fault each on first touch.
        kids = np.empty((b - a) * moves, dtype=np.int64) if out is None \
            else out[a * moves : b * moves]
        n = _expand(codes[a:b], weights, table, below, gravity, stone, kids)
        if n < 0:
            raise RuntimeError(f"a position has more than {moves} legal moves")
        return kids[:n]

    pieces = split_rows(len(codes), part)
    if len(pieces) == 1:
        return pieces[0]
    if out is None:
        return np.concatenate(pieces)
    n = 0
    for piece in pieces:  # each next to the one before (numpy copies overlapping parts safely)
        out[n : n + len(piece)] = piece
        n += len(piece)
    return out[:n]


def mark(codes: np.ndarray, weights: np.ndarray, below: np.ndarray, gravity: bool, stone: int,
         targets: list[np.ndarray]) -> None:
    """Mark every canonical child of every code: in a bitmap per thread (`targets`: one per
    core at least), or in one direct byte table (`targets`: that table alone)."""
    codes, weights, below = _arr(codes, np.int64), _arr(weights, np.int64), _arr(below, np.int64)
    table = digit_table(weights)
    # Threads may store 1 in the same byte (the same value: no lock needed), but setting a bit
    # rewrites its whole word, so each thread marks a bitmap of its own.
    split_rows(len(codes), lambda piece, a, b: _mark(
        codes[a:b], weights, table, below, gravity, stone, targets[piece % len(targets)],
        targets[0].dtype == np.uint64))


def won_score(misere: bool) -> int:
    """The score of a position whose last mover made a line, for the side to move."""
    return WIN_SCORE if misere else -WIN_SCORE  # the side to move lost (misère: won)


def classify(codes: np.ndarray, weights: np.ndarray, last: int, masks: np.ndarray,
             ends: np.ndarray, full: bool, misere: bool, open_mark: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """(term, orbit sizes) of codes: the terminal score for the side to move, or open_mark;
    `masks` and `ends`: Root.line_rules of the last mover."""
    codes, table = _arr(codes, np.int64), digit_table(_arr(weights, np.int64))
    masks, ends = _arr(masks, np.int64), _arr(ends, np.int64)
    term = np.empty(len(codes), dtype=np.int8)
    orbits = np.empty(len(codes), dtype=np.int64)
    split_rows(len(codes), lambda _, a, b: _classify(codes[a:b], table, last, masks, ends,
                                                  full, won_score(misere), open_mark,
                                                  term[a:b], orbits[a:b]))
    return term, orbits


def solve(codes: np.ndarray, term: np.ndarray, weights: np.ndarray, below: np.ndarray,
          gravity: bool, stone: int, lookup: tuple[int, np.ndarray, np.ndarray, np.ndarray, int],
          out: np.ndarray | None = None,
          lines: tuple[np.ndarray, np.ndarray, int] = (NO_LINES, NO_LINES, 0)) -> np.ndarray:
    """The score of every code: its `term` score where terminal (term not UNSET), else its
    best backed-up child score, UNSET where it has no move; `lookup` is CodeTable.arrays() of
    the next tier (LookupError for a child not in it). `out`: where to write them (int8).
    `lines`: the mover's lines (Root.line_rules) and the score of a child that made one, where
    that is the best a move can do (normal rules): such a move decides without look-ups."""
    codes, weights, below = _arr(codes, np.int64), _arr(weights, np.int64), _arr(below, np.int64)
    term = _arr(term, np.int8)
    table = digit_table(weights)
    mode, slots, keys, values, shift = lookup
    lookup = (mode, _arr(slots, np.uint8), _arr(keys, np.int64), _arr(values, np.int8), shift)
    masks, ends, won = _arr(lines[0], np.int64), _arr(lines[1], np.int64), lines[2]
    best = np.empty(len(codes), dtype=np.int8) if out is None else out
    missing = split_rows(len(codes), lambda _, a, b: _solve(
        codes[a:b], term[a:b], weights, table, below, gravity, stone, masks, ends, won, *lookup,
        best[a:b]))
    for kid in missing:
        if kid != MISSING:
            raise LookupError(f"code {kid} is not in the loaded tier")
    return best


def warm_up() -> None:
    """Load every kernel once (compiling it on a machine's first run), on tiny inputs of the
    types a build passes: the one-off cost of the first build in a process, paid up front."""
    codes, weights, below = np.zeros(1, np.int64), np.ones((2, 2), np.int64), np.full(2, -1)
    expand(codes, weights, below, False, 1, 2)
    mark(codes, weights, below, False, 1, [np.zeros(9, np.uint8)])
    mark(codes, weights, below, False, 1, [np.zeros(1, np.uint64), np.zeros(1, np.uint64)])
    classify(codes, weights, 1, np.ones(1, np.int64), np.zeros(1, np.int64), False, False, UNSET)
    keys = np.full(8, EMPTY_KEY, np.int64)  # 8 slots: shift 61
    hash_fill(np.arange(1, 3, dtype=np.int64), np.zeros(2, np.int8), keys, 61)
    fill_part(np.arange(1, 3, dtype=np.int64), np.zeros(2, np.int8), keys, 61, 0, 8,
               np.zeros(1, np.int64))
    solve(codes, np.full(1, UNSET, np.int8), weights, below, False, 1,
          (HASHED, np.zeros(0, np.uint8), keys, np.zeros(0, np.int8), 61),
          lines=(np.ones(1, np.int64), np.zeros(1, np.int64), -WIN_SCORE))
    take_bits(np.ones(1, np.uint64), np.zeros(1, np.uint64), 0, np.zeros(128, np.int64))
