"""A course test file audited as it is (query/audit/course_file.py): the course's constructs,
in a file written here in the course's style, spoken to the exact course engine of
tests/audit_samples/course_engine.py, which logs what reaches it. The truths are checked by the
plain negamax and the short-win search of tests/reference.py."""
from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from tablebase.query.cli import main
from tests.reference import Game, play, wins_within

SAMPLES = Path(__file__).resolve().parent / "audit_samples"
# Exact where a board has fewer than 42 empty cells; '= unknown' (out of time) elsewhere.
ENGINE = f"{sys.executable} {SAMPLES / 'course_engine.py'} --k 5 --unknown-from 42"

# Black wins at once on A4 or F4 (four in a row, open at both ends; white's four on row 3 comes
# too late); G4 lets white complete row 3; Z9 is no point of a 7x7 board.
SEVEN = "B4 B3 C4 C3 D4 D3 E4 E3"
# Two 5x5 boards, black to play: a win in one (D3, B2 or E2 win; A4 does not) and a draw.
FIVE_WIN = "A3 E5 C3 A1 B5 C5 C2 D5 B3 B1 E3 D4 D2 A5 A2 B4"
FIVE_DRAW = "D3 C5 C4 D1 C2 E1 B5 D5 C1 D2 E4 E3 B4 A5 A1 B3"


def _plays(moves: str, played: int = 0) -> str:
    """`play B ...` lines for `moves`, black first, after `played` stones."""
    return "".join(f"play {'BW'[(played + i) % 2]} {m}\n" for i, m in enumerate(moves.split()))


FILE = f"""\
# every construct of the course's files, once
00 timelimit 1
#?[]
clear_board
play B B4
#?[]
{_plays(SEVEN.split(maxsplit=1)[1], played=1)}10 solve
#?[b F4|b A4|b G4|b Z9]
20 genmove b
#?[A4|F4]
25 name
#?[course_engine]
gogui-rules_board
timelimit 30
boardsize 7
play B C3
play W A2
30 solve
#?[unknown]
timelimit 3
boardsize 5
{_plays(FIVE_WIN)}40 solve
#?[b D3|b A4]
clear_board
{_plays(FIVE_DRAW)}50 solve
#?[unknown]
timelimit 7
boardsize 9
60 solve
#?[unknown]*
"""


def _audit(tmp_path: Path, *extra: str) -> tuple[int, str, str, list[str]]:
    """(exit status, stdout, stderr, the commands the engine got) of the file's audit."""
    course, log = tmp_path / "course.gtp", tmp_path / "engine.log"
    course.write_text(FILE)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["audit", "7x7k5", "--engine", f"{ENGINE} --log {log}", "--positions",
                       f"file:{course}", "--db", str(tmp_path / "none.db"), "--search", "1",
                       "--quiet", *extra])
    return status, out.getvalue(), err.getvalue(), log.read_text().splitlines()


@pytest.fixture(scope="module")
def json_audit(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, str, list[str]]:
    """The file's audit with --json, run once for the two tests that read it (each costs an
    engine and a second's search on each of its unsettled boards)."""
    return _audit(tmp_path_factory.mktemp("course"), "--json")


def _board(spec: str, moves: str) -> tuple[int, ...]:
    return play(Game(spec), moves.lower())


