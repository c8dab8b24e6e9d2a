"""builder/games/move.py: every family's moves are one record (start, cell, take), and the
faces carry all three from an answer back to a move played."""
from __future__ import annotations

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.builder.games.move import Move, placements
from tablebase.builder.games.registry import grid_game
from tablebase.query import turns
from tablebase.query.answer_records import MoveInfo


def test_a_move_names_its_cells_and_a_capture() -> None:
    assert Move(None, 4) == (None, 4, None) and Move(None, 4).take is None
    step = Move(1, 2, 7)
    assert (step.start, step.cell, step.take) == (1, 2, 7)
    assert placements([0, 3]) == [Move(None, 0), Move(None, 3)]


def test_an_answers_move_gives_back_the_move_with_its_capture() -> None:
    info = MoveInfo("b3-c3xa1", 2, Value.WIN, 3, True, start=1, take=6)
    assert turns.of(info) == Move(1, 2, 6)
    assert turns.of(MoveInfo("b2", 4, Value.DRAW, 5, True)) == Move(None, 4)


def test_every_family_plays_moves_of_the_one_kind() -> None:
    for text in ("3x3k3", "4x3k3+gravity", "3x3k3+stones3"):
        game = grid_game(parse_spec(text))
        moves = game.legal(game.start())
        assert moves and all(isinstance(m, Move) and m.take is None for m in moves), text
        named = game.read_move(game.start(), game.name(moves[0]))
        assert named == moves[0] and isinstance(named, Move), text
