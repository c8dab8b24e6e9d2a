"""The records answers come in: one position (`Probe`), one move (`MoveInfo`), one step of a
perfect line (`Step`), one stored table (`TableInfo`) and many positions at once (`ManyProbes`).
Values are for the side to move, except a move's, which is for the player making it."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tablebase.builder.games.grid import Value
from tablebase.builder.games.grid.position_text import Reading
from tablebase.query.wording import game_over_text, outcome_text

# A position as callers give it: text (builder/games/grid/position_text.py), a Reading, cell
# values, or a code.
Position = str | Reading | Sequence[int] | int

def known_depth(depth: int | None) -> int:
    """A depth where one must exist (every position of a game whose stones are only placed,
    and every decided one): ValueError for a draw by endless play, which has none."""
    if depth is None:
        raise ValueError("a draw by endless play has no depth")
    return depth


@dataclass(frozen=True)
class Probe:
    """What the table says about one position.

    `value` is for the side to move (`to_move`, 'x' or 'o'); `depth` is plies to the end under
    perfect play (0 exactly when the position is `terminal`; None for a draw by endless play,
    where stones move); `ply` counts the stones.
    """

    value: Value
    depth: int | None
    to_move: str
    terminal: bool
    ply: int

    def __str__(self) -> str:
        if self.terminal:
            return game_over_text(self.value, self.to_move)
        return f"{self.to_move} to move: {outcome_text(self.value, self.depth)}"


@dataclass(frozen=True)
class MoveInfo:
    """One legal move: its name and cell in the caller's orientation, its value for the player
    making it, the depth (plies to the end) of the position it leads to (None: a draw by
    endless play), and whether it keeps the position's perfect value and depth. Where stones
    move, a step goes from `start` to `cell` (`start` None: a placement); where it captures,
    `take` is the cell of the stone it removes."""

    move: str
    cell: int
    value: Value
    depth: int | None
    best: bool
    start: int | None = None
    take: int | None = None


@dataclass(frozen=True)
class Step:
    """One move of a perfect line: who plays it (`player`), its value for that player, the
    plies left after it (`depth`; None: a draw by endless play), and the board after it as cell
    values (where stones move, followed by the side to move)."""

    move: str
    cell: int
    player: str
    value: Value
    depth: int | None
    board: tuple[int, ...]


@dataclass(frozen=True)
class TableInfo:
    """One stored table of a game: its root (cell values; None for the whole board), how many
    positions it stores, how many cells its codes cover, and the size of its symmetry group."""

    root: tuple[int, ...] | None
    positions: int
    cells: int
    symmetries: int


@dataclass(frozen=True)
class ManyProbes:
    """Answers for many codes at once, as equal-length arrays in the order asked.

    `value` (-1 loss, 0 draw, 1 win) is for the side to move, `depth` in plies (-1 for a draw
    by endless play, where stones move), `ply` the stones on the board; where `found` is False
    the table lacks the code and the other arrays hold 0, -1 and -1.
    """

    value: np.ndarray
    depth: np.ndarray
    ply: np.ndarray
    found: np.ndarray


@dataclass(frozen=True)
class GameProbe:
    """What a table says about one position of a game given as a class (docs/games.md): its
    text, value for the side to move, depth (None: a draw by endless play), whether the game
    is over there, and its ply (the fewest moves that reach it from the table's start)."""

    position: str
    value: Value
    depth: int | None
    terminal: bool
    ply: int | None  # None: a table of ranked tiers keeps no ply

    def __str__(self) -> str:
        if self.terminal:
            return {Value.WIN: "game over: the side to move has won", Value.DRAW:
                    "game over: a draw", Value.LOSS: "game over: the side to move has lost"
                    }[self.value]
        return f"side to move: {outcome_text(self.value, self.depth)}"


@dataclass(frozen=True)
class GameMove:
    """One move of a game given as a class: its name, its value for the player making it, the
    depth after it (None: a draw by endless play), whether it keeps the position's value and
    depth, and the position it leads to, as text."""

    move: str
    value: Value
    depth: int | None
    best: bool
    position: str
