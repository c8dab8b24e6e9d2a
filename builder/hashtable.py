"""A tier as an open-addressing hash table (codes -> scores), for solving where a direct table
of a byte per code does not fit: its words, its compiled fill and probe, and the fill on both
cores. builder/kernels.py's solver reads it; builder/codetable.py owns it.
"""
from __future__ import annotations

import numpy as np

from tablebase.builder.games.grid.kernel import prefetch
from tablebase.builder.threads import THREADS, in_parallel, split_rows
from tablebase.compiled import njit

# A tier's codes spread over all 3**cells codes, so a direct table or a bitmap is touched one
# page per lookup; a hash table of twice the tier's size is the next smallest. Slot h holds one
# word, a code and its score together (code << SCORE_BITS | score + 64: a look-up that finds
# its code has its score in the same cache line), or EMPTY_KEY when free; a code lives at the
# first free slot from its home slot, wrapping around. Codes must be below 2**55 (at most 34
# cells: HASH_CELLS); scores are in [-64, 64] (misère: a win in 0 plies scores 64).

EMPTY_KEY = -1
SCORE_BITS = 8
HASH_CELLS = 34  # 3**34 < 2**55: a code and a score fit one non-negative int64
_SCORE_MASK = (1 << SCORE_BITS) - 1
# Look-ups at once: the children of this many parents (or codes filled) are prefetched before
# the first is read (random look-ups into a 512 MB table: groups of 16 to 64 alike, 8 slower).
GROUP = 32


@njit(cache=True, nogil=True, inline="always")
def home(code: int, shift: int) -> int:
    return np.int64((np.uint64(code) * np.uint64(0x9E3779B97F4A7C15))  # type: ignore[return-value]
                    >> np.uint64(shift))


@njit(cache=True, nogil=True, inline="always")
def entry(code: int, score: int) -> int:
    return (np.int64(code) << SCORE_BITS) | (np.int64(score) + 64)  # type: ignore[return-value]


@njit(cache=True, nogil=True, inline="always")
def probe_from(keys: np.ndarray, h: int, code: int) -> int:
    """From slot h on, the slot holding `code`, or the free slot where the search ends."""
    mask = keys.shape[0] - 1
    while keys[h] >> SCORE_BITS != code and keys[h] != EMPTY_KEY:
        h = (h + 1) & mask
    return h


@njit(cache=True, nogil=True, inline="always")
def probe(keys: np.ndarray, shift: int, code: int) -> int:
    """The slot holding `code`, or the free slot where the search for it ends."""
    return probe_from(keys, home(code, shift), code)


@njit(cache=True, nogil=True, inline="always")
def hashed_score(entry: int) -> int:
    """The score held in a slot's word."""
    return (entry & _SCORE_MASK) - 64


@njit(cache=True, nogil=True)
def hash_fill(codes: np.ndarray, scores: np.ndarray, keys: np.ndarray, shift: int) -> None:
    """Insert distinct `codes` with their `scores` (keys: all EMPTY_KEY, 2**(64 - shift) slots)."""
    homes = np.empty(GROUP, dtype=np.int64)
    n = codes.shape[0]
    for a in range(0, n, GROUP):
        b = min(a + GROUP, n)
        for i in range(a, b):
            homes[i - a] = home(codes[i], shift)
            prefetch(keys, homes[i - a])
        for i in range(a, b):
            h = probe_from(keys, homes[i - a], codes[i])
            keys[h] = entry(codes[i], scores[i])


@njit(cache=True, nogil=True)
def fill_part(codes: np.ndarray, scores: np.ndarray, keys: np.ndarray, shift: int, lo: int,
               hi: int, late: np.ndarray) -> int:
    """Empty slots [lo, hi), then hash_fill there the codes whose home slot is in [lo, hi),
    probing no further than hi - 1: those that would go further are left, by index, in
    `late`; their count (-1: too many)."""
    keys[lo:hi] = EMPTY_KEY
    n = 0
    rows = np.empty(GROUP, dtype=np.int64)
    homes = np.empty(GROUP, dtype=np.int64)
    i = 0
    while i < codes.shape[0]:
        g = 0
        while g < GROUP and i < codes.shape[0]:
            h = home(codes[i], shift)
            if lo <= h < hi:
                rows[g], homes[g] = i, h
                prefetch(keys, h)
                g += 1
            i += 1
        for j in range(g):
            h = homes[j]
            while h < hi and keys[h] != EMPTY_KEY:  # distinct codes: never the code itself
                h += 1
            if h == hi:
                if n == late.shape[0]:
                    return -1
                late[n] = rows[j]
                n += 1
            else:
                keys[h] = entry(codes[rows[j]], scores[rows[j]])
    return n


def fill_hash(codes: np.ndarray, scores: np.ndarray, keys: np.ndarray, shift: int) -> None:
    """Empty `keys` (whatever it held) and hash_fill it, on one core per half of the table for
    large tiers: each thread empties its half and inserts the codes whose home slot is in it,
    and the few whose probe would cross into the other half are inserted after (inserting a
    code twice finds it: the table is the same)."""
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    scores = np.ascontiguousarray(scores, dtype=np.int8)
    if not in_parallel(len(codes)):
        keys.fill(EMPTY_KEY)
        hash_fill(codes, scores, keys, shift)
        return
    halves = np.linspace(0, len(keys), THREADS + 1).astype(np.int64)
    lates = [np.empty(1 << 16, dtype=np.int64) for _ in range(THREADS)]
    counts = split_rows(len(codes), lambda piece, a, b: fill_part(
        codes, scores, keys, shift, int(halves[piece]), int(halves[piece + 1]), lates[piece]))
    if any(int(n) < 0 for n in counts):
        hash_fill(codes, scores, keys, shift)  # far too many crossings: all again
        return
    for late, n in zip(lates, counts):
        picked = late[: int(n)]
        hash_fill(codes[picked], scores[picked], keys, shift)
