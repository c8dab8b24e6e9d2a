"""Search (query/search/): exact values, depths and moves against the plain negamax of
tests/reference.py and against built tables; tables at the leaves; budgets that run out give
what was proved, never a guess; the command line and the HTTP API fall back to it."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.builder.games.grid.boards import play_moves
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.pipeline import build
from tablebase.query import open_tablebase
from tablebase.query.cli import main
from tablebase.query.search.control import PLAIN
from tablebase.query.search.searcher import Budget, Searcher
from tablebase.query.search.solving import leaves
from tests.reference import Game, loses_within, wins_within
from tests.search_sets import read_set

WORDS = {1: Value.WIN, 0: Value.DRAW, -1: Value.LOSS}


@pytest.mark.parametrize("spec", ["3x3k3", "3x3k3+misere", "4x3k3+gravity", "3x3k2+misere"])
def test_every_position_against_plain_negamax(spec: str) -> None:
    game, searcher = Game(spec), Searcher(parse_spec(spec), slots_log2=16)
    solved = 0
    for board in sorted(game.reachable()):
        value, depth = game.solve(board)
        s = searcher.solve(board)
        assert (s.value, s.depth) == (WORDS[value], depth), board
        if depth:  # the move keeps value and depth
            child_value, child_depth = game.solve(game.child(board, s.move))
            assert (-child_value, child_depth + 1) == (value, depth), board
            solved += 1
    assert solved > 100


@pytest.mark.parametrize("spec", ["3x3k3", "4x3k3+gravity", "3x3k2+misere"])
def test_every_move_by_search_against_plain_negamax(spec: str) -> None:
    """moves by search (no table): each move's value and depth, the best marked, on every
    fifth position (all of them take 13 s a game); the moves are valued against the
    position's value, so this checks those bounds too."""
    from tablebase.query.search.fallback import search_moves

    game, rules = Game(spec), parse_spec(spec)
    engine = Searcher(rules, slots_log2=16)
    for board in sorted(game.reachable())[::5]:
        if game.terminal_value(board) is not None:
            continue
        value, depth = game.solve(board)
        root, moves, _ = search_moves(None, rules, board, 30.0, engine=engine)
        assert (root.solution.value, root.solution.depth) == (WORDS[value], depth)
        assert sorted(m.cell for m in moves) == sorted(game.moves(board))
        for m in moves:
            child_value, child_depth = game.solve(game.child(board, m.cell))
            assert (m.value, m.depth) == (WORDS[-child_value], child_depth), (board, m)
            assert m.best == ((-child_value, child_depth + 1) == (value, depth)), (board, m)


def test_solve_equals_the_table_on_stored_positions(table_db: Callable[[str], str]) -> None:
    """Stored positions: the kernel's exact score (full window, in one compiled loop); and the
    whole `solve` (null windows, depth by bisection, a move) on every position of the
    small games and on a spread of 4x4k4's, its move keeping value and depth. The tables are
    the session's (built once, read here); the move's child is looked up in the table, all
    at once (one `moves` a position was two thirds of the test's time)."""
    import numpy as np

    from tablebase.query.search.board import Board
    from tablebase.query.search.control import WS
    for spec_text in ("3x3k3", "4x3k3", "4x4k4"):
        spec, game = parse_spec(spec_text), Game(spec_text)
        with open_tablebase(table_db(spec_text)) as tb:
            view = tb.table(spec)
            table = view.load()
            boards = view.boards(table.codes)
            # The kernel's full window on every position of the small games and on every
            # 23rd of 4x4k4's 1.2 million, some 53,000 (every seventh: 3 s more).
            every = slice(None, None, 23 if spec_text == "4x4k4" else 1)
            scores = Board(spec).scores_many(boards[every])
            depth = np.where(scores == 0, spec.cells - table.ply[every], WS - np.abs(scores))
            assert (np.sign(scores) == table.value[every]).all()
            assert (depth == table.depth[every]).all()
            # `solve` on every position of 3x3k3, every fifth of 4x3k3's, about 1,500 of 4x4k4's.
            step = {"3x3k3": 1, "4x3k3": 5}.get(spec_text, 797)
            searcher = Searcher(spec)  # alone: no tables at its leaves
            kept: list[tuple[int, tuple[int, ...]]] = []  # (index of the board, child)
            for i in range(0, len(boards), step):
                board = tuple(int(v) for v in boards[i])
                s = searcher.solve(board)
                assert (int(s.value), s.depth) == (table.value[i], table.depth[i]), board
                if s.depth:
                    assert s.move is not None and board[s.move] == 0, board
                    kept.append((i, game.child(board, s.move)))
            # The move keeps value and depth: its child, in the table, is worth the negation
            # one ply less (what `moves` marks best).
            held = view.get_many(view.stored_codes([child for _, child in kept]))
            assert held.found.all()
            at = np.array([i for i, _ in kept])
            assert (held.value == -table.value[at]).all()
            assert (held.depth + 1 == table.depth[at]).all()
            assert len(kept) > 100
            assert len(boards) > (1_000_000 if spec_text == "4x4k4" else 500)


