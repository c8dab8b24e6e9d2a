"""`tablebase probe SPEC -`: positions from standard input, one a line, each answered on a line
as it is read: the plain solvers' values and depths, for a grid game and a morris game; a line
that cannot be read is one error naming its number; a program asks through a pipe, a line at a
time."""
from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.position_text import read_position
from tablebase.query.cli import main
from tests.reference import Game
from tests.reference_morris import MorrisGame as PlainMorris

WORDS = {1: "win", 0: "draw", -1: "loss"}
MORRIS = "six-mens-morris+stones3"


def _probe(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str,
           *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    capsys.readouterr()
    status = main(["probe", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_each_line_is_the_plain_solver_s_answer(table_db: Callable[[str], str],
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = table_db("4x3k3")
    lines = ["", "b2 a1", "x.o./.x../....", "  ..../..../....  ", "x.o./.x../.... c1 d1"]
    status, out, _ = _probe(monkeypatch, capsys, "\n".join(lines), "4x3k3", "-", "--db", db,
                            "--json")
    assert status == 0
    asked = [line.strip() for line in lines if line.strip()]
    found = [json.loads(line) for line in out.splitlines()]
    assert len(found) == len(asked)
    spec, plain = parse_spec("4x3k3"), Game("4x3k3")
    for text, answer in zip(asked, found):
        board = read_position(spec, text).board
        value, depth = plain.solve(board)
        assert (answer["value"], answer["depth"]) == (WORDS[value], depth), text
    status, out, _ = _probe(monkeypatch, capsys, "\n".join(lines), "4x3k3", "-", "--db", db)
    assert [line.split("  ")[0] for line in out.splitlines()] == [a["board"] for a in found]


def test_a_morris_game_s_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.db")
    assert main(["build", MORRIS, "--db", db, "--quiet"]) == 0
    truth = PlainMorris(MORRIS).solve()
    asked = list(truth)[::97]
    status, out, _ = _probe(monkeypatch, capsys, "\n".join(asked), MORRIS, "-", "--db", db,
                            "--json")
    assert status == 0
    found = [json.loads(line) for line in out.splitlines()]
    assert [f["position"] for f in found] == asked
    for text, answer in zip(asked, found):
        assert (answer["value"], answer["depth"]) == (WORDS[truth[text][0]], truth[text][1])


def test_a_line_that_cannot_be_read_stops_with_its_number(table_db: Callable[[str], str],
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    db = table_db("3x3k3")
    status, out, err = _probe(monkeypatch, capsys, "b2\n\nb2 b2\nc3\n", "3x3k3", "-", "--db", db)
    assert status == 2 and len(out.splitlines()) == 1  # the first answered, the last never
    assert err.startswith("tablebase: error: line 3: ") and err.count("\n") == 1, err
    status, out, err = _probe(monkeypatch, capsys, "b2\n", "3x3k3", "-", "--db", db,
                              "--moves", "a1")
    assert status == 2 and out == "" and "--moves is not taken" in err


def test_a_program_asks_a_line_at_a_time_through_a_pipe(table_db: Callable[[str], str]
                                                       ) -> None:
    db = table_db("3x3k3")
    proc = subprocess.Popen([sys.executable, "-m", "tablebase", "probe", "3x3k3", "-", "--db",
                             db], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={k: v for k, v in os.environ.items()  # a pipe's own buffering
                                 if k != "PYTHONUNBUFFERED"})
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for text, want in (("b2", "o to move: draw in 8 plies"),
                           ("xx./oo./...", "x to move: win in 1 ply")):
            proc.stdin.write(text + "\n")
            proc.stdin.flush()  # the next is written only once this one is answered
            ready, _, _ = select.select([proc.stdout], [], [], 60)
            assert ready, f"no answer to {text!r} while the input stays open"
            assert proc.stdout.readline().rstrip("\n").split("  ")[1] == want
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
