"""The table as a GTP engine: it passes `tablebase audit --engine` with no mismatch, plays a
whole game through a pipe, and answers every bad command with '?' instead of crashing."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.query import Tablebase, open_tablebase
from tablebase.query.cli import main
from tablebase.query.play.gtp_engine import GtpSession, serve
from tests.reference import DRAW, Game

ROOT = Path(__file__).resolve().parents[1]


def _engine(spec: str, db: str, *extra: str) -> str:
    return f"{sys.executable} -m tablebase gtp {spec} --db {db} {' '.join(extra)}".strip()


# A sample in every orientation: the square board's eight images (rotations among them) and the
# 4x3 board's four. Every one of tic-tac-toe's 627 unfinished positions is asked in the course
# dialect below (in one orientation each); all of them in all 8 images here (4,520 boards, 14 s
# of the engine's and the audit's CPU) went down the same paths as this sample.
@pytest.mark.parametrize("spec, sample", [("3x3k3", 100), ("4x3k3", 100)])
def test_passes_the_audit_with_zero_mismatches(spec: str, sample: int,
                                               table_db: Callable[[str], str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = table_db(spec)
    # --level 0: genmove is not what the audit asks; solve answers from the table whatever
    # the level.
    code = main(["audit", spec, "--engine", _engine(spec, db, "--level", "0"), "--db", db,
                 "--positions", f"sample:{sample}", "--orientations", "all", "--json",
                 "--quiet"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["mismatched"] == 0 and report["mismatches"] == {}
    assert report["declined"] == 0 and report["restarts"] == 0
    # Every image of every sampled position shown, in all their orientations.
    assert report["agreed"] == report["boards"] > report["positions"] == sample
    assert report["checks"]["move"] > report["boards"] // 2  # moves were given and checked


def test_passes_the_audit_in_the_course_dialect(table_db: Callable[[str], str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    db = table_db("3x3k3")
    code = main(["audit", "3x3k3", "--engine", _engine("3x3k3", db), "--db", db,
                 "--dialect", "course", "--orientations", "random", "--json", "--quiet"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["mismatched"] == 0 and report["agreed"] == report["boards"] == 627


class Pipe:
    """A `tablebase gtp` process, one command and one response at a time."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tablebase", "gtp", *args], cwd=ROOT, text=True,
            encoding="utf-8", errors="surrogateescape",  # so a test can send invalid bytes
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(self, command: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while (line := self.process.stdout.readline()) not in ("\n", ""):
            lines.append(line.rstrip("\n"))
        return "\n".join(lines)


def test_a_whole_game_through_a_pipe(table_db: Callable[[str], str]) -> None:
    db = table_db("3x3k3")
    game = Game("3x3k3")
    gtp = Pipe("3x3k3", "--db", db, "--seed", "4")
    assert gtp.send("protocol_version") == "= 2"
    assert gtp.send("name") == "= tablebase"
    assert gtp.send("boardsize 3") == "="
    assert gtp.send("clear_board") == "="
    board = (0,) * 9
    colours = ["b", "w"]
    played = 0
    while game.moves(board):
        solved = gtp.send("solve").split()
        assert solved[:2] == ["=", "draw"]  # perfect against perfect from a draw stays a draw
        answer = gtp.send(f"genmove {colours[played % 2]}")
        assert answer.startswith("= ")
        name = answer[2:]
        cell = (3 - int(name[1])) * 3 + "ABC".index(name[0])  # GTP coordinates: row 1 bottom
        assert cell in game.moves(board)
        board = game.child(board, cell)
        played += 1
    assert played == 9 and game.terminal_value(board) == DRAW
    assert gtp.send("solve") == "= draw"
    assert gtp.send("genmove b").startswith("? ")
    shown = gtp.send("showboard")
    assert shown.startswith("=\n") and shown.count("|") == 3 and shown.endswith("A B C")
    assert gtp.send("undo") == "="
    assert gtp.send("\udcff\x00 name").startswith("? unknown command")  # garbage: an answer
    assert gtp.send("quit") == "="
    assert gtp.process.wait(10) == 0


@pytest.fixture(scope="module")
def tb(table_db: Callable[[str], str]) -> Iterator[Tablebase]:
    table_db("4x3k3")
    with open_tablebase(table_db("3x3k3")) as opened:
        yield opened


def _talk(session: GtpSession, *commands: str) -> list[str]:
    out: list[str] = []
    serve(session, commands, out.append)
    return [o.rstrip("\n") for o in out]


def test_bad_commands_get_question_marks(tb: Tablebase) -> None:
    s = GtpSession(tb, parse_spec("3x3k3"))
    answers = _talk(s, "frobnicate", "play x", "play q b2", "play x z9", "play x b2",
                    "play x a1", "play o b2", "boardsize 4", "boardsize a", "set_game 7x6k4",
                    "set_game nonsense", "genmove", "genmove x", "known_command", "undo",
                    "undo", "undo", "7 name", "", "# a comment", "boardsize 3 3",
                    "set_game tictactoe")
    assert [a.split()[0] for a in answers] == [
        "?", "?", "?", "?", "=", "?", "?", "?", "?", "?", "?", "?", "?", "=", "=", "?", "?",
        "=7", "=", "="]
    assert answers[6].endswith("b2 is occupied (by x)")
    assert answers[13] == "= false"
    assert all("\n" not in a for a in answers)


def test_both_dialects(tb: Tablebase) -> None:
    s = GtpSession(tb, parse_spec("3x3k3"))
    # x/o as `audit --engine` speaks it: x wins after b2 b3 (o on an edge); x to move.
    assert _talk(s, "boardsize 3 3", "play x b2", "play o b3", "solve")[-1].startswith("= x ")
    assert _talk(s, "play x a3")[-1] == "="
    assert _talk(s, "solve")[-1] == "= x"  # o to move and lost: no move is given
    # b/w: the same position, in GTP coordinates.
    out = _talk(s, "boardsize 3", "play b B2", "play w B3", "solve", "list_commands")
    assert out[3].split()[:2] == ["=", "b"]
    assert out[3].split()[2] == out[3].split()[2].upper()
    assert "solve" in out[4].split() and "genmove" in out[4].split()


def test_gtp_coordinates_skip_i(table_db: Callable[[str], str]) -> None:
    with open_tablebase(table_db("3x3k3")) as tb:
        s = GtpSession(tb, parse_spec("9x1k3"))  # play needs only the rules, not a table
        assert _talk(s, "play b J1", "play w I1", "play w H1", "showboard") [:3] == [
            "=", "? invalid coordinate 'I1': columns run A-J (no I), rows 1-1 from the bottom",
            "="]
        assert s.board == (0,) * 7 + (2, 1)


def test_solve_in_the_engine_agrees_with_the_table_at_random(tb: Tablebase) -> None:
    rng = random.Random(9)
    s = GtpSession(tb, parse_spec("4x3k3"), level=0, rng=rng)
    for _ in range(20):
        _talk(s, "clear_board")
        while True:
            board = s.board
            probe = tb.probe("4x3k3", board)
            answer = _talk(s, "solve")[0].split()
            to_move, other = probe.to_move, "o" if probe.to_move == "x" else "x"
            expected = {1: to_move, 0: "draw", -1: other}[int(probe.value)]
            assert answer[1] == expected
            if len(answer) == 3:
                assert answer[2] in {m.move for m in tb.best_moves("4x3k3", board)}
            if probe.terminal:
                break
            assert _talk(s, f"genmove {to_move}")[0].startswith("= ")
