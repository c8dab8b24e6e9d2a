"""Reading a course test file as gogui-regress and the course's engines read it
(query/audit/course_reading.py): numbered and unnumbered commands, an expectation after any
command, `boardsize N` clearing the board and changing the game, `timelimit` carried to the
questions after it, and one error naming the line for what neither would take."""
from __future__ import annotations

from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.query.audit.course_reading import read_course_file
from tablebase.query.cli import main
from tablebase.query.errors import AuditInputError
from tests.reference import Game, play

SPEC = parse_spec("7x7k5")

# Each construct of the course's public files once: '00 timelimit 1' then '#?[]' (a test that
# expects the empty answer), upper-case colours, a passed-over command, a boardsize of the same
# size that must clear the board (C3 is black's afterwards, white's before), boards of 5x5
# and 9x9, and a known failure.
FILE = """\
#test 00 sets the time
00 timelimit 1
#?[]
clear_board
play B B4
play W C3
10 solve
#?[b|C5]
gogui-rules_board
timelimit 30
boardsize 7
play B C3
#?[]
20 genmove w
#?[D4]
timelimit 5
boardsize 5
30 solve
#?[unknown]
boardsize 9
40 solve
#?[unknown]*
"""


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "course.gtp"
    path.write_text(text)
    return str(path)


def test_every_construct_is_read_as_gogui_regress_reads_it(tmp_path: Path) -> None:
    cases = read_course_file(SPEC, _write(tmp_path, FILE))
    assert [(c.line, c.id, c.text, c.pattern) for c in cases] == [
        (2, "00", "timelimit 1", ""), (7, "10", "solve", "b|C5"), (12, None, "play B C3", ""),
        (14, "20", "genmove w", "D4"),
        (18, "30", "solve", "unknown"), (21, "40", "solve", "unknown")]
    first, solve, played, genmove, five, nine = cases
    assert first.command == "timelimit" and first.timelimit == 1 and not first.question
    assert solve.expected == ("b", "C5") and solve.timelimit == 1
    assert solve.board == play(Game("7x7k5"), "b4 c3")
    # boardsize 7 cleared the board: black's C3 is the only stone.
    assert played.board == play(Game("7x7k5"), "c3") and played.cell == 4 * 7 + 2
    assert genmove.board == played.board and genmove.timelimit == 30
    assert (five.spec.name, five.board, five.timelimit) == ("5x5k5", (0,) * 25, 5)
    assert (nine.spec.name, nine.board, nine.timelimit) == ("9x9k5", (0,) * 81, 5)
    assert nine.known_failure and not five.known_failure


def test_a_file_with_no_timelimit_gives_the_course_default(tmp_path: Path) -> None:
    """The course's engines take 1 second until a timelimit says otherwise; points keep GTP's
    columns (J is the ninth column, I is skipped)."""
    (case,) = read_course_file(parse_spec("9x9k5"), _write(tmp_path, "play b J1\nsolve\n"))
    assert case.timelimit == 1 and case.id is None and case.pattern is None
    assert case.board[8 * 9 + 8] == 1 and sum(case.board) == 1


@pytest.mark.parametrize("text, fragment", [
    ("paly B D4\nsolve\n", "line 1: unknown command 'paly'; did you mean 'play'?"),
    ("play B D4\n10 solve\n#?[b C5\n", "line 3: the expectation '#?[b C5' is not closed by ']'"),
    ("play B D4\n10 solve\n#? b C5]\n", "line 3: the expectation '#? b C5]' has no opening '['"),
    ("play B Z9\nsolve\n", "line 1: play B Z9: Z9 is no point of the 7x7 board"),
    ("play b D4\nplay w D4\nsolve\n", "line 2: play w D4: D4 is taken (by b)"),
    ("play w D4\nsolve\n", "line 1: w plays, but b is to play"),
    ("play b D4\ngenmove b\n", "line 2: genmove b, but w is to play"),
    ("boardsize 3\nsolve\n", "line 1: boardsize 3 in a game of 5 in a row"),
    ("boardsize seven\nsolve\n", "line 1: expected 'boardsize N'"),
    ("timelimit 1.5\nsolve\n", "line 1: expected 'timelimit SECONDS'"),
    ("10 solve\n\n#?[b]\n", "line 3: the expectation '#?[b]' follows no command"),
    ("#?[b]\nsolve\n", "line 1: the expectation '#?[b]' follows no command"),
    ("10 solve\n#?[b]\n#?[w]\n", "line 3: the expectation '#?[w]' follows no command"),
    ("boardsize 7\nplay b D4\n", "has no solve or genmove command, and no expectation"),
])
def test_a_bad_file_is_one_error_naming_the_line(text: str, fragment: str,
                                                 tmp_path: Path) -> None:
    with pytest.raises(AuditInputError) as caught:
        read_course_file(SPEC, _write(tmp_path, text))
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_the_command_line_says_it_in_one_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "boardsize 7\npaly B D4\n10 solve\n#?[b]\n")
    status = main(["audit", "7x7k5", "--solver", "nowhere:solve", "--positions", f"file:{path}",
                   "--db", str(tmp_path / "none.db"), "--quiet"])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "line 2: unknown command 'paly'" in err and "Traceback" not in err
