"""Games whose stones move (`+stonesN`): each side places N stones, then moves one of its own
to an empty neighbouring cell (any empty cell with `+jump`) on each turn. Play can go on
forever, so positions repeat and a draw has no depth (a draw by endless play).

The placement plies (0 .. 2N - 1 stones) are played and coded as every other game's: the
stones say whose turn it is. Once all 2N stones are down they never do, so a position of the
movement phase carries the side to move in its code, as one more digit past the last cell:

    code = board code + 3**cells * (1 if o is to move else 0)

(x to move after the last placement, so the boards the placement phase reaches keep their
codes). A step is (from, to): a stone of the side to move leaves `from` for the empty `to`.
A step or placement that makes a line wins (misère: loses); a side with no step loses.

The compiled part (moving_kernel.py, so that importing these rules imports no numba) gives a
code's children (steps) and parents (un-steps), each as a canonical code with the side to
move's digit.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from tablebase.builder.games.errors import InvalidPositionError
from tablebase.builder.games.grid.codec import EMPTY, O, X, decode, encode
from tablebase.builder.games.grid.rules import has_line
from tablebase.builder.games.grid.spec import Spec
from tablebase.builder.games.grid.symmetry import canonical_board
from tablebase.builder.games.move import Move, placements

# Where a side-to-move digit is 1: o is to move (x's is 0, as a placement phase board codes).
O_TO_MOVE = 1
# Scores of the movement phase's solver: a win in d plies is MOVING_WIN - d (db/scores.py's scale,
# widened: a cycle-free game ends within its cells, a game whose stones move may not).
MOVING_WIN = 30000


def placing_plies(spec: Spec) -> int:
    """The plies of the placement phase: 2N for `+stonesN`, every cell otherwise."""
    return 2 * spec.stones if spec.moving else spec.cells


def code_digits(spec: Spec) -> int:
    """The digits of a whole-board code: one a cell, and the side to move's where stones move."""
    return spec.cells + (1 if spec.moving else 0)


def in_movement(spec: Spec, board: Sequence[int]) -> bool:
    """Whether every stone of both sides is down, so that the next move is a step."""
    return spec.moving and sum(1 for v in board if v != EMPTY) == 2 * spec.stones


@lru_cache(maxsize=None)
def step_masks(spec: Spec) -> np.ndarray:
    """For each cell, the cells a stone on it may step to, as a bitmask: the (up to) 8 cells
    around it, or every other cell with +jump."""
    masks = np.zeros(spec.cells, dtype=np.int64)
    w = spec.width
    for cell in range(spec.cells):
        row, col = divmod(cell, w)
        for other in range(spec.cells):
            r, c = divmod(other, w)
            near = max(abs(r - row), abs(c - col)) == 1
            if other != cell and (spec.jump or near):
                masks[cell] |= 1 << other
    masks.setflags(write=False)
    return masks


def position_code(spec: Spec, board: Sequence[int], to_move: int) -> int:
    """The code of a position: the board's, and in the movement phase the side to move's digit."""
    code = encode(board)
    if in_movement(spec, board) and to_move == O:
        code += O_TO_MOVE * 3 ** spec.cells
    return code


def side_of_code(spec: Spec, code: int, stones: int) -> int:
    """The side to move of a whole-board code holding `stones` stones."""
    if spec.moving and stones == 2 * spec.stones:
        return O if code >= 3 ** spec.cells else X
    return X if stones % 2 == 0 else O


def steps(spec: Spec, board: Sequence[int], to_move: int) -> list[tuple[int, int]]:
    """Every step (from, to) of `to_move`'s stones on `board`, in cell order, ignoring whether
    the game is over."""
    masks = step_masks(spec)
    found = []
    for start, v in enumerate(board):
        if v == to_move:
            targets = int(masks[start])
            found += [(start, to) for to in range(spec.cells)
                      if targets >> to & 1 and board[to] == EMPTY]
    return found


def stepped(board: Sequence[int], start: int, to: int) -> tuple[int, ...]:
    """The board after the stone on `start` moves to `to`."""
    out = list(board)
    out[to], out[start] = out[start], EMPTY
    return tuple(out)


# --- a position as the query layer holds it: the cells, then the side to move -----------