def test_tables_at_the_leaves_answer_for_the_positions_they_hold(tmp_path: Path) -> None:
    spec, game = parse_spec("4x4k4"), Game("4x4k4")
    db = str(tmp_path / "e.db")
    root = play_moves(spec, "b2 c3 c2 b3")
    build(spec, db, root=root)
    with open_tablebase(db) as tb:
        held = leaves(tb, spec)
    assert len(held) == 1
    alone, helped = Searcher(spec), Searcher(spec, held)
    for moves in ("b2 c3 c2", "b2 c3", "b2 c3 c2 b3 a1", "b2 c3 a4"):
        board = play_moves(spec, moves)
        a, h = alone.solve(board), helped.solve(board)
        assert (a.value, a.depth) == (h.value, h.depth)
    board = play_moves(spec, "b2 c3 c2 b3 a1")
    value, depth = game.solve(board)
    assert (helped.solve(board).value, helped.solve(board).depth) == (WORDS[value], depth)
    # Without proofs (PLAIN): with them, the search alone settles the root in a few nodes too.
    fresh = Searcher(spec, held, proofs=PLAIN).solve(root)
    assert fresh.table_hits >= 1 and fresh.nodes < Searcher(spec, proofs=PLAIN).solve(root).nodes


def _gomoku_set() -> list[str]:
    return read_set("7x7k5.txt")


def test_short_forced_wins_on_7x7_against_the_plain_search() -> None:
    spec, game = parse_spec("7x7k5"), Game("7x7k5")
    searcher = Searcher(spec)

    def choose(b):  # type: ignore[no-untyped-def]
        return searcher.solve(b).move
    checked = 0
    for moves in _gomoku_set():
        board = play_moves(spec, moves)
        assert 40 - 4 <= spec.cells - len(moves.split()) <= 40  # past the 39 a code holds
        s = searcher.solve(board, Budget(seconds=30))
        assert s.value == Value.WIN and s.depth is not None, moves
        if s.depth > 5:
            continue
        # The plain search: the move chosen leaves the other side lost within the rest, every
        # defence tried (the search only names the winner's moves), and trying every move,
        # no win comes two plies sooner.
        assert loses_within(game, game.child(board, s.move), s.depth - 1, choose)
        assert wins_within(game, board, s.depth, choose)
        assert not wins_within(game, board, s.depth - 2)
        checked += 1
    assert checked >= 5


