"""Alpha-beta with a transposition table keyed by canonical code, for small boards only.

Positions that are mirror images or rotations of one another have the same value, so keying the table
by the smallest code over the symmetry orbit lets one search answer for all of them. Only values are
stored, never moves, so the move returned needs no mapping back: it is found on the caller's board.
"""
from __future__ import annotations

from collections.abc import Sequence

from tablebase.builder.games.grid import Spec, canonical_board
from tablebase.query.audit.solvers.alphabeta_tt import search
from tablebase.query.audit.solvers.common import SolverResult, prepare

# The table holds at most one entry per orbit of positions below the board.
MAX_EMPTY = 16


def solve(spec: Spec, board: Sequence[int]) -> SolverResult:
    """Solve `board` by alpha-beta with a table keyed by canonical code. For small games only.

    Value and move are for the side to move; the move is a cell of `board` as given.
    """
    cells = prepare(spec, board, MAX_EMPTY, "alphabeta-sym")

    def canonical_code(position: tuple[int, ...]) -> int:
        return canonical_board(spec, position)

    return search(spec, cells, canonical_code)
