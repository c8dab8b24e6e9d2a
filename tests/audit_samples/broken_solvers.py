"""Tic-tac-toe solvers for tests/test_audit.py: one right, the others broken on purpose.

Each is called as f(board, to_move) with board text such as 'x.o/.x./...' and returns what the
audit accepts. Not a test module (no test_ prefix), so pytest does not collect it.
"""
from __future__ import annotations

import os
import time
from functools import lru_cache

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
# The one position (every image of it is itself) on which some solvers misbehave.
CENTRE_ONLY = ".../.x./..."


def name(cell: int) -> str:
    return "abc"[cell % 3] + str(3 - cell // 3)


def won(cells: str, player: str) -> bool:
    return any(cells[a] == cells[b] == cells[c] == player for a, b, c in LINES)


def other(player: str) -> str:
    return "o" if player == "x" else "x"


@lru_cache(maxsize=None)
def search(cells: str, me: str, negate: bool = True, draw: int = 0,
           horizon: int = 99) -> tuple[int, int, int | None]:
    """(score, depth, best cell) for `me` to move: score 1 win, 0 draw, -1 loss; fastest win and
    slowest loss. The keyword arguments switch on the bugs."""
    if won(cells, other(me)):
        return -1, 0, None
    if "." not in cells:
        return draw, 0, None
    if horizon == 0:
        return 0, 0, None  # the search was cut off: guess a draw
    best: tuple[int, int, int | None] = (-2, 0, None)
    for i, c in enumerate(cells):
        if c != ".":
            continue
        value, depth, _ = search(cells[:i] + me + cells[i + 1:], other(me), negate, draw,
                                 horizon - 1)
        mine = -value if negate else value
        # Larger is better: win sooner, lose later.
        key = (mine, -depth if mine > 0 else depth)
        if key > (best[0], -best[1] if best[0] > 0 else best[1]):
            best = (mine, depth + 1, i)
    return best


def _answer(board: str, to_move: str, **bugs: int) -> tuple[int, str | None]:
    value, _, cell = search(board.replace("/", ""), to_move, **bugs)
    return value, None if cell is None else name(cell)


def correct(board: str, to_move: str) -> tuple[int, str | None, int]:
    value, depth, cell = search(board.replace("/", ""), to_move)
    return value, None if cell is None else name(cell), depth


def value_only(board: str, to_move: str) -> str:
    return ["loss", "draw", "win"][correct(board, to_move)[0] + 1]


def forgets_negation(board: str, to_move: str) -> tuple[int, str | None]:
    return _answer(board, to_move, negate=False)


def draws_as_losses(board: str, to_move: str) -> tuple[int, str | None]:
    return _answer(board, to_move, draw=-1)


def depth_two(board: str, to_move: str) -> tuple[int, str | None]:
    return _answer(board, to_move, horizon=2)


def first_legal_move(board: str, to_move: str) -> tuple[int, str | None]:
    value, move, _ = correct(board, to_move)
    cells = board.replace("/", "")
    return value, None if move is None else name(cells.index("."))


def raises_sometimes(board: str, to_move: str) -> tuple[int, str | None, int]:
    if board.count("x") + board.count("o") == 3:
        raise ValueError(f"cannot handle {board}")
    return correct(board, to_move)


def occupied_cell(board: str, to_move: str) -> tuple[int, str | None]:
    value, move, _ = correct(board, to_move)
    cells = board.replace("/", "")
    stones = [i for i, c in enumerate(cells) if c != "."]
    if move is not None and len(stones) >= 2:
        return value, name(stones[0])
    return value, move


def hangs_on_the_centre(board: str, to_move: str) -> tuple[int, str | None, int]:
    if board == CENTRE_ONLY:
        time.sleep(3600)
    return correct(board, to_move)


def crashes_on_the_centre(board: str, to_move: str) -> tuple[int, str | None, int]:
    if board == CENTRE_ONLY:
        os._exit(3)
    return correct(board, to_move)


def nonsense(board: str, to_move: str) -> object:
    if board == CENTRE_ONLY:
        return "probably fine"
    return correct(board, to_move)


def with_spec(board: str, to_move: str, spec: str) -> tuple[int, str | None, int]:
    if spec != "3x3k3":
        raise ValueError(f"given spec {spec!r}")
    return correct(board, to_move)


NOT_A_FUNCTION = 42
