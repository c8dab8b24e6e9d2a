"""Export of games whose stones move: every row read back by a plain reader agrees with the
plain retrograde solver (tests/reference_moving.py), the side to move is in the board text
where the stones do not say it, a draw by endless play has no depth (empty in CSV, null in
JSON), and the moves column replays, each move legal by the plain rules, to the row's position.

    'o.x/xx./o.o o'     o . x
                        x x .     every stone down: the board text ends in whose turn it is
                        o . o
"""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.stones.notation import read_moving
from tablebase.builder.pipeline import build
from tablebase.query import open_tablebase
from tablebase.query.cli import main
from tablebase.query.export import COLUMNS, ExportMovesError, export_positions
from tests.reference import Game
from tests.reference_moving import DRAW, MovingGame, Outcome, Position, solved_game

WORDS = {1: "win", 0: "draw", -1: "loss"}


def _read(game: MovingGame, text: str) -> Position:
    """A position from board text with an optional ` x`/` o`, read plainly: rows from the top,
    and where no suffix says it, the side the stones say (x when both have as many)."""
    board_text, _, side = text.partition(" ")
    board = tuple(".xo".index(ch) for row in board_text.split("/") for ch in row)
    assert len(board) == game.cells, text
    if not side:
        assert sum(1 for v in board if v) < 2 * game.stones, text  # the stones say it
        return board, 1 if board.count(1) == board.count(2) else 2
    return board, {"x": 1, "o": 2}[side]


def _replay(game: MovingGame, moves: str) -> Position:
    """The position a move list reaches from the empty board, each move legal by the plain
    rules: `b2` places, `a1-b2` steps; the game is not over before the last move."""
    def cell(name: str) -> int:
        return (game.h - int(name[1:])) * game.w + ord(name[0]) - ord("a")

    position = game.root()
    for move in moves.split():
        start, _, to = move.rpartition("-")
        step = (cell(start) if start else None, cell(to))
        assert step in game.moves(*position), (moves, move)  # none once the game is over
        position = game.child(*position, step)
    return position


def _orbits(game: MovingGame, solved: dict[Position, Outcome]) -> int:
    """How many positions the plain solver reaches (those it solved: every reachable one), one
    per orbit of the board's symmetries."""
    plain = Game(f"{game.w}x{game.h}k{game.k}")
    return len({(min(plain.code(image) for image in plain.images(board)), side)
                for board, side in solved})


@pytest.mark.parametrize("spec", ["3x3k3+stones3", "3x3k3+stones3+misere", "4x3k3+stones3"])
def test_csv_rows_agree_with_the_plain_solver(table_db: Callable[[str], str], spec: str) -> None:
    game, solved = solved_game(spec)
    out = io.StringIO()
    with open_tablebase(table_db(spec)) as tb:
        written = export_positions(tb, spec, out, "csv", with_moves=True)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert tuple(rows[0]) == COLUMNS + ("moves",)
    assert written == len(rows) == _orbits(game, solved)
    endless = 0
    for row in rows:
        board, side = position = _read(game, row["board"])
        stones = sum(1 for v in board if v)
        assert row["board"].endswith((" x", " o")) == (stones == 2 * game.stones), row
        assert (int(row["ply"]), row["to_move"]) == (stones, "xo"[side - 1]), row
        value, depth = solved[position]
        assert row["value"] == WORDS[value], row
        assert row["depth"] == ("" if depth is None else str(depth)), row
        assert _replay(game, row["moves"]) == position, row
        endless += value == DRAW
    assert endless


def test_json_lines_give_null_for_a_draw_by_endless_play(table_db: Callable[[str], str]) -> None:
    spec = "3x3k3+stones3"
    out = io.StringIO()
    with open_tablebase(table_db(spec)) as tb:
        export_positions(tb, spec, out, "jsonl", with_moves=True)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert records[0] == {"board": ".../.../...", "to_move": "x", "ply": 0, "value": "draw",
                          "depth": None, "moves": ""}
    game, solved = solved_game(spec)
    for r in records:
        value, depth = solved[_read(game, r["board"])]
        assert r["depth"] == depth and (r["depth"] is None) == (r["value"] == "draw"), r
    # A position where o moves next once every stone is down: its moves end in x's step.
    assert any(r["board"].endswith(" o") and "-" in r["moves"].split()[-1] for r in records)


def test_an_endgame_table_exports_without_moves(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """From o.x/xx./o.o o: its rows, each as the plain solver has it, the side in the text; a
    moves column is refused in one line."""
    spec, start = "3x3k3+stones3", "o.x/xx./o.o o"
    db = str(tmp_path / "end.db")
    build(spec, db, root=read_moving(parse_spec(spec), start))
    game, solved = solved_game(spec)
    out = io.StringIO()
    with open_tablebase(db) as tb:
        export_positions(tb, spec, out, "csv", root=start)
        with pytest.raises(ExportMovesError, match="an endgame table of 3x3k3.stones3 has no"
                                                   " moves column"):
            export_positions(tb, spec, io.StringIO(), "csv", root=start, with_moves=True)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert rows and all(r["board"].endswith((" x", " o")) for r in rows)
    for row in rows:
        value, depth = solved[_read(game, row["board"])]
        assert (row["value"], row["depth"]) == (WORDS[value], "" if depth is None else str(depth))
    assert main(["export", spec, "--root", start, "--with-moves", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tablebase: error: --with-moves:"), err


def test_the_command_line_exports_json_lines(table_db: Callable[[str], str], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    spec, path = "3x3k3+stones3", tmp_path / "out.jsonl"
    assert main(["export", spec, "--format", "jsonl", "-o", str(path), "--quiet",
                 "--db", table_db(spec)]) == 0
    assert capsys.readouterr().out == f"exported 744 positions of {spec} to {path} (jsonl)\n"
    lines = path.read_text().splitlines()
    assert len(lines) == 744
    assert lines[0] == '{"board": ".../.../...", "to_move": "x", "ply": 0, "value": "draw",' \
        ' "depth": null}'
    assert any(re.fullmatch(r'\{"board": "[.xo/]{11} o", "to_move": "o", "ply": 6, "value":'
                            r' "draw", "depth": null\}', line) for line in lines)
