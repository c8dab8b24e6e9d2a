"""The rules on hand-built positions, which boards are refused as impossible, and which values
and depths a position can have."""
from __future__ import annotations

import numpy as np
import pytest

from tablebase.builder.games.grid import (
    InvalidPositionError,
    Value,
    check_position,
    legal_moves,
    outcome,
    parse_spec,
    play,
    side_to_move,
)
from tablebase.builder.games.grid.geometry import lines
from tablebase.builder.games.grid.rules import possible
from tests.reference import Game

TTT = parse_spec("3x3k3")


def board(text: str) -> tuple[int, ...]:
    return tuple({".": 0, "x": 1, "o": 2}[ch] for ch in text.replace("/", ""))


def test_line_count() -> None:
    assert len(lines(TTT)) == 8
    assert len(lines(parse_spec("4x4k4"))) == 10
    assert len(lines(parse_spec("4x3k3"))) == 2 * 3 + 4 + 2 * 2 * 1
    assert len(lines(parse_spec("2x2k1"))) == 4


def test_empty_board() -> None:
    empty = board(".../.../...")
    assert side_to_move(empty) == 1
    assert outcome(TTT, empty) is None
    assert legal_moves(TTT, empty) == list(range(9))


def test_x_completed_a_row() -> None:
    # x x x
    # o o .     o to move, x has just won: o has lost
    # . . .
    b = board("xxx/oo./...")
    assert outcome(TTT, b) == Value.LOSS
    assert outcome(parse_spec("3x3k3+misere"), b) == Value.WIN
    assert legal_moves(TTT, b) == []


def test_full_board_draw() -> None:
    # x o x
    # x o o
    # o x x
    assert outcome(TTT, board("xox/xoo/oxx")) == Value.DRAW


def test_gravity_moves_are_column_bottoms() -> None:
    spec = parse_spec("3x3k3+gravity")
    # . . .
    # . . .     x played the middle column; o may play a1, b2 or c1
    # . x .
    b = board(".../.../.x.")
    assert legal_moves(spec, b) == [4, 6, 8]
    assert play(spec, b, 4) == board(".../.o./.x.")
    with pytest.raises(InvalidPositionError):
        play(spec, b, 1)


@pytest.mark.parametrize("text, fragment", [
    ("oo./.../...", "impossible stone counts"),
    ("xxx/x../o..", "impossible stone counts"),
    ("xxx/ooo/x..", "both x and o have a line"),
    ("ooo/xx./xx.", "o has a line but x moved last"),
    ("xxx/oo./o..", "x has a line but o moved last"),
    ("xx/o./..", "board has 6 cells"),
])
def test_impossible_boards(text: str, fragment: str) -> None:
    with pytest.raises(InvalidPositionError, match=fragment):
        check_position(TTT, board(text))


def test_floating_stone() -> None:
    with pytest.raises(InvalidPositionError, match="floating stone in column b"):
        check_position(parse_spec("3x3k3+gravity"), board(".x./.../..."))


@pytest.mark.parametrize("spec", ["3x3k3", "3x3k3+misere", "4x3k3+gravity",
                                  "3x3k3+gravity+misere"])
def test_every_solved_value_and_depth_is_possible_and_no_flipped_one(spec: str) -> None:
    """On every reachable position, against the reference negamax: its value and depth pass;
    the other side's value at the same depth never does (wins and losses fall on different
    plies), nor a draw before the board is full, nor a depth past the empty cells."""
    game = Game(spec)
    boards = sorted(game.reachable())
    value, depth = np.array([game.solve(b) for b in boards]).T
    empties = np.array([game.n - game.stones(b) for b in boards])
    misere = "misere" in spec
    assert possible(value, depth, empties, misere).all()
    decisive = value != 0
    assert not possible(-value[decisive], depth[decisive], empties[decisive], misere).any()
    assert not possible(0 * value, depth, empties + 1, misere).any()
    assert not possible(value, empties + 1, empties, misere).any()
