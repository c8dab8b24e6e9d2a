"""Built tables against facts and against the independent negamax in tests/reference.py."""
from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.pipeline import build
from tests.conftest import game_row, stored_rows
from tests.reference import DRAW, LOSS, WIN, Game


def test_tictactoe_golden_counts(table_db: Callable[[str], str]) -> None:
    db = table_db("3x3k3")
    row = game_row(db, "3x3k3")
    assert row is not None and row["status"] == "complete"
    assert (row["reachable"], row["canonical"], row["terminal"]) == (5478, 765, 958)
    rows = stored_rows(db, "3x3k3")
    per_ply = [sum(1 for p, _, _ in rows.values() if p == ply) for ply in range(10)]
    assert per_ply == [1, 3, 12, 38, 108, 174, 204, 153, 57, 15]
    assert rows[0] == (0, DRAW, 9)  # the empty board is a draw at depth 9
    assert (row["root_value"], row["root_depth"]) == (DRAW, 9)


def test_4x3k3(table_db: Callable[[str], str]) -> None:
    db = table_db("4x3k3")
    row = game_row(db, "4x3k3")
    assert row is not None
    assert (row["reachable"], row["canonical"]) == (111973, 28275)
    assert stored_rows(db, "4x3k3")[0] == (0, WIN, 7)


def test_misere_tictactoe_is_a_draw(table_db: Callable[[str], str]) -> None:
    assert stored_rows(table_db("3x3k3+misere"), "3x3k3+misere")[0] == (0, DRAW, 9)


@pytest.mark.slow
def test_connect_four_on_4x4(table_db: Callable[[str], str]) -> None:
    db = table_db("4x4k4+gravity")
    row = game_row(db, "4x4k4+gravity")
    assert row is not None and row["reachable"] == 161029
    assert stored_rows(db, "4x4k4+gravity")[0] == (0, DRAW, 16)


@pytest.mark.parametrize("name", ["3x3k3", "3x3k3+misere", "3x3k3+gravity",
                                  pytest.param("4x3k3", marks=pytest.mark.slow)])
def test_table_equals_plain_negamax_everywhere(table_db: Callable[[str], str], name: str) -> None:
    game = Game(name)
    rows = stored_rows(table_db(name), name)
    reachable = game.reachable()
    # Exactly one stored row per symmetry orbit of the reachable positions...
    assert set(rows) == {game.canonical(b) for b in reachable}
    row = game_row(table_db(name), name)
    assert row is not None and row["reachable"] == len(reachable)
    assert row["terminal"] == sum(1 for b in reachable if game.terminal_value(b) is not None)
    # ...and each one holds the value and depth that plain negamax finds.
    for code, (ply, value, depth) in rows.items():
        board = game.board(code)
        assert ply == game.stones(board)
        assert (value, depth) == game.solve(board), f"{name} code {code}"


@pytest.mark.parametrize("name", ["3x3k3", "4x3k3", "3x3k3+gravity"])
def test_draws_run_to_a_full_board(table_db: Callable[[str], str], name: str) -> None:
    cells = Game(name).n
    for ply, value, depth in stored_rows(table_db(name), name).values():
        if value == DRAW:
            assert depth == cells - ply
        else:
            assert value in (WIN, LOSS) and 0 <= depth <= cells - ply


def test_counts_by_value_match_rows(table_db: Callable[[str], str]) -> None:
    db = table_db("4x3k3")
    rows = stored_rows(db, "4x3k3")
    row = game_row(db, "4x3k3")
    assert row is not None
    assert (row["wins"], row["draws"], row["losses"]) == tuple(
        sum(1 for _, v, _ in rows.values() if v == want) for want in (WIN, DRAW, LOSS))


def test_codes_are_stored_as_integers(tmp_path: Path) -> None:
    """In the rows layout, SQL reads every column as an integer."""
    db = str(tmp_path / "rows.db")
    build(parse_spec("4x3k3"), db, layout="rows")
    with closing(sqlite3.connect(db)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games WHERE spec='4x3k3'").fetchone()
        kinds = conn.execute(f'SELECT DISTINCT typeof(code), typeof(ply), typeof(value),'
                             f' typeof(depth) FROM "{table}"').fetchall()
        assert kinds == [("integer", "integer", "integer", "integer")]
        # and a bound Python int finds its row
        assert conn.execute(f'SELECT value FROM "{table}" WHERE code = ?', (0,)).fetchone() == (WIN,)
