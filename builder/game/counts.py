"""How big a table from a position can be, counted without building it.

Every position of a table adds stones to its root: p more stones on the root's free cells
(stacked from the bottom of each column under gravity), x and o alternating. Counting those
boards while ignoring that a line ends the game gives an upper bound on the reachable
positions; divided by the symmetry maps that keep the root, it estimates the stored ones.
Measured against built tables: 0.99 of the count for tic-tac-toe, 1.04 for 4x4k4, 1.10 for
5x4k4, 1.7 for Connect Four 6x4, and 16 for Connect Four 7x6 (Tromp's count), where lines
end most games long before the board is full.
"""
from __future__ import annotations

from collections.abc import Sequence
from math import comb

from tablebase.builder.game.codec import EMPTY
from tablebase.builder.game.spec import Spec

# A table larger than this (stored positions, estimated) is refused without an explicit
# go-ahead: at a million positions a second it is more than a quarter of an hour of work.
LARGE_TABLE = 10 ** 9


def reachable_bound(spec: Spec, board: Sequence[int]) -> int:
    """Boards with any number of stones added to `board`'s empty cells, x and o alternating,
    ignoring wins: at least the number of positions reachable from it."""
    free_per_column = [sum(1 for row in range(spec.height)
                           if board[row * spec.width + col] == EMPTY)
                       for col in range(spec.width)]
    total_free = sum(free_per_column)
    if spec.gravity:
        # Ways to fill p cells: one height per column, heights adding to p.
        ways = [1]
        for free in free_per_column:
            grown = [0] * (len(ways) + free)
            for filled, n in enumerate(ways):
                for h in range(free + 1):
                    grown[filled + h] += n
            ways = grown
    else:
        ways = [comb(total_free, p) for p in range(total_free + 1)]
    # p more stones, alternating from the side to move: one of C(p, p // 2) colourings.
    return sum(n * comb(p, p // 2) for p, n in enumerate(ways))


def stones_needed(spec: Spec, board: Sequence[int], symmetries: int,
                  limit: int = LARGE_TABLE) -> int:
    """About how many stones a position like `board` needs before a table from it estimates at
    most `limit` stored positions (its own stones, or more): stones are added where they leave
    the free cells most even (under gravity, on the column with the most free cells)."""
    filled = list(board)
    while reachable_bound(spec, filled) // max(1, symmetries) > limit:
        free = [c for c, v in enumerate(filled) if v == EMPTY]
        if not free:
            break
        if spec.gravity:
            def room(col: int) -> int:
                return sum(1 for c in free if c % spec.width == col)
            col = max(range(spec.width), key=room)
            cell = max(c for c in free if c % spec.width == col)  # the lowest free cell
        else:
            cell = free[0]
        filled[cell] = 1
    return sum(1 for v in filled if v != EMPTY)
