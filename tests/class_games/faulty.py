"""Game classes with one fault each, for tests/test_class_games.py: every fault must be one
line naming the class, the method and the position, exit 2, nothing written."""
from __future__ import annotations

from tests.class_games.graphs import RandomGraph
from tests.class_games.tictactoe import Board, PlainTicTacToe


class MovesRaise(PlainTicTacToe):
    name = "faulty-moves-raise"

    def moves(self, p):  # type: ignore[no-untyped-def]
        if p[0].count("x") == 2:
            raise ZeroDivisionError("division by zero")
        return super().moves(p)


class MovesNotPairs(PlainTicTacToe):
    name = "faulty-moves-not-pairs"

    def moves(self, p):  # type: ignore[no-untyped-def]
        return [child[0] for _, child in super().moves(p)]  # the boards alone


class TextNotRead(PlainTicTacToe):
    name = "faulty-text"

    def text(self, p):  # type: ignore[no-untyped-def]
        return super().text(p).upper()


class BadOutcome(PlainTicTacToe):
    name = "faulty-outcome"

    def outcome(self, p):  # type: ignore[no-untyped-def]
        found = super().outcome(p)
        return 2 if found == -1 else found


class Unhashable(PlainTicTacToe):
    name = "faulty-unhashable"

    def moves(self, p):  # type: ignore[no-untyped-def]
        return [(name, list(child)) for name, child in super().moves(p)]


class StartRaises(PlainTicTacToe):
    name = "faulty-start"

    def start(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("no start today")


class NotAGroup(PlainTicTacToe):
    name = "faulty-symmetries"

    def symmetries(self, p):  # type: ignore[no-untyped-def]
        board, side = p
        # Not a group: a board and its reverse only sometimes (when x is in the first cell).
        return [(board[::-1], side)] if board[0] == "x" else []


class SameText(RandomGraph):
    name = "faulty-same-text"

    def text(self, p):  # type: ignore[no-untyped-def]
        return f"n{p // 2 * 2}"  # two positions a text


class ObjectSameText(PlainTicTacToe):
    """Positions that are objects (stored under their text), two of them a text."""

    name = "faulty-object-text"

    def start(self):  # type: ignore[no-untyped-def]
        return Board(*super().start())

    def outcome(self, p):  # type: ignore[no-untyped-def]
        return super().outcome((p.cells, p.side))

    def moves(self, p):  # type: ignore[no-untyped-def]
        return [(name, Board(*child)) for name, child in super().moves((p.cells, p.side))]

    def text(self, p):  # type: ignore[no-untyped-def]
        return p.cells[:3]  # the top row alone: many positions a text

    def read(self, text):  # type: ignore[no-untyped-def]
        return Board(text + "." * 6, "x")
