"""Auditing players as well as solvers: move-only answers (functions and GTP engines asked
`genmove`), audit by play, integral float values, the depth refusal and the other fixes from the
trial. Every verdict is confirmed with the plain negamax of tests/reference.py, and a solver
nobody here wrote (easyAI's Negamax) is audited."""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.query.audit import FunctionCandidate, Selection, audit, open_gtp_engine, read_return
from tablebase.query.audit.by_play import Opponent, parse_opponent, play_audit
from tablebase.query.audit.selection import select_positions
from tablebase.query.cli import main
from tablebase.query.errors import AuditInputError
from tablebase.query.tablebase import Tablebase, open_tablebase
from tests.reference import Game, better

SAMPLES = Path(__file__).resolve().parent / "audit_samples"
PLAYER = f"{sys.executable} {SAMPLES / 'gtp_player.py'}"
REF = Game("3x3k3")
CELLS = {".": 0, "x": 1, "o": 2}


@pytest.fixture(scope="module")
def db(table_db: Callable[[str], str]) -> str:
    return table_db("3x3k3")


@pytest.fixture(scope="module")
def tb(db: str) -> Iterator[Tablebase]:
    with open_tablebase(db) as t:
        yield t


def cells(text: str) -> tuple[int, ...]:
    return tuple(CELLS[c] for c in text.replace("/", ""))


def cell_of(move: str) -> int:
    return (3 - int(move[1:])) * 3 + "abc".index(move[0])


