"""How big a table from a position can be, counted without building it.

Every position of a table adds stones to its root: p more stones on the root's free cells
(stacked from the bottom of each column under gravity), x and o alternating. Counting those
boards while ignoring that a line ends the game gives an upper bound on the reachable
positions; divided by the symmetry maps that keep the root, it estimates the stored ones.
Measured against built tables: 0.99 of the count for tic-tac-toe, 1.04 for 4x4k4, 1.10 for
5x4k4, 1.7 for Connect Four 6x4, 2.0 for 7x4, 3.6 for 6x5 and 16 for 7x6 (Tromp's count),
where lines end most games long before the board is full. `reachable_estimate` corrects the
bound by sampling: boards drawn evenly from those it counts, ply by ply, are tested for
reachability (builder/games/grid/orders.py), and each ply's count is scaled by the share that passes.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import comb

import numpy as np

from tablebase.builder.games.grid.codec import EMPTY, O, X
from tablebase.builder.games.grid.spec import Spec
from tablebase.builder.games.tier_kernels import LARGE_TABLE


def _free_per_column(spec: Spec, board: Sequence[int]) -> list[int]:
    return [sum(1 for row in range(spec.height) if board[row * spec.width + col] == EMPTY)
            for col in range(spec.width)]


def _stacks(room: Sequence[int]) -> list[list[int]]:
    """For columns with `room` free cells each: ways[c][s], the ways columns c, c+1, ... can
    hold s stones between them (stacked from the bottom of each)."""
    ways = [[1]]
    for free in reversed(room):
        after = ways[0]
        grown = [0] * (len(after) + free)
        for filled, n in enumerate(after):
            for h in range(free + 1):
                grown[filled + h] += n
        ways.insert(0, grown)
    return ways


def _fillings(spec: Spec, board: Sequence[int]) -> list[int]:
    """Ways to put p stones on `board`'s free cells (gravity: one height per column, adding to
    p), for p = 0, 1, ..., ignoring colours."""
    free_per_column = _free_per_column(spec, board)
    if not spec.gravity:
        total = sum(free_per_column)
        return [comb(total, p) for p in range(total + 1)]
    return _stacks(free_per_column)[0]


def reachable_bound(spec: Spec, board: Sequence[int]) -> int:
    """Boards with any number of stones added to `board`'s empty cells, x and o alternating,
    ignoring wins: at least the number of positions reachable from it. Where stones move
    (from the empty board): the placement plies' boards, then every board of the movement
    phase twice (either side to move)."""
    if spec.moving:
        n = spec.stones
        placed = sum(comb(spec.cells, p) * comb(p, p // 2) for p in range(2 * n))
        return placed + 2 * comb(spec.cells, 2 * n) * comb(2 * n, n)
    # p more stones, alternating from the side to move: one of C(p, p // 2) colourings.
    return sum(n * comb(p, p // 2) for p, n in enumerate(_fillings(spec, board)))


def reachable_estimate(spec: Spec, board: Sequence[int], samples: int = 1000,
                       seed: int = 0) -> int:
    """About how many positions are reachable from `board`: each ply's share of the bound
    (`reachable_bound`), scaled by the share of `samples` boards drawn evenly from it that
    can arise in play (within a few per cent where that share is not tiny)."""
    return _reachable_estimate(spec, tuple(board), samples, seed)


# Remembered: `tablebase build` asks before it starts (to refuse or say it) and the pipeline
# asks again, a second each time on the larger boards; the draws are seeded, so the same.
@lru_cache(maxsize=8)
def _reachable_estimate(spec: Spec, board: tuple[int, ...], samples: int, seed: int) -> int:
    if spec.moving:  # the bound, whose movement phase is nearly all reachable
        return reachable_bound(spec, board)
    from tablebase.builder.games.grid.orders import reachable  # compiled: imported when asked

    rng = np.random.default_rng(seed)
    start = np.asarray(board, dtype=np.uint8)
    free = np.flatnonzero(start == EMPTY)
    mover = X if int(np.count_nonzero(start != EMPTY)) % 2 == 0 else O
    # Gravity: each column's free cells, lowest first (row 0 is the top row), and the ways
    # the columns from each one on can hold s stones, to draw heights evenly.
    columns = [[r * spec.width + col for r in reversed(range(spec.height))
                if board[r * spec.width + col] == EMPTY] for col in range(spec.width)]
    after = [np.asarray(ways, dtype=np.float64) for ways in _stacks([len(c) for c in columns])]
    total = 0.0
    for p, n in enumerate(_fillings(spec, board)):
        filled = (_drawn_gravity(columns, after, len(start), p, samples, rng) if spec.gravity
                  else _drawn_anywhere(free, len(start), p, samples, rng))
        # Colours: the filled cells in a random order, the first (p + 1) // 2 the mover's.
        keys = np.where(filled, rng.random(filled.shape), 2.0)
        rank = np.argsort(np.argsort(keys, axis=1), axis=1)
        drawn = np.tile(start, (samples, 1))
        drawn[filled & (rank < (p + 1) // 2)] = mover
        drawn[filled & (rank >= (p + 1) // 2)] = X + O - mover
        total += n * comb(p, p // 2) * float(reachable(spec, drawn).mean())
    return int(total)


def _drawn_anywhere(free: np.ndarray, cells: int, p: int, samples: int,
                    rng: np.random.Generator) -> np.ndarray:
    """`samples` rows of which cells hold a stone: p of the `free` cells, evenly drawn."""
    filled = np.zeros((samples, cells), dtype=bool)
    if p:
        chosen = np.argsort(rng.random((samples, len(free))), axis=1)[:, :p]
        filled[np.arange(samples)[:, None], free[chosen]] = True
    return filled


def _drawn_gravity(columns: list[list[int]], after: list[np.ndarray], cells: int, p: int,
                   samples: int, rng: np.random.Generator) -> np.ndarray:
    """`samples` rows of which cells hold a stone: p stones stacked on the `columns` (free
    cells, lowest first), every way of sharing p among them equally likely (`after[c][s]`:
    the ways columns c, c+1, ... hold s stones)."""
    filled = np.zeros((samples, cells), dtype=bool)
    left = np.full(samples, p)
    for col, free in enumerate(columns):
        rest = after[col + 1]
        need = left[:, None] - np.arange(len(free) + 1)[None, :]
        ok = (need >= 0) & (need < len(rest))
        weights = np.where(ok, rest[np.clip(need, 0, len(rest) - 1)], 0.0)
        cumulative = np.cumsum(weights, axis=1)
        draw = 1.0 - rng.random(samples)  # in (0, 1]: never a height of no weight
        pick = (cumulative < draw[:, None] * cumulative[:, -1:]).sum(axis=1)
        left -= pick
        for h, cell in enumerate(free):
            filled[:, cell] = pick > h
    return filled


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
