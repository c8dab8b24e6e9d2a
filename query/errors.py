"""Errors of the answering side: every one names what was given and what is wrong with it.

Rooted in built-ins as python-chess does: bad input is a `ValueError` (through the rules
kernel's `InvalidPositionError`), a position the table does not hold is a `KeyError`.
"""
from __future__ import annotations

from builder.game import InvalidPositionError


class QueryError(Exception):
    """Root of the errors query/ raises."""


class NotationError(QueryError, InvalidPositionError):
    """Board text, a move name, a move list or a code that cannot be read for this game."""


class IllegalMoveError(QueryError, InvalidPositionError):
    """A readable move that may not be played here: an occupied cell, a game already over."""


class ImpossiblePositionError(QueryError, InvalidPositionError):
    """A readable board that cannot arise in play: stone counts, lines, floating stones."""


class MissingPositionError(QueryError, KeyError):
    """No table holds the position: it cannot be reached from the empty board, or from the
    root of any endgame table the database has. `build_from` is the board text to build an
    endgame table from, when that is the way to an answer."""

    def __init__(self, message: str, build_from: str | None = None) -> None:
        super().__init__(message)
        self.build_from = build_from

    def __str__(self) -> str:
        # KeyError's own __str__ shows the repr of its argument, quotes and all.
        return str(self.args[0]) if self.args else ""


class MissingTableError(QueryError, KeyError):
    """The game has no table with the root asked for (or no whole-board table)."""

    def __init__(self, message: str, board: tuple[int, ...] | None = None) -> None:
        super().__init__(message)
        self.board = board

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class AuditInputError(QueryError, ValueError):
    """An audit asked for with options that cannot work: a bad --positions, an unknown solver, a
    check the answers cannot support."""
