"""The course's GTP dialect (b/w colours, GTP coordinates skipping I, `boardsize N`, `solve`
answered `= b C3`): found by `--dialect auto` from the engine's list_commands, or asked for, and
spoken to tests/audit_samples/course_engine.py, an exact engine right everywhere or wrong on one
board. The table it is judged by is checked against plain negamax in the other tests."""
from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.notation import column_name
from tablebase.query.audit import Selection, audit, open_gtp_engine
from tablebase.query.audit.by_play import parse_opponent, play_audit
from tablebase.query.audit.dialects import GTP_COLUMNS, Dialect
from tablebase.query.cli import main
from tablebase.query.tablebase import Tablebase, open_tablebase
from tests.reference import Game

SAMPLES = Path(__file__).resolve().parent / "audit_samples"
COURSE = f"{sys.executable} {SAMPLES / 'course_engine.py'}"


@pytest.fixture(scope="module")
def db(table_db: Callable[[str], str]) -> str:
    table_db("3x3k3")
    return table_db("4x4k3")


@pytest.fixture(scope="module")
def tb(db: str) -> Iterator[Tablebase]:
    with open_tablebase(db) as t:
        yield t


def test_gtp_coordinates_skip_i() -> None:
    course = Dialect("course")
    assert course.move_out("a1") == "A1" and course.move_out("h3") == "H3"
    assert course.move_out("i3") == "J3" and course.move_in("J3") == "i3"
    assert course.move_in("j10") == "i10"
    for col in range(25):
        ours = f"{column_name(col)}7"
        assert course.move_in(course.move_out(ours)) == ours
        assert "I" not in course.move_out(ours)
    assert GTP_COLUMNS.index("J") == 8
    assert course.player("b") == "x" and course.player("W") == "o" and course.player("x") is None
    assert Dialect("plain").move_out("b2") == "b2" and Dialect("plain").colour("o") == "o"


def test_a_right_course_engine_is_found_and_agrees_everywhere(tb: Tablebase) -> None:
    spec = parse_spec("3x3k3")
    with open_gtp_engine(f"{COURSE} --k 3", spec) as engine:
        assert engine.engine.dialect.name == "course" and engine.engine.asks == "solve"
        report = audit(tb, spec, engine, selection=Selection("all"), every_orientation=True)
    ref = Game("3x3k3")
    reachable = ref.reachable()
    assert report.ok and report.boards == report.agreed == len(reachable) == 5478
    # The dialect gives a move when the side to play wins or draws (and none where it is over);
    # `= w` alone on a lost position leaves nothing to check but the value.
    lost = sum(1 for b in reachable if ref.terminal_value(b) is None and ref.solve(b)[0] == -1)
    assert report.checked["value"] == report.boards == report.checked["move"] + lost
    assert report.asked == ("course dialect (b/w): boardsize 3 then timelimit 9; per position"
                            " clear_board, play b B2, ..., solve")


def test_a_course_engine_wrong_on_one_board_is_caught_there(tb: Tablebase) -> None:
    spec = parse_spec("3x3k3")
    board = ".../.x./..."  # o to move: a draw; the engine claims b (x) wins
    with open_gtp_engine(f"{COURSE} --k 3 --wrong-at {board}", spec, dialect="course") as engine:
        report = audit(tb, spec, engine, selection=Selection("ply", 1), every_orientation=True)
    assert report.mismatches == {"wrong-value": 1} and report.agreed == report.boards - 1
    (e,) = report.examples
    assert e.said == "= b" and e.board == (0, 0, 0, 0, 1, 0, 0, 0, 0)
    assert Game("3x3k3").solve(e.board)[0] == 0 == int(e.value)


def test_a_course_engine_on_a_4x4_board(tb: Tablebase) -> None:
    spec = parse_spec("4x4k3")
    with open_gtp_engine(f"{COURSE} --k 3", spec) as engine:
        report = audit(tb, spec, engine, selection=Selection("sample", 300), every_orientation=False)
        played = play_audit(tb, spec, engine, 4, opponent=parse_opponent("random"), seed=2)
    assert report.ok and report.agreed == 300
    assert played.ok and played.moves_judged > 0


def test_the_command_line_says_what_it_sends(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["audit", "3x3k3", "--db", db, "--engine", f"{COURSE} --k 3", "--quiet",
                   "--positions", "ply:2"])
    out, _ = capsys.readouterr()
    assert status == 0, out
    assert "  sends: course dialect (b/w): boardsize 3 then timelimit 9; per position clear_board," \
           " play b B2, ..., solve" in out
    status = main(["audit", "3x3k3", "--db", db, "--engine", f"{COURSE} --k 3 --wrong-at x../.o./...",
                   "--quiet", "--positions", "ply:2"])
    assert status == 1 and "wrong-value" in capsys.readouterr().out
    # The plain dialect's 'boardsize 3 3' is refused by a course engine; a course engine cannot
    # play gravity or non-square games: one line, exit status 2.
    for argv in (["3x3k3", "--dialect", "plain"], ["3x3k3+gravity"], ["4x3k3"]):
        status = main(["audit", argv[0], "--db", db, "--engine", f"{COURSE} --k 3", "--quiet",
                       *argv[1:]])
        err = capsys.readouterr().err
        assert status == 2 and err.count("\n") == 1, (argv, err)


