"""What every textbook solver shares: the result record, the input check, and the rules in a shape
fit for search.

The rules themselves come from the grid games (builder/games/grid/); `SearchRules` only
precomputes the lines through each cell, so that a search can ask "did the move just made end
the game?" without rescanning the board.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tablebase.builder.games.grid import EMPTY, Spec, Value, check_position, open_cells, outcome
from tablebase.builder.games.grid.rules import lines_at, made_through


@dataclass(frozen=True)
class SolverResult:
    """A solver's answer for one position, always from the side to move's point of view.

    `move` is a best cell in the caller's own orientation (None once the game is over);
    `depth` is plies to the end under perfect play, given only by depth-aware solvers;
    `nodes` counts the positions the call visited, the root and every terminal included.
    """

    value: Value
    move: int | None
    depth: int | None
    nodes: int


class SearchTooLargeError(ValueError):
    """A board with too many empty cells for a solver meant for small games only."""


@dataclass
class Tally:
    """The number of nodes one solve call has visited so far."""

    nodes: int = 0


class SearchRules:
    """The rules of one spec, arranged for move-by-move search over boards as tuples of cell values."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.lines_through = lines_at(spec)  # a move's lines: each with its ends (+exact)
        # Completing a line ends the game; the side left to move has lost, or won under misere.
        self.line_value = int(Value.WIN if spec.misere else Value.LOSS)

    def end(self, board: tuple[int, ...], last: int | None) -> int | None:
        """The value (-1, 0, 1) for the side to move if the game is over, else None.

        `last` is the cell of the move that produced `board`, or None at the root. Only a line
        through the last move can be new: the search never continues from a finished game (and
        a stone beyond a line's end makes it an overline, never a new line).
        """
        if last is None:
            value = outcome(self.spec, board)
            return None if value is None else int(value)
        if made_through(self.lines_through[last], board, board[last]):
            return self.line_value
        return int(Value.DRAW) if EMPTY not in board else None

    def moves(self, board: tuple[int, ...]) -> list[int]:
        """The playable cells in cell order, assuming the game is not over."""
        return open_cells(self.spec, board)

    @staticmethod
    def play(board: tuple[int, ...], cell: int, player: int) -> tuple[int, ...]:
        """The board after `player` puts a stone on `cell`."""
        return board[:cell] + (player,) + board[cell + 1:]


@lru_cache(maxsize=None)
def search_rules(spec: Spec) -> SearchRules:
    """The search view of a spec's rules, built once per spec."""
    return SearchRules(spec)


def prepare(spec: Spec, board: Sequence[int], max_empty: int, solver: str) -> tuple[int, ...]:
    """Validate a solver's input and return the board as a tuple of ints.

    Raises InvalidPositionError if the board cannot arise in play, and SearchTooLargeError
    if it has more than `max_empty` empty cells: the textbook solvers are for small games only.
    """
    if not isinstance(spec, Spec):
        raise TypeError(
            f"spec must be a Spec (see parse_spec), found {type(spec).__name__}")
    check_position(spec, board)
    cells = tuple(int(v) for v in board)
    empty = cells.count(EMPTY)
    if empty > max_empty:
        raise SearchTooLargeError(
            f"the {solver} solver is for small games only: this {spec.name} board has {empty}"
            f" empty cells, at most {max_empty} allowed")
    return cells


def other(player: int) -> int:
    """The opponent of X (1) or O (2)."""
    return 3 - player
