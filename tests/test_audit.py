"""The audit (query/audit/ and `tablebase audit`): the textbook solvers agree with the
tables; deliberately broken solvers (tests/audit_samples/broken_solvers.py) are caught with the
right kind and their smallest counterexample, checked against an independent judge built on
tests/reference.py; fake engines are caught on exactly their wrong position or time out and the
audit goes on; and the exit statuses 0, 1 and 2."""
from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tablebase.builder.games.grid import (
    Value,
    canonical_board,
    decode,
    parse_spec,
    permutations,
    play,
    transform,
)
from tablebase.query.audit import (
    CHECKS,
    AuditInputError,
    BuiltinCandidate,
    FunctionCandidate,
    Selection,
    audit,
    audit_builtins,
    builtin_names,
    moves_to,
    open_candidate,
    open_gtp_engine,
    orientations,
    read_return,
    select_positions,
)
from tablebase.query.audit.processes import (
    EngineStartError,
    GameRefusedError,
    SolverImportError,
    split_target,
)
from tablebase.query.audit.solvers import SOLVERS
from tablebase.query.cli import main
from tablebase.query.tablebase import Tablebase, open_tablebase
from tests.reference import Game

SAMPLES = Path(__file__).resolve().parent / "audit_samples"
ENGINE = f"{sys.executable} {SAMPLES / 'fake_engine.py'}"
TICTACTOE_SPECS = ("3x3k3", "3x3k3+misere", "3x3k3+gravity")
# Tic-tac-toe: 765 stored positions, 138 of them terminal.
STORED, NON_TERMINAL = 765, 627


@pytest.fixture(scope="module")
def db(table_db: Callable[[str], str]) -> str:
    for name in TICTACTOE_SPECS:
        path = table_db(name)
    return path


@pytest.fixture
def tb(db: str) -> Iterator[Tablebase]:
    with open_tablebase(db) as opened:
        yield opened


@pytest.fixture(scope="module")
def broken() -> ModuleType:
    """tests/audit_samples/broken_solvers.py, imported in this process."""
    found = importlib.util.spec_from_file_location("broken_solvers", SAMPLES / "broken_solvers.py")
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


# --- the textbook solvers --------------------------------------------------------------------

# The audit's machinery on every position of one game; each solver's answers on every position
# of tic-tac-toe and misère are checked against the table in tests/test_solvers.py.
@pytest.mark.parametrize("spec", ["3x3k3+gravity"])
def test_every_textbook_solver_agrees_on_every_canonical_position(tb: Tablebase, spec: str) -> None:
    audits = audit_builtins(tb, spec, builtin_names("all"), selection=Selection("all"))
    assert [a.name for a in audits] == list(SOLVERS)
    for a in audits:
        r = a.report
        assert r.ok and r.declined == 0, (spec, a.name, r.mismatches, r.examples[:1])
        assert r.positions == r.boards == r.agreed == tb.table(spec).count
        assert a.nodes is not None and a.nodes > 0
        # Every answer was checked as far as its shape allows: moves everywhere (no move where
        # the game is over is the right move, and is counted as checked), and the depth-aware
        # solver's depths everywhere.
        assert r.checked["value"] == r.positions and r.checked["move"] == r.positions
        assert r.checked.get("depth", 0) == (r.positions if a.name == "depth" else 0)


def test_textbook_node_counts_on_the_empty_board(tb: Tablebase) -> None:
    audits = audit_builtins(tb, "3x3k3+gravity", ["negamax", "alphabeta-sym"],
                            selection=Selection("ply", 8))
    assert {a.name: a.nodes for a in audits} == {"negamax": 3_278, "alphabeta-sym": 148}
    # The empty board audited too (every position): its count is the audit's own solve of it.
    audits = audit_builtins(tb, "3x3k3+gravity", ["negamax", "alphabeta-sym"],
                            selection=Selection("all"))
    assert {a.name: a.nodes for a in audits} == {"negamax": 3_278, "alphabeta-sym": 148}


def test_builtin_names() -> None:
    assert builtin_names("all") == list(SOLVERS)
    assert builtin_names("negamax") == ["negamax"]
    with pytest.raises(AuditInputError, match="no textbook solver named 'nope'; known: minimax"):
        builtin_names("nope")


# --- broken solvers, against an independent judge ---------------------------------------------

