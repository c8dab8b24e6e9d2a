"""The answering commands (probe, moves, line, export), called through main([...]); each bad
input gets its own one-line message and exit status 2."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tablebase.query.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def db(table_db: Callable[[str], str]) -> str:
    for name in ("3x3k3", "4x3k3", "3x3k3+gravity"):
        path = table_db(name)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_probe(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "probe", "3x3k3", "x.o/.x./...", "--db", db) == \
        (0, "o to move: draw in 6 plies\n", "")
    assert run(capsys, "probe", "tictactoe", "--db", db)[1] == "x to move: draw in 9 plies\n"
    assert run(capsys, "probe", "4x3k3", "--db", db)[1] == "x to move: win in 7 plies\n"
    assert run(capsys, "probe", "3x3k3", "xxx/oo./...", "--db", db)[1] == \
        "game over: x won\n"
    assert run(capsys, "probe", "3x3k3", "xox/xox/oxo", "--db", db)[1] == "game over: a draw\n"


def test_probe_json_and_move_lists(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "probe", "3x3k3", "--moves", "b2 b1 c1", "--db", db, "--json")
    assert status == 0
    data = json.loads(out)
    assert data == {"spec": "3x3k3", "board": ".../.x./.ox", "to_move": "o", "ply": 3,
                    "value": "loss", "depth": 4, "terminal": False,
                    "source": "table"}
    # A move list played on top of a given position.
    status, out, _ = run(capsys, "probe", "3x3k3", ".../.x./...", "--moves", "b1,c1", "--db", db,
                         "--json")
    assert json.loads(out) == data


def test_moves(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "moves", "3x3k3", "x.o/.x./...", "--db", db)
    assert status == 0
    lines = out.splitlines()
    assert lines[:5] == ["3 | x . o", "2 | . x .", "1 | . . .", "    a b c",
                         "o to move: draw in 6 plies"]
    assert lines[6].split() == ["*", "c1", "draw", "5"]
    assert [line.split() for line in lines[7:12]] == [
        [move, "loss", "1"] for move in ("b3", "a2", "c2", "a1", "b1")]

    status, out, _ = run(capsys, "moves", "3x3k3", "x.o/.x./...", "--db", db, "--json")
    data = json.loads(out)
    assert set(data) == {"spec", "board", "to_move", "ply", "value", "depth", "terminal", "moves",
                         "table", "source"}
    assert data["table"] is None  # the whole-board table holds it
    assert data["moves"][0] == {"move": "c1", "value": "draw", "depth": 5, "best": True}
    assert [set(m) for m in data["moves"]] == [{"move", "value", "depth", "best"}] * 6

    status, out, _ = run(capsys, "moves", "3x3k3", "xxx/oo./...", "--db", db, "--json")
    assert json.loads(out)["moves"] == []


def test_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "line", "4x3k3", "--db", db, "--json")
    assert status == 0
    data = json.loads(out)
    assert (data["value"], data["depth"]) == ("win", 7)
    assert len(data["line"]) == 7
    assert [set(s) for s in data["line"]] == [{"move", "player", "value", "depth", "board"}] * 7
    assert [s["depth"] for s in data["line"]] == [6, 5, 4, 3, 2, 1, 0]
    assert [s["value"] for s in data["line"]] == ["win", "loss"] * 3 + ["win"]

    status, out, _ = run(capsys, "line", "3x3k3", "--db", db)
    lines = out.splitlines()
    assert lines[0] == ".../.../...  x to move: draw in 9 plies"
    assert lines[1].startswith("perfect line, draw in 9 plies for x: ")
    assert len(lines[1].split(": ")[1].split()) == 9
    assert lines[10].split()[:2] == ["9.", "x"]


def test_export(db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, _ = run(capsys, "export", "3x3k3", "--db", db)
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 765
    path = tmp_path / "t.jsonl"
    status, out, err = run(capsys, "export", "4x3k3", "--db", db, "--format", "jsonl",
                           "--output", str(path))
    assert status == 0 and err == ""  # no progress bar: stderr is not a terminal
    assert out == f"exported 28,275 positions of 4x3k3 to {path} (jsonl)\n"
    assert len(path.read_text().splitlines()) == 28275


@pytest.mark.parametrize("argv, fragment", [
    (["probe", "3x3k3", "x.o/.x"], "board 'x.o/.x' has 2 rows, expected 3 for 3x3k3"),
    (["probe", "3x3k3", "x.o/.x./.."], "row 3 from the top ('..') has 2 cells, expected 3"),
    (["probe", "3x3k3", "x.ox"], "board 'x.ox' has 4 cells, expected 9"),
    (["probe", "3x3k3", "x.o/.q./..."], "unknown character 'q' at b2"),
    (["probe", "3x3k3", "xx./.../..."], "impossible stone counts: 2 x and 0 o"),
    (["probe", "3x3k3", "xxx/ooo/x.."], "both x and o have a line"),
    (["probe", "3x3k3", "xxx/oo./o.."], "x has a line but o moved last"),
    (["probe", "3x3k3", "--moves", "b2 b2"], "move 2 of 'b2 b2': move 'b2': b2 is occupied"),
    (["probe", "3x3k3", "--moves", "b2 d4"], "move 'd4' is off the 3x3 board"),
    (["probe", "3x3k3", "--moves", "a1 b1 a2 b2 a3 c3"], "comes after the end of the game"),
    (["probe", "3x3k3+gravity", "x../.../..."], "floating stone in column a"),
    (["probe", "3x3k3+gravity", ".../.x./.o."], "cannot be reached from the empty board"),
    (["moves", "4x3k3", "xxxo/oxo./xxoo"], "cannot be reached from the empty board"),
    (["line", "6x6k5", "--no-search"], "6x6k5 has not been built in this database; build it"
                                       " with: tablebase build 6x6k5 --db"),
    (["export", "3x3k3", "--format", "xml"], "invalid choice: 'xml'"),
    (["play", "3x3k3", "--as", "z"], "invalid choice: 'z'"),
])
def test_bad_input_gets_its_own_message_and_status_2(db: str, capsys: pytest.CaptureFixture[str],
                                                     argv: list[str], fragment: str) -> None:
    status, out, err = run(capsys, *argv, "--db", db)
    assert status == 2 and out == ""
    assert err.startswith("tablebase: error: ") and err.count("\n") == 1
    assert fragment in err, err


def test_a_missing_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("probe", "moves", "line"):
        status, _, err = run(capsys, command, "3x3k3", "--db", str(tmp_path / "nope.db"),
                             "--no-search")
        assert status == 2 and "no such database file" in err
        assert "build a game first" in err


def test_probe_process_does_not_import_the_storage_stack(db: str) -> None:
    # One `tablebase probe` must start fast; SQLAlchemy alone takes a third of a second.
    code = ("import sys; from tablebase.query.cli import main; status = main(['probe', '3x3k3', '--db', "
            f"{db!r}]); print(status, 'sqlalchemy' in sys.modules, 'tqdm' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.stdout.splitlines()[-1] == "0 False False", proc.stderr
