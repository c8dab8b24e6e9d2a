"""Board geometry: how cells are numbered and which k-cell lines win.

Cells are numbered row-major from the top-left corner; row 0 is the top row,
so board text read left to right, top to bottom visits cells 0, 1, 2, ...
A 4x3 board (4 columns, 3 rows):

        a   b   c   d
    3 | 0 | 1 | 2 | 3 |      move names: column letter (a = leftmost)
    2 | 4 | 5 | 6 | 7 |      and row number (1 = bottom row), so cell 0
    1 | 8 | 9 |10 |11 |      is a3 and cell 11 is d1.

With gravity a stone falls to the bottom-most empty cell of its column
(largest row index).

A line is k cells in a row. Under the exact rule (`+exact`) a line wins only if it is a whole
run: the cells just beyond its two ends (`line_ends`) are not the player's, so that six in a
row wins no game of five. Every rule that asks "has this player made a line" reads these two
arrays: `lines` and `line_ends`.

With `+square` a 2x2 square of one side's stones is a line too (Teeko's rule), with no ends.
Lines are rows of one array, so where k and 4 differ the shorter lines repeat their first cell
(a cell listed twice asks the same question twice: "all of these cells are the player's" keeps
its meaning, and so does a bitmask of the cells).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from tablebase.builder.games.grid.spec import Spec

# Directions of a line as (row step, column step): across, down, both diagonals.
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def cell_index(spec: Spec, row: int, col: int) -> int:
    """The cell number of (row, col), row 0 being the top row."""
    return row * spec.width + col


def _on_board(spec: Spec, row: int, col: int) -> bool:
    return 0 <= row < spec.height and 0 <= col < spec.width


@lru_cache(maxsize=None)
def _lines_and_ends(spec: Spec) -> tuple[np.ndarray, np.ndarray]:
    found: list[list[int]] = []
    ends: list[list[int]] = []
    for dr, dc in _DIRECTIONS:
        for row in range(spec.height):
            for col in range(spec.width):
                end_row, end_col = row + dr * (spec.k - 1), col + dc * (spec.k - 1)
                # With k == 1 every direction yields the same single cell (under +exact with
                # ends of its own: a lone stone in one direction is a run of exactly one).
                if not _on_board(spec, end_row, end_col) \
                        or (spec.k == 1 and (dr, dc) != (0, 1) and not spec.exact):
                    continue
                found.append([cell_index(spec, row + dr * i, col + dc * i) for i in range(spec.k)])
                beyond = ((row - dr, col - dc), (end_row + dr, end_col + dc))
                ends.append([cell_index(spec, r, c) if spec.exact and _on_board(spec, r, c)
                             else -1 for r, c in beyond])
    if spec.square:
        for row in range(spec.height - 1):
            for col in range(spec.width - 1):
                found.append([cell_index(spec, row + dr, col + dc) for dr in (0, 1) for dc in (0, 1)])
                ends.append([-1, -1])
    width = max(len(line) for line in found) if found else spec.k
    found = [line + [line[0]] * (width - len(line)) for line in found]
    out = (np.array(found, dtype=np.int64).reshape(len(found), width),
           np.array(ends, dtype=np.int64).reshape(len(found), 2))
    for array in out:
        array.setflags(write=False)
    return out


def lines(spec: Spec) -> np.ndarray:
    """Every line of k cells (and with +square every 2x2 square), as an (L, width) int array
    of cell numbers: width is k, or 4 where squares are longer (a shorter line repeats its
    first cell)."""
    return _lines_and_ends(spec)[0]


def line_ends(spec: Spec) -> np.ndarray:
    """For each line of `lines`, the cells just before its first and after its last cell
    (L, 2), which must not be the player's for the line to win; -1 where off the board or
    where the spec has no exact rule (any line of k wins)."""
    return _lines_and_ends(spec)[1]


@lru_cache(maxsize=None)
def lines_through(spec: Spec) -> tuple[np.ndarray, np.ndarray]:
    """The lines through each cell, as (first, through): cell c's are the rows
    through[first[c]:first[c + 1]] of `lines`, in line order (a move can make only these)."""
    table = lines(spec)
    per_cell: list[list[int]] = [[] for _ in range(spec.cells)]
    for i, line in enumerate(table.tolist()):
        for cell in line:
            per_cell[cell].append(i)
    first = np.zeros(spec.cells + 1, dtype=np.int64)
    first[1:] = np.cumsum([len(found) for found in per_cell])
    through = np.array([i for found in per_cell for i in found], dtype=np.int64)
    for array in (first, through):
        array.setflags(write=False)
    return first, through
