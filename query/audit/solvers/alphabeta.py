"""Alpha-beta in negamax form, for small boards only: negamax that skips the moves which cannot
change the answer.

Moves are tried in cell order with no ordering heuristic. The window starts at (loss, win) rather than
(-infinity, +infinity), so finding a win cuts the remaining moves at once.
"""
from __future__ import annotations

from collections.abc import Sequence

from tablebase.builder.games.grid import Spec, Value, side_to_move
from tablebase.query.audit.solvers.common import (
    SearchRules,
    SolverResult,
    Tally,
    other,
    prepare,
    search_rules,
)

# Pruning usually leaves a small part of the tree, but the worst case is still all of it.
MAX_EMPTY = 12


def solve(spec: Spec, board: Sequence[int]) -> SolverResult:
    """Solve `board` by alpha-beta; value and move are for the side to move. For small games only."""
    cells = prepare(spec, board, MAX_EMPTY, "alphabeta")
    tally = Tally()
    value, move = _alphabeta(search_rules(spec), cells, side_to_move(cells), None,
                             int(Value.LOSS), int(Value.WIN), tally)
    return SolverResult(Value(value), move, None, tally.nodes)


def _alphabeta(rules: SearchRules, board: tuple[int, ...], player: int, last: int | None,
               alpha: int, beta: int, tally: Tally) -> tuple[int, int | None]:
    """(value for `player`, the side to move, and the move that gave it) within the window (alpha, beta).

    Fail-soft: a result <= alpha is an upper bound on the true value, one >= beta a lower bound,
    anything between is exact. Values lie in [-1, 1], so at the root window (-1, 1) all are exact.
    """
    tally.nodes += 1
    end = rules.end(board, last)
    if end is not None:
        return end, None
    best, best_move = -2, None  # below any value, so the first move always becomes the best so far
    for cell in rules.moves(board):
        value, _ = _alphabeta(rules, rules.play(board, cell, player), other(player), cell,
                              -beta, -alpha, tally)
        if -value > best:
            best, best_move = -value, cell
        alpha = max(alpha, best)
        if alpha >= beta:
            break  # the opponent already has a better choice than letting us reach this position
    return best, best_move
