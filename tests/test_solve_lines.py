"""Many positions in one process: `tablebase solve --positions FILE|-` (one answer a line, in
order, `--json` lines), `tablebase.search_positions`, and the position lines they read (board
text, board text then moves, moves, Pascal Pons' column digits with +gravity). Answers are
checked against the plain negamax of tests/reference.py."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import tablebase
from tablebase.builder.games.errors import NotationError
from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.position_text import read_position
from tablebase.query.cli import main
from tests.reference import WIN, Game, parse, play

WORDS = {WIN: "win", 0: "draw", -1: "loss"}


def test_a_line_names_a_position_four_ways() -> None:
    spec, game = parse_spec("4x4k3+gravity"), Game("4x4k3+gravity")
    assert read_position(spec, "b1 b2 c1").board == play(game, "b1 b2 c1")
    assert read_position(spec, "b b, c").board == play(game, "b1 b2 c1")
    assert read_position(spec, "223").board == play(game, "b1 b2 c1")  # Pons: columns from 1
    assert read_position(spec, "..../..../.o../.x..  c1").board == play(game, "b1 b2 c1")
    assert read_position(parse_spec("3x3k3"), "x.o/.x./...").board == parse(Game("3x3k3"),
                                                                       "x.o/.x./...")
    for bad, fragment in (("", "names no position"), ("25", "columns run from 1 to 4"),
                          ("b b b b b", "column b is full"), ("z9", "off the 4x4")):
        with pytest.raises(ValueError, match=fragment):  # NotationError or IllegalMoveError
            read_position(spec, bad)
    with pytest.raises(NotationError, match="cannot read move"):
        read_position(parse_spec("3x3k3"), "12")  # digits are columns only with +gravity


LINES = ["x.o/.x./...", "# a comment, skipped", "", "b2 a1", "x.o/.x./... c1", "xx./.../...",
         "b2 b2"]


def _expected(game: Game) -> dict[int, tuple[str, int]]:
    boards = {1: parse(game, "x.o/.x./..."), 4: play(game, "b2 a1"),
              5: game.child(parse(game, "x.o/.x./..."), 8)}
    return {n: (WORDS[game.solve(b)[0]], game.solve(b)[1]) for n, b in boards.items()}


def test_solve_positions_from_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "positions.txt"
    path.write_text("\n".join(LINES) + "\n")
    status = main(["solve", "3x3k3", "--positions", str(path), "--json", "--quiet",
                   "--db", str(tmp_path / "none.db")])
    out, err = capsys.readouterr()
    assert status == 2  # two lines name no position: answered in their place, then exit 2
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["line"] for r in rows] == [1, 4, 5, 6, 7]
    expected = _expected(Game("3x3k3"))
    for r in rows:
        if r["line"] in expected:
            assert (r["value"], r["depth"]) == expected[r["line"]] and r["source"] == "search"
    assert "impossible stone counts" in rows[3]["error"] and "occupied" in rows[4]["error"]
    assert err.splitlines()[-1] == "tablebase: error: 2 lines named no position to solve"
    assert "line 6: " in err and "Traceback" not in err


def test_solve_positions_from_stdin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("x.o/.x./...\nb2 a1\n"))
    assert main(["solve", "3x3k3", "--positions", "-", "--quiet",
                 "--db", str(tmp_path / "none.db")]) == 0
    out = capsys.readouterr().out.splitlines()
    expected = _expected(Game("3x3k3"))
    assert out[0].startswith("1: x.o/.x./...  o to move: ")
    assert out[0].split("o to move: ")[1].startswith(f"{expected[1][0]} in {expected[1][1]}")
    assert out[1].startswith("2: .../.x./o..  x to move: ")


def test_solve_positions_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, fragment in ((["--positions", str(tmp_path / "nope.txt")], "cannot read"),
                           (["x.o/.x./...", "--positions", "-"], "give no POSITION")):
        assert main(["solve", "3x3k3", *argv, "--db", str(tmp_path / "none.db")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("tablebase: error: ") and fragment in err and err.count("\n") == 1


def test_search_positions_in_python() -> None:
    game = Game("4x3k3")
    boards = [play(game, "a1 b1"), play(game, "b1"), play(game, "a1 a2 b1 b2")]
    answers = list(tablebase.search_positions("4x3k3", ["a1 b1", "b1", "a1 a2 b1 b2"]))
    for board, answer in zip(boards, answers):
        value, depth = game.solve(board)
        assert (answer.solution.value.word, answer.solution.depth) == (WORDS[value], depth)
    found = tablebase.search_positions("4x3k3", ["b1", "b1 b1 b1 b1"])
    assert next(found).board == boards[1]
    with pytest.raises(tablebase.IllegalMoveError, match="column b is full|occupied"):
        next(found)
