"""The base-3 codec between boards (cell values) and integer codes.

Cell i is the digit of weight 3**i: 0 empty, 1 X, 2 O. On a 3x3 board

    x . o        cells  0 1 2      code = 1*3**0 + 2*3**2
    . x .               3 4 5           + 1*3**4
    . . .               6 7 8           = 1 + 18 + 81 = 100

so the top-left cell is the least significant digit.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

EMPTY, X, O = 0, 1, 2  # noqa: E741 (O is the player, as on the board)


@lru_cache(maxsize=None)
def powers(cells: int) -> np.ndarray:
    """3**i for every cell i, as int64."""
    result = 3 ** np.arange(cells, dtype=np.int64)
    result.setflags(write=False)
    return result


def encode(board: Sequence[int]) -> int:
    """The code of a board given as cell values (a Python int)."""
    code = 0
    for value in reversed(board):
        code = code * 3 + int(value)
    return code


def decode(code: int, cells: int) -> tuple[int, ...]:
    """The cell values of a code on a board of `cells` cells."""
    code = int(code)
    board = []
    for _ in range(cells):
        code, digit = divmod(code, 3)
        board.append(digit)
    return tuple(board)


_BLOCK = 8  # digits decoded per table lookup: 3**8 = 6561 rows of 8 digits


@lru_cache(maxsize=None)
def _block_table() -> np.ndarray:
    """Row r holds the 8 base-3 digits of r, least significant first."""
    table = np.empty((3 ** _BLOCK, _BLOCK), dtype=np.int8)
    rest = np.arange(3 ** _BLOCK)
    for i in range(_BLOCK):
        table[:, i] = rest % 3
        rest //= 3
    table.setflags(write=False)
    return table


def digits(codes: np.ndarray, cells: int) -> np.ndarray:
    """Cell values of many codes at once: an (N, cells) int8 array."""
    rest = np.asarray(codes, dtype=np.int64)
    out = np.empty((rest.shape[0], cells), dtype=np.int8)
    table = _block_table()
    for start in range(0, cells, _BLOCK):
        width = min(_BLOCK, cells - start)
        rest, low = np.divmod(rest, 3 ** _BLOCK)
        out[:, start : start + width] = table[low, :width]
    return out


@lru_cache(maxsize=None)
def _stones_table() -> np.ndarray:
    """Entry r holds how many of the 8 base-3 digits of r are not empty."""
    table = np.count_nonzero(_block_table(), axis=1).astype(np.int16)
    table.setflags(write=False)
    return table


@lru_cache(maxsize=None)
def _stones_list() -> list[int]:
    return _stones_table().tolist()


def stones_in(code: int) -> int:
    """`stone_counts` of one code, in plain Python (a probe's one code: no array made)."""
    table, count = _stones_list(), 0
    while code:
        code, low = divmod(code, 3 ** _BLOCK)
        count += table[low]
    return count


def stone_counts(codes: np.ndarray) -> np.ndarray:
    """How many stones (non-empty digits) each code holds, as int16: a position's ply."""
    rest = np.asarray(codes, dtype=np.int64)
    table = _stones_table()
    count = np.zeros(rest.shape, dtype=np.int16)
    # Codes of up to 39 cells: five blocks of 8 digits.
    while rest.size and rest.max() > 0:
        rest, low = np.divmod(rest, 3 ** _BLOCK)
        count += table[low]
    return count


def encode_many(boards: np.ndarray) -> np.ndarray:
    """Codes of many boards given as an (N, cells) array of cell values."""
    boards = np.asarray(boards)
    return weighted_sum(boards, powers(boards.shape[1]))


def weighted_sum(boards: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """boards @ weights as exact int64, for digit arrays and non-negative int weights."""
    # float64 goes through BLAS and is exact while every sum stays below 2**53,
    # which holds for base-3 codes of up to 33 cells; beyond that use int64.
    if boards.shape[1] <= 33:
        return (boards.astype(np.float64) @ weights.astype(np.float64)).astype(np.int64)
    return boards.astype(np.int64) @ weights.astype(np.int64)
