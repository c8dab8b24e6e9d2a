"""Tic-tac-toe written as a game class (docs/games.md): a position is (board, side to move),
the board a string of 9 cells, row by row from the top ('x', 'o', '.'). `TicTacToe` has the
board's 8 symmetries; `PlainTicTacToe` none."""
from __future__ import annotations

from dataclasses import dataclass

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
# Each map as the cell that lands on each square (0..8): rotations and reflections.
MAPS = [(0, 1, 2, 3, 4, 5, 6, 7, 8), (2, 1, 0, 5, 4, 3, 8, 7, 6), (6, 7, 8, 3, 4, 5, 0, 1, 2),
        (8, 7, 6, 5, 4, 3, 2, 1, 0), (0, 3, 6, 1, 4, 7, 2, 5, 8), (8, 5, 2, 7, 4, 1, 6, 3, 0),
        (6, 3, 0, 7, 4, 1, 8, 5, 2), (2, 5, 8, 1, 4, 7, 0, 3, 6)]
NAMES = [f"{col}{row}" for row in (3, 2, 1) for col in "abc"]


class PlainTicTacToe:
    name = "class-tictactoe-plain"

    def start(self) -> tuple[str, str]:
        return "." * 9, "x"

    def outcome(self, p: tuple[str, str]) -> int | None:
        board, side = p
        other = "o" if side == "x" else "x"
        if any(board[a] == board[b] == board[c] == other for a, b, c in LINES):
            return -1
        return 0 if "." not in board else None

    def moves(self, p: tuple[str, str]) -> list[tuple[str, tuple[str, str]]]:
        board, side = p
        other = "o" if side == "x" else "x"
        return [(NAMES[i], (board[:i] + side + board[i + 1:], other))
                for i, c in enumerate(board) if c == "."]

    def text(self, p: tuple[str, str]) -> str:
        board, side = p
        return f"{board[0:3]}/{board[3:6]}/{board[6:9]} {side}"

    def read(self, text: str) -> tuple[str, str]:
        rows, _, side = text.strip().partition(" ")
        board = rows.replace("/", "")
        if len(board) != 9 or set(board) - set("xo.") or side not in ("x", "o"):
            raise ValueError("expected three rows of x, o and . and the side to move, e.g."
                             " 'x../.o./... x'")
        return board, side


class TicTacToe(PlainTicTacToe):
    name = "class-tictactoe"

    def symmetries(self, p: tuple[str, str]) -> list[tuple[str, str]]:
        board, side = p
        return [("".join(board[m[i]] for i in range(9)), side) for m in MAPS]


@dataclass(frozen=True)
class Board:
    """A position as an object of the user's own (not made of plain values): stored under
    its text."""

    cells: str
    side: str


class ObjectTicTacToe(TicTacToe):
    """`TicTacToe` whose positions are `Board` objects."""

    name = "class-tictactoe-objects"

    def start(self) -> Board:  # type: ignore[override]
        return Board(*super().start())

    def outcome(self, p: Board) -> int | None:  # type: ignore[override]
        return super().outcome((p.cells, p.side))

    def moves(self, p: Board) -> list[tuple[str, Board]]:  # type: ignore[override]
        return [(name, Board(*child)) for name, child in super().moves((p.cells, p.side))]

    def text(self, p: Board) -> str:  # type: ignore[override]
        return super().text((p.cells, p.side))

    def read(self, text: str) -> Board:  # type: ignore[override]
        return Board(*super().read(text))

    def symmetries(self, p: Board) -> list[Board]:  # type: ignore[override]
        return [Board(*image) for image in super().symmetries((p.cells, p.side))]
