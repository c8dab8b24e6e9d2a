"""Ranks of sets of points on a morris board (at most BOARD_POINTS points, a set a mask): a
set's colex rank among the sets of its size (the combinatorial number system), its inverse,
and a set's rank among the points another leaves free; read a byte of the mask at a time from
tables made once, for the kernels (sector_kernels.py, placement_kernels.py) to inline.
"""
from __future__ import annotations

from math import comb

import numpy as np

from tablebase.builder.games.bits import popcount
from tablebase.compiled import njit


def _rank_tables() -> tuple[np.ndarray, np.ndarray]:
    """RANK_BYTES[j, c, v]: the part of a set's colex rank that byte j of its mask (value v)
    gives when c of the set's points lie below that byte; PRESS[f, v]: the points of byte v
    among those of byte f, pressed together (bit k: the k-th point of f). Made by numpy over
    every byte at once (a Python loop took 60 ms of every process that ranks)."""
    byte = np.arange(256, dtype=np.int64)
    binom = np.array([[comb(n, r) for r in range(2 * BOARD_POINTS + 2)]
                      for n in range(BOARD_POINTS + 1)], dtype=np.int64)
    ranks = np.zeros((3, BOARD_POINTS + 1, 256), dtype=np.int64)
    press = np.zeros((256, 256), dtype=np.int64)
    for q in range(8):
        has = byte >> q & 1  # whether point q of the byte is in it
        before = np.array([(v & ((1 << q) - 1)).bit_count() for v in range(256)])
        for j in range(3):
            for c in range(BOARD_POINTS + 1):
                ranks[j, c] += has * binom[8 * j + q, c + before + 1]
        press |= (has[:, None] & has[None, :]) << before[:, None]
    return ranks, press.astype(np.uint8)


# The boards' most points: a set's mask is three bytes, ranked a byte at a time by table (nine
# men's morris's first pass over a tier in 0.80-0.86 of the time of a point at a time, its
# placement tiers in 0.83; docs/benchmarks.md).
BOARD_POINTS = 24
RANK_BYTES, PRESS = _rank_tables()


@njit(cache=True, nogil=True, inline="always")
def colex_rank(mask, binom):  # type: ignore[no-untyped-def]
    """The rank of a set of points among the sets of its size (colex order), a byte of its
    mask at a time (`binom` aside: the tables hold its sums)."""
    low, mid = mask & 255, (mask >> 8) & 255
    below = popcount(low)
    return (RANK_BYTES[0, 0, low] + RANK_BYTES[1, below, mid]
            + RANK_BYTES[2, below + popcount(mid), (mask >> 16) & 255])


@njit(cache=True, nogil=True, inline="always")
def colex_unrank(r, k, n, binom):  # type: ignore[no-untyped-def]
    """The set of k points of range(n) whose colex rank is r."""
    mask = 0
    c = n - 1
    for i in range(k, 0, -1):
        while binom[c, i] > r:
            c -= 1
        r -= binom[c, i]
        mask |= 1 << c
        c -= 1
    return mask


@njit(cache=True, nogil=True, inline="always")
def packed_rank(you, me, binom):  # type: ignore[no-untyped-def]
    """The colex rank of `you` among the points `me` leaves free: `you` pressed onto those
    points a byte at a time, then ranked."""
    free = ~me
    f0, f1, f2 = free & 255, (free >> 8) & 255, (free >> 16) & 255
    shift = popcount(f0)
    packed = (np.int64(PRESS[f0, you & 255]) | np.int64(PRESS[f1, (you >> 8) & 255]) << shift
              | np.int64(PRESS[f2, (you >> 16) & 255]) << (shift + popcount(f1)))
    return colex_rank(packed, binom)
