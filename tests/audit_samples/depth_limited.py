"""A solver with a horizon, as a student's might be: negamax cut at 4 plies, the horizon
scored as a draw. Right wherever the game ends within 4 plies; wrong (a draw) on longer wins
and losses. Any m,n,k-game without gravity: the board's size comes from its text, k from the
spec. Standalone: it imports nothing of the project.

    tablebase audit 4x4k4 --solver tests/audit_samples/depth_limited.py:solve
"""
from __future__ import annotations

import re
from functools import lru_cache

HORIZON = 4


@lru_cache(maxsize=None)
def _lines(width: int, height: int, k: int) -> tuple[tuple[int, ...], ...]:
    found = []
    for r in range(height):
        for c in range(width):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= y < height and 0 <= x < width for y, x in cells):
                    found.append(tuple(y * width + x for y, x in cells))
    return tuple(found)


def _search(board: list[str], lines: tuple[tuple[int, ...], ...], player: str, depth: int) -> int:
    other = "o" if player == "x" else "x"
    if any(all(board[c] == other for c in line) for line in lines):
        return -1
    empty = [c for c, v in enumerate(board) if v == "."]
    if not empty or depth == 0:
        return 0  # a full board, or the horizon: called a draw
    best = -1
    for c in empty:
        board[c] = player
        best = max(best, -_search(board, lines, other, depth - 1))
        board[c] = "."
        if best == 1:
            break
    return best


def solve(board: str, to_move: str, spec: str) -> str:
    """'win', 'draw' or 'loss' for `to_move`, as far as 4 plies can see."""
    rows = board.split("/")
    k = int(re.fullmatch(r"\d+x\d+k(\d+)", spec).group(1))  # type: ignore[union-attr]
    lines = _lines(len(rows[0]), len(rows), k)
    return {1: "win", 0: "draw", -1: "loss"}[_search(list("".join(rows)), lines, to_move, HORIZON)]
