"""Plain minimax in max/min form, for small boards only: X maximises, O minimises, and every node
is searched.

Values inside the search are from X's point of view (+1 X wins, -1 O wins); the entry point turns the
root's value into one for the side to move, as every solver reports.
"""
from __future__ import annotations

from collections.abc import Sequence

from tablebase.builder.games.grid import Spec, Value, X, side_to_move
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
    """Solve `board` by plain minimax; value and move are for the side to move. For small games only."""
    cells = prepare(spec, board, MAX_EMPTY, "minimax")
    player = side_to_move(cells)
    tally = Tally()
    value_for_x, move = _minimax(search_rules(spec), cells, player, None, tally)
    value = value_for_x if player == X else -value_for_x
    return SolverResult(Value(value), move, None, tally.nodes)


def _minimax(rules: SearchRules, board: tuple[int, ...], player: int, last: int | None,
             tally: Tally) -> tuple[int, int | None]:
    """(value for X, best move) of `board` with `player` to move."""
    tally.nodes += 1
    end = rules.end(board, last)
    if end is not None:
        # `end` is for the side to move; X's view flips it when O is to move.
        return (end if player == X else -end), None
    best_move = None
    if player == X:
        best = -2  # below any value, so the first move always becomes the best so far
        for cell in rules.moves(board):
            value, _ = _minimax(rules, rules.play(board, cell, player), other(player), cell, tally)
            if value > best:
                best, best_move = value, cell
    else:
        best = 2
        for cell in rules.moves(board):
            value, _ = _minimax(rules, rules.play(board, cell, player), other(player), cell, tally)
            if value < best:
                best, best_move = value, cell
    return best, best_move