def _text(game: Game, board: tuple[int, ...]) -> str:
    rows = ["".join(".xo"[v] for v in board[r * game.w:(r + 1) * game.w]) for r in range(game.h)]
    return "/".join(rows)


def _cell(game: Game, move: str) -> int:
    return (game.h - int(move[1:])) * game.w + "abc".index(move[0])


def independent_kind(game: Game, function: Callable[..., object], board: tuple[int, ...]
                     ) -> str | None:
    """The mismatch kind of `function` on `board`, judged with tests/reference.py only."""
    to_move = "x" if game.stones(board) % 2 == 0 else "o"
    try:
        said = function(_text(game, board), to_move)
    except Exception:
        return "exception"
    value, move = said[:2] if isinstance(said, tuple) else (said, None)
    value = {"win": 1, "draw": 0, "loss": -1}.get(value, value)  # type: ignore[call-overload]
    if value != game.solve(board)[0]:
        return "wrong-value"
    if move is None:
        return None
    cell = _cell(game, move)
    if cell not in game.moves(board):
        return "illegal-move"
    if -game.solve(game.child(board, cell))[0] != value:
        return "non-optimal-move"
    return None


@pytest.mark.parametrize(("name", "kinds"), [
    ("forgets_negation", {"wrong-value", "non-optimal-move"}),
    ("draws_as_losses", {"wrong-value", "non-optimal-move"}),
    ("depth_two", {"wrong-value", "non-optimal-move"}),
    ("first_legal_move", {"non-optimal-move"}),
    ("raises_sometimes", {"exception"}),
    ("occupied_cell", {"illegal-move"}),
])
def test_broken_solvers_are_caught_with_the_smallest_counterexample(
        tb: Tablebase, broken: ModuleType, name: str, kinds: set[str]) -> None:
    function = getattr(broken, name)
    report = audit(tb, "3x3k3", FunctionCandidate(function), every_orientation=True, check="move")
    assert set(report.mismatches) == kinds
    # Every distinct image of every stored unfinished position was shown: that is every
    # reachable unfinished board, each judged independently here.
    game, spec = Game("3x3k3"), parse_spec("3x3k3")
    expected: dict[str, int] = {}
    bad_positions: dict[int, int] = {}
    for board in game.reachable():
        if not game.moves(board):
            continue
        kind = independent_kind(game, function, board)
        if kind is not None:
            expected[kind] = expected.get(kind, 0) + 1
            bad_positions[canonical_board(spec, board)] = game.stones(board)
    assert report.boards == sum(1 for b in game.reachable() if game.moves(b))
    assert report.mismatches == expected
    assert report.mismatched_positions == len(bad_positions)
    smallest = min((ply, code) for code, ply in bad_positions.items())
    first = report.examples[0]
    assert (first.ply, first.code) == smallest
    assert canonical_board(spec, first.board) == first.code
    assert first.kind in kinds
    # At most ten examples, fewest stones first, the smallest of each kind among them.
    assert len(report.examples) == min(10, len(bad_positions))
    assert [(e.ply, e.code) for e in report.examples] == sorted((e.ply, e.code)
                                                                for e in report.examples)
    assert {e.kind for e in report.examples} == kinds


def test_a_counterexample_carries_the_refuting_line(tb: Tablebase, broken: ModuleType) -> None:
    report = audit(tb, "3x3k3", FunctionCandidate(broken.first_legal_move), max_examples=3)
    assert report.mismatches == {"non-optimal-move": report.mismatched} and len(report.examples) == 3
    for e in report.examples:
        # The solver's move, then perfect play to the end: the line is legal and ends worse for
        # the side to move than the table's value.
        assert e.after is not None and e.refutation[0] == e.after and e.refutation_value < e.value
        assert e.detail.startswith(f"{e.after} gives {e.refutation_value.word} in")
        assert e.best_moves and e.after not in e.best_moves
        board = e.board
        for move in e.refutation:
            board = play(parse_spec("3x3k3"), board, _cell(Game("3x3k3"), move))
    wrong = audit(tb, "3x3k3", FunctionCandidate(broken.depth_two))
    e = next(e for e in wrong.examples if e.kind == "wrong-value")
    # A wrong value is refuted by the table's perfect line from the position itself.
    assert e.after is None and len(e.refutation) == e.depth and e.refutation_value == e.value
    assert e.said.startswith("(") and e.detail.startswith("said ")


