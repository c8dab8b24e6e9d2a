"""Errors of the rules kernel: every one names the input it refuses."""
from __future__ import annotations


class GameError(Exception):
    """Root of the errors the rules kernel raises on bad input."""


class InvalidSpecError(GameError, ValueError):
    """A spec string that names no game we can build."""


class InvalidPositionError(GameError, ValueError):
    """A board, code or move that is not a legal position of the game."""


class NotationError(InvalidPositionError):
    """Board text, a move name, a move list or a code that cannot be read for this game."""


class IllegalMoveError(InvalidPositionError):
    """A readable move that may not be played here: an occupied cell, a game already over."""


class ImpossiblePositionError(InvalidPositionError):
    """A readable board that cannot arise in play: stone counts, lines, floating stones."""


class SearchLimitError(GameError):
    """A search that stopped at its limit without an answer: nothing is known either way."""


class BuildTooLargeError(GameError):
    """A build estimated past what starts unasked (a billion positions, or more disk than is
    free): the message gives the estimate and how to go ahead anyway."""

    @classmethod
    def walk_stopped(cls, game: str, positions: int, budget: int) -> BuildTooLargeError:
        """The error of a walk of a game's positions stopped at the memory budget."""
        return cls(f"{game}: stopped after {positions:,} positions, nothing written: the walk"
                   f" passed the memory budget of {budget / 2**20:,.0f} MiB; give a larger"
                   " --memory (or a smaller game)")


class WholeBoardTooLargeError(InvalidSpecError):
    """A whole-board table asked of a board with more cells than a code holds (39)."""