def test_a_long_timeout_keeps_timelimit_in_the_course_range(tb: Tablebase) -> None:
    """An engine that refuses `timelimit` above 100 is audited cleanly with --timeout 300: the
    audit tells it 100 and keeps its own timeout."""
    spec = parse_spec("3x3k3")
    engine_command = f"{COURSE} --k 3 --strict-timelimit"
    with open_gtp_engine(engine_command, spec, timeout=300, dialect="course") as engine:
        report = audit(tb, spec, engine, selection=Selection("ply", 5))
    assert report.ok and report.agreed == report.boards > 0
    assert "timelimit 100" in (report.asked or "")


@pytest.mark.parametrize("command", ["timelimit", "play", "solve"])
def test_an_engine_out_of_step_is_reported_as_such(tb: Tablebase, command: str) -> None:
    """An engine that answers one command twice puts every later reply one late: it is reported
    out of step, never as a wrong value or a refuted line. (A second answer
    to `solve` shows at the next position's first command: the first answer, right, agrees.)"""
    spec = parse_spec("3x3k3")
    with open_gtp_engine(f"{COURSE} --k 3 --answer-twice {command}", spec,
                         dialect="course") as engine:
        report = audit(tb, spec, engine, selection=Selection("ply", 2))
    assert set(report.mismatches) == {"out-of-step"}
    assert report.mismatched + report.agreed == report.boards
    assert report.agreed == 0 if command != "solve" else report.mismatched >= report.boards // 3
    assert report.restarts >= report.mismatched_positions > 0
    example = report.examples[0]
    assert "answered out of step: an extra response" in example.detail
    assert not example.refutation


def test_unknown_is_counted_apart(tb: Tablebase) -> None:
    """`= unknown` claims nothing: counted apart, never a mismatch or a refuted line, and the
    audit passes when every other answer agrees; strict counts them as failures. On 60
    positions drawn over every ply and value, terminal ones included: the engine gives up on
    those of 0 to 2 stones (7 or more empty cells) and answers the others."""
    spec = parse_spec("3x3k3")
    engine_command = f"{COURSE} --k 3 --unknown-from 7"
    selection = Selection("sample", 60, within=(Selection("all"),))
    with open_gtp_engine(engine_command, spec, dialect="course") as engine:
        report = audit(tb, spec, engine, selection=selection)
    early = sum(1 for b in Game("3x3k3").reachable() if sum(1 for v in b if v == 0) >= 7)
    assert report.ok and report.mismatches == {} and report.examples == ()
    assert report.gave_up > 0 and report.agreed + report.gave_up == report.boards
    assert report.agreed > report.gave_up and report.positions == 60
    assert report.gave_up_positions == report.gave_up <= early
    with open_gtp_engine(engine_command, spec, dialect="course") as engine:
        strict = audit(tb, spec, engine, selection=selection, strict=True)
    assert not strict.ok and strict.mismatches == {"unknown": report.gave_up}


def test_unknown_on_the_command_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "3x3k3", "--engine", f"{COURSE} --k 3 --unknown-from 8", "--dialect",
            "course", "--db", db, "--quiet", "--positions", "ply:1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"gave up on \d+ boards \(3 positions\): answered '= unknown'", out)
    assert "no answer to judge: every board was declined or given up" in out
    assert main([*argv, "--strict"]) == 1


def test_start_errors_name_the_real_cause(tmp_path: Path, db: str, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """An engine whose `#!` line names a missing interpreter, one without the execute bit, a
    missing file, and a name without a '/' that is not on PATH (whether or not a file of that
    name is here) each get one line naming what is wrong (not "No such file" for a file that
    exists, nor the interpreter of a file that was never looked at)."""
    lacking = tmp_path / "Gomoku.py"
    lacking.write_text("#!/usr/bin/python9\nprint('hello')\n")
    lacking.chmod(0o755)
    plain = tmp_path / "plain.py"
    plain.write_text("print('hello')\n")
    plain.chmod(0o644)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(SAMPLES))  # holds no Gomoku.py
    for engine, fragment in ((lacking, "names the interpreter '/usr/bin/python9', which this"
                                       " machine lacks"),
                             (plain, "is not executable (chmod +x"),
                             (tmp_path / "missing.py", "No such file or directory"),
                             ("Gomoku.py", "'Gomoku.py' is not on PATH, and a command without a"
                                           " '/' is looked for only there; the file of that"
                                           " name here runs as --engine \"./Gomoku.py\""),
                             ("Gomoku2.py", "'Gomoku2.py' is not a file here nor a command on"
                                            " PATH")):
        assert main(["audit", "3x3k3", "--engine", str(engine), "--db", db, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and fragment in err, err