def name_of(cell: int) -> str:
    return "abc"[cell % 3] + str(3 - cell // 3)


def ref_move_outcome(board: tuple[int, ...], move: str) -> tuple[int, int]:
    """(value, depth) of playing `move` on `board`, for the player making it, by plain negamax."""
    v, d = REF.solve(REF.child(board, cell_of(move)))
    return -v, d + 1


# --- players written here, on the reference negamax ------------------------------------------

def perfect_player(board: str, to_move: str) -> str | None:
    """A move keeping value and depth (fastest win, slowest loss), or None when the game is over."""
    b = cells(board)
    best = None
    for c in REF.moves(b):
        mine = ref_move_outcome(b, name_of(c))
        if best is None or better(mine, best[0]):
            best = (mine, c)
    return None if best is None else name_of(best[1])


def value_player(board: str, to_move: str) -> tuple[None, str | None]:
    """A move keeping the value, not always the depth (the last such move in cell order)."""
    b = cells(board)
    value = REF.solve(b)[0]
    keeping = [c for c in REF.moves(b) if ref_move_outcome(b, name_of(c))[0] == value]
    return None, (name_of(keeping[-1]) if keeping else None)


def naive_player(board: str, to_move: str) -> str:
    """The first empty cell, top left first: a player that throws games away."""
    return name_of(board.replace("/", "").index("."))


# --- reading answers --------------------------------------------------------------------------

def test_move_only_answers_and_integral_floats_are_read() -> None:
    assert read_return("b2").shape == "move" and read_return("b2").move == "b2"
    assert read_return((None, "c1")).shape == "move" and read_return((None, "c1")).value is None
    assert read_return(None).move_only and read_return(None).move is None
    assert read_return((None, "a1", 4)).shape == "move, depth"
    for number, value in ((1.0, Value.WIN), (0.0, Value.DRAW), (-1.0, Value.LOSS),
                          (np.float32(-1.0), Value.LOSS), (np.float64(1.0), Value.WIN)):
        assert read_return(number).value == value
        assert read_return((number, "b2", 3.0)).depth == 3
    bad = [read_return(x) for x in (0.5, -0.999, float("nan"), float("inf"), np.float32(0.5),
                                    (1.5, "b2"), "b2 please")]
    assert {r.failure.kind for r in bad if r.failure} == {"bad-answer"} and all(r.failure for r in bad)
    # Floats that are not whole get the same message as any other unreadable value.
    assert "1, 0, -1 (1.0, 0.0, -1.0 too)" in bad[0].failure.message  # type: ignore[union-attr]
    assert bad[0].failure.message.split(": ", 1)[1] == read_return(7).failure.message.split(": ", 1)[1]  # type: ignore[union-attr]


def test_float_values_are_audited_like_ints(tb: Tablebase) -> None:
    def floats(board: str, to_move: str) -> tuple[float, str | None]:
        move = perfect_player(board, to_move)
        return float(REF.solve(cells(board))[0]), move

    report = audit(tb, "3x3k3", FunctionCandidate(floats), selection=Selection("all"))
    assert report.ok and report.shapes == {"value, move": 627, "value": 138}


# --- move-only functions ----------------------------------------------------------------------

def test_a_right_player_passes_on_every_image_and_finished_games(tb: Tablebase) -> None:
    report = audit(tb, "3x3k3", FunctionCandidate(value_player), selection=Selection("all"),
                   every_orientation=True)
    # No move at a finished game is the right answer: checked, not left unchecked.
    assert report.ok and report.agreed == report.boards == report.checked["move"]
    assert report.shapes == {"move": report.boards}


def test_a_blundering_player_is_caught_and_the_reference_agrees(tb: Tablebase) -> None:
    report = audit(tb, "3x3k3", FunctionCandidate(naive_player), every_orientation=True,
                   max_examples=50)
    assert not report.ok and set(report.mismatches) == {"non-optimal-move"}
    for e in report.examples:
        assert e.after is not None and e.refutation[0] == e.after
        value, _ = REF.solve(e.board)
        assert ref_move_outcome(e.board, e.after)[0] < value == int(e.value)
    # The count is the reference's own: boards whose first empty cell loses value.
    expected = 0
    for image in {i for code in tb.table("3x3k3").load().codes.tolist()
                  for i in REF.images(REF.board(code)) if REF.terminal_value(i) is None}:
        first = next(c for c, v in enumerate(image) if v == 0)
        expected += ref_move_outcome(image, name_of(first))[0] < REF.solve(image)[0]
    assert report.mismatched == expected


def test_check_depth_judges_a_players_move_by_the_depth_it_keeps(tb: Tablebase) -> None:
    assert audit(tb, "3x3k3", FunctionCandidate(perfect_player), check="depth").ok
    assert audit(tb, "3x3k3", FunctionCandidate(value_player), check="move").ok
    slow = audit(tb, "3x3k3", FunctionCandidate(value_player), check="depth", max_examples=100)
    assert set(slow.mismatches) == {"non-optimal-move"}
    for e in slow.examples:
        assert e.after is not None
        kept, best = ref_move_outcome(e.board, e.after), REF.solve(e.board)
        assert kept[0] == best[0] and kept[1] != best[1]


def test_check_depth_refuses_answers_without_a_depth(db: str, tb: Tablebase,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def value_move(board: str, to_move: str) -> tuple[int, str | None]:
        return REF.solve(cells(board))[0], perfect_player(board, to_move)

    # The refusal is said once the answers are in, whatever the positions: those with 2 stones
    # are enough to show it.
    with pytest.raises(AuditInputError, match=r"needs answers that give a depth.*\(value, move\)"):
        audit(tb, "3x3k3", FunctionCandidate(value_move), check="depth",
              selection=Selection("ply", 2))
    monkeypatch.chdir(SAMPLES)
    status = main(["audit", "3x3k3", "--db", db, "--solver", "user_negamax:solve",
                   "--check", "depth", "--quiet", "--positions", "ply:2"])
    out, err = capsys.readouterr()
    # One error line; a slow machine may also get the note of how long the audit would take.
    errors = [line for line in err.splitlines() if not line.startswith("tablebase: note:")]
    assert status == 2 and out == "" and len(errors) == 1
    assert "--check depth needs answers that give a depth, (value, move, depth)" in errors[0]


def test_exceptions_fold_into_one_line_and_failures_print_no_refutation(
        db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    (tmp_path / "two_lines.py").write_text(
        "def solve(board, to_move):\n"
        "    if board.count('.') == 8:\n"
        "        raise ValueError('first line\\n  second line')\n"
        "    if board.count('.') == 7:\n"
        "        return 'nonsense here'\n"
        "    return 0\n")
    monkeypatch.chdir(tmp_path)
    status = main(["audit", "3x3k3", "--db", db, "--solver", "two_lines:solve", "--quiet",
                   "--positions", "ply:1", "--orientations", "random"])
    out, _ = capsys.readouterr()
    assert status == 1
    assert "   wrong:    ValueError: first line second line (at two_lines.py:3)" in out
    assert "refuted" not in out
    status = main(["audit", "3x3k3", "--db", db, "--solver", "two_lines:solve", "--quiet",
                   "--positions", "ply:2", "--orientations", "random"])
    out, _ = capsys.readouterr()
    assert status == 1 and "bad-answer" in out and "refuted" not in out


# --- GTP engines asked genmove ----------------------------------------------------------------

def test_a_genmove_engine_is_audited_by_its_moves(tb: Tablebase) -> None:
    """On 40 positions drawn over every ply and value, terminal ones included (an engine's `pass`
    where the game is over is the right answer), each in every image: every board costs GTP
    round trips, and the right player's agreement on every image of every position is
    test_a_right_player_passes_on_every_image_and_finished_games's."""
    spec = parse_spec("3x3k3")
    some = Selection("sample", 40, within=(Selection("all"),))
    codes = select_positions(tb, spec, some).codes.tolist()
    assert any(REF.terminal_value(REF.board(code)) is not None for code in codes)
    with open_gtp_engine(PLAYER, spec) as engine:
        assert engine.engine.asks == "genmove"
        report = audit(tb, spec, engine, selection=some, every_orientation=None)
    assert report.ok and report.every_orientation and report.shapes == {"move": report.boards}
    assert report.positions == 40 and report.boards > 40
    assert report.asked is not None and "genmove x" in report.asked
    with open_gtp_engine(f"{PLAYER} --blunder", spec) as engine:
        report = audit(tb, spec, engine, selection=Selection("sample", 40), every_orientation=None,
                       max_examples=20)
    assert set(report.mismatches) == {"non-optimal-move"}
    for e in report.examples:
        assert e.after is not None
        assert ref_move_outcome(e.board, e.after)[0] < REF.solve(e.board)[0]


# --- audit by play ----------------------------------------------------------------------------

def test_opponents_are_read() -> None:
    assert parse_opponent(None) == Opponent("perfect") and parse_opponent("random").kind == "random"
    assert parse_opponent("level:3") == Opponent("level", 3)
    for bad in ("level:11", "level:", "strong"):
        with pytest.raises(AuditInputError):
            parse_opponent(bad)


@pytest.mark.parametrize("opponent", ["perfect", "random", "level:5"])
def test_a_right_engine_keeps_every_value_in_play(tb: Tablebase, opponent: str) -> None:
    spec = parse_spec("3x3k3")
    with open_gtp_engine(PLAYER, spec) as engine:
        report = play_audit(tb, spec, engine, 6, opponent=parse_opponent(opponent), seed=1)
    assert report.ok and report.games == 6 and report.lost == 0
    assert report.results["loss"] == report.results["forfeit"] == 0
    if opponent == "perfect":
        assert report.results == {"win": 0, "draw": 6, "loss": 0, "forfeit": 0}
    # Each of the engine's turns was judged: x plays 5 times in a draw, o 4 times.
    assert report.moves_judged >= 6 * 2


def test_a_blundering_engine_loses_value_in_play_and_the_reference_agrees(tb: Tablebase) -> None:
    spec = parse_spec("3x3k3")
    with open_gtp_engine(f"{PLAYER} --blunder", spec) as engine:
        report = play_audit(tb, spec, engine, 4, seed=0, max_examples=10)
    assert not report.ok and report.lost == sum(report.lost_by_ply.values()) > 0
    assert report.results["loss"] == 4  # the table punishes every throw-away
    for e in report.examples:
        value = REF.solve(e.board)[0]
        assert int(e.value) == value
        assert ref_move_outcome(e.board, e.move)[0] == int(e.after_value) < value
        assert e.refutation[0] == e.move and len(e.refutation) == e.after_depth


def test_audit_by_play_on_the_command_line(db: str, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    status = main(["audit", "3x3k3", "--db", db, "--engine", PLAYER, "--play", "4", "--quiet",
                   "--as", "o", "--opponent", "random"])
    out, _ = capsys.readouterr()
    assert status == 0, out
    assert out.startswith(f"audit by play of {PLAYER} on 3x3k3: 4 games, the player as o,"
                          " the table as random (seed 0)")
    assert out.rstrip().endswith("moves kept its position's value")
    status = main(["audit", "3x3k3", "--db", db, "--engine", f"{PLAYER} --blunder", "--play", "2",
                   "--quiet", "--max-examples", "1"])
    out, _ = capsys.readouterr()
    assert status == 1 and "first value-losing moves (1 of " in out and "   refuted:  " in out
    status = main(["audit", "3x3k3", "--db", db, "--engine", PLAYER, "--play", "2", "--json",
                   "--quiet"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["games"] == 2 and data["value_losing"] == 0
    assert sum(data["results"].values()) == 2 and "genmove" in data["asked"]
    # A function plays too: asked for each of its turns.
    monkeypatch.chdir(SAMPLES)
    status = main(["audit", "3x3k3", "--db", db, "--solver", "user_negamax:solve", "--play", "6",
                   "--quiet"])
    out, _ = capsys.readouterr()
    assert status in (0, 1) and "audit by play of user_negamax:solve" in out
    for argv in (["--builtin", "all", "--play", "2"], ["--engine", PLAYER, "--play", "0"],
                 ["--engine", PLAYER, "--play", "2", "--opponent", "best"]):
        status = main(["audit", "3x3k3", "--db", db, "--quiet", *argv])
        err = capsys.readouterr().err
        assert status == 2 and err.count("\n") == 1, argv


# --- a solver nobody here wrote ---------------------------------------------------------------

sys.path.insert(0, str(SAMPLES))
import easyai_negamax  # noqa: E402  (easyAI is in the test extra: a missing one fails, not skips)


@pytest.mark.slow
def test_easyai_negamax_9_agrees_on_every_position_and_image(tb: Tablebase) -> None:
    report = audit(tb, "3x3k3", FunctionCandidate(easyai_negamax.solve9),
                   selection=Selection("all"), every_orientation=True)
    assert report.ok and report.agreed == report.boards > 5000
    assert report.checked["move"] == report.boards


def test_easyai_negamax_4_is_caught_and_the_reference_confirms(tb: Tablebase) -> None:
    """Every image of the positions with 0 to 4 stones: only there (5 or more empty cells) can a
    4-ply horizon fall short. With 4 or fewer empty cells Negamax(4) searches to the end of
    the game, the very search of Negamax(9), which the test above audits on every board."""
    reports = [audit(tb, "3x3k3", FunctionCandidate(easyai_negamax.solve4), check="move",
                     selection=Selection("ply", ply), every_orientation=True, max_examples=1000)
               for ply in range(5)]
    assert sum(r.mismatches.get("wrong-value", 0) for r in reports) > 0
    for report in reports[1:]:  # the empty board's move is found within 4 plies
        assert not report.ok
    for report in reports:
        assert set(report.mismatches) <= {"wrong-value", "non-optimal-move"}
        assert len(report.examples) == report.mismatched_positions
    for e in (e for report in reports for e in report.examples):
        value, _ = REF.solve(e.board)
        said = read_return(eval(e.said))  # the solver's own (value, move), as it returned it
        if e.kind == "wrong-value":
            assert said.value is not None and int(said.value) != value
        else:
            assert said.move is not None and ref_move_outcome(e.board, said.move)[0] < value


# --- the textbook solvers: a note before a long run ----------------------------------------------

def test_builtin_all_estimates_before_it_starts(db: str, tb: Tablebase,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from tablebase.query.audit import estimate
    from tablebase.query.audit.estimate import estimate_builtins

    spec = parse_spec("3x3k3")
    estimates = {e.name: e for e in estimate_builtins(tb, spec, ["negamax", "alphabeta-sym"],
                                                      Selection("ply", 6))}
    # Measured on samples: the full-width search visits far more nodes than the pruned one.
    assert estimates["negamax"].nodes > estimates["alphabeta-sym"].nodes > 0
    assert main(["audit", "3x3k3", "--db", db, "--builtin", "alphabeta", "--quiet",
                 "--positions", "ply:6"]) == 0
    assert "note" not in capsys.readouterr().err  # seconds, not minutes: no note
    monkeypatch.setattr(estimate, "SLOW", 0.0)
    assert main(["audit", "3x3k3", "--db", db, "--builtin", "alphabeta", "--quiet",
                 "--positions", "ply:6"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("tablebase: note: the textbook solvers may take about")
    assert "estimated from node counts" in err and err.count("\n") == 1


def test_the_estimate_keeps_its_own_budget(tb: Tablebase, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sample whose expected time would overrun the estimate's budget is extrapolated, not
    searched: here each earlier ply costs ten times the one after it (its nodes too), so after
    two samples (0.01 s and 0.1 s) the third (about 1 s) would overrun 0.3 s."""
    from tablebase.query.audit import estimate
    from tablebase.query.audit.solvers import SOLVERS

    searched: list[int] = []

    class Found:
        def __init__(self, nodes: int) -> None:
            self.nodes = nodes

    def costly(spec: object, board: tuple[int, ...]) -> Found:
        empty = sum(1 for v in board if v == 0)
        searched.append(empty)
        time.sleep(0.01 * 10 ** empty)
        return Found(10 ** empty)

    monkeypatch.setitem(SOLVERS, "costly", costly)
    monkeypatch.setattr(estimate, "SAMPLE_BUDGET", 0.3)
    found, = estimate.estimate_builtins(tb, parse_spec("3x3k3"), ["costly"], Selection("all"))
    assert searched == [0, 1]  # the full board, then one empty cell; then extrapolated
    assert found.nodes > 10 ** 8  # the extrapolation still counts the empty board's 10^9


# --- any other solver: timed on its first answers -------------------------------------------------

def test_a_long_audit_is_estimated_from_its_first_answers(tb: Tablebase,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The first answers are timed and the audit's length said once, when it is long: a solver
    taking 20 ms an answer is estimated at about 20 ms a board."""
    from tablebase.query.audit import estimate

    game = Game("3x3k3")

    def slow(board: str, to_move: str) -> int:
        time.sleep(0.02)
        return game.solve(tuple(".xo".index(c) for c in board.replace("/", "")))[0]

    notes: list[str] = []
    report = audit(tb, "3x3k3", FunctionCandidate(slow), selection=Selection("ply", 3),
                   notice=notes.append)
    assert report.ok and notes == []  # about 2 seconds: not worth a note
    monkeypatch.setattr(estimate, "WORTH_SAYING", 0.0)
    report = audit(tb, "3x3k3", FunctionCandidate(slow), selection=Selection("ply", 3),
                   notice=notes.append)
    assert len(notes) == 1 and f"{report.boards:,} boards at" in notes[0]
    each = float(notes[0].split(" boards at ")[1].split(" s an answer")[0])
    assert 0.02 <= each < 0.04 and "timed on the first 8" in notes[0]
