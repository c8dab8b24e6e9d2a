"""A game's value for the side to move: win, draw or loss. How a table stores a value with its
depth (the solver's score byte) is db/scores.py's."""
from __future__ import annotations

from enum import IntEnum


class Value(IntEnum):
    """The game-theoretic value for the side to move."""

    LOSS = -1
    DRAW = 0
    WIN = 1

    @property
    def word(self) -> str:
        """'win', 'draw' or 'loss'."""
        # By index, not from the member's name: an answer's JSON asks for it a few times, and
        # an enum's `name` is a descriptor call each time.
        return ("loss", "draw", "win")[self + 1]

    @classmethod
    def from_word(cls, word: str) -> Value:
        """Parse 'win', 'draw' or 'loss'."""
        return cls[word.upper()]
