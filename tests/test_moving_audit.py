"""Auditing solvers and engines on games whose stones move (`+stonesN`): a solver with a horizon
(tests/audit_samples/moving_horizon.py, which reads the board text and the side to move itself)
is caught exactly where the table's wins and losses are longer than its horizon, in every image
of every position; a draw by endless play has no depth to check; engines are put into positions
by placements and steps; and what cannot be audited is refused in one line."""
from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.builder.games.registry import grid_game
from tablebase.builder.games.stones.notation import parse_moving, play_moving
from tablebase.builder.games.stones.reaching import moves_reaching
from tablebase.query import Tablebase, open_tablebase
from tablebase.query.audit import FunctionCandidate, audit, parse_selection
from tablebase.query.audit.by_play import play_audit
from tablebase.query.cli import main
from tests.audit_samples.moving_horizon import solver

MORRIS = "3x3k3+stones3"
SAMPLES = Path(__file__).resolve().parent / "audit_samples"


@pytest.fixture(scope="module")
def tb(table_db: Callable[[str], str]) -> Iterator[Tablebase]:
    for name in ("3x3k3+stones3+jump", "4x3k3+stones3"):
        table_db(name)
    with open_tablebase(table_db(MORRIS)) as opened:
        yield opened


def _decided(tb: Tablebase, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, depth, unfinished) of every stored position, from the table's rows: a draw's
    depth is meaningless there (by endless play), so only decided ones are compared."""
    rows = tb.table(name).load()
    unfinished = (rows.value == 0) | (rows.depth > 0)
    return rows.value, rows.depth, unfinished


@pytest.mark.parametrize("name, horizon", [(MORRIS, 4), (MORRIS, 6),
                                           ("3x3k3+stones3+jump", 3),
                                           ("4x3k3+stones3", 8)])
def test_a_horizon_is_caught_exactly_beyond_it(tb: Tablebase, name: str, horizon: int) -> None:
    value, depth, unfinished = _decided(tb, name)
    beyond = int((unfinished & (value != 0) & (depth > horizon)).sum())
    every = name != "4x3k3+stones3"
    selection = parse_selection(None if every else "sample:150")
    report = audit(tb, name, FunctionCandidate(solver(horizon)), check="value",
                   every_orientation=every, selection=selection, max_examples=50)
    if every:
        assert report.positions == int(unfinished.sum())
        assert report.mismatched_positions == beyond > 0
    else:  # exactly the sample's decided positions beyond the horizon
        from tablebase.query.audit.selection import select_positions

        sample = select_positions(tb, parse_spec(name), selection)
        assert report.positions == len(sample.codes) == 150
        assert report.mismatched_positions == int(((sample.value != 0)
                                                   & (sample.depth > horizon)).sum())
    assert set(report.mismatches) <= {"wrong-value"} and report.mismatched_positions > 0
    for e in report.examples:
        assert e.value != Value.DRAW and e.depth is not None and e.depth > horizon
        assert e.said.startswith("(0,")  # the horizon, called a draw
        assert e.refutation and e.to_move == grid_game(parse_spec(name)).side(e.board)


def test_past_the_longest_win_every_value_and_move_agrees(tb: Tablebase) -> None:
    value, depth, unfinished = _decided(tb, MORRIS)
    longest = int(depth[value != 0].max())
    report = audit(tb, MORRIS, FunctionCandidate(solver(longest + 1)), every_orientation=True)
    assert report.ok and report.agreed == report.boards > report.positions
    assert report.checked == {"value": report.boards, "move": report.boards}


def _from_table(tb: Tablebase, draw_depth: int, shift: int) -> Callable[..., Any]:
    """A solver answering from the table itself: (value, a best move, depth + shift), and
    `draw_depth` as a draw's depth."""
    def solve(board: str, to_move: str, spec: str) -> tuple[int, str | None, int]:
        position = f"{board} {to_move}"
        probe = tb.probe(spec, position)
        best = tb.best_moves(spec, position)
        depth = draw_depth if probe.depth is None else probe.depth + shift
        return int(probe.value), best[0].move if best else None, depth
    return solve


def test_a_draw_by_endless_play_has_no_depth_to_check(tb: Tablebase) -> None:
    value, _, unfinished = _decided(tb, MORRIS)
    decided = int((unfinished & (value != 0)).sum())
    report = audit(tb, MORRIS, FunctionCandidate(_from_table(tb, 99, 0)))  # one image each
    assert report.ok and report.checked["depth"] == decided < report.boards
    report = audit(tb, MORRIS, FunctionCandidate(_from_table(tb, 0, 1)), check="depth")
    assert report.mismatches == {"wrong-depth": decided}
    report = audit(tb, MORRIS, FunctionCandidate(_from_table(tb, 5, 0)), check="depth",
                   selection=parse_selection("depth:3-5"))
    assert report.ok and all(c == report.positions for c in report.checked.values())


def test_depth_and_hardest_selections_pass_over_draws(tb: Tablebase) -> None:
    from tablebase.query.audit.selection import answer_depths, select_positions

    spec = parse_spec(MORRIS)
    value, depth, unfinished = _decided(tb, MORRIS)
    rows = select_positions(tb, spec, parse_selection("depth:2-6"))
    expected = unfinished & (value != 0) & (depth >= 2) & (depth <= 6)
    assert len(rows.codes) == int(expected.sum()) and (rows.value != 0).all()
    hardest = select_positions(tb, spec, parse_selection("hardest:500"))
    decided = int((unfinished & (value != 0)).sum())
    depths = answer_depths(spec, hardest.value, hardest.depth)
    assert sum(d is not None for d in depths) == decided < 500  # every decided one, then draws
    assert set(hardest.ply.tolist()) <= set(range(2 * spec.stones + 1))  # plies are stones


