"""Errors of the rules kernel: every one names the input it refuses."""
from __future__ import annotations


class GameError(Exception):
    """Root of the errors the rules kernel raises on bad input."""


class InvalidSpecError(GameError, ValueError):
    """A spec string that names no game we can build."""


class InvalidPositionError(GameError, ValueError):
    """A board, code or move that is not a legal position of the game."""


class SearchLimitError(GameError):
    """A search that stopped at its limit without an answer: nothing is known either way."""


class BuildTooLargeError(GameError):
    """A build estimated past what starts unasked (a billion positions, or more disk than is
    free): the message gives the estimate and how to go ahead anyway."""


class WholeBoardTooLargeError(InvalidSpecError):
    """A whole-board table asked of a board with more cells than a code holds (39)."""