def test_a_solver_right_on_one_image_and_wrong_on_another(tb: Tablebase, broken: ModuleType) -> None:
    # Wrong only when the lone x sits on c3: one image of the corner opening, out of four.
    def biased(board: str, to_move: str) -> object:
        return (1, "b2") if board == "..x/.../..." else broken.correct(board, to_move)

    # Every image of the openings (elsewhere `biased` is `correct`, which agrees on every image
    # of every position in test_exit_statuses).
    every = audit(tb, "3x3k3", FunctionCandidate(biased), selection=Selection("ply", 1),
                  every_orientation=True)
    assert every.mismatches == {"wrong-value": 1} and every.examples[0].board == (0, 0, 1) + (0,) * 6
    caught = [audit(tb, "3x3k3", FunctionCandidate(biased), selection=Selection("ply", 1),
                    seed=seed).mismatched for seed in range(16)]
    assert 0 < sum(caught) < 16  # the random image finds it under some seeds only


def test_orientations_depend_only_on_the_seed_and_the_code(tb: Tablebase) -> None:
    spec = parse_spec("3x3k3")
    codes = tb.table(spec).load().codes
    maps = orientations(spec, codes, seed=0)
    assert set(maps.tolist()) == set(range(len(permutations(spec))))
    assert np.array_equal(orientations(spec, codes[100:200], seed=0), maps[100:200])
    assert not np.array_equal(orientations(spec, codes, seed=1), maps)


def test_terminal_positions_are_audited_with_all(tb: Tablebase, broken: ModuleType) -> None:
    report = audit(tb, "3x3k3", FunctionCandidate(broken.correct), selection=Selection("all"))
    assert report.ok and report.positions == STORED
    assert report.shapes == {"value, move, depth": NON_TERMINAL, "value, depth": STORED - NON_TERMINAL}

    def moves_after_the_end(board: str, to_move: str) -> object:
        value, move, depth = broken.correct(board, to_move)
        return value, move or "a1", depth

    report = audit(tb, "3x3k3", FunctionCandidate(moves_after_the_end), selection=Selection("all"))
    assert report.mismatches == {"illegal-move": STORED - NON_TERMINAL}
    assert "comes after the end of the game" in report.examples[0].detail


# --- checks and answer shapes ------------------------------------------------------------------

def test_answers_are_read_in_every_documented_shape() -> None:
    assert read_return(1).value == Value.WIN and read_return(1).shape == "value"
    assert read_return("Draw").value == Value.DRAW
    assert read_return(np.int8(-1)).value == Value.LOSS
    assert read_return((0, "b2")).shape == "value, move" and read_return([0, "b2"]).move == "b2"
    assert read_return((1, "a1", np.int64(3))).depth == 3
    assert read_return((-1, None)).shape == "value"
    assert read_return((1, None, 5)).shape == "value, depth"
    for bad in (True, 2, "maybe so", (1,), (1, "a1", 3, 4), (1, 4), (1, "a1", -2), (1, "a1", 2.5)):
        reply = read_return(bad)
        assert reply.failure is not None and reply.failure.kind == "bad-answer", bad


def test_checks_follow_the_shape_and_the_option(tb: Tablebase, broken: ModuleType) -> None:
    first = FunctionCandidate(broken.first_legal_move)
    assert audit(tb, "3x3k3", first, check="value").ok
    assert not audit(tb, "3x3k3", first, check="move").ok
    # A (value, move) answer cannot be checked for depth: asking for it is refused.
    with pytest.raises(AuditInputError, match="--check depth needs answers that give a depth"):
        audit(tb, "3x3k3", FunctionCandidate(broken.forgets_negation), check="depth",
              selection=Selection("ply", 2))  # said once the answers are in, whatever they are
    correct = audit(tb, "3x3k3", FunctionCandidate(broken.correct), check="depth")
    assert correct.ok and correct.checked == dict.fromkeys(CHECKS, NON_TERMINAL)

    def off_by_one(board: str, to_move: str) -> object:
        value, move, depth = broken.correct(board, to_move)
        return value, move, depth + (board.count(".") == 8)

    report = audit(tb, "3x3k3", FunctionCandidate(off_by_one), check="depth")
    assert report.mismatches == {"wrong-depth": 3}  # the three openings
    assert report.examples[0].detail == "said 9 plies; the table says draw in 8 plies"
    assert audit(tb, "3x3k3", FunctionCandidate(off_by_one), check="move").ok

    # A move that keeps the value but not the depth passes --check move, not --check depth.
    def slow(board: str, to_move: str) -> object:
        moves = tb.moves("3x3k3", board)
        keeping = [m for m in moves if m.value == moves[0].value]
        return int(moves[0].value), keeping[-1].move, tb.probe("3x3k3", board).depth

    assert audit(tb, "3x3k3", FunctionCandidate(slow), check="move").ok
    report = audit(tb, "3x3k3", FunctionCandidate(slow), check="depth")
    assert set(report.mismatches) == {"non-optimal-move"}
    assert "where the best moves give win in" in report.examples[0].detail \
        or "where the best moves give loss in" in report.examples[0].detail


