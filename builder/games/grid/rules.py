"""The rules: who moves, which moves are legal, when the game ends and how it scores.

X moves first, so the side to move follows from the stone counts. The game ends
when the last move made k in a row (normal rules: the side to move has lost;
misere: has won; +exact: a run of exactly k, geometry.line_ends) or when the board is full
(a draw). Scalar functions serve
queries and tests; whole tiers are worked on as digit arrays by builder/games/grid/root.py, over a
table root's free cells.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from tablebase.builder.games.errors import InvalidPositionError
from tablebase.builder.games.grid.codec import EMPTY, O, X
from tablebase.builder.games.grid.geometry import line_ends, lines, lines_through
from tablebase.builder.games.grid.spec import Spec
from tablebase.builder.games.values import Value

if TYPE_CHECKING:
    import numpy as np

PLAYER_NAMES = {X: "x", O: "o"}


def mover_at(ply: int) -> int:
    """The player (X or O) to move after `ply` stones."""
    return X if ply % 2 == 0 else O


def stones_on(board: Sequence[int]) -> int:
    """The stones on `board` (its cells that are not EMPTY)."""
    if type(board) is tuple or type(board) is list:  # counted in C (a probe's commonest case)
        return len(board) - board.count(EMPTY)
    return sum(1 for v in board if v != EMPTY)


def side_to_move(board: Sequence[int]) -> int:
    """The player to move, from the stone counts (X moves first)."""
    return mover_at(stones_on(board))


@lru_cache(maxsize=None)
def line_masks(spec: Spec) -> tuple[tuple[int, int], ...]:
    """geometry's lines (squares included) as (its cells, the cells just beyond its ends)
    bitmasks, cell c as bit c: a player has made the line who holds all of the first and none
    of the second."""
    return tuple((sum(1 << c for c in set(line)), sum(1 << e for e in ends if e >= 0))
                 for line, ends in zip(lines(spec).tolist(), line_ends(spec).tolist()))


# Per player, bytes.translate's table: that player's value to "1", every other to "0".
_BIT_CHARS = {p: bytes(49 if v == p else 48 for v in range(256)) for p in (X, O)}  # "1", "0"


# The lines through one cell: each line's cells, and the cells just beyond its ends (+exact).
LinesAt = tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]


@lru_cache(maxsize=None)
def lines_at(spec: Spec) -> tuple[LinesAt, ...]:
    """For each cell, the lines through it (as `made_through` takes them), as Python ints."""
    first, through = lines_through(spec)
    table, ends = lines(spec).tolist(), line_ends(spec).tolist()
    return tuple(tuple((tuple(table[i]), tuple(e for e in ends[i] if e >= 0))
                       for i in through[first[c]:first[c + 1]]) for c in range(spec.cells))


def made_through(lines_here: LinesAt, board: Sequence[int], player: int) -> bool:
    """Whether `player` has made one of `lines_here` (`lines_at(spec)[cell]`: the lines a move
    on that cell can make; +exact: and no stone of theirs beyond its ends)."""
    for line, ends in lines_here:
        # Plain loops rather than all(...): the audit's searches test every move so.
        for cell in line:
            if board[cell] != player:
                break
        else:
            for end in ends:
                if board[end] == player:
                    break
            else:
                return True
    return False


def has_line(spec: Spec, board: Sequence[int], player: int) -> bool:
    """Whether `player` has made a line: k in a row (+exact: and not more)."""
    if isinstance(board, (tuple, list)):  # the answers' hot path: one bytes translation
        mine = int(bytes(board).translate(_BIT_CHARS[player])[::-1], 2)
    else:  # an array's bytes are not its values
        mine = 0
        for cell, v in enumerate(board):
            if v == player:
                mine |= 1 << cell
    return any(mine & cells == cells and not mine & beyond for cells, beyond in line_masks(spec))


def check_position(spec: Spec, board: Sequence[int]) -> None:
    """Raise InvalidPositionError unless the board can arise in play from the empty board."""
    if len(board) != spec.cells:
        raise InvalidPositionError(
            f"board has {len(board)} cells, expected {spec.cells} for {spec.name}")
    bad = [v for v in board if v not in (EMPTY, X, O)]
    if bad:
        raise InvalidPositionError(f"cell value {bad[0]!r} is not 0 (empty), 1 (x) or 2 (o)")
    xs = sum(1 for v in board if v == X)
    os_ = sum(1 for v in board if v == O)
    if not (xs == os_ or xs == os_ + 1):
        raise InvalidPositionError(
            f"impossible stone counts: {xs} x and {os_} o; x moves first, so x must have"
            " as many stones as o or one more")
    x_line, o_line = has_line(spec, board, X), has_line(spec, board, O)
    if x_line and o_line:
        raise InvalidPositionError("both x and o have a line; the game ends at the first one")
    last = X if xs > os_ else O
    if (x_line and last != X) or (o_line and last != O):
        winner = "x" if x_line else "o"
        raise InvalidPositionError(
            f"{winner} has a line but {PLAYER_NAMES[last]} moved last; the game would have"
            f" ended when {winner} completed it")
    if spec.gravity:
        w = spec.width
        for cell in range(spec.cells - w):
            if board[cell] != EMPTY and board[cell + w] == EMPTY:
                col = "abcdefghijklmnopqrstuvwxyz"[cell % w]
                raise InvalidPositionError(
                    f"floating stone in column {col}: with gravity a stone rests on the bottom"
                    " or on another stone")


def outcome(spec: Spec, board: Sequence[int]) -> Value | None:
    """The value for the side to move if the game is over, else None."""
    plies = sum(1 for v in board if v != EMPTY)
    if plies and has_line(spec, board, O if plies % 2 == 0 else X):
        return Value.WIN if spec.misere else Value.LOSS
    if plies == spec.cells:
        return Value.DRAW
    return None


def legal_moves(spec: Spec, board: Sequence[int]) -> list[int]:
    """The cells the side to move may play, in cell order; empty once the game is over."""
    if outcome(spec, board) is not None:
        return []
    return open_cells(spec, board)


def open_cells(spec: Spec, board: Sequence[int]) -> list[int]:
    """The cells a stone may go to, in cell order, ignoring whether the game is over.

    `legal_moves` is this once it has checked the outcome.
    """
    if not spec.gravity:
        return [cell for cell, v in enumerate(board) if v == EMPTY]
    w, n = spec.width, spec.cells
    return [cell for cell, v in enumerate(board)
            if v == EMPTY and (cell + w >= n or board[cell + w] != EMPTY)]


def parents(spec: Spec, board: Sequence[int]) -> list[tuple[int, ...]]:
    """The boards one move before `board`: one stone of the player who moved last taken away
    (under gravity, only from the top of its column)."""
    stones = sum(1 for v in board if v != EMPTY)
    if stones == 0:
        return []
    last = mover_at(stones - 1)
    found = []
    for cell, value in enumerate(board):
        above = cell - spec.width
        if value == last and (not spec.gravity or above < 0 or board[above] == EMPTY):
            found.append(tuple(EMPTY if c == cell else v for c, v in enumerate(board)))
    return found


def play(spec: Spec, board: Sequence[int], cell: int) -> tuple[int, ...]:
    """The board after the side to move plays `cell`; raise InvalidPositionError if illegal."""
    if cell not in legal_moves(spec, board):
        raise InvalidPositionError(f"cell {cell} is not a legal move here")
    out = list(board)
    out[cell] = side_to_move(board)
    return tuple(out)


def possible(value: np.ndarray | int, depth: np.ndarray | int, empties: np.ndarray | int,
             misere: bool) -> np.ndarray | bool:
    """Whether each value (for the side to move) and depth can be those of a position with
    `empties` empty cells: a draw runs to a full board; a game ends on the move that makes a
    line, so the side to move wins on its own plies (odd depths) and loses on the other's (even
    ones, 0 once the game is over), the other way round in misère, where the line loses; and no
    game outlasts its empty cells. Arrays or plain ints alike (operators only: numpy costs more
    than a probe on one position)."""
    win, loss = value == 1, value == -1
    on_own_ply = win != misere  # the side to move makes the game's last move
    decisive = (win | loss) & (depth >= 0) & (depth <= empties) & ((depth % 2 == 1) == on_own_ply)
    return ((value == 0) & (depth == empties)) | decisive
