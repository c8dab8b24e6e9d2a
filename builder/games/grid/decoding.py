"""Decoding a code for the grid tiers' compiled kernels (tier.py): its images under the table's
symmetry maps, bitmasks of its stones and its legal moves, read CHUNK digits at a time from a
small table, and a child's canonical code from its parent's images.

    table    (P, 3**CHUNK, S + 2) int64   digit_table(weights), made by the Python side
    weights  (cells, S) int64             Root.image_weights
    below    (cells,) int64               gravity: the free cell under free cell i, or -1
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from tablebase.compiled import njit

# Decoding reads a code CHUNK digits at a time: row v of a table's part j holds what digits
# v (base 3, CHUNK of them) on free cells j*CHUNK... add to each image (one column per map),
# then the bits of those cells that hold a stone and that hold X. A code of 24 cells is four
# divisions and four rows of one small table (93 KB for 6x4) instead of 24 divisions.
CHUNK = 6


def digit_table(weights: np.ndarray) -> np.ndarray:
    """The decoding table of `weights` (Root.image_weights): (parts, 3**CHUNK, S + 2) int64."""
    key = (weights.shape, weights.tobytes())
    table = _tables.get(key)
    if table is None:
        cells, maps = weights.shape
        values = np.arange(3 ** CHUNK, dtype=np.int64)
        table = np.zeros((-(-cells // CHUNK), 3 ** CHUNK, maps + 2), dtype=np.int64)
        for cell in range(cells):
            part, digit = divmod(cell, CHUNK)
            digits = values // 3 ** digit % 3  # digits past the last cell: rows never read
            table[part, :, :maps] += digits[:, None] * weights[cell]
            table[part, :, maps] |= (digits != 0).astype(np.int64) << cell
            table[part, :, maps + 1] |= (digits == 1).astype(np.int64) << cell
        if len(_tables) >= 64:  # a process building many endgame tables: a table per root
            _tables.clear()
        _tables[key] = table  # writable: numba compiles another version for read-only arrays
    return table


_tables: dict[tuple[tuple[int, ...], bytes], np.ndarray] = {}


@njit(cache=True, nogil=True, inline="always")
def decode(code: int, table: np.ndarray, img: np.ndarray) -> tuple[int, int]:
    """The codes of `code`'s images under the maps into img; return (the cells holding a
    stone, the cells holding X) as bitmasks over free cells."""
    maps = img.shape[0]
    for s in range(maps):
        img[s] = 0
    occupied = np.int64(0)
    xs = np.int64(0)
    # Unsigned: codes are never negative, and signed division costs twice as much.
    c = np.uint64(code)
    for part in range(table.shape[0]):
        q = c // np.uint64(3 ** CHUNK)
        row = table[part, np.int64(c - q * np.uint64(3 ** CHUNK))]
        c = q
        for s in range(maps):
            img[s] += row[s]
        occupied |= row[maps]
        xs |= row[maps + 1]
    return occupied, xs  # type: ignore[return-value]  # numba ints


@njit(cache=True, nogil=True, inline="always")
def stones_of(occupied: int, xs: int, player: int) -> int:
    """The cells holding `player`'s stones (X is 1, O is 2), from `decode`'s masks."""
    return xs if player == 1 else occupied & ~xs


@njit(cache=True, nogil=True)
def gravity_support(below: np.ndarray) -> tuple[int, int]:
    """Gravity, as bitmasks: (the cells that may always be played, the step from every other
    cell to the one below it: 0 where there is no one step, -1 where there is no other cell)."""
    bottom = np.int64(0)
    step = -1
    for c in range(below.shape[0]):
        if below[c] < 0:
            bottom |= np.int64(1) << c
        elif step == -1:
            step = below[c] - c
        elif below[c] - c != step:
            step = 0
    return bottom, step  # type: ignore[return-value]  # numba ints


@njit(cache=True, nogil=True, inline="always")
def moves_of(occupied: int, cells: int, gravity: bool, bottom: int, step: int,
           below: np.ndarray) -> np.uint64:
    """The cells a stone may be played on, as a bitmask (`bottom`, `step`: `gravity_support`).
    Found by shifts and masks, then visited bit by bit: a test per cell would mispredict."""
    free = ((np.int64(1) << cells) - 1) & ~occupied
    if gravity:
        rests = bottom
        if step > 0:  # bit c of occupied >> step: the cell c + step under c
            rests |= occupied >> step
        elif step == 0:
            for c in range(cells):
                if below[c] >= 0:
                    rests |= ((occupied >> below[c]) & 1) << c
        free &= rests
    return np.uint64(free)


@njit(cache=True, nogil=True, inline="always")
def decoded_moves(code: int, table: np.ndarray, img: np.ndarray, cells: int, gravity: bool,
                   bottom: int, step: int, below: np.ndarray) -> np.uint64:
    """`decode` into img, and the legal moves of `code` (`moves_of`)."""
    occupied, _ = decode(code, table, img)
    return moves_of(occupied, cells, gravity, bottom, step, below)


@njit(cache=True, nogil=True, inline="always")
def pop_move(moves: np.uint64) -> tuple[int, np.uint64]:
    """The lowest cell of the bitmask `moves`, and the others."""
    lowest = np.int64(trailing_zeros(moves))  # type: ignore[call-arg]  # numba's intrinsic
    return lowest, moves & (moves - np.uint64(1))


@njit(cache=True, nogil=True, inline="always")
def canonical_child(img: np.ndarray, weights: np.ndarray, stone: int, c: int) -> int:
    best = img[0] + stone * weights[c, 0]
    for s in range(1, img.shape[0]):
        kid = img[s] + stone * weights[c, s]
        if kid < best:
            best = kid
    return best

