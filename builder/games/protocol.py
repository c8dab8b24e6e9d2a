"""The `Game` protocol: what the generic builder (builder/graph*.py) and the generic answers
(query/game_answers.py) ask of a game whose positions are Python values, and the one error a
fault in a game's own code raises.

A position is any hashable value that says whose turn it is. Players alternate: after a move
the other side is to move. Values are for the side to move: +1 won, 0 drawn, -1 lost.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from tablebase.builder.games.errors import GameError

if TYPE_CHECKING:
    import numpy as np

    from tablebase.builder.games.ranked_tiers import RankedGame

Position = Hashable
# `plain_numbers` gives positions below this: builder/graph.py's `rank_numbers` packs one,
# its digits padded to 17, and its count of digits into 64 bits.
NUMBER_KEYS_BELOW = 10 ** 17


class GameFault(GameError, ValueError):
    """A game's own code failed or broke its protocol (an exception in one of its methods,
    moves that are not pairs, text that does not read back, an outcome other than -1/0/1, a
    position that is not hashable): one line naming the class, the method and the position's
    text."""


class Game(Protocol):
    """A game the generic layers solve and answer. The named methods are checked: a fault of
    the game's code raises GameFault and nothing else (builder/games/user/adapter.py). A hot
    loop calls `fast_moves` and `fast_outcome`, the game's own methods unchecked, and checks
    what they give itself (`checked_outcome`; `moves` again names a fault it met)."""

    name: str  # the game as stored and shown: the catalogue's spec column
    has_symmetries: bool
    fast_moves: Callable[[Any], Iterable[tuple[str, Any]]]
    fast_outcome: Callable[[Any], object]
    fast_text: Callable[[Any], str]

    def start(self) -> Position:
        """The position play starts from."""
        ...

    def moves(self, position: Position) -> list[tuple[str, Position]]:
        """Every move as (its name, the position after it); none where the game is over."""
        ...

    def outcome(self, position: Position) -> int | None:
        """+1, 0 or -1 for the side to move where the game is over, else None (and where
        there are no moves either, the side to move has lost)."""
        ...

    def checked_outcome(self, position: Position, found: object) -> int | None:
        """`found`, what `fast_outcome` gave at `position`, checked as an outcome."""
        ...

    def text(self, position: Position) -> str:
        """The position as one line, as the commands print and read it."""
        ...

    def read(self, text: str) -> Position:
        """The position `text` names: InvalidPositionError (a ValueError) naming the fault."""
        ...

    def check_reads_back(self, position: Position, text: str) -> None:
        """GameFault unless reading `text`, the position's own text, gives it back."""
        ...

    def orbit(self, position: Position) -> list[Position]:
        """The position and every position of equal value its symmetries give, itself first,
        each once."""
        ...

    def fast_key(self, position: Position) -> str:
        """What a table stores one position under, unchecked (a hot loop checks it after)."""
        ...

    def plain_keys(self, positions: list[Position]) -> list[str] | None:
        """`fast_key` of every position where all are plain values whose keys need no check
        (one line each, none alike), else None."""
        ...

    def plain_numbers(self, positions: list[Position]) -> np.ndarray | None:
        """The positions as an int64 array where every one is an int from 0 to below
        NUMBER_KEYS_BELOW whose `fast_key` is its decimal digits (`plain_keys` of them gives
        their keys), else None: a build ranks them as their keys without making the keys."""
        ...

    def position_of(self, key: str) -> Position:
        """The position a stored key names (one of its orbit)."""
        ...

    def root_key(self, position: Position) -> str:
        """What names a table that starts at `position` (the catalogue's root)."""
        ...

    def key(self, position: Position) -> str:
        """What a table stores the position's orbit under: the smallest `fast_key` of its
        orbit (`fast_key` unchecked: a hot loop checks its texts after)."""
        ...

    def refusal(self, position: Position, said: str, names: list[str]) -> str:
        """Why `said` is not one of the moves `names` at `position`, in a few words: the
        game's own where it gives them, else `the moves here are ...`."""
        ...

    def tiers(self) -> RankedGame | None:
        """The game as ranked tiers (builder/games/ranked_tiers.py) where it has them: built
        tier by tier and stored by tier and index; else None (built by a walk)."""
        ...

    def drawing(self) -> dict[str, Any] | None:
        """The board the page draws (points with `name`, `x`, `y`; `edges` between them), or
        None where the game has none."""
        ...

    def marks(self, position: Position, points: int) -> str:
        """What stands on each of the drawing's `points` points: one character a point."""
        ...

    def positions_at_most(self) -> int | None:
        """At most how many positions play reaches from the start, where the game can say
        (a build that could not hold them refuses before it starts), else None."""
        ...

    def key_of(self, orbit: list[Position]) -> str:
        """`key` of the position whose orbit (`orbit`'s list) is `orbit`."""
        ...

    def shown(self, position: Position) -> str:
        """The position as a message names it."""
        ...

    def fault(self, method: str, position: Position, problem: str) -> GameFault:
        """The GameFault of `method` at `position`, naming the game's class and the method."""
        ...

    def raised(self, method: str, position: Position, error: Exception) -> GameFault:
        """The GameFault of an exception `method` raised at `position`."""
        ...
