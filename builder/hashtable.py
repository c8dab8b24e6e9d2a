"""A tier as an open-addressing hash table (codes -> scores), for solving where a direct table
of a byte per code does not fit: its words, its compiled fill and probe, and the fill on both
cores. Each tier's kernels read it (builder/games/tier_lookup.py); builder/codetable.py owns it.
"""
from __future__ import annotations

import numpy as np

from tablebase.builder.games.tier_lookup import (
    EMPTY_KEY,
    GROUP,
    entry,
    home,
    prefetch,
    probe_from,
)
from tablebase.builder.threads import THREADS, in_parallel, split_rows
from tablebase.compiled import njit, read_only

# A tier's codes spread over all 3**cells codes, so a direct table or a bitmap is touched one
# page per lookup; a hash table of twice the tier's size is the next smallest. Its words' form
# (builder/games/tier_lookup.py) is what every tier's kernels read.


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
    codes = read_only(codes, np.int64)
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
        hash_fill(read_only(codes[picked]), scores[picked], keys, shift)
