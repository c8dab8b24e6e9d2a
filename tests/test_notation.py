"""Board text, move names and move lists: reading, writing, and a specific error for each fault."""
from __future__ import annotations

import random

import numpy as np
import pytest

from tablebase.builder.games.errors import IllegalMoveError, NotationError
from tablebase.builder.games.grid import EMPTY, InvalidPositionError, O, X, encode, parse_spec
from tablebase.builder.games.grid.boards import parse_board, parse_move, play_moves
from tablebase.builder.games.grid.notation import (
    board_text,
    board_texts,
    column_name,
    draw_board,
    move_name,
)

TTT = parse_spec("3x3k3")


def test_board_text_reads_rows_top_to_bottom() -> None:
    # x . o     cell 0 is top-left; the code is 1 + 2*9 + 1*81 = 100 (README)
    # . x .
    # . . .
    board = parse_board(TTT, "x.o/.x./...")
    assert board == (X, EMPTY, O, EMPTY, X, EMPTY, EMPTY, EMPTY, EMPTY)
    assert encode(board) == 100
    assert parse_board(TTT, "X.O/.X./...") == board  # either case
    assert parse_board(TTT, "x.o.x....") == board  # a flat string
    assert parse_board(TTT, "  x.o/.x./...\n") == board
    assert board_text(TTT, board) == "x.o/.x./..."


def test_width_comes_first() -> None:
    spec = parse_spec("4x3k3")  # 4 columns, 3 rows
    board = parse_board(spec, "x.../..../...o")
    assert board[0] == X and board[11] == O
    assert board_text(spec, board) == "x.../..../...o"


@pytest.mark.parametrize("text, fragment", [
    ("x.o/.x.", "board 'x.o/.x.' has 2 rows, expected 3 for 3x3k3"),
    ("x.o/.x/...", "row 2 from the top ('.x') has 2 cells, expected 3"),
    ("x.o.x", "board 'x.o.x' has 5 cells, expected 9 for 3x3k3"),
    ("", "board '' has 0 cells"),
    ("x.o/.z./...", "unknown character 'z' at b2; use x, o and . (empty)"),
    ("x-o/...../...", "row 2 from the top"),
])
def test_board_text_errors_name_the_input_and_the_fault(text: str, fragment: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_board(TTT, text)
    assert fragment in str(info.value)
    assert isinstance(info.value, InvalidPositionError) and isinstance(info.value, ValueError)


def test_move_names() -> None:
    # a3 b3 c3        on 4x3:  a3 b3 c3 d3
    # a2 b2 c2                 a2 b2 c2 d2
    # a1 b1 c1                 a1 b1 c1 d1
    assert [move_name(TTT, c) for c in range(9)] == \
        ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]
    assert move_name(parse_spec("4x3k3"), 11) == "d1"
    assert [column_name(c) for c in (0, 25, 26, 27, 51, 52)] == ["a", "z", "aa", "ab", "az", "ba"]


@pytest.mark.parametrize("name", ["3x3k3", "4x3k3", "3x4k3", "30x1k3", "13x3k3"])
def test_every_cell_name_reads_back(name: str) -> None:
    spec = parse_spec(name)
    empty = (EMPTY,) * spec.cells
    for cell in range(spec.cells):
        assert parse_move(spec, empty, move_name(spec, cell)) == cell
        assert parse_move(spec, empty, move_name(spec, cell).upper()) == cell


@pytest.mark.parametrize("board, move, error, fragment", [
    (".../.../...", "b", NotationError, "expected a column letter a-c and a row number 1-3"),
    (".../.../...", "2b", NotationError, "cannot read move '2b'"),
    (".../.../...", "d1", NotationError, "off the 3x3 board: columns run a-c, rows 1-3"),
    (".../.../...", "a4", NotationError, "off the 3x3 board"),
    (".../.../...", "a0", NotationError, "off the 3x3 board"),
    (".../.x./...", "b2", IllegalMoveError, "b2 is occupied (by x)"),
    ("xxx/oo./...", "c2", IllegalMoveError, "after the end of the game (x completed 3 in a row)"),
    ("xox/xoo/oxx", "a1", IllegalMoveError, "after the end of the game (the board is full)"),
])
def test_move_errors(board: str, move: str, error: type, fragment: str) -> None:
    with pytest.raises(error) as info:
        parse_move(TTT, parse_board(TTT, board), move)
    assert fragment in str(info.value)


def test_gravity_moves() -> None:
    # . . .     with +gravity a column letter is enough: the stone drops
    # . . .
    # x . .
    spec = parse_spec("3x3k3+gravity")
    board = parse_board(spec, ".../.../x..")
    assert move_name(spec, parse_move(spec, board, "a")) == "a2"
    assert move_name(spec, parse_move(spec, board, "b")) == "b1"
    assert parse_move(spec, board, "a2") == parse_move(spec, board, "a")
    with pytest.raises(IllegalMoveError, match="lands on a2, not a3"):
        parse_move(spec, board, "a3")
    with pytest.raises(IllegalMoveError, match="column a is full"):
        parse_move(spec, parse_board(spec, "o../x../x.o"), "a")


def test_move_lists() -> None:
    board = play_moves(TTT, "b2 a1 c3")
    assert board_text(TTT, board) == "..x/.x./o.."
    assert play_moves(TTT, "b2,a1, c3") == board
    assert play_moves(TTT, "") == (EMPTY,) * 9
    assert board_text(TTT, play_moves(TTT, "c2", parse_board(TTT, "x.o/.x./..."))) == "x.o/.xo/..."
    with pytest.raises(IllegalMoveError, match=r"move 3 of 'b2 a1 b2': move 'b2': b2 is occupied"):
        play_moves(TTT, "b2 a1 b2")
    with pytest.raises(IllegalMoveError, match="move 6 of .* comes after the end of the game"):
        play_moves(TTT, "a1 b1 a2 b2 a3 c3")
    gravity = parse_spec("4x4k4+gravity")
    assert board_text(gravity, play_moves(gravity, "b b c")) == "..../..../.o../.xx."


def test_board_texts_matches_board_text() -> None:
    rnd = random.Random(2)
    for name in ("3x3k3", "4x3k3", "3x4k3", "5x1k2", "1x1k1"):
        spec = parse_spec(name)
        boards = [tuple(rnd.choice((0, 1, 2)) for _ in range(spec.cells)) for _ in range(200)]
        codes = np.array([encode(b) for b in boards], dtype=np.int64)
        assert board_texts(spec, codes) == [board_text(spec, b) for b in boards]


def test_draw_board() -> None:
    board = parse_board(TTT, "x.o/.x./...")
    assert draw_board(TTT, board, highlight=4) == "\n".join([
        "3 | x . o",
        "2 | . X .",
        "1 | . . .",
        "    a b c",
    ])