def test_a_budget_that_runs_out_gives_unknown_never_a_value() -> None:
    spec = parse_spec("8x8k5")  # the empty 8x8 board: undecided for minutes (7x7: under a second)
    searcher = Searcher(spec)
    empty = (0,) * spec.cells
    s = searcher.solve(empty, Budget(nodes=20_000))
    assert (s.value, s.low, s.high, s.depth, s.move) == (None, Value.LOSS, Value.WIN, None, None)
    assert s.known == "unknown" and 20_000 <= s.nodes < 30_000
    s = searcher.solve(empty, Budget(seconds=0.3))
    assert s.value is None and s.seconds < 3
    # The searcher is still sound after being stopped: a short win is found exactly.
    board = play_moves(spec, "b1 h8 c1 h7 d1 h6")  # x plays e1: a four open at both ends
    again = searcher.solve(board)
    assert again.value == Value.WIN and again.depth == Searcher(spec).solve(board).depth == 3


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_solve_probe_and_moves_on_the_command_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "none.db")  # solve needs no database
    moves = _gomoku_set()[1]
    spec = parse_spec("7x7k5")
    text = board_text(spec, play_moves(spec, moves))
    status, out, _ = _run(capsys, "solve", "7x7k5", "--moves", moves, "--db", db)
    assert status == 0 and "to move: win in" in out and "(by search)" in out
    assert out.splitlines()[1].startswith("best move: ")
    status, out, _ = _run(capsys, "solve", "7x7k5", text, "--db", db, "--json")
    data = json.loads(out)
    assert data["source"] == "search" and data["value"] == "win" and data["move"]
    status, out, _ = _run(capsys, "solve", "8x8k5", "--db", db, "--nodes", "5000")
    assert status == 0 and out.startswith("x to move: unknown (by search)")
    assert "best move" not in out
    # probe and moves search a position no table holds, and say so; --no-search refuses.
    build("3x3k3", str(tmp_path / "t.db"))
    tdb = str(tmp_path / "t.db")
    status, out, _ = _run(capsys, "probe", "7x7k5", text, "--db", tdb, "--json")
    assert status == 0 and json.loads(out)["source"] == "search"
    status, out, err = _run(capsys, "probe", "7x7k5", text, "--db", tdb, "--no-search")
    assert status == 2 and "7x7k5 has not been built" in err and err.count("\n") == 1
    status, out, _ = _run(capsys, "moves", "7x7k5", text, "--db", tdb, "--search", "5")
    assert status == 0 and "(by search)" in out and "* " in out
    status, out, _ = _run(capsys, "probe", "3x3k3", "x.o/.x./...", "--db", tdb, "--json")
    assert json.loads(out)["source"] == "table"


@pytest.mark.parametrize("argv, fragment", [
    (["solve", "7x7k5", "xxxxx../......./......./......./......./......./......."],
     "impossible stone counts"),
    (["solve", "12x12k5"], "12x12k5 has 144 cells; the search takes boards of at most 128"),
    (["solve", "7x7k5", "--time", "0"], "expected a positive number of seconds"),
    (["probe", "7x7k5", "--search", "-1"], "expected a positive number of seconds"),
    (["solve", "nine-mens-morris"], "solve searches m,n,k boards; this game is answered by its"
                                    " table: tablebase build nine-mens-morris"),
])
def test_bad_input_is_one_line(argv: list[str], fragment: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, *argv, "--db", str(tmp_path / "x.db"))
    assert status == 2 and fragment in err and err.count("\n") == 1, err


def test_the_http_api_searches_what_no_table_holds(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from tablebase.query.server.app import make_app
    db = str(tmp_path / "t.db")
    build("3x3k3", db)
    spec = parse_spec("7x7k5")
    text = board_text(spec, play_moves(spec, _gomoku_set()[2]))
    with TestClient(make_app(db, search=10.0)) as client:
        r = client.get("/api/7x7k5", params={"board": text})
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        data = r.json()
        assert data["source"] == "search" and data["value"] == "win"
        assert any(m["best"] for m in data["moves"])
    with TestClient(make_app(db, search=None)) as client:
        assert client.get("/api/7x7k5", params={"board": text}).status_code == 404


def test_a_bound_proved_for_a_move_is_shown() -> None:
    from tablebase.query.cli.ask import _value
    from tablebase.query.search.fallback import SearchedMove

    def move(low: Value, high: Value) -> SearchedMove:
        return SearchedMove("a1", 0, low, high, None, False)

    assert _value(move(Value.DRAW, Value.WIN)) == ">=draw"
    assert _value(move(Value.LOSS, Value.DRAW)) == "<=draw"
    assert _value(move(Value.LOSS, Value.WIN)) == "?"
    assert _value(move(Value.LOSS, Value.LOSS)) == "loss"


def test_a_board_the_rules_gave_up_on_is_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    from tablebase.builder.games.errors import SearchLimitError
    from tablebase.builder.games.grid import orders
    from tablebase.query.search.solving import check_searchable

    monkeypatch.setattr(orders, "STATES", 1)  # the move-order search gives up at once
    spec = parse_spec("4x3k3+gravity")
    with pytest.raises(SearchLimitError,
                       match=r"^position '\.\.\.\./\.\.\.\./\.xo\.' \(4x3k3\+gravity\): gave up"
                             r" .* is not known; it is not searched$"):
        check_searchable(spec, (0,) * 9 + (1, 2, 0))
