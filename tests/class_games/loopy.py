"""A game whose positions repeat, written as a game class (docs/games.md): a token on a ring of
`SIZE` squares, each side in turn moves it one or two squares clockwise, or on a marked square
may pass... (see `Ring`'s docstring)."""
from __future__ import annotations


class Ring:
    """Squares 0..5 in a ring; a position is (token square, side to move, moves left). Each
    side in turn moves the token 1 or 2 squares clockwise. Landing on square 0 wins for the
    mover (the side to move then has lost); landing on square 3 ends the game drawn. Play is
    endless where both sides avoid those squares: a move count caps nothing, so repeats occur.
    Square 5 is a trap: a side to move there has no move (it has lost)."""

    name = "class-ring"

    def start(self) -> tuple[int, str]:
        return 1, "x"

    def outcome(self, p: tuple[int, str]) -> int | None:
        square, _ = p
        if square == 0:
            return -1
        if square == 3:
            return 0
        return None

    def moves(self, p: tuple[int, str]) -> list[tuple[str, tuple[int, str]]]:
        square, side = p
        if square == 5:
            return []
        other = "o" if side == "x" else "x"
        return [(f"+{step}", ((square + step) % 6, other)) for step in (1, 2)]

    def text(self, p: tuple[int, str]) -> str:
        return f"{p[0]} {p[1]}"

    def read(self, text: str) -> tuple[int, str]:
        square, _, side = text.strip().partition(" ")
        if not square.isdigit() or int(square) > 5 or side not in ("x", "o"):
            raise ValueError("expected a square 0-5 and the side to move, e.g. '1 x'")
        return int(square), side
