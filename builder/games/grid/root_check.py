"""A position checked as a table's root (Root, root.py): legal, reached, not over, and
within what a code holds; the root of every build (`root_of`)."""
from __future__ import annotations

from collections.abc import Sequence

from tablebase.builder.games.errors import InvalidPositionError, WholeBoardTooLargeError
from tablebase.builder.games.grid.codec import EMPTY
from tablebase.builder.games.grid.orders import stone_order
from tablebase.builder.games.grid.root import Root
from tablebase.builder.games.grid.rules import check_position, has_line, mover_at
from tablebase.builder.games.grid.spec import MAX_CELLS, Spec
from tablebase.builder.games.stones.rules import check_moving, outcome_of, stones_say


def check_moving_root(spec: Spec, position: Sequence[int]) -> Root:
    """The Root of a table of a game whose stones move, built from `position` (its cells, then
    the side to move where the stones do not say it), or InvalidPositionError naming why not."""
    position = tuple(int(v) for v in position)
    if len(position) == spec.cells:
        said = stones_say(spec, position)
        if said is None:
            raise InvalidPositionError("every stone is down, so the stones do not say whose"
                                       " turn it is: give the side to move too")
        position = (*position, said)
    if len(position) != spec.cells + 1:
        raise InvalidPositionError(f"a position of {spec.name} is {spec.cells} cells and the side"
                                   f" to move, found {len(position)} values")
    check_moving(spec, position)
    if outcome_of(spec, position) is not None:
        raise InvalidPositionError("the game is already over at this position; there is nothing"
                                   " to solve from it")
    return Root(spec, (EMPTY,) * spec.cells, position)


def check_root(spec: Spec, board: Sequence[int]) -> Root:
    """The Root of a table built from `board`, or InvalidPositionError naming why it cannot be one:
    illegal or unreachable, the game already over, or more free cells than a code holds."""
    board = tuple(int(v) for v in board)
    check_position(spec, board)
    ply = sum(1 for v in board if v != EMPTY)
    if ply and has_line(spec, board, mover_at(ply - 1)):
        raise InvalidPositionError("the game is already over at this position (a line is made);"
                                   " there is nothing to solve from it")
    if ply == spec.cells:
        raise InvalidPositionError("the board is full: the game is already over at this position")
    free = spec.cells - ply
    if free > MAX_CELLS:
        raise InvalidPositionError(
            f"the position has {free} empty cells; an endgame table codes at most {MAX_CELLS}"
            f" (place at least {free - MAX_CELLS} more stones)")
    # Without gravity any line-free board is reached by some order, unless under +exact a
    # subset of an overline was a line on the way: then the search says.
    if (spec.gravity or spec.exact) and stone_order(spec, board) is None:
        how = "stacks the stones this way" if spec.gravity else "avoids a line on the way"
        raise InvalidPositionError(
            f"no order of alternating moves, x first, {how}: the position cannot be reached")
    return Root(spec, board)


def root_of(spec: Spec, root: Sequence[int] | None = None) -> Root:
    """The Root of the table to build: the empty board when `root` is None or empty, else the
    checked position (InvalidPositionError when it cannot root a table; WholeBoardTooLargeError
    for a whole board with more than 39 cells)."""
    if spec.moving and root is not None and any(root[:spec.cells]):
        return check_moving_root(spec, root)
    if root is None or not any(root):
        if not spec.whole_board_fits:
            raise WholeBoardTooLargeError(
                f"{spec.name} has {spec.cells} cells; a whole-board build needs at most"
                f" {MAX_CELLS}")
        return Root.whole(spec)
    return check_root(spec, root)
