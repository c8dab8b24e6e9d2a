"""Positions, steps and answers of games whose stones move, as a user types them: the side-to-move
suffix, FROM-TO steps and their one-line refusals, draws by endless play (no depth, JSON null),
lines that stop where a position repeats, and what is refused before anything starts.

    3x3k3+stones3 after "b2 a1 c3 a3 a2 c1", x to move:
        o . x        x wins at once with c3-c2 (c2, b2, a2 in a row);
        x x .        b2-b3 gives o c2 and a loss one ply later
        o . o
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebase import build, open_tablebase
from tablebase.builder.games.errors import IllegalMoveError, NotationError
from tablebase.builder.games.grid import InvalidPositionError, InvalidSpecError, Value
from tablebase.query.cli import main
from tests.reference_moving import MovingGame, solved_game

SPEC = "3x3k3+stones3"
LINE = "b2 a1 c3 a3 a2 c1"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("moving") / "t.db")
    build(SPEC, path)
    return path


def test_a_step_is_from_dash_to(db: str) -> None:
    with open_tablebase(db) as tb:
        moves = {m.move: m for m in tb.moves(SPEC, LINE)}
        assert moves["c3-c2"].best and moves["c3-c2"].value == Value.WIN
        assert (moves["c3-c2"].start, moves["c3-c2"].cell) == (2, 5)
        after = tb.probe(SPEC, f"{LINE} c3-c2")
        assert after.terminal and after.value == Value.LOSS and after.to_move == "o"


@pytest.mark.parametrize("moves, expected, error", [
    (f"{LINE} a3", "write FROM-TO", IllegalMoveError),
    (f"{LINE} c3-b1", "not next to", IllegalMoveError),
    (f"{LINE} a1-b1", "no stone of x", IllegalMoveError),
    (f"{LINE} c3-b2", "occupied", IllegalMoveError),
    ("b2 a1 b2-c2", "still has stones to place", IllegalMoveError),
    (f"{LINE} c3-c2-c1", "FROM-TO", NotationError),
    (f"{LINE} c3-z9", "off the 3x3 board", NotationError),
])
def test_bad_steps_are_refused_in_one_line(db: str, moves: str, expected: str,
                                           error: type[Exception]) -> None:
    with open_tablebase(db) as tb, pytest.raises(error) as e:
        tb.probe(SPEC, moves)
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_the_side_to_move_is_written_where_the_stones_do_not_say_it(db: str) -> None:
    with open_tablebase(db) as tb:
        with pytest.raises(NotationError, match="add ' x' or ' o'"):
            tb.probe(SPEC, "xo./.xo/x.o")
        with pytest.raises(InvalidPositionError, match="o is to move"):
            tb.probe(SPEC, "x../.../... x")  # one stone placed: o is to move
        x, o = tb.probe(SPEC, "o.x/xx./o.o x"), tb.probe(SPEC, "o.x/xx./o.o o")
        assert (x.to_move, o.to_move) == ("x", "o")
        game = MovingGame(SPEC)
        board = (2, 0, 1, 1, 1, 0, 2, 0, 2)
        solved = game.solve_all()
        for probe, side in ((x, 1), (o, 2)):
            assert (int(probe.value), probe.depth) == solved[(board, side)]


def test_a_draw_by_endless_play_has_no_depth(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", SPEC, "--db", db, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["value"], answer["depth"]) == ("draw", None)
    assert main(["probe", SPEC, "--db", db]) == 0
    assert capsys.readouterr().out.strip() == "x to move: draw (endless play)"


def test_a_drawn_line_stops_where_a_position_repeats(db: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with open_tablebase(db) as tb:
        steps, repeats = tb.moving_line(SPEC, "")
    assert repeats and all(s.value == Value.DRAW and s.depth is None for s in steps)
    boards = [s.board for s in steps]
    assert boards[-1] in boards[:-1]  # the last position came back
    assert len(set(boards)) == len(boards) - 1
    assert main(["line", SPEC, "--db", db]) == 0
    assert "until a position repeats" in capsys.readouterr().out


def test_a_won_line_ends_the_game(db: str) -> None:
    with open_tablebase(db) as tb:
        probe = tb.probe(SPEC, LINE)
        steps, repeats = tb.moving_line(SPEC, LINE)
        assert not repeats and len(steps) == probe.depth
        assert tb.probe(SPEC, list(steps[-1].board)).terminal


def test_search_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", SPEC, "--moves", "b2", "--quiet"]) != 0
    err = capsys.readouterr().err.strip()
    assert "positions can repeat" in err and len(err.splitlines()) == 1
    assert main(["probe", SPEC, "--db", str(tmp_path / "none.db")]) != 0
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("kwargs, expected", [
    ({"root": (1, 2, 1, 0, 2, 0, 0, 1, 2)}, "stones do not say whose turn"),
    ({"root": (1, 2, 0, 1, 2, 0, 1, 0, 2, 2)}, "already over"),
    ({"layout": "rows"}, "packed only"),
])
def test_builds_refused_before_they_start(tmp_path: Path, kwargs: dict[str, object],
                                          expected: str) -> None:
    db = tmp_path / "t.db"
    with pytest.raises((InvalidSpecError, InvalidPositionError), match=expected):
        build(SPEC, str(db), **kwargs)  # type: ignore[arg-type]
    assert not db.exists() or db.stat().st_size < 50_000  # no table written


def test_workers_are_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", SPEC, "--db", str(tmp_path / "t.db"), "--workers", "2"]) != 0
    err = capsys.readouterr().err.strip()
    assert "built on this machine only" in err and len(err.splitlines()) == 1


def test_bulk_answers_take_codes_in_any_orientation(db: str) -> None:
    """TableView.get_many on every position the plain solver reaches, given by its own code in
    its own orientation (board code, plus 3**9 where o is to move once every stone is down)."""
    game, solved = solved_game(SPEC)
    positions = list(solved)
    codes = [sum(v * 3 ** i for i, v in enumerate(board))
             + (3 ** 9 if side == 2 and sum(1 for v in board if v) == 6 else 0)
             for board, side in positions]
    with open_tablebase(db) as tb:
        answers = tb.table(SPEC).get_many(codes)
    assert answers.found.all()
    for i, (board, side) in enumerate(positions):
        value, depth = solved[(board, side)]
        assert int(answers.value[i]) == value
        assert int(answers.depth[i]) == (-1 if depth is None else depth)
        assert int(answers.ply[i]) == sum(1 for v in board if v)
