"""Depth-aware negamax, for small boards only: the exact value and depth, the winner taking the
fastest win and the loser the slowest loss.

It is plain negamax over the rules kernel's `score`, which folds value and depth into one int
that is larger when better for the side to move (win in d: 64 - d, draw: 0, loss in d: d - 64).
"""
from __future__ import annotations

from collections.abc import Sequence

from tablebase.builder.games.grid import EMPTY, Spec, Value, side_to_move
from tablebase.db.scores import WIN_SCORE, score
from tablebase.query.audit.solvers.common import (
    SearchRules,
    SolverResult,
    Tally,
    other,
    prepare,
    search_rules,
)

# The whole game tree is searched, as by plain negamax.
MAX_EMPTY = 10


def solve(spec: Spec, board: Sequence[int]) -> SolverResult:
    """Solve `board` with its depth (plies to the end under perfect play), for the side to move.

    For small games only.
    """
    cells = prepare(spec, board, MAX_EMPTY, "depth")
    tally = Tally()
    best, move = _negamax(search_rules(spec), cells, side_to_move(cells), None, tally)
    if best > 0:
        value, depth = Value.WIN, WIN_SCORE - best
    elif best < 0:
        value, depth = Value.LOSS, WIN_SCORE + best
    else:
        # A draw is never decided early: it runs until the board is full.
        value, depth = Value.DRAW, cells.count(EMPTY)
    return SolverResult(value, move, depth, tally.nodes)


def _negamax(rules: SearchRules, board: tuple[int, ...], player: int, last: int | None,
             tally: Tally) -> tuple[int, int | None]:
    """(score for `player`, the side to move, and a move that keeps it) of `board`."""
    tally.nodes += 1
    end = rules.end(board, last)
    if end is not None:
        return score(end, 0), None
    best, best_move = -WIN_SCORE - 1, None  # below any score
    for cell in rules.moves(board):
        child, _ = _negamax(rules, rules.play(board, cell, player), other(player), cell, tally)
        # The child's score is the opponent's: negate it, then add this move's ply, which moves
        # a win or a loss one step towards 0 (one ply further off); a draw stays 0.
        mine = -child - (1 if child < 0 else -1 if child > 0 else 0)
        if mine > best:
            best, best_move = mine, cell
    return best, best_move
