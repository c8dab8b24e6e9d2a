"""The probing API: hand-built positions with pictures, exhaustive consistency on small games,
symmetry, many codes at once, and the scalar kernel helpers it relies on.

Facts come from the independent negamax in tests/reference.py, never from the code under test.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from tablebase.builder.games.grid import (
    InvalidPositionError,
    Value,
    canonical,
    canonical_board,
    canonical_board_map,
    canonical_many,
    encode,
    legal_moves,
    open_cells,
    outcome,
    parse_spec,
    permutations,
)
from tablebase.builder.games.grid.boards import parse_board
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.grid.symmetry import canonical_many_lookup
from tablebase.db.errors import DatabaseError, GameNotBuiltError
from tablebase.db.reader import UrlStore
from tablebase.query import (
    ImpossiblePositionError,
    MissingPositionError,
    NotationError,
    Tablebase,
    open_tablebase,
)
from tests.conftest import stored_rows
from tests.reference import Game

WIN, DRAW, LOSS = Value.WIN, Value.DRAW, Value.LOSS


@pytest.fixture(scope="module")
def tb(table_db: Callable[[str], str]) -> Iterator[Tablebase]:
    for name in ("3x3k3", "4x3k3", "4x4k4+gravity", "3x3k3+gravity"):
        path = table_db(name)
    with open_tablebase(path) as opened:
        yield opened


def _moves(tb: Tablebase, spec: str, position: str) -> dict[str, tuple[Value, int, bool]]:
    return {m.move: (m.value, m.depth, m.best) for m in tb.moves(spec, position)}


# --- hand-built positions -------------------------------------------------------

def test_win_in_one(tb: Tablebase) -> None:
    # x x .     x to move: c3 completes the top row at once
    # o o .
    # . . .
    probe = tb.probe("3x3k3", "xx./oo./...")
    assert (probe.value, probe.depth, probe.to_move, probe.terminal, probe.ply) == \
        (WIN, 1, "x", False, 4)
    assert [(m.move, m.value, m.depth) for m in tb.best_moves("3x3k3", "xx./oo./...")] == \
        [("c3", WIN, 0)]
    assert str(probe) == "x to move: win in 1 ply"


def test_forced_block(tb: Tablebase) -> None:
    # x . o     o to move: x threatens a3-b2-c1, so o must take c1;
    # . x .     everything else loses at once
    # . . .
    moves = _moves(tb, "3x3k3", "x.o/.x./...")
    assert moves.pop("c1") == (DRAW, 5, True)
    assert set(moves) == {"b3", "a2", "c2", "a1", "b1"}
    assert all(v == (LOSS, 1, False) for v in moves.values())
    assert str(tb.probe("3x3k3", "x.o/.x./...")) == "o to move: draw in 6 plies"


def test_fork(tb: Tablebase) -> None:
    # . . .     x to move: b2 threatens both a2 (row 2) and c3 (the diagonal);
    # . . x     o can block only one, so x wins in 3
    # x o o
    probe = tb.probe("3x3k3", ".../..x/xoo")
    assert (probe.value, probe.depth) == (WIN, 3)
    best = tb.best_moves("3x3k3", ".../..x/xoo")
    assert "b2" in [m.move for m in best]
    assert all((m.value, m.depth) == (WIN, 2) for m in best)
    # After the fork, each of o's moves loses at once.
    assert all((m.value, m.depth) == (LOSS, 1) for m in tb.moves("3x3k3", ".../.xx/xoo"))


def test_lost_position_best_move_delays_longest(tb: Tablebase) -> None:
    # . . .     o to move is lost: x threatens a3 and will fork after the block.
    # . x .     Blocking at a3 loses in 4; anything else loses in 2 (x wins next move).
    # . o x
    moves = tb.moves("3x3k3", ".../.x./.ox")
    assert (moves[0].move, moves[0].value, moves[0].depth, moves[0].best) == ("a3", LOSS, 3, True)
    assert [m.best for m in moves].count(True) == 1
    assert all((m.value, m.depth) == (LOSS, 1) for m in moves[1:])
    assert (tb.probe("3x3k3", ".../.x./.ox").value, tb.probe("3x3k3", ".../.x./.ox").depth) == \
        (LOSS, 4)


def test_terminal_position(tb: Tablebase) -> None:
    # x x x     o to move, but x has completed the top row: the game is over
    # o o .
    # . . .
    probe = tb.probe("3x3k3", "xxx/oo./...")
    assert (probe.value, probe.depth, probe.terminal, probe.to_move) == (LOSS, 0, True, "o")
    assert tb.moves("3x3k3", "xxx/oo./...") == []
    assert tb.line("3x3k3", "xxx/oo./...") == []
    full = tb.probe("3x3k3", "xox/xoo/oxx")  # a full board without a line: a draw
    assert (full.value, full.depth, full.terminal) == (DRAW, 0, True)


def test_gravity_position(tb: Tablebase) -> None:
    # . . . .   4x4 Connect Four, o to move: x has a1-b1-c1, only d1 stops it,
    # . . . .   and the only legal moves are on top of each column
    # o o . .
    # x x x .
    moves = _moves(tb, "4x4k4+gravity", "..../..../oo../xxx.")
    assert set(moves) == {"a3", "b3", "c2", "d1"}
    assert [m.move for m in tb.best_moves("4x4k4+gravity", "..../..../oo../xxx.")] == ["d1"]
    assert all(v[:2] == (LOSS, 1) for k, v in moves.items() if k != "d1")  # x then wins at d1


def test_moves_come_back_in_the_callers_orientation(tb: Tablebase) -> None:
    # The same position given mirrored names the mirrored winning cell.
    assert [m.move for m in tb.best_moves("3x3k3", "xx./oo./...")] == ["c3"]
    assert [m.move for m in tb.best_moves("3x3k3", ".xx/.oo/...")] == ["a3"]
    assert [m.move for m in tb.best_moves("3x3k3", ".../oo./xx.")] == ["c1"]


def test_positions_in_every_accepted_form(tb: Tablebase) -> None:
    board = parse_board(parse_spec("3x3k3"), "x.o/.x./...")
    expected = tb.probe("3x3k3", "x.o/.x./...")
    assert tb.probe("3x3k3", board) == expected
    assert tb.probe("3x3k3", list(board)) == expected
    assert tb.probe("3x3k3", 100) == expected  # the README's code of x.o/.x./...
    assert tb.probe("3x3k3", np.int64(100)) == expected
    assert tb.probe(parse_spec("tictactoe"), "X.O.X....") == expected


# --- errors ------------------------------------------------------------------

def test_missing_position_is_a_key_error_without_quotes(tb: Tablebase) -> None:
    # With gravity, x's only stone sits on o's: o moved first, which cannot happen.
    # . . .
    # . x .
    # . o .
    with pytest.raises(MissingPositionError) as info:
        tb.probe("3x3k3+gravity", ".../.x./.o.")
    assert isinstance(info.value, KeyError)
    assert str(info.value) == ("position '.../.x./.o.' (3x3k3+gravity) cannot be reached from the"
                               " empty board, so the table does not hold it")
    assert tb.get("3x3k3+gravity", ".../.x./.o.") is None
    assert tb.get("3x3k3", "x.o/.x./...") == tb.probe("3x3k3", "x.o/.x./...")


def test_unreachable_although_every_rule_holds(tb: Tablebase) -> None:
    # x x x o   x has the top row and the a1-b2-c3 diagonal; without the shared b3, the
    # o x o .   diagonal is still there, so x's last move cannot have made the row.
    # x x o o
    with pytest.raises(MissingPositionError, match="cannot be reached from the empty board"):
        tb.probe("4x3k3", "xxxo/oxo./xxoo")


@pytest.mark.parametrize("position, fragment", [
    ("xx./.../...", "impossible stone counts: 2 x and 0 o"),
    ("xxx/ooo/x..", "both x and o have a line"),
    ("xxx/oo./o..", "x has a line but o moved last"),
    ((1, 2), "board has 2 cells, expected 9"),
    ((1, 2, 3, 0, 0, 0, 0, 0, 0), "cell value 3"),
])
def test_impossible_positions_are_value_errors(tb: Tablebase, position: object,
                                               fragment: str) -> None:
    with pytest.raises(InvalidPositionError, match=fragment) as info:
        tb.probe("3x3k3", position)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)
    with pytest.raises(InvalidPositionError):
        tb.get("3x3k3", position)  # type: ignore[arg-type]  # get only forgives a missing row


def test_floating_stone(tb: Tablebase) -> None:
    with pytest.raises(ImpossiblePositionError, match="floating stone in column a"):
        tb.probe("3x3k3+gravity", "x../.../...")


def test_codes_out_of_range(tb: Tablebase) -> None:
    with pytest.raises(NotationError, match="code 19683 is out of range for 3x3k3"):
        tb.probe("3x3k3", 3 ** 9)
    with pytest.raises(NotationError, match="out of range"):
        tb.table("3x3k3").probe_many(np.array([0, -1]))
    with pytest.raises(NotationError, match="integers"):
        tb.table("3x3k3").probe_many(np.array([0.5]))


def test_a_game_not_built(tb: Tablebase) -> None:
    with pytest.raises(GameNotBuiltError, match="5x4k4 has not been built"):
        tb.probe("5x4k4", "...../...../...../.....")


def test_a_missing_database(tmp_path: object) -> None:
    with pytest.raises(DatabaseError, match="no such database file"):
        with open_tablebase(str(tmp_path) + "/nope.db"):
            pass


# --- every position of small games --------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name", ["3x3k3", "4x3k3"])
def test_every_canonical_position(tb: Tablebase, table_db: Callable[[str], str], name: str) -> None:
    spec, game = parse_spec(name), Game(name)
    rows = stored_rows(table_db(name), name)
    # Every position of tic-tac-toe; every tenth of 4x3k3's 28,275 (the suite's time).
    for code, (ply, value, depth) in sorted(rows.items())[:: 1 if name == "3x3k3" else 10]:
        board = game.board(code)
        probe = tb.probe(spec, code)
        assert (probe.value, probe.depth, probe.ply) == (value, depth, ply)
        assert (probe.value, probe.depth) == game.solve(board)  # the independent negamax
        assert probe.terminal == (game.terminal_value(board) is not None)
        moves = tb.moves(spec, code)
        assert sorted(m.cell for m in moves) == game.moves(board)
        for m in moves:
            child = tb.probe(spec, game.child(board, m.cell))
            assert (m.value, m.depth) == (-child.value, child.depth)
        best = [m for m in moves if m.best]
        assert best == moves[: len(best)]
        if moves:
            assert all(m.value == probe.value and m.depth + 1 == probe.depth for m in best)
            assert all(not (m.value == probe.value and m.depth + 1 == probe.depth)
                       for m in moves[len(best):])
        line = tb.line(spec, code)
        assert len(line) == probe.depth
        last = line[-1].board if line else board
        assert game.terminal_value(tuple(last)) is not None


def test_perfect_play_from_the_empty_board(tb: Tablebase) -> None:
    line = tb.line("3x3k3", ".../.../...")
    assert len(line) == 9
    assert Game("3x3k3").terminal_value(line[-1].board) == DRAW
    assert all(s.value == DRAW for s in line)

    line = tb.line("4x3k3", "..../..../....")
    assert len(line) == 7
    assert [s.player for s in line] == ["x", "o", "x", "o", "x", "o", "x"]
    assert Game("4x3k3").wins(line[-1].board, 1)
    assert [s.depth for s in line] == [6, 5, 4, 3, 2, 1, 0]


# --- symmetry -----------------------------------------------------------------

def _image_sources(game: Game) -> list[tuple[int, ...]]:
    """For each symmetric image (as the reference lists them), which original cell lands where."""
    return game.images(tuple(range(game.n)))


@pytest.mark.parametrize("name, sample", [("3x3k3", None), ("4x3k3", 300), ("4x4k4+gravity", 300)])
def test_symmetric_images_answer_alike_in_their_own_orientation(
        tb: Tablebase, table_db: Callable[[str], str], name: str, sample: int | None) -> None:
    spec, game = parse_spec(name), Game(name)
    codes = sorted(stored_rows(table_db(name), name))
    if sample is not None:
        codes = random.Random(3).sample(codes, sample)
    for code in codes:
        board = game.board(code)
        probe = tb.probe(spec, board)
        moves = {(m.cell, m.value, m.depth, m.best) for m in tb.moves(spec, board)}
        for source in _image_sources(game):
            image = tuple(board[source[j]] for j in range(game.n))
            assert tb.probe(spec, image) == probe
            where = {s: j for j, s in enumerate(source)}  # original cell -> image cell
            assert {(m.cell, m.value, m.depth, m.best) for m in tb.moves(spec, image)} == \
                {(where[c], v, d, b) for c, v, d, b in moves}


# --- many codes at once -------------------------------------------------------

def test_probe_many_answers_every_reachable_position(tb: Tablebase) -> None:
    game = Game("3x3k3")
    boards = sorted(game.reachable())
    codes = np.array([game.code(b) for b in boards], dtype=np.int64)
    answers = tb.table("3x3k3").probe_many(codes)
    assert answers.found.all() and len(answers.value) == 5478
    expected = [game.solve(b) for b in boards]
    assert answers.value.tolist() == [v for v, _ in expected]
    assert answers.depth.tolist() == [d for _, d in expected]
    assert answers.ply.tolist() == [game.stones(b) for b in boards]


def test_get_many_marks_what_the_table_lacks(tb: Tablebase) -> None:
    game = Game("3x3k3")
    reachable = {game.code(b) for b in game.reachable()}
    codes = np.arange(3 ** 9, dtype=np.int64)
    answers = tb.table("3x3k3").get_many(codes)
    assert answers.found.tolist() == [c in reachable for c in range(3 ** 9)]
    assert (answers.depth[~answers.found] == -1).all()
    with pytest.raises(MissingPositionError, match="of 19,683 codes are not in the 3x3k3 table"):
        tb.table("3x3k3").probe_many(codes)
    assert len(tb.table("3x3k3").probe_many(np.array([], dtype=np.int64)).value) == 0


def test_a_sqlalchemy_url_answers_like_the_file(tb: Tablebase,
                                                table_db: Callable[[str], str]) -> None:
    path = table_db("4x3k3")
    codes = random.Random(5).sample(sorted(stored_rows(path, "4x3k3")), 200)
    with open_tablebase("sqlite:///" + path) as by_url:
        assert isinstance(by_url._store, UrlStore)  # the SQLAlchemy path, not the direct one
        for code in codes:
            assert by_url.probe("4x3k3", code) == tb.probe("4x3k3", code)
            assert by_url.moves("4x3k3", code) == tb.moves("4x3k3", code)
        a = by_url.table("4x3k3").get_many(np.array(codes))
        b = tb.table("4x3k3").get_many(np.array(codes))
        assert a.value.tolist() == b.value.tolist() and a.depth.tolist() == b.depth.tolist()
        with pytest.raises(GameNotBuiltError):
            by_url.probe("5x4k4", 0)


# --- the kernel helpers the query path uses ------------------------------------------

@pytest.mark.parametrize("name", ["3x3k3", "4x3k3", "4x4k4", "4x4k4+gravity", "1x1k1", "2x3k2"])
def test_canonical_board_matches_canonical(name: str) -> None:
    spec, rnd = parse_spec(name), random.Random(7)
    perms = permutations(spec)
    for _ in range(2000):
        board = tuple(rnd.choice((0, 1, 2)) for _ in range(spec.cells))
        assert canonical_board(spec, board) == canonical(spec, encode(board))
        code, g = canonical_board_map(spec, board)
        image = [0] * spec.cells  # map g sends cell c to perms[g, c]
        for c, v in enumerate(board):
            image[int(perms[g, c])] = v
        assert code == canonical(spec, encode(board)) == encode(image)


@pytest.mark.parametrize("name", ["3x3k3", "4x3k3", "4x4k4", "4x4k4+gravity", "1x1k1", "8x2k2",
                                  "13x3k3", "3x13k3+gravity"])
def test_canonical_many_lookup_matches_canonical_many(name: str) -> None:
    spec = parse_spec(name)
    rnd = np.random.default_rng(11)
    codes = rnd.integers(0, 3 ** spec.cells, 5000, dtype=np.int64)
    codes[:3] = [0, 3 ** spec.cells - 1, 1]
    assert (canonical_many_lookup(spec, codes, chunk=777) == canonical_many(spec, codes)).all()


@pytest.mark.parametrize("name", ["3x3k3", "3x3k3+gravity"])
def test_open_cells_are_the_legal_moves_before_the_end(name: str) -> None:
    spec, game = parse_spec(name), Game(name)
    for board in game.reachable():
        if outcome(spec, board) is None:
            assert open_cells(spec, board) == legal_moves(spec, board) == game.moves(board)


def test_the_direct_reader_agrees_with_the_schema() -> None:
    from tablebase.db import engine, facts, records, sqlite_direct
    # Both sides take the schema versions from tablebase.db.facts, which must not import SQLAlchemy.
    assert sqlite_direct.READABLE_VERSIONS == engine.READABLE_VERSIONS == facts.READABLE_VERSIONS
    assert engine.SCHEMA_VERSION == facts.SCHEMA_VERSION in facts.READABLE_VERSIONS
    assert "sqlalchemy" not in open(facts.__file__).read()
    assert records.STATUS_COMPLETE == "complete"


def test_board_text_round_trip(tb: Tablebase) -> None:
    spec = parse_spec("4x3k3")
    for text in ("xxxo/oxo./xxoo", "..../..../....", "x.../.o../...."):
        assert board_text(spec, parse_board(spec, text)) == text