# --- a user's function in a worker process ----------------------------------------------------

def test_exceptions_timeouts_crashes_and_nonsense_are_reported_per_position(tb: Tablebase) -> None:
    spec = parse_spec("3x3k3")
    with open_candidate("broken_solvers:raises_sometimes", spec, directory=str(SAMPLES)) as c:
        report = audit(tb, spec, c)
    three_stones = len(select_positions(tb, spec, Selection("ply", 3)).codes)
    assert report.mismatches == {"exception": three_stones}
    assert report.examples[0].detail.startswith("ValueError: cannot handle ")
    assert "(at broken_solvers.py:" in report.examples[0].detail
    for name, kind in (("hangs_on_the_centre", "timeout"), ("crashes_on_the_centre", "crash"),
                       ("nonsense", "bad-answer")):
        with open_candidate(f"broken_solvers:{name}", spec, directory=str(SAMPLES),
                            timeout=1) as c:
            report = audit(tb, spec, c, selection=Selection("ply", 1))
        # The centre opening is the only one to fail; the audit went on after it.
        assert report.mismatches == {kind: 1} and report.agreed == 2, name
        assert report.examples[0].board == (0, 0, 0, 0, 1, 0, 0, 0, 0)
        assert report.restarts == (0 if kind == "bad-answer" else 1), name


def test_the_function_may_ask_for_the_spec(tb: Tablebase) -> None:
    with open_candidate("broken_solvers:with_spec", parse_spec("3x3k3"),
                        directory=str(SAMPLES)) as c:
        assert audit(tb, "3x3k3", c).ok


@pytest.mark.parametrize(("target", "message"), [
    ("no_such_module:solve", "no module named 'no_such_module' in "),
    ("broken_solvers:nope", "has no function 'nope'; it defines: correct, "),
    ("broken_solvers:NOT_A_FUNCTION", "is not a function but int 42"),
    ("broken_import:solve", "importing module 'broken_import' failed: RuntimeError: this module"),
])
def test_a_solver_that_cannot_be_loaded(target: str, message: str) -> None:
    with pytest.raises(SolverImportError, match=message):
        with open_candidate(target, parse_spec("3x3k3"), directory=str(SAMPLES)):
            pass


def test_solver_targets_are_read() -> None:
    assert split_target("pkg.mod:solve") == ("pkg.mod", "solve")
    with pytest.raises(SolverImportError, match="without .py"):
        split_target("my_solver.py:solve")
    with pytest.raises(SolverImportError, match="add the function's name after a colon"):
        split_target("my_solver")


# --- external programs -------------------------------------------------------------------------

def test_moves_to_reaches_every_position_legally(tb: Tablebase) -> None:
    for name in TICTACTOE_SPECS:
        spec = parse_spec(name)
        codes = tb.table(spec).load().codes
        for code, s in zip(codes.tolist(), orientations(spec, codes)):
            target = transform(spec, decode(code, spec.cells), int(s))
            board = (0,) * spec.cells
            for cell in moves_to(spec, target):
                board = play(spec, board, cell)  # raises if the move is illegal
            assert board == target


