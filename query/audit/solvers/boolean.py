"""Boolean minimax in OR/AND form, for small boards only: can the side to move force a success?

At an OR node the prover moves and one successful move is enough; at an AND node the opponent moves
and every reply must still succeed. A success is a win, or also a draw when the caller says so, and
the three-valued value follows from two proofs: "can it win?" and, if not, "can it draw?".
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from tablebase.builder.games.grid import Spec, Value, side_to_move
from tablebase.query.audit.solvers.common import (
    SearchRules,
    SolverResult,
    Tally,
    other,
    prepare,
    search_rules,
)

# Both searches stop at the first success or failure, so they reach a little further than minimax.
MAX_EMPTY = 12


class Proof(NamedTuple):
    """Whether the side to move can force a success, a move that does (or None), and nodes visited."""

    proven: bool
    move: int | None
    nodes: int


def prove(spec: Spec, board: Sequence[int], *, draw_is_success: bool) -> Proof:
    """Whether the side to move can force a win, or a win or a draw if `draw_is_success`.

    For small games only.
    """
    return _prove(spec, prepare(spec, board, MAX_EMPTY, "boolean"), draw_is_success)


def solve(spec: Spec, board: Sequence[int]) -> SolverResult:
    """Solve `board` by two boolean searches; value and move for the side to move.

    For small games only.
    """
    cells = prepare(spec, board, MAX_EMPTY, "boolean")
    win = _prove(spec, cells, draw_is_success=False)
    if win.proven:
        return SolverResult(Value.WIN, win.move, None, win.nodes)
    draw = _prove(spec, cells, draw_is_success=True)
    nodes = win.nodes + draw.nodes
    if draw.proven:
        return SolverResult(Value.DRAW, draw.move, None, nodes)
    rules = search_rules(spec)
    # Every move loses, so any legal one is a best move.
    move = None if rules.end(cells, None) is not None else rules.moves(cells)[0]
    return SolverResult(Value.LOSS, move, None, nodes)


def _prove(spec: Spec, board: tuple[int, ...], draw_is_success: bool) -> Proof:
    # The least value that counts as a success for the prover.
    need = int(Value.DRAW if draw_is_success else Value.WIN)
    tally = Tally()
    proven, move = _or(search_rules(spec), board, side_to_move(board), None, need, tally)
    return Proof(proven, move, tally.nodes)


def _or(rules: SearchRules, board: tuple[int, ...], player: int, last: int | None, need: int,
        tally: Tally) -> tuple[bool, int | None]:
    """(whether the prover, `player`, to move can force at least `need`, and a move that does)."""
    tally.nodes += 1
    end = rules.end(board, last)
    if end is not None:
        return end >= need, None
    for cell in rules.moves(board):
        if _and(rules, rules.play(board, cell, player), other(player), cell, need, tally):
            return True, cell
    return False, None


def _and(rules: SearchRules, board: tuple[int, ...], player: int, last: int | None, need: int,
         tally: Tally) -> bool:
    """Whether the prover still gets at least `need` with the opponent, `player`, to move."""
    tally.nodes += 1
    end = rules.end(board, last)
    if end is not None:
        # `end` is the opponent's value; the prover's is its negation.
        return -end >= need
    for cell in rules.moves(board):
        proven, _ = _or(rules, rules.play(board, cell, player), other(player), cell, need, tally)
        if not proven:
            return False
    return True
