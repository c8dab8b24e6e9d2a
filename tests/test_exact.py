"""The +exact rule (a run of exactly k wins, an overline does not) everywhere the rules are
used, against tests/reference.py's plain code for it: the line test, built tables (whole
boards and endgames), the search, move orders, verify and the command line."""
from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.builder.games.grid.orders import FOUND, NONE, order_status
from tablebase.builder.games.grid.rules import has_line
from tablebase.builder.pipeline import build
from tablebase.query.cli import main
from tablebase.query.search.searcher import Searcher
from tests.conftest import game_row, stored_rows
from tests.reference import Game, reachable_from

WORDS = {1: Value.WIN, 0: Value.DRAW, -1: Value.LOSS}
# Boards where overlines happen (checked below: the rule changes what can be reached).
SPECS = ["3x3k2+exact", "3x3k2+misere+exact", "4x3k2+gravity+exact", "5x2k3+exact"]


def test_spec_names_and_the_line_test() -> None:
    assert parse_spec("5x5k4+exact+gravity").name == "5x5k4+gravity+exact"
    rng = random.Random(36)
    for name in ["6x1k2+exact", "4x4k3+exact", "5x5k4+exact", "4x3k1+exact", "4x4k3"]:
        game, spec = Game(name), parse_spec(name)
        for _ in range(2000):
            board = tuple(rng.choice((0, 1, 2)) for _ in range(spec.cells))
            for player in (1, 2):
                assert has_line(spec, board, player) == game.wins(board, player), (name, board)
    #  x x x .   three in a row with k = 2: an overline, no win; . x x . would be one
    spec = parse_spec("4x1k2+exact")
    assert not has_line(spec, (1, 1, 1, 0), 1) and has_line(spec, (0, 1, 1, 0), 1)


@pytest.mark.parametrize("name", SPECS)
def test_tables_equal_plain_negamax_everywhere(tmp_path: Path, name: str) -> None:
    db = str(tmp_path / "t.db")
    build(name, db)
    game, plain = Game(name), Game(name.replace("+exact", ""))
    reachable = game.reachable()
    assert len(reachable) != len(plain.reachable())  # the rule matters on this board
    rows = stored_rows(db, name)
    assert set(rows) == {game.canonical(b) for b in reachable}
    assert game_row(db, name)["reachable"] == len(reachable)  # type: ignore[index]
    for code, (ply, value, depth) in rows.items():
        assert (value, depth) == game.solve(game.board(code)), (name, code)
    assert main(["verify", name, "--db", db, "--quiet"]) == 0


def test_an_endgame_table_equals_plain_negamax(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                               ) -> None:
    # 5x2k3+exact after x a1, o a2, x b1: x's next stone at c1 makes three, then d1 four.
    db, name = str(tmp_path / "t.db"), "5x2k3+exact"
    assert main(["build", name, "--db", db, "--moves", "a1 a2 b1", "--quiet"]) == 0
    game = Game(name)
    root = (2, 0, 0, 0, 0, 1, 1, 0, 0, 0)  # row 0 on top: o a2 above x a1 b1
    checked = 0
    for board in sorted(reachable_from(game, root)):
        if sum(1 for v in board if v) > 6:
            continue
        text = "/".join("".join(".xo"[v] for v in board[r * 5:(r + 1) * 5]) for r in range(2))
        capsys.readouterr()
        assert main(["probe", name, text, "--db", db, "--json", "--no-search"]) == 0
        answer = json.loads(capsys.readouterr().out)
        value, depth = game.solve(board)
        assert (answer["value"], answer["depth"]) == (WORDS[value].word, depth), text
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("name", SPECS)
def test_search_equals_plain_negamax(name: str) -> None:
    game, searcher = Game(name), Searcher(parse_spec(name), slots_log2=16)
    boards = sorted(game.reachable())
    for board in boards[:: max(1, len(boards) // 3000)]:
        value, depth = game.solve(board)
        found = searcher.solve(board)
        assert (found.value, found.depth) == (WORDS[value], depth), (name, board)


@pytest.mark.parametrize("name", ["3x3k2+exact", "3x3k2+gravity+exact", "5x2k2+exact"])
def test_move_orders_find_every_reachable_board_and_no_other(name: str) -> None:
    game, spec = Game(name), parse_spec(name)
    reachable = game.reachable()
    assert (order_status(spec, np.array(sorted(reachable), dtype=np.uint8)) == FOUND).all()
    others = [b for b in itertools.product((0, 1, 2), repeat=spec.cells)
              if b not in reachable and b.count(1) - b.count(2) in (0, 1)]
    assert len(others) > 100
    assert (order_status(spec, np.array(others, dtype=np.uint8)) == NONE).all()


def test_audit_genmove_and_the_http_api(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The faces need nothing of their own: an engine that knows the rule agrees on every
    board; genmove plays a best move; the HTTP API answers the table's value."""
    import sys
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient

    from tablebase.query.server.app import make_app

    db, name = str(tmp_path / "t.db"), "3x3k2+exact"
    build(name, db)
    engine = f"{sys.executable} {Path(__file__).parent / 'audit_samples' / 'fake_engine.py'}"
    assert main(["audit", name, "--db", db, "--engine", engine, "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["agreed"] == report["boards"] > 200 and report["mismatched"] == 0
    # Its win in 3 from the empty board: x's two stones must not touch a third.
    game = Game(name)
    capsys.readouterr()
    assert main(["genmove", name, "--db", db, "--moves", "b2 a1"]) == 0
    move = capsys.readouterr().out.split()[-1]
    board = (0, 0, 0, 0, 1, 0, 2, 0, 0)
    cell = "abc".index(move[0]) + (3 - int(move[1])) * 3
    assert game.solve(game.child(board, cell)) == (-game.solve(board)[0], game.solve(board)[1] - 1)
    with TestClient(make_app(db)) as client:
        got = client.get(f"/api/{name}", params={"board": "x../.o./..."}).json()
    value, depth = game.solve((1, 0, 0, 0, 2, 0, 0, 0, 0))
    assert (got["value"], got["depth"]) == (WORDS[value].word, depth)