@pytest.mark.parametrize("spec", ["3x3k3", "3x3k3+gravity"])
def test_an_engine_wrong_on_one_position_is_caught_there(tb: Tablebase, spec: str) -> None:
    wrong = "x../.o./..x" if spec == "3x3k3" else ".../ox./xo."
    game = parse_spec(spec)
    with open_gtp_engine(f"{ENGINE} --wrong {wrong}", game) as engine:
        report = audit(tb, game, engine)
    assert report.mismatched_positions == 1 and report.mismatches == {"wrong-value": 1}
    e = report.examples[0]
    assert e.code == canonical_board(game, tb.read_board(game, wrong))
    assert e.said.startswith("= ")
    assert report.agreed == report.positions - 1 and report.restarts == 0
    assert "value, move" in report.shapes


def test_lines_before_a_response_are_passed_over(tb: Tablebase) -> None:
    """Course engines print their search's progress on stdout before answering: as
    gogui-regress does, the client passes over such lines and reads the response after them."""
    spec = parse_spec("3x3k3")
    with open_gtp_engine(f"{ENGINE} --chatter", spec) as engine:
        report = audit(tb, spec, engine, selection=Selection("ply", 2))
    assert report.ok and report.positions == 12 and report.restarts == 0


def test_a_hanging_engine_times_out_and_the_audit_finishes(tb: Tablebase) -> None:
    spec = parse_spec("3x3k3")
    with open_gtp_engine(f"{ENGINE} --hang .../.x./... --crash .x./.../... --nonsense x../.../...",
                     spec, timeout=1) as engine:
        report = audit(tb, spec, engine, selection=Selection("ply", 1))
    assert report.mismatches == {"timeout": 1, "crash": 1, "bad-answer": 1}
    assert report.restarts == 3
    details = {e.kind: e.detail for e in report.examples}
    assert details["timeout"] == "no answer to 'solve' within 1 s; the engine was restarted"
    assert "exited (status 3) after 'solve': fake engine: crashing as asked" in details["crash"]
    assert "answered 'I think x is doing well' to 'solve'" in details["bad-answer"]
    # Afterwards the restarted engine answers again.
    with open_gtp_engine(f"{ENGINE} --hang .../.x./...", spec, timeout=1) as engine:
        report = audit(tb, spec, engine, selection=Selection("ply", 2))
    assert report.ok and report.positions == 12


def test_an_engine_that_cannot_play(tb: Tablebase) -> None:
    spec = parse_spec("3x3k3")
    with pytest.raises(GameRefusedError, match="answered '\\? unsupported game' to 'set_game 3x3k3'"):
        with open_gtp_engine(f"{ENGINE} --refuse 3x3k3", spec):
            pass
    with pytest.raises(EngineStartError, match="cannot start engine 'no-such-engine-program'"):
        with open_gtp_engine("no-such-engine-program", spec):
            pass


def test_builtin_candidates_decline_boards_too_large() -> None:
    spec = parse_spec("4x4k4")
    reply = BuiltinCandidate("negamax").ask(spec, (0,) * 16)
    assert reply.declined is not None and "small games only" in reply.declined


# --- the command --------------------------------------------------------------------------------

def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_exit_statuses(db: str, capsys: pytest.CaptureFixture[str],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLES)  # the current directory is on the solver's import path
    status, out, err = run(capsys, "audit", "tictactoe", "--solver", "broken_solvers:correct",
                           "--db", db)
    assert status == 0, err
    # Every image of tic-tac-toe's 627 non-terminal positions is 4,520 boards: few enough to show
    # them all without being asked.
    assert out.splitlines()[0] == ("audit of broken_solvers:correct on 3x3k3: 627 positions (the"
                                   " stored non-terminal positions), each in every distinct image"
                                   " of its orbit (chosen: at most 100,000 boards in all)")
    assert "  answers: 4,520 as (value, move, depth)" in out
    assert out.endswith("all 4,520 answers agree with the table\n")
    # The forgotten diagonal shows with 2 stones already (every image of those: 56 boards).
    status, out, _ = run(capsys, "audit", "tictactoe", "--solver", "user_negamax:solve",
                         "--db", db, "--max-examples", "2", "--positions", "ply:2")
    assert status == 1
    assert "    wrong-value " in out and "smallest counterexamples (2 of " in out
    assert "   refuted:  " in out and "3 | " in out
    for argv, message in (
            (["--solver", "no_such_module:solve"], "no module named 'no_such_module'"),
            (["--solver", "broken_solvers:nope"], "has no function 'nope'"),
            (["--solver", "builtin:nope"], "no textbook solver named 'nope'"),
            (["--solver", "broken_solvers:correct", "--positions", "some"], "--positions 'some'"),
            (["--solver", "broken_solvers:correct", "--timeout", "0"],
             "timeout must be a positive number"),
    ):
        status, out, err = run(capsys, "audit", "tictactoe", *argv, "--db", db)
        assert status == 2 and out == "" and message in err and err.count("\n") == 1, argv
    status, _, err = run(capsys, "audit", "3x3k4", "--solver", "broken_solvers:correct", "--db", db)
    assert status == 2 and "k=4 is larger than both sides" in err
    status, _, err = run(capsys, "audit", "3x2k3", "--solver", "broken_solvers:correct", "--db", db)
    assert status == 2 and "3x2k3 has not been built" in err


