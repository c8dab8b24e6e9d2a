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
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from tablebase.builder.game.spec import Spec

# Directions of a line as (row step, column step): across, down, both diagonals.
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def cell_index(spec: Spec, row: int, col: int) -> int:
    """The cell number of (row, col), row 0 being the top row."""
    return row * spec.width + col


@lru_cache(maxsize=None)
def lines(spec: Spec) -> np.ndarray:
    """Every line of k cells that wins, as an (L, k) int array of cell numbers."""
    found: list[list[int]] = []
    for dr, dc in _DIRECTIONS:
        for row in range(spec.height):
            for col in range(spec.width):
                end_row, end_col = row + dr * (spec.k - 1), col + dc * (spec.k - 1)
                if 0 <= end_row < spec.height and 0 <= end_col < spec.width:
                    line = [cell_index(spec, row + dr * i, col + dc * i) for i in range(spec.k)]
                    # With k == 1 every direction yields the same single cell.
                    if spec.k > 1 or (dr, dc) == (0, 1):
                        found.append(line)
    result = np.array(found, dtype=np.int64).reshape(len(found), spec.k)
    result.setflags(write=False)
    return result