def test_every_case_is_judged_against_the_truth(
        json_audit: tuple[int, str, str, list[str]]) -> None:
    status, out, err, _ = json_audit
    assert status == 1  # the file's G4, Z9 and A4 are wrong
    cases = {c["id"] or c["text"]: c for c in json.loads(out)["cases"]}
    assert list(cases) == ["00", "play B B4", "10", "20", "25", "30", "40", "50", "60"]
    kinds = {k: ([c["solver"]["kind"]] if c["solver"] else []) + [e["kind"] for e in c["expected"]]
             for k, c in cases.items()}
    # timelimit and play answer nothing: the file's [] is right, and so is the engine's '='.
    assert kinds["00"] == kinds["play B B4"] == ["right", "right"]
    assert cases["00"]["solver"]["said"] == "="
    assert kinds["10"] == ["right", "right", "right", "non-optimal-move", "illegal-move"]
    g4, z9 = cases["10"]["expected"][2:]
    assert g4["detail"] == "G4 gives loss, where the position is a win"
    # A move is echoed as written, never re-spelt in our notation (y9).
    assert z9["said"] == "b Z9" and z9["detail"].startswith("Z9 is no point of the 7x7")
    assert kinds["20"] == ["right", "right", "right"] and kinds["25"] == ["not-judged"]
    # An empty 7x7 board but for two stones: not settled in a second, and out of the engine's
    # reach; it and the file claim nothing.
    assert cases["30"]["truth"]["value"] is None and kinds["30"] == ["gave-up", "unknown"]
    assert cases["30"]["board"] == "......./......./......./......./..x..../o....../......."
    # 5x5: the engine is right, and where the file expects 'unknown' it proves the truth.
    assert cases["40"]["spec"] == cases["50"]["spec"] == "5x5k5"
    assert kinds["40"] == ["right", "right", "non-optimal-move"]
    assert kinds["50"] == ["proved", "unknown"]
    assert "gogui-regress fails this test" in cases["50"]["solver"]["detail"]
    # 9x9 (81 cells, searched on two-word cell sets): not settled within the audit's second,
    # never a claim; the audit went on to the end.
    nine = cases["60"]
    assert nine["spec"] == "9x9k5" and nine["truth"]["source"] == "search"
    assert nine["truth"]["value"] is None and nine["truth"]["proved"] == "unknown"
    assert nine["known_failure"]
    assert kinds["60"] == ["gave-up", "unknown"]
    assert "this course file may take up to about" in err  # the estimate, before the audit


def test_the_truths_are_the_reference_values(
        json_audit: tuple[int, str, str, list[str]]) -> None:
    _, out, _, _ = json_audit
    truth = {c["id"]: c["truth"] for c in json.loads(out)["cases"] if c["truth"]}
    seven = Game("7x7k5")
    board = _board("7x7k5", SEVEN)
    assert wins_within(seven, board, 1) and truth["10"]["value"] == "win"
    g4 = seven.child(board, 3 * 7 + 6)  # after G4, white completes row 3
    assert wins_within(seven, g4, 1)
    five = Game("5x5k5")
    assert five.solve(_board("5x5k5", FIVE_WIN)) == (1, 1)
    assert (truth["40"]["value"], truth["40"]["depth"]) == ("win", 1)
    assert five.solve(_board("5x5k5", FIVE_DRAW))[0] == 0 and truth["50"]["value"] == "draw"
    a4 = five.child(_board("5x5k5", FIVE_WIN), 1 * 5 + 0)
    assert five.solve(a4)[0] != -1  # A4 does not win: the opponent is not lost after it


def test_the_engine_gets_the_files_boards_and_timelimits(tmp_path: Path) -> None:
    _, out, _, log = _audit(tmp_path)
    told, game, before = 0, "", {}
    for line in log:
        words = line.split()
        if words[0] == "timelimit":
            told = int(words[1])
        elif words[0] == "boardsize":
            game = words[1]
        elif words[0] in ("solve", "genmove"):
            before[len(before)] = (told, game)
    # 30 comes under --timeout 10 as 9; 3 and 7 as they are; the boards as the file says.
    assert list(before.values()) == [(1, "7"), (1, "7"), (9, "7"), (3, "5"), (3, "5"), (7, "9")]
    assert "note: the file's timelimit 30 is sent as timelimit 9 (a second under --timeout" \
           " 10; --timeout 31 sends it whole)" in out
    assert "line 68: 60 solve, b to play, 0 stones on 9x9k5:" in out
    assert "proved: 1 where the file expects 'unknown'" in out
    assert "file expects 'b Z9': illegal-move: Z9 is no point of the 7x7 board" in out


def test_a_function_is_given_each_cases_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "which_game.py").write_text(
        "def solve(board, to_move, spec):\n    raise ValueError(spec)\n")
    (tmp_path / "course.gtp").write_text(FILE)
    monkeypatch.chdir(tmp_path)
    status = main(["audit", "7x7k5", "--solver", "which_game:solve", "--positions",
                   "file:course.gtp", "--db", "none.db", "--search", "0.2", "--quiet", "--json"])
    cases = json.loads(capsys.readouterr().out)["cases"]
    said = {c["id"]: c["solver"]["detail"] for c in cases if c["solver"]}
    # Only the questions ask a function; each is told its own game.
    assert status == 1 and set(said) == {"10", "20", "30", "40", "50", "60"}
    assert all(said[k].startswith("ValueError: 7x7k5") for k in ("10", "20", "30"))
    assert said["40"].startswith("ValueError: 5x5k5") and said["60"].startswith("ValueError: 9x9k5")
