"""Plain negamax, for small boards only: minimax with every value for the side to move, so one
case serves both players.

It rests on max(a, b) = -min(-a, -b): a position is worth the best of its children's values negated.
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

# The whole game tree is searched; ten empty cells is about ten million nodes at most.
MAX_EMPTY = 10


def solve(spec: Spec, board: Sequence[int]) -> SolverResult:
    """Solve `board` by plain negamax; value and move are for the side to move. For small games only."""
    cells = prepare(spec, board, MAX_EMPTY, "negamax")
    tally = Tally()
    value, move = _negamax(search_rules(spec), cells, side_to_move(cells), None, tally)
    return SolverResult(Value(value), move, None, tally.nodes)


def _negamax(rules: SearchRules, board: tuple[int, ...], player: int, last: int | None,
             tally: Tally) -> tuple[int, int | None]:
    """(value for `player`, the side to move, and a best move) of `board`."""
    tally.nodes += 1
    end = rules.end(board, last)
    if end is not None:
        return end, None
    best, best_move = -2, None  # below any value, so the first move always becomes the best so far
    for cell in rules.moves(board):
        value, _ = _negamax(rules, rules.play(board, cell, player), other(player), cell, tally)
        if -value > best:
            best, best_move = -value, cell
    return best, best_move
