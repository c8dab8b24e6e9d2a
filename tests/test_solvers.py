"""The textbook solvers against the built tables on every stored position, and the nodes they visit."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import pytest

from tablebase.builder.games.grid import (
    InvalidPositionError,
    Spec,
    Value,
    canonical,
    decode,
    encode,
    legal_moves,
    parse_spec,
    permutations,
    play,
    transform,
)
from tablebase.query.audit.solvers import (
    SOLVERS,
    SearchTooLargeError,
    SolverResult,
    UnknownSolverError,
    alphabeta,
    alphabeta_sym,
    alphabeta_tt,
    boolean,
    depth,
    get_solver,
    minimax,
    negamax,
    node_counts,
)
from tablebase.query.audit.solvers.boolean import prove
from tablebase.query.tablebase import open_tablebase

MODULES: dict[str, ModuleType] = {
    "minimax": minimax, "negamax": negamax, "boolean": boolean, "alphabeta": alphabeta,
    "alphabeta-tt": alphabeta_tt, "alphabeta-sym": alphabeta_sym, "depth": depth,
}
# The solvers that search the whole tree: checking them everywhere on 3x3 takes seconds each.
# On misere tic-tac-toe they walk the tree they walk on tic-tac-toe (checked everywhere there)
# with the other sign for a line, which every position of the small misere specs below checks.
FULL_TREE = ("minimax", "negamax", "depth")

TICTACTOE_SPECS = ("3x3k3", "3x3k3+misere", "3x3k3+gravity")
# Odd shapes and rules: non-square, one row, k = 1, gravity with misere, a 12-cell gravity board.
SMALL_SPECS = ("4x2k3", "3x2k2+misere", "2x2k1", "2x2k1+misere", "1x5k2",
               "4x2k3+gravity+misere", "4x3k3+gravity")


@dataclass(frozen=True)
class Reference:
    """A built table read back: canonical code -> (value, depth), both for the side to move."""

    spec: Spec
    rows: dict[int, tuple[Value, int]]

    def probe(self, board: tuple[int, ...]) -> tuple[Value, int]:
        """The stored value and depth of any reachable board."""
        return self.rows[canonical(self.spec, encode(board))]


@pytest.fixture(scope="module")
def reference(table_db: Callable[[str], str]) -> Callable[[str], Reference]:
    """Returns a function spec -> its table, each read once per module from the session's
    tables (conftest.py: built once a session, shared with the other files that read them)."""
    built: dict[str, Reference] = {}

    def get(name: str) -> Reference:
        if name not in built:
            spec = parse_spec(name)
            rows: dict[int, tuple[Value, int]] = {}
            with open_tablebase(table_db(name)) as tb:
                for codes, _, values, depths in tb.table(spec).positions():
                    for code, value, depth_ in zip(codes, values, depths):
                        rows[int(code)] = (Value(int(value)), int(depth_))
            built[name] = Reference(spec, rows)
        return built[name]
    return get


def check_everywhere(ref: Reference, name: str) -> int | None:
    """Solve every stored position (up to the solver's size limit) and check it against the table.
    Returns the nodes visited from the empty board (None where the solver refuses it)."""
    solve, limit = SOLVERS[name], MODULES[name].MAX_EMPTY
    from_empty = None
    for code, (value, depth_) in ref.rows.items():
        board = decode(code, ref.spec.cells)
        where = f"{name} on {ref.spec.name} code {code}"
        if board.count(0) > limit:
            with pytest.raises(SearchTooLargeError):
                solve(ref.spec, board)
            continue
        result = solve(ref.spec, board)
        if code == 0:
            from_empty = result.nodes
        assert result.value == value, where
        assert result.depth == (depth_ if name == "depth" else None), where
        assert result.nodes >= 1, where
        moves = legal_moves(ref.spec, board)
        if not moves:
            assert result.move is None, where
            continue
        assert result.move in moves, where
        child_value, child_depth = ref.probe(play(ref.spec, board, result.move))
        assert -child_value == value, where
        if name == "depth":
            assert child_depth + 1 == depth_, where
    return from_empty


def cases(specs: tuple[str, ...], slow: tuple[str, ...],
          skip: tuple[str, ...] = ()) -> list[object]:
    """(spec, solver) pairs, marking as slow the full-tree solvers on the specs in `slow`, and
    leaving them out on the specs in `skip`."""
    return [pytest.param(spec, name, marks=[pytest.mark.slow] if spec in slow and name in FULL_TREE
                         else []) for spec in specs for name in SOLVERS
            if not (spec in skip and name in FULL_TREE)]


# Nodes each solver visits from the empty tic-tac-toe board. The full game tree, ending each game
# at its first line, has 549,946 nodes counting the root; alpha-beta visits under a tenth of it,
# a transposition table fewer, and symmetry fewer again. The rest are this package's own counts,
# pinned so that a change to any search shows up here.
TICTACTOE_NODES = {"minimax": 549_946, "negamax": 549_946, "boolean": 17_125, "alphabeta": 16_811,
                   "alphabeta-tt": 4_314, "alphabeta-sym": 836, "depth": 549_946}


@pytest.mark.parametrize(("spec", "name"), cases(TICTACTOE_SPECS, slow=("3x3k3",),
                                                  skip=("3x3k3+misere",)))
def test_solver_agrees_with_the_table_on_tictactoe(reference: Callable[[str], Reference],
                                                   spec: str, name: str) -> None:
    from_empty = check_everywhere(reference(spec), name)
    if spec == "3x3k3":  # the node count from the empty board, from the same solve
        assert from_empty == TICTACTOE_NODES[name]


@pytest.mark.parametrize(("spec", "name"), cases(SMALL_SPECS, slow=("4x3k3+gravity",)))
def test_solver_agrees_with_the_table_on_small_specs(reference: Callable[[str], Reference],
                                                     spec: str, name: str) -> None:
    check_everywhere(reference(spec), name)


@pytest.mark.parametrize("spec", ["3x3k3", "4x2k3", "3x3k3+gravity"])
def test_canonical_table_answers_in_the_callers_orientation(
        reference: Callable[[str], Reference], spec: str) -> None:
    ref = reference(spec)
    for code, (value, _) in ref.rows.items():
        for s in range(len(permutations(ref.spec))):
            board = transform(ref.spec, decode(code, ref.spec.cells), s)
            result = alphabeta_sym.solve(ref.spec, board)
            assert result.value == value
            moves = legal_moves(ref.spec, board)
            if not moves:
                assert result.move is None
                continue
            assert result.move in moves
            assert -ref.probe(play(ref.spec, board, result.move))[0] == value


def test_boolean_proofs_match_the_table_everywhere(reference: Callable[[str], Reference]) -> None:
    ref = reference("3x3k3")
    for code, (value, _) in ref.rows.items():
        board = decode(code, ref.spec.cells)
        for draw_is_success, expected in ((False, value == Value.WIN), (True, value >= Value.DRAW)):
            proof = prove(ref.spec, board, draw_is_success=draw_is_success)
            assert proof.proven == expected, (code, draw_is_success)
            moves = legal_moves(ref.spec, board)
            if not (proof.proven and moves):
                assert proof.move is None, (code, draw_is_success)
                continue
            # The move keeps the proof: after it, the opponent's value negated is still a success.
            assert proof.move in moves
            assert -ref.probe(play(ref.spec, board, proof.move))[0] >= (
                Value.DRAW if draw_is_success else Value.WIN)


def test_hand_built_positions() -> None:
    spec = parse_spec("3x3k3")
    # x x .    x to move: 2 wins at once.
    # o o .
    # . . .
    wins_now = (1, 1, 0, 2, 2, 0, 0, 0, 0)
    # x . x    o to move: x threatens 1 and 3, o can block one; x wins on the next ply.
    # . o .
    # x . o
    fork = (1, 0, 1, 0, 2, 0, 1, 0, 2)
    for name, solve in SOLVERS.items():
        assert solve(spec, wins_now).value == Value.WIN and solve(spec, wins_now).move == 2, name
        assert solve(spec, fork).value == Value.LOSS and solve(spec, fork).move in (1, 3, 5, 7), name
    assert depth.solve(spec, wins_now).depth == 1
    assert depth.solve(spec, fork).depth == 2
    assert prove(spec, wins_now, draw_is_success=False) == (True, 2, 2)
    assert not prove(spec, fork, draw_is_success=True).proven
    empty = (0,) * 9
    assert not prove(spec, empty, draw_is_success=False).proven
    assert prove(spec, empty, draw_is_success=True).proven


@pytest.mark.parametrize("board", [
    # . . . o    x to move loses; a table that takes a bound for an exact value
    # x . . x    (or uses a bound on the wrong side of the window) calls it a draw.
    # o . . .
    (0, 0, 0, 2, 1, 0, 0, 1, 2, 0, 0, 0),
    # . . . .    x to move loses; the same mistakes with a lower bound call it a draw.
    # x . o .
    # . . . .
    (0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0),
])
def test_tables_store_bounds_as_bounds(board: tuple[int, ...]) -> None:
    spec = parse_spec("4x3k3")
    assert alphabeta.solve(spec, board).value == Value.LOSS
    assert alphabeta_tt.solve(spec, board).value == Value.LOSS
    assert alphabeta_sym.solve(spec, board).value == Value.LOSS


def test_node_counts_on_gravity_tictactoe() -> None:
    counts = node_counts(parse_spec("3x3k3+gravity"))
    assert counts == {"minimax": 3_278, "negamax": 3_278, "boolean": 440, "alphabeta": 386,
                      "alphabeta-tt": 277, "alphabeta-sym": 148, "depth": 3_278}


def test_node_counts_leave_out_solvers_that_refuse_the_board() -> None:
    assert set(node_counts(parse_spec("4x4k4+gravity"))) == {"alphabeta-tt", "alphabeta-sym"}


def test_tables_are_fresh_per_call() -> None:
    spec, empty = parse_spec("3x3k3"), (0,) * 9
    for name in ("alphabeta-tt", "alphabeta-sym"):
        assert SOLVERS[name](spec, empty) == SOLVERS[name](spec, empty)


@pytest.mark.parametrize("name", list(SOLVERS))
def test_solver_refuses_impossible_boards(name: str) -> None:
    spec = parse_spec("3x3k3")
    with pytest.raises(InvalidPositionError):
        SOLVERS[name](spec, (2, 2, 0, 0, 0, 0, 0, 0, 0))  # two o and no x
    with pytest.raises(InvalidPositionError):
        SOLVERS[name](spec, (0,) * 8)  # one cell short
    with pytest.raises(InvalidPositionError):
        SOLVERS[name](parse_spec("3x3k3+gravity"), (1, 0, 0, 0, 0, 0, 0, 0, 0))  # floating stone


@pytest.mark.parametrize("name", list(SOLVERS))
def test_solver_refuses_boards_too_large_for_it(name: str) -> None:
    assert SOLVERS[name] is MODULES[name].solve
    limit = MODULES[name].MAX_EMPTY
    with pytest.raises(SearchTooLargeError, match="small games only") as caught:
        SOLVERS[name](Spec(limit + 1, 1, 2), (0,) * (limit + 1))
    assert isinstance(caught.value, ValueError)
    assert f"{limit + 1} empty cells" in str(caught.value)


def test_get_solver() -> None:
    assert get_solver("alphabeta") is alphabeta.solve
    with pytest.raises(UnknownSolverError) as caught:
        get_solver("mcts")
    assert isinstance(caught.value, KeyError)
    assert "'mcts'" in str(caught.value)
    assert all(name in str(caught.value) for name in SOLVERS)


def test_results_are_frozen_records() -> None:
    result = negamax.solve(parse_spec("2x2k1"), (1, 0, 0, 0))
    assert result == SolverResult(Value.LOSS, None, None, 1)  # o to move; with k = 1 x has won
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.nodes = 0  # type: ignore[misc]
