"""Course test files (query/audit/course_file.py): the course's GTP regression format read as it
is, each position settled by a table or by search (boards past 39 empty cells included), and
both an engine's answers and the file's own expectations judged against that truth."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.query.audit.course_file import audit_course_file, is_course_file, read_course_file
from tablebase.query.cli import main
from tests.reference import Game, loses_within, wins_within

HERE = Path(__file__).resolve().parent
FILE = str(HERE / "course_tests.gtp")
ENGINE = f"{sys.executable} {HERE / 'audit_samples' / 'course_engine.py'} --k 5 --unknown-from 30"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_the_file_is_read_as_the_course_writes_it() -> None:
    spec = parse_spec("7x7k5")
    assert is_course_file(FILE) and not is_course_file(str(HERE / "reference.py"))
    cases = read_course_file(spec, FILE)
    assert [(c.line, c.command) for c in cases] == [
        (19, "solve"), (35, "solve"), (37, "genmove"), (79, "solve"), (81, "solve"), (94, "solve")]
    assert cases[0].expected == ("w D4",) and cases[1].expected == ("b E2", "b D4", "b C3")
    # The easy positions leave more empty cells than a code holds (39); the deep one 11.
    assert [spec.cells - sum(1 for v in c.board if v) for c in cases] == [40, 37, 37, 11, 11, 40]


def test_engine_and_file_are_judged_against_the_truth(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "none.db")  # no table: every case is settled by search
    status, out, _ = _run(capsys, "audit", "7x7k5", "--engine", ENGINE, "--positions",
                          f"file:{FILE}", "--db", db, "--json", "--search", "20")
    assert status == 1  # the file's two wrong alternatives
    data = json.loads(out)
    cases = data["cases"]
    assert all(c["truth"]["source"] == "search" and c["truth"]["value"] for c in cases)
    # The engine gives up on 30 or more empty cells and is right on the endgame.
    assert [c["solver"]["kind"] for c in cases] == ["gave-up"] * 3 + ["right"] * 2 + ["gave-up"]
    kinds = [[e["kind"] for e in c["expected"]] for c in cases]
    assert kinds[4] == ["right", "non-optimal-move"] and kinds[5] == ["right", "right", "wrong-value"]
    assert all(k == "right" for k in kinds[0] + kinds[1] + kinds[2] + kinds[3])
    # The truths of the short wins, checked by the plain search of tests/reference.py.
    game, spec = Game("7x7k5"), parse_spec("7x7k5")
    first = read_course_file(spec, FILE)[0]
    assert cases[0]["truth"]["value"] == "win" and cases[0]["truth"]["depth"] == 5
    assert wins_within(game, first.board, 5) and not wins_within(game, first.board, 3)
    d4 = 3 * 7 + 3  # the file's move D4: afterwards x loses within 4 plies, every defence tried
    assert loses_within(game, game.child(first.board, d4), 4)


def test_a_wrong_engine_is_caught_and_the_text_report_names_the_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = ".xoxoo./.xoo.oo/xxoxox./.ooxxo./x.xoxox/ox.x.oo/x.oxxox"
    status, out, _ = _run(capsys, "audit", "7x7k5", "--engine", f"{ENGINE} --wrong-at {deep}",
                          "--positions", f"file:{FILE}", "--db", str(tmp_path / "n.db"))
    assert status == 1
    assert "line 79: 40 solve, b to play, 38 stones" in out
    assert "solver said '= w': wrong-value: the side to play has a draw in 11 plies" in out
    assert "solver: 4 gave-up, 2 wrong-value" in out
    assert "file: 1 non-optimal-move, 10 right, 1 wrong-value" in out


def test_no_search_leaves_the_cases_unsettled(tmp_path: Path) -> None:
    spec = parse_spec("7x7k5")
    report = audit_course_file(None, spec, FILE, None, None)
    assert report.ok and all(r.truth.value is None for r in report.results)
    assert report.count("unsettled", "file") == 12
