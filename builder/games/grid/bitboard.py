"""The rules of a gravity board on bitboards (Connect Four and its kin, normal rules, boards
of at most 64 bits): the encoding, a board's geometry as the compiled code reads it, and where
a stone completes k in a row, by bit shifts. Used by the bitboard search (query/search/
gravity.py); compiled (numba), so that importing the rules' Python modules does not import it.

The encoding, drawn for 7x6 (a column of H + 1 bits, bottom first; the rest of the package
numbers cells row * W + col with row 0 on top):

    bit of each square                      the two boards
     6 13 20 27 34 41 48   <- spare row     me    the stones of the side to move
     5 12 19 26 33 40 47                    mask  every stone
     4 11 18 25 32 39 46                    key   me + mask: in each column the h stones
     3 10 17 24 31 38 45                          give 2**h - 1 plus the mover's bits, a number
     2  9 16 23 30 37 44                          of [2**h - 1, 2**(h+1) - 2], so the key is
     1  8 15 22 29 36 43                          the position itself, never a hash
     0  7 14 21 28 35 42   <- bottom row

The spare row stays empty: a line shifted across a column's top meets it and breaks, so no
line wraps. A column's lowest empty square is the bit `(mask + bottom) & column`.
"""
from __future__ import annotations

import numpy as np

from tablebase.builder.games.grid.spec import Spec
from tablebase.compiled import njit

# A geometry row (`geometry`): W, H, k, then the bit steps of the horizontal and the two
# diagonal directions (0 where no line of k fits that way). Callers append their own fields.
G_W, G_H, G_K, G_STEPS = 0, 1, 2, 3
GEOMETRY = 6  # fields of a geometry row

_U0, _ALL = np.uint64(0), np.uint64(0xFFFFFFFFFFFFFFFF)


def bits_of(spec: Spec) -> int:
    """Bits the encoding of `spec`'s board takes: a column of H + 1 a column."""
    return spec.width * (spec.height + 1)


def geometry(spec: Spec) -> list[int]:
    """The geometry row of `spec` (G_* fields)."""
    w, h = spec.width, spec.height
    wide, tall = w >= spec.k, h >= spec.k
    return [w, h, spec.k, h + 1 if wide else 0, h + 2 if wide and tall else 0,
            h if wide and tall else 0]


def bit_of(spec: Spec, cell: int) -> int:
    """The bit of a cell (row-major, row 0 on top): column * (H + 1) + rows from the bottom."""
    row, col = divmod(cell, spec.width)
    return col * (spec.height + 1) + spec.height - 1 - row


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def wins(me, empty, geo):  # type: ignore[no-untyped-def]
    """The empty squares (of `empty`) where a stone of `me` completes k in a row (`geo`: a
    geometry row, or an array that starts with one).

    A square x wins when, along some direction of step s, the t squares below it
    (x - s, ..., x - t s) and the k - 1 - t above it are all `me`'s, for some t in [0, k);
    vertically only t = k - 1 (nothing lies above an empty square)."""
    k, h = geo[G_K], geo[G_H]
    r = _U0
    if h >= k:  # vertical lines
        v = _ALL
        for j in range(1, k):
            v &= me << np.uint64(j)
        r = v
    for i in range(3):
        s = geo[G_STEPS + i]
        if s == 0:  # no line of k fits in this direction
            continue
        if k == 4:  # Connect Four, unrolled: pairs below and above, then the third stone
            s1, s2, s3 = np.uint64(s), np.uint64(2 * s), np.uint64(3 * s)
            lo2 = (me << s1) & (me << s2)
            hi2 = (me >> s1) & (me >> s2)
            r |= (lo2 & ((me << s3) | (me >> s1))) | (hi2 & ((me >> s3) | (me << s1)))
        else:
            for t in range(k):
                x = _ALL
                for j in range(1, t + 1):
                    x &= me << np.uint64(j * s)
                for j in range(1, k - t):
                    x &= me >> np.uint64(j * s)
                r |= x
    return r & empty
