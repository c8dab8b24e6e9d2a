"""The base-3 codec: cell i is the digit of weight 3**i."""
from __future__ import annotations

import itertools

import numpy as np

from tablebase.builder.games.grid.codec import decode, digits, encode, encode_many


def test_documented_example() -> None:
    # x . o
    # . x .    -> 1 + 2*9 + 1*81 = 100
    # . . .
    assert encode((1, 0, 2, 0, 1, 0, 0, 0, 0)) == 100


def test_round_trip_every_board_of_six_cells() -> None:
    boards = list(itertools.product(range(3), repeat=6))
    codes = [encode(b) for b in boards]
    assert sorted(codes) == list(range(3 ** 6))
    assert all(decode(c, 6) == b for c, b in zip(codes, boards))
    arr = np.array(codes, dtype=np.int64)
    assert np.array_equal(digits(arr, 6), np.array(boards, dtype=np.int8))
    assert np.array_equal(encode_many(np.array(boards)), arr)


def test_vectorised_codec_on_large_boards() -> None:
    rng = np.random.default_rng(1)
    for cells in (9, 16, 20, 33, 34, 39):
        boards = rng.integers(0, 3, size=(200, cells))
        boards[0] = 2  # the largest code
        codes = encode_many(boards)
        assert codes[0] == 3 ** cells - 1
        assert [int(c) for c in codes] == [encode(b) for b in boards.tolist()]
        assert np.array_equal(digits(codes, cells), boards)