def test_json_report(db: str, capsys: pytest.CaptureFixture[str],
                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLES)
    status, out, _ = run(capsys, "audit", "3x3k3", "--solver", "broken_solvers:occupied_cell",
                         "--db", db, "--positions", "ply:2", "--json", "--max-examples", "1",
                         "--orientations", "random")
    assert status == 1
    data = json.loads(out)
    assert set(data) == {"spec", "solver", "selection", "orientations", "seed", "check",
                         "positions", "boards", "agreed", "mismatched", "mismatched_positions",
                         "mismatches", "declined", "gave_up", "stopped_after", "shapes", "checks",
                         "seconds", "restarts",
                         "examples", "orientations_auto", "asked"}
    assert data["selection"] == "ply:2" and data["positions"] == 12
    assert data["mismatches"] == {"illegal-move": 12} and data["shapes"] == {"value, move": 12}
    (example,) = data["examples"]
    assert set(example) == {"kind", "board", "to_move", "ply", "value", "depth", "best_moves",
                            "said", "detail", "refutation", "refutation_value", "after"}
    assert example["kind"] == "illegal-move" and "is occupied" in example["detail"]


def test_builtin_table(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "audit", "3x3k3+gravity", "--builtin", "all", "--db", db,
                         "--orientations", "random")
    assert status == 0
    lines = out.splitlines()
    assert lines[1].split() == ["solver", "checked", "mismatched", "nodes", "from", "empty",
                                "seconds"]
    assert lines[2].split()[:4] == ["minimax", "261", "0", "3,278"]
    assert [line.split()[0] for line in lines[2:]] == list(SOLVERS)
    status, out, _ = run(capsys, "audit", "3x3k3+gravity", "--solver", "builtin:alphabeta-sym",
                         "--db", db, "--json")
    (data,) = json.loads(out)
    assert status == 0 and data["solver"] == "builtin:alphabeta-sym" and data["nodes"] == 148


def test_the_engine_through_the_command(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "audit", "3x3k3", "--engine", f"{ENGINE} --wrong x../.o./..x",
                         "--db", db, "--positions", "ply:3")
    assert status == 1 and "    wrong-value" in out and " 1 position," in out
    status, _, err = run(capsys, "audit", "3x3k3", "--engine", f"{ENGINE} --refuse 3x3k3",
                         "--db", db)
    assert status == 2 and "it does not play 3x3k3" in err


def test_max_failures_stops_early(tb: Tablebase, capsys: pytest.CaptureFixture[str], db: str,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """With --max-failures N the audit stops once N positions have failed, and says so."""
    spec = parse_spec("3x3k3")
    with open_candidate("broken_solvers:raises_sometimes", spec, directory=str(SAMPLES)) as c:
        whole = audit(tb, spec, c)
        cut = audit(tb, spec, c, max_failures=3)
    assert whole.mismatched_positions > 3 and whole.stopped_after is None
    assert cut.mismatched_positions == 3 and cut.stopped_after is not None
    assert cut.stopped_after < whole.positions and cut.boards < whole.boards
    assert cut.agreed + cut.mismatched == cut.boards
    monkeypatch.chdir(SAMPLES)  # the current directory is on the solver's import path
    argv = ["audit", "3x3k3", "--solver", "broken_solvers:raises_sometimes", "--db", db,
            "--quiet", "--max-failures", "2"]
    assert main(argv) == 1
    assert "had failed (--max-failures)" in capsys.readouterr().out