@pytest.mark.parametrize("name", [MORRIS, "3x3k3+stones3+jump"])
def test_moves_reaching_every_position(tb: Tablebase, name: str) -> None:
    spec = parse_spec(name)
    rows = tb.table(name).load()
    from tablebase.query.audit.selection import stored_positions

    for position in stored_positions(tb, spec, rows.codes):
        moves = " ".join(grid_game(spec).name(m) for m in moves_reaching(spec, position))
        assert play_moving(spec, moves, grid_game(spec).start()) == position


def test_audit_by_play(tb: Tablebase, table_db: Callable[[str], str],
                       capsys: pytest.CaptureFixture[str]) -> None:
    perfect = play_audit(tb, MORRIS, FunctionCandidate(solver(8)), 4)
    assert perfect.ok and perfect.results["draw"] == perfect.ruled_draws == 4
    weak = play_audit(tb, MORRIS, FunctionCandidate(solver(1)), 6, max_examples=20)
    assert weak.lost > 0 and not weak.ok
    for e in weak.examples:
        before = tb.probe(MORRIS, e.board)
        child = grid_game(parse_spec(MORRIS)).played(e.board,
                             grid_game(parse_spec(MORRIS)).read_move(e.board, e.move))
        assert Value(-tb.probe(MORRIS, child).value) == e.after_value != before.value
    db = table_db(MORRIS)
    engine = f"{sys.executable} -m tablebase gtp {MORRIS} --db {db} --level 0 --seed 2"
    status = main(["audit", MORRIS, "--engine", engine, "--play", "6", "--db", db, "--json",
                   "--quiet", "--opponent", "random"])
    data = json.loads(capsys.readouterr().out)
    assert status in (0, 1) and sum(data["results"].values()) == 6
    assert data["results"]["forfeit"] == 0 and data["value_losing"] > 0


def test_positions_from_a_file(tb: Tablebase, table_db: Callable[[str], str], tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    db = table_db(MORRIS)
    monkeypatch.chdir(SAMPLES)
    listed = tmp_path / "few.txt"
    listed.write_text("# one\nxo./.xo/x.o o\nb2 a1 c3 a3 a2 c1 c3-c2\n")
    target = "moving_horizon:solve"
    assert main(["audit", MORRIS, "--solver", target, "--db", db, "--positions",
                 f"file:{listed}", "--json", "--quiet"]) in (0, 1)
    data = json.loads(capsys.readouterr().out)
    assert data["positions"] == 2
    listed.write_text("xo./.xo/x.o\n")
    assert main(["audit", MORRIS, "--solver", target, "--db", db, "--positions",
                 f"file:{listed}"]) == 2
    err = capsys.readouterr().err
    assert "line 1" in err and "add ' x' or ' o' after the board" in err and err.count("\n") == 1


def test_refusals_in_one_line(table_db: Callable[[str], str], tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    db = table_db(MORRIS)
    course = tmp_path / "course.gtp"
    course.write_text("boardsize 3\nplay b B2\n10 solve\n#? [draw]\n")
    engine = f"{sys.executable} -m tablebase gtp {MORRIS} --db {db}"
    for args, said in [
            (["--builtin", "all"], "the textbook solvers search games that end"),
            (["--solver", "builtin:negamax"], "the textbook solvers search games that end"),
            (["--engine", engine, "--dialect", "course"], "the course dialect plays N x N boards"),
            (["--solver", "x:y", "--positions", f"file:{course}"],
             "a course test file plays games whose stones are only placed"),
            (["--solver", "x:y", "--root", "x.o/.../..."], "no endgame table of")]:
        assert main(["audit", MORRIS, "--db", db, *args]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1 and "Traceback" not in err


def test_an_endgame_table(tmp_path: Path) -> None:
    # From o's turn with every stone down, a draw by endless play:
    #   3 | o . x
    #   2 | x x .
    #   1 | o . o
    from tablebase.builder.pipeline import build

    spec, root = parse_spec(MORRIS), "o.x/xx./o.o o"
    db = str(tmp_path / "endgame.db")
    build(spec, db, root=parse_moving(spec, root))
    with open_tablebase(db) as tb:
        rows = tb.table(MORRIS, root).load()
        decided = ((rows.value != 0) & (rows.depth > 0)).sum()
        unfinished = int(((rows.value == 0) | (rows.depth > 0)).sum())
        report = audit(tb, MORRIS, FunctionCandidate(solver(2)), root=root, check="value")
        beyond = int(((rows.value != 0) & (rows.depth > 2)).sum())
        assert report.positions == unfinished and decided > beyond > 0
        assert report.mismatched_positions == beyond
        longest = int(rows.depth[rows.value != 0].max())
        assert audit(tb, MORRIS, FunctionCandidate(solver(longest + 1)), root=root).ok
        listed = tmp_path / "listed.txt"
        listed.write_text(f"{root}\n{root} a1-b1\n")
        report = audit(tb, MORRIS, FunctionCandidate(solver(longest + 1)), root=root,
                       selection=parse_selection(f"file:{listed}"))
        assert report.ok and report.positions == 2
