"""How big a table from a position can be, counted without building it.

Every position of a table adds stones to its root: p more stones on the root's free cells
(stacked from the bottom of each column under gravity), x and o alternating. Counting those
boards while ignoring that a line ends the game gives an upper bound on the reachable
positions; divided by the symmetry maps that keep the root, it estimates the stored ones.
Measured against built tables: 0.99 of the count for tic-tac-toe, 1.04 for 4x4k4, 1.10 for
5x4k4, 1.7 for Connect Four 6x4, 2.0 for 7x4, 3.6 for 6x5 and 16 for 7x6 (Tromp's count),
where lines end most games long before the board is full. `reachable_estimate` corrects the
bound by sampling: boards drawn evenly from those it counts, ply by ply, are tested for
reachability (builder/game/orders.py), and each ply's count is scaled by the share that passes.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from math import comb

import numpy as np

from tablebase.builder.game.codec import EMPTY, O, X
from tablebase.builder.game.spec import Spec

# A table larger than this (stored positions, estimated) is refused without an explicit
# go-ahead: at a million positions a second it is more than a quarter of an hour of work.
LARGE_TABLE = 10 ** 9


def _free_per_column(spec: Spec, board: Sequence[int]) -> list[int]:
    return [sum(1 for row in range(spec.height) if board[row * spec.width + col] == EMPTY)
            for col in range(spec.width)]


def _fillings(spec: Spec, board: Sequence[int]) -> list[int]:
    """Ways to put p stones on `board`'s free cells (gravity: one height per column, adding to
    p), for p = 0, 1, ..., ignoring colours."""
    free_per_column = _free_per_column(spec, board)
    if not spec.gravity:
        total = sum(free_per_column)
        return [comb(total, p) for p in range(total + 1)]
    ways = [1]
    for free in free_per_column:
        grown = [0] * (len(ways) + free)
        for filled, n in enumerate(ways):
            for h in range(free + 1):
                grown[filled + h] += n
        ways = grown
    return ways


def reachable_bound(spec: Spec, board: Sequence[int]) -> int:
    """Boards with any number of stones added to `board`'s empty cells, x and o alternating,
    ignoring wins: at least the number of positions reachable from it."""
    # p more stones, alternating from the side to move: one of C(p, p // 2) colourings.
    return sum(n * comb(p, p // 2) for p, n in enumerate(_fillings(spec, board)))


def reachable_estimate(spec: Spec, board: Sequence[int], samples: int = 1000,
                       seed: int = 0) -> int:
    """About how many positions are reachable from `board`: each ply's share of the bound
    (`reachable_bound`), scaled by the share of `samples` boards drawn evenly from it that
    can arise in play (within a few per cent where that share is not tiny)."""
    from tablebase.builder.game.orders import reachable  # compiled: imported when asked

    rng = random.Random(seed)
    free = [c for c, v in enumerate(board) if v == EMPTY]
    columns = [[c for c in reversed(free) if c % spec.width == col] for col in range(spec.width)]
    mover = X if sum(1 for v in board if v != EMPTY) % 2 == 0 else O
    # Gravity: suffix[c][s] = ways columns c.. hold s stones, to draw heights evenly.
    suffix: list[list[int]] = [[1]]
    for col in reversed(columns):
        after = suffix[0]
        suffix.insert(0, [sum(after[s - h] for h in range(len(col) + 1) if 0 <= s - h < len(after))
                          for s in range(len(after) + len(col))])
    total = 0.0
    for p, n in enumerate(_fillings(spec, board)):
        drawn = np.tile(np.asarray(board, dtype=np.uint8), (samples, 1))
        for row in drawn:
            if spec.gravity:
                cells, left = [], p
                for c, col in enumerate(columns):
                    weights = [suffix[c + 1][left - h] if 0 <= left - h < len(suffix[c + 1])
                               else 0 for h in range(len(col) + 1)]
                    h = rng.choices(range(len(col) + 1), weights)[0]
                    cells += col[:h]
                    left -= h
            else:
                cells = rng.sample(free, p)
            rng.shuffle(cells)
            row[cells[: (p + 1) // 2]] = mover
            row[cells[(p + 1) // 2:]] = X + O - mover
        total += n * comb(p, p // 2) * float(reachable(spec, drawn).mean())
    return int(total)


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
