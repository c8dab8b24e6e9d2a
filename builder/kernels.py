"""A tier's compiled kernels run over whole chunks of codes on both cores: the kernels of a
loop-free tier (builder/games/tier_kernels.py's TierKernels, which the table's root binds
once a tier) run on one block each, and `split_rows` splits a chunk in one block per core on
plain threads (every kernel releases the GIL; no numba threading layer, since a Dask worker
may call them from several threads at once). And the builder's bitmaps of marked codes read
back in order.
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from tablebase.builder.games.tier_kernels import OPEN, TableRoot, TierKernels
from tablebase.builder.games.tier_lookup import EMPTY_KEY, MISSING, UNSET, NextTier, kernel_array
from tablebase.builder.hashtable import fill_part, hash_fill
from tablebase.builder.threads import one_thread, split_rows
from tablebase.compiled import njit, read_only
from tablebase.db.scores import WIN_SCORE

__all__ = ["UNSET", "one_thread", "split_rows"]  # re-exported: verify splits its rows too


# --- sets of codes as bitmaps: one bit per code ----------------------------------------------
#
# Eight times smaller than a byte per code, a bitmap fits where a direct table does not (5x4:
# 3**20 codes in 436 MB against 3.5 GB), and reading it back sorted costs one pass over its
# words instead of a sort of every child: code c is bit c & 63 of word c >> 6
# (tier_lookup.set_bit marks it).

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


# --- a loop-free tier's kernels on both cores ------------------------------------------------

def expand(tier: TierKernels, codes: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The canonical child of every move from every code, parent by parent. `out`: where to
    write them (room for len(codes) * tier.room); the result is then its first part."""
    codes, moves = kernel_array(codes, np.int64), tier.room

    def part(_: int, a: int, b: int) -> np.ndarray:
        # Sized by the bound, not by the cells: fresh pages cost a fault each on first touch.
        kids = np.empty((b - a) * moves, dtype=np.int64) if out is None \
            else out[a * moves : b * moves]
        n = tier.children(codes[a:b], kids)
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


def mark(tier: TierKernels, codes: np.ndarray, targets: list[np.ndarray]) -> None:
    """Mark every canonical child of every code: in a bitmap per thread (`targets`: one per
    core at least), or in one direct byte table (`targets`: that table alone)."""
    codes = kernel_array(codes, np.int64)
    # Threads may store 1 in the same byte (the same value: no lock needed), but setting a bit
    # rewrites its whole word, so each thread marks a bitmap of its own.
    split_rows(len(codes), lambda piece, a, b: tier.mark(codes[a:b],
                                                         targets[piece % len(targets)]))


def classify(tier: TierKernels, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(term, orbit sizes) of codes: term the score for the side to move where the game is
    over (a win or a loss in 0 plies, a draw 0), else OPEN."""
    codes = kernel_array(codes, np.int64)
    term = np.empty(len(codes), dtype=np.int8)
    orbits = np.empty(len(codes), dtype=np.int64)

    def work(_: int, a: int, b: int) -> None:
        tier.classify(codes[a:b], term[a:b], orbits[a:b])
        scored(term[a:b])
    split_rows(len(codes), work)
    return term, orbits


def scored(ends: np.ndarray) -> None:
    """Values of finished positions (1, 0, -1; OPEN where play goes on) as scores, in place:
    won or lost at once (depth 0), or drawn. A piece at a time (a whole tier's temporaries
    would be a peak of their own)."""
    np.multiply(ends, WIN_SCORE, out=ends, where=ends != OPEN)


def solve(tier: TierKernels, codes: np.ndarray, term: np.ndarray, lookup: NextTier,
          out: np.ndarray | None = None) -> np.ndarray:
    """The score of every code: its `term` score where terminal (term not OPEN), else its
    best backed-up child score, UNSET where it has no move; `lookup` is CodeTable.arrays() of
    the next tier (LookupError for a child not in it). `out`: where to write them (int8)."""
    codes, term = kernel_array(codes, np.int64), kernel_array(term, np.int8)
    best = np.empty(len(codes), dtype=np.int8) if out is None else out
    missing = split_rows(len(codes), lambda _, a, b: tier.solve(codes[a:b], term[a:b], lookup,
                                                                best[a:b]))
    for kid in missing:
        if kid != MISSING:
            raise LookupError(f"code {kid} is not in the loaded tier")
    return best


def warm_up(root: TableRoot) -> None:
    """Load every kernel a build of `root` runs (compiling it on a machine's first run): the
    builder's own on tiny inputs, and the root's (TableRoot.load_kernels). The one-off cost of
    the first build in a process, paid up front."""
    keys = np.full(8, EMPTY_KEY, np.int64)  # 8 slots: shift 61
    codes = read_only(np.arange(1, 3, dtype=np.int64))  # as fill_hash passes them
    hash_fill(codes, np.zeros(2, np.int8), keys, 61)
    fill_part(codes, np.zeros(2, np.int8), keys, 61, 0, 8,
              np.zeros(1, np.int64))
    take_bits(np.ones(1, np.uint64), np.zeros(1, np.uint64), 0, np.zeros(128, np.int64))
    root.load_kernels()
