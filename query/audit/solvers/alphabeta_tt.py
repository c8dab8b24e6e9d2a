"""Alpha-beta with a transposition table keyed by code, for small boards only.

Move orders that transpose reach the same position, so the table remembers what each search proved:
an exact value, or only a lower or upper bound when the window cut the search short. The table is
fresh for every call, which keeps node counts reproducible.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum

from tablebase.builder.games.grid import Spec, Value, encode, side_to_move
from tablebase.query.audit.solvers.common import (
    SearchRules,
    SolverResult,
    Tally,
    other,
    prepare,
    search_rules,
)

# The table holds at most one entry per position below the board, far fewer than the tree's nodes.
MAX_EMPTY = 16

Key = Callable[[tuple[int, ...]], int]


class Bound(Enum):
    """What a stored value says about the true value of its position."""

    EXACT = "exact"
    LOWER = "lower"  # the true value is at least the stored one (the search failed high)
    UPPER = "upper"  # the true value is at most the stored one (the search failed low)


Table = dict[int, tuple[Bound, int]]


def solve(spec: Spec, board: Sequence[int]) -> SolverResult:
    """Solve `board` by alpha-beta with a table keyed by code; value and move for the side to move.

    For small games only.
    """
    cells = prepare(spec, board, MAX_EMPTY, "alphabeta-tt")
    return search(spec, cells, encode)


def search(spec: Spec, board: tuple[int, ...], key: Key) -> SolverResult:
    """Alpha-beta from a validated `board` with a fresh table whose entries are found by `key(board)`."""
    tally = Tally()
    value, move = _alphabeta(search_rules(spec), board, side_to_move(board), None,
                             int(Value.LOSS), int(Value.WIN), {}, key, tally)
    return SolverResult(Value(value), move, None, tally.nodes)


def _alphabeta(rules: SearchRules, board: tuple[int, ...], player: int, last: int | None,
               alpha: int, beta: int, table: Table, key: Key, tally: Tally) -> tuple[int, int | None]:
    """(value for `player`, the side to move, and the move that gave it) within the window (alpha, beta).

    Fail-soft as in plain alpha-beta: a result <= alpha is an upper bound, one >= beta a lower bound,
    anything between is exact. The move is None when the table answered; the root is never answered
    from the table, since it is the first position the table sees.
    """
    tally.nodes += 1
    end = rules.end(board, last)
    if end is not None:
        return end, None
    code = key(board)
    entry = table.get(code)
    if entry is not None:
        bound, stored = entry
        # A bound settles this search only when it falls outside the window on its own side.
        if (bound is Bound.EXACT or (bound is Bound.LOWER and stored >= beta)
                or (bound is Bound.UPPER and stored <= alpha)):
            return stored, None
    best, best_move = -2, None  # below any value, so the first move always becomes the best so far
    raised = alpha
    for cell in rules.moves(board):
        value, _ = _alphabeta(rules, rules.play(board, cell, player), other(player), cell,
                              -beta, -raised, table, key, tally)
        if -value > best:
            best, best_move = -value, cell
        raised = max(raised, best)
        if raised >= beta:
            break  # the opponent already has a better choice than letting us reach this position
    if best <= alpha:
        table[code] = (Bound.UPPER, best)
    elif best >= beta:
        table[code] = (Bound.LOWER, best)
    else:
        table[code] = (Bound.EXACT, best)
    return best, best_move
