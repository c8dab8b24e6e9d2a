"""A solver for the endgame audit tests: tests/reference.py's plain negamax on Connect Four
7x6, answering (value, move, depth) for the side to move."""
from __future__ import annotations

from tests.reference import Game, parse

_GAME = Game("7x6k4+gravity")


def solve_7x6(text: str, to_move: str) -> tuple[int, str | None, int]:
    """(value, best move, depth) for the side to move of board text, by plain recursion."""
    board = parse(_GAME, text)
    value, depth = _GAME.solve(board)
    best = None
    for cell in _GAME.moves(board):
        v, d = _GAME.solve(_GAME.child(board, cell))
        if (-v, d + 1) == (value, depth):
            best = cell
            break
    if best is None:
        return value, None, depth
    row, col = divmod(best, _GAME.w)
    return value, f"{'abcdefg'[col]}{_GAME.h - row}", depth
