"""Export: exactly one row per canonical position, readable by a plain CSV or JSON reader, and
each row's value and depth agree with the independent negamax."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tablebase.builder.games.grid import canonical, encode, parse_spec
from tablebase.builder.games.grid.boards import parse_board
from tablebase.builder.pipeline import build
from tablebase.query import open_tablebase
from tablebase.query.export import (
    COLUMNS,
    ExportFileError,
    UnknownFormatError,
    export_file,
    export_positions,
)
from tests.reference import Game, parse, play


def test_csv_has_the_canonical_count_and_reads_back(table_db: Callable[[str], str]) -> None:
    spec, game = parse_spec("3x3k3"), Game("3x3k3")
    out = io.StringIO()
    with open_tablebase(table_db("3x3k3")) as tb:
        written = export_positions(tb, "3x3k3", out, "csv")
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert written == len(rows) == 765
    assert tuple(rows[0]) == COLUMNS
    codes = set()
    for row in rows:
        board = parse_board(spec, row["board"])
        code = encode(board)
        assert canonical(spec, code) == code  # stored positions are canonical
        codes.add(code)
        stones = sum(1 for v in board if v)
        assert int(row["ply"]) == stones
        assert row["to_move"] == ("x" if stones % 2 == 0 else "o")
        value, depth = game.solve(board)
        assert row["value"] == {1: "win", 0: "draw", -1: "loss"}[value]
        assert int(row["depth"]) == depth
    assert len(codes) == 765
    assert rows[0] == {"board": ".../.../...", "to_move": "x", "ply": "0", "value": "draw",
                       "depth": "9"}


def test_jsonl_file_of_4x3k3(table_db: Callable[[str], str], tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    seen = []
    with open_tablebase(table_db("4x3k3")) as tb:
        written = export_file(tb, "4x3k3", str(path), "jsonl", progress=seen.append)
    lines = path.read_text().splitlines()
    assert written == len(lines) == sum(seen) == 28275
    records = [json.loads(line) for line in lines]
    assert all(tuple(r) == COLUMNS for r in records)
    assert records[0] == {"board": "..../..../....", "to_move": "x", "ply": 0, "value": "win",
                          "depth": 7}
    assert {r["value"] for r in records} == {"win", "draw", "loss"}
    assert not (tmp_path / "out.jsonl.part").exists()


def test_export_errors(table_db: Callable[[str], str], tmp_path: Path) -> None:
    with open_tablebase(table_db("3x3k3")) as tb:
        with pytest.raises(UnknownFormatError, match="unknown export format 'xml'"):
            export_positions(tb, "3x3k3", io.StringIO(), "xml")
        missing = tmp_path / "no" / "such" / "dir.csv"
        with pytest.raises(ExportFileError, match="cannot write .*dir.csv"):
            export_file(tb, "3x3k3", str(missing))
        assert list(tmp_path.iterdir()) == []


def _replay(game: Game, moves: str, gravity: bool) -> tuple[int, ...]:
    """The board a move list reaches, each move checked legal by the plain rules: with gravity
    a column letter (the stone goes to the lowest open cell), else a cell name such as b2.

    Every move goes on an empty cell, and the game is not over before the last move: then it is
    over at no earlier board either, since each has fewer stones and is part of that one."""
    board = tuple([0] * game.n)
    names = moves.split()
    for number, move in enumerate(names, 1):
        col = ord(move[0]) - ord("a")
        if gravity:
            cell = max(c for c in range(col, game.n, game.w) if board[c] == 0)
        else:
            cell = (game.h - int(move[1:])) * game.w + col
        assert board[cell] == 0, (moves, move)
        if number == len(names):
            assert game.terminal_value(board) is None, moves
        board = game.child(board, cell)
    return board


C4_ROOT = "e1 d1 e2 d2 d3 b1 e3 e4 c1 d4 c2 d5 c3 c4 e5 d6 c5 e6 c6 f1 a1 a2"  # 22 stones


@pytest.mark.parametrize("spec, root", [("4x3k3", None), ("3x3k3+gravity", None),
                                        ("7x6k4+gravity", C4_ROOT)])
def test_with_moves_replays_to_every_exported_position(
        table_db: Callable[[str], str], tmp_path: Path, spec: str, root: str | None) -> None:
    game, rules = Game(spec), parse_spec(spec)
    db = table_db(spec) if root is None else str(tmp_path / "end.db")
    if root is not None:
        build(rules, db, root=play(game, root))
    out = io.StringIO()
    with open_tablebase(db) as tb:
        written = export_positions(tb, spec, out, "csv", root=None if root is None else
                                   play(game, root), with_moves=True)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert written == len(rows) == (43_390 if root else len(rows))
    assert tuple(rows[0]) == COLUMNS + ("moves",)
    # Every row of the small games; every tenth of the Connect Four endgame's 43,390 (each
    # replayed by the plain rules costs a millisecond).
    checked = rows if len(rows) < 10_000 else rows[::10]
    for row in checked:
        moves = row["moves"]
        assert len(moves.split()) == int(row["ply"])
        assert _replay(game, moves, rules.gravity) == parse(game, row["board"]), row
    # Terminal positions are reached too: the last move is the one that ends the game.
    assert any(game.terminal_value(parse(game, r["board"])) is not None for r in checked)


def test_with_moves_in_json_lines(table_db: Callable[[str], str]) -> None:
    out = io.StringIO()
    with open_tablebase(table_db("3x3k3")) as tb:
        export_positions(tb, "3x3k3", out, "jsonl", with_moves=True)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert records[0]["moves"] == "" and records[1]["moves"] == "a3"
    game = Game("3x3k3")
    assert all(_replay(game, r["moves"], False) == parse(game, r["board"]) for r in records)
