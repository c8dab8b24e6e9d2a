"""A solver with a horizon, as a student's might be: negamax cut at 4 plies, the horizon
scored as a draw. Right wherever the game ends within 4 plies; wrong (a draw) on longer wins
and losses. Standalone: it imports nothing of the project.

    tablebase audit 4x3k3 --solver tests/audit_samples/depth_limited.py:solve
"""
from __future__ import annotations

WIDTH, HEIGHT, K = 4, 3, 3
HORIZON = 4


def _lines() -> list[list[int]]:
    found = []
    for r in range(HEIGHT):
        for c in range(WIDTH):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(K)]
                if all(0 <= y < HEIGHT and 0 <= x < WIDTH for y, x in cells):
                    found.append([y * WIDTH + x for y, x in cells])
    return found


LINES = _lines()


def _won(board: list[str], player: str) -> bool:
    return any(all(board[c] == player for c in line) for line in LINES)


def _search(board: list[str], player: str, depth: int) -> int:
    other = "o" if player == "x" else "x"
    if _won(board, other):
        return -1
    empty = [c for c, v in enumerate(board) if v == "."]
    if not empty or depth == 0:
        return 0  # a full board, or the horizon: called a draw
    best = -1
    for c in empty:
        board[c] = player
        best = max(best, -_search(board, other, depth - 1))
        board[c] = "."
        if best == 1:
            break
    return best


def solve(board: str, to_move: str) -> str:
    """'win', 'draw' or 'loss' for `to_move`, as far as 4 plies can see."""
    cells = list(board.replace("/", ""))
    return {1: "win", 0: "draw", -1: "loss"}[_search(cells, to_move, HORIZON)]
