"""Stones that drop (`+gravity`) as the generic layers use a grid game (../grid/game.py): the
placing family's turns, a stone landing on the lowest empty cell of its column."""
from __future__ import annotations

from tablebase.builder.games.grid.game import GridGame
from tablebase.builder.games.grid.notation import move_name


class GravityGame(GridGame):
    """A game whose stones fall to the lowest empty cell of their column (Connect Four)."""

    moves_anywhere = False
    drops = True

    def rules_text(self) -> str:
        """The rules in words: k in a row, and the stones' drop."""
        return super().rules_text() + ", stones drop (gravity)"

    def how_to_move(self) -> str:
        """A cell's name, or its column letter alone (the stone falls to its place)."""
        spec = self.spec
        example = move_name(spec, spec.cells - spec.width)
        return (f"Moves are a column letter and a row number, such as {example}; with +gravity"
                " a column letter alone")