def split(spec: Spec, position: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """(board, side to move) of a position of a game whose stones move: its cells followed
    by the side to move (X or O)."""
    return tuple(map(int, position[:spec.cells])), int(position[spec.cells])


def joined(board: Sequence[int], to_move: int) -> tuple[int, ...]:
    """The position of `board` with `to_move` to move (see `split`)."""
    return (*map(int, board), int(to_move))


def stones_say(spec: Spec, board: Sequence[int]) -> int | None:
    """The side to move as the stones say it (the placement phase: x first), or None in the
    movement phase, where they do not."""
    placed = len(board) - list(board).count(EMPTY)
    return None if placed == 2 * spec.stones else (X if placed % 2 == 0 else O)


def check_moving(spec: Spec, position: Sequence[int]) -> None:
    """Raise InvalidPositionError unless `position` can arise in play: at most N stones a
    side, placed x first, the side to move as the stones say it (where they say it), and no
    line but the one the side that moved last may have just made."""
    board, side = split(spec, position)
    xs, os_ = board.count(X), board.count(O)
    n = spec.stones
    if xs > n or os_ > n:
        raise InvalidPositionError(f"{xs} x and {os_} o: in {spec.name} each side has {n} stones")
    if not (xs == os_ or xs == os_ + 1):
        raise InvalidPositionError(
            f"impossible stone counts: {xs} x and {os_} o; x places first, so x must have as"
            " many stones as o or one more")
    said = stones_say(spec, board)
    names = {X: "x", O: "o"}
    if said is not None and side != said:
        raise InvalidPositionError(f"{names[said]} is to move with {xs} x and {os_} o on the"
                                   f" board (stones are still being placed), not {names[side]}")
    if has_line(spec, board, side):
        raise InvalidPositionError(
            f"{names[side]} has a line but is to move; the game ended when {names[side]} made it")


def legal(spec: Spec, position: Sequence[int]) -> list[Move]:
    """The moves of the side to move, in cell order (placements, or steps by their `from`);
    empty once the game is over."""
    if outcome_of(spec, position) is not None:
        return []
    return moves_of(spec, position)


def moves_of(spec: Spec, position: Sequence[int]) -> list[Move]:
    """`legal`'s moves without asking whether the game is over."""
    board, side = split(spec, position)
    if stones_say(spec, board) is not None:
        return placements(cell for cell, v in enumerate(board) if v == EMPTY)
    return [Move(start, to) for start, to in steps(spec, board, side)]


def after(spec: Spec, position: Sequence[int], move: Move) -> tuple[int, ...]:
    """The position after `move` (not checked: `legal` gives the moves)."""
    board, side = split(spec, position)
    start, to = move.start, move.cell
    board = stepped(board, start, to) if start is not None else \
        tuple(side if c == to else v for c, v in enumerate(board))
    return joined(board, O if side == X else X)


def outcome_of(spec: Spec, position: Sequence[int]) -> int | None:
    """The value (1, 0, -1) for the side to move if the game is over: the side that moved
    last made a line (a loss; misère a win), or the side to move has no step (a loss)."""
    board, side = split(spec, position)
    if has_line(spec, board, O if side == X else X):
        return 1 if spec.misere else -1
    if not moves_of(spec, position):
        return -1
    return None


def canonical_code(spec: Spec, position: Sequence[int]) -> int:
    """The code a table stores `position` under: its board's canonical code, and in the
    movement phase the side to move's digit."""
    board, side = split(spec, position)
    extra = O_TO_MOVE * 3 ** spec.cells if stones_say(spec, board) is None and side == O else 0
    return canonical_board(spec, board) + extra


def code_of(spec: Spec, position: Sequence[int]) -> int:
    """The whole-board code of a position (not canonical): see `position_code`."""
    board, side = split(spec, position)
    return position_code(spec, board, side)


def position_of(spec: Spec, code: int) -> tuple[int, ...]:
    """The position of a whole-board code (the inverse of `code_of`)."""
    board = decode(code % 3 ** spec.cells, spec.cells)
    said = stones_say(spec, board)
    return joined(board, said if said is not None else (O if code >= 3 ** spec.cells else X))


def max_steps(spec: Spec) -> int:
    """A bound on a position's steps: each of N stones to at most 8 cells (+jump: every empty
    cell)."""
    return spec.stones * (spec.cells - 2 * spec.stones if spec.jump else 8)


__all__ = ["MOVING_WIN", "O_TO_MOVE", "code_digits", "in_movement", "max_steps",
           "placing_plies", "position_code", "side_of_code", "step_masks", "stepped", "steps",
           "EMPTY", "O", "X"]
