"""A move on a board of cells (or points): a stone put down or moved, and what it captures.

    Move(None, 4)        a placement on cell 4
    Move(1, 2)           a step (or a flight) of the stone on cell 1 to cell 2
    Move(1, 2, 7)        the same step, then the opponent's stone on cell 7 taken

Every family's moves are of this one kind (a family without captures leaves `take` None), so
the faces that play and answer (probing, play, the GTP engine, strategies) read a move's
cells by name and never by a family's layout; its text is the game's (`name`, `read_move`).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple


class Move(NamedTuple):
    """`start` the cell a stone leaves (None for a placement), `cell` where a stone goes,
    `take` the cell whose stone a capture removes (None: no capture)."""

    start: int | None
    cell: int
    take: int | None = None


def placements(cells: Iterable[int]) -> list[Move]:
    """A placement on each of `cells`, in order."""
    return [Move(None, cell) for cell in cells]
