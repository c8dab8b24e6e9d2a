"""Boards and moves as people write them, read: board text, cell values, cell and move names,
and move lists played from a board; the pieces position_text.py reads whole positions with
(and ../stones/notation.py the positions of games whose stones move), and the `Reading` record.

Board text lists the rows from top to bottom separated by '/', one character per cell: `x`,
`o` (either case) or `.` for empty; a flat string of exactly width x height characters is read
the same way (notation.py draws the cell numbering). A move is a column letter
(a = leftmost; past z come aa, ab, ...) and a row number (1 = bottom), as in GTP; with
+gravity the column letter alone is enough. Moves are separated by spaces or commas.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tablebase.builder.games.errors import IllegalMoveError, NotationError
from tablebase.builder.games.grid import (
    EMPTY,
    O,
    Spec,
    Value,
    X,
    check_position,
    mover_at,
    open_cells,
    outcome,
)
from tablebase.builder.games.grid.notation import (
    board_text,
    column_name,
    empty_board,
    move_name,
    player_name,
    shown,
)
from tablebase.builder.games.grid.rules import lines_at, made_through, stones_on

_CELL_CHARS = {".": EMPTY, "x": X, "o": O}
_CELL_BYTES = bytes(_CELL_CHARS.get(chr(b).lower(), 3) for b in range(256))
# At most 39 columns (two letters) and 39 rows: a longer name is garbage, refused before any
# arithmetic on it (a long run of letters or digits would cost quadratic time as a number).
_MOVE_RE = re.compile(r"([a-z]{1,3})([0-9]{0,3})")


@dataclass(frozen=True, slots=True)
class Reading:
    """A position as read: its cells (0 empty, 1 x, 2 o, row-major from the top-left; where
    stones move, followed by the side to move, as builder/games/stones/rules.py holds a position),
    the side to move (X or O: the stone counts say it, x moving first, except where stones
    move and every stone is down), and whether it was `played`: reached by legal moves from
    the empty board, so reachable by construction (a search tests it no further)."""

    board: tuple[int, ...]
    to_move: int
    played: bool = False


def reading_of(board: Sequence[int], played: bool = False) -> Reading:
    """The Reading of a board of cell values (its side to move from the stone counts)."""
    cells = tuple(board)
    return Reading(cells, mover_at(len(cells) - cells.count(EMPTY)), played)


# --- board text -------------------------------------------------------------------

class _Example:
    """The empty board's text, made when an error message formats it."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec

    def __str__(self) -> str:
        return board_text(self.spec, empty_board(self.spec))


def parse_board(spec: Spec, text: str) -> tuple[int, ...]:
    """Cell values of board text; raise NotationError naming what is wrong with it.

    Only reads: whether the board can arise in play is `check_position`'s question.
    """
    raw = text.strip()
    w, h = spec.width, spec.height
    example = _Example(spec)  # board text of the empty board, made only for an error
    if " " in raw or "\t" in raw:
        raise NotationError(
            f"board {shown(text)}: a space is not a cell; write '.' for an empty cell, e.g."
            f" {example}")
    if "/" in raw:
        rows = raw.split("/")
        if len(rows) != h:
            raise NotationError(
                f"board {shown(text)} has {len(rows)} rows, expected {h} for {spec.name}"
                f" ({h} rows of {w} cells separated by '/', e.g. {example})")
        for number, row in enumerate(rows, 1):
            if len(row) != w:
                raise NotationError(
                    f"board {shown(text)}: row {number} from the top ({row!r}) has {len(row)}"
                    f" cells, expected {w} for {spec.name}")
        flat = "".join(rows)
    else:
        flat = raw
        if len(flat) != spec.cells:
            raise NotationError(
                f"board {shown(text)} has {len(flat)} cells, expected {spec.cells} for"
                f" {spec.name}: {h} rows of {w} separated by '/', e.g. {example},"
                f" or all {spec.cells} cells in one string")
    # One translation of the whole text (a probe's hot path); 3 marks a character that is
    # not a cell, found again for its error.
    values = flat.encode("utf-8", "replace").translate(_CELL_BYTES)
    if len(values) == len(flat) and 3 not in values:
        return tuple(values)
    board = []
    for cell, ch in enumerate(flat):
        value = _CELL_CHARS.get(ch.lower())
        if value is None:
            raise NotationError(
                f"board {shown(text)}: unknown character {ch!r} at {move_name(spec, cell)};"
                " use x, o and . (empty)")
        board.append(value)
    return tuple(board)


# --- moves ------------------------------------------------------------------------

def _over_reason(spec: Spec, board: Sequence[int]) -> str | None:
    """Why no move may be played on `board` (the game is over), or None."""
    done = outcome(spec, board)
    if done is None:
        return None
    return _reason(spec, done, stones_on(board))


def _reason(spec: Spec, done: Value, stones: int) -> str:
    if done == Value.DRAW:
        return "the board is full"
    return f"{player_name(mover_at(stones - 1))} completed {spec.k} in a row"


def parse_move(spec: Spec, board: Sequence[int], text: str) -> int:
    """The cell a move name plays on `board`; raise NotationError if it cannot be read or is off
    the board, IllegalMoveError if the cell may not be played now."""
    return _move_cell(spec, board, text, lambda: _over_reason(spec, board))


def _move_cell(spec: Spec, board: Sequence[int], text: str, over: Any) -> int:
    """`parse_move`, the game's end asked of `over()` (a reason, or None) once the name reads."""
    m = _MOVE_RE.fullmatch(text.strip().lower()) if len(text) <= 40 else None
    alone = " (or a column letter alone, with +gravity)" if spec.gravity else ""
    if m is None:
        raise NotationError(
            f"cannot read move {shown(text)}: expected a column letter and a row number such as"
            f" b2{alone}")
    letters, number = m.group(1), m.group(2)
    col = _column_index(letters)
    last_col = column_name(spec.width - 1)
    if not number and (not spec.gravity or col >= spec.width):
        raise NotationError(
            f"cannot read move {shown(text)}: expected a column letter a-{last_col} and a row"
            f" number 1-{spec.height} such as b2{alone}")
    if col >= spec.width or (number and not 1 <= int(number) <= spec.height):
        raise NotationError(
            f"move {text!r} is off the {spec.width}x{spec.height} board: columns run a-{last_col},"
            f" rows 1-{spec.height}")
    reason = over()
    if reason is not None:
        raise IllegalMoveError(f"move {text!r} comes after the end of the game ({reason})")
    landing = None
    if spec.gravity:
        free = [c for c in open_cells(spec, board) if c % spec.width == col]
        if not free:
            raise IllegalMoveError(f"move {text!r}: column {letters} is full")
        landing = free[0]
    if not number:  # a column alone, with +gravity (checked above)
        assert landing is not None
        return landing
    cell = (spec.height - int(number)) * spec.width + col
    if board[cell] != EMPTY:
        raise IllegalMoveError(
            f"move {text!r}: {move_name(spec, cell)} is occupied (by {player_name(board[cell])})")
    if landing is not None and cell != landing:
        raise IllegalMoveError(
            f"move {text!r}: with +gravity a stone in column {letters} lands on"
            f" {move_name(spec, landing)}, not {move_name(spec, cell)}")
    return cell


def parse_cell(spec: Spec, text: str) -> int:
    """The cell a name such as b2 names; NotationError if it cannot be read or is off the board."""
    m = _MOVE_RE.fullmatch(text.strip().lower()) if len(text) <= 40 else None
    if m is None or not m.group(2):
        raise NotationError(f"cannot read cell {shown(text)}: expected a column letter and a"
                            " row number such as b2")
    col, row = _column_index(m.group(1)), int(m.group(2))
    if col >= spec.width or not 1 <= row <= spec.height:
        raise NotationError(
            f"cell {text!r} is off the {spec.width}x{spec.height} board: columns run"
            f" a-{column_name(spec.width - 1)}, rows 1-{spec.height}")
    return (spec.height - row) * spec.width + col


def _column_index(letters: str) -> int:
    col = 0
    for ch in letters:
        col = col * 26 + ord(ch) - ord("a") + 1
    return col - 1


def place(board: Sequence[int], cell: int, mover: int | None = None) -> tuple[int, ...]:
    """The board after the side to move (`mover`, if the caller has counted it) puts a stone on
    `cell` (no legality check)."""
    out = list(board)
    out[cell] = mover_at(stones_on(board)) if mover is None else mover
    return tuple(out)


def play_tokens(spec: Spec, board: Sequence[int], tokens: Sequence[str], text: str) -> tuple[int, ...]:
    """The board after the moves `tokens` (of the move list `text`, for messages), from
    `board`; raise naming the first move that fails and why.

    Played from the empty board, no line is on the board before a move (the game would have
    ended), so only the lines through each move's cell are looked at; from board text, which
    may hold anything, every line each time, as `outcome` does."""
    current = list(board)
    stones = stones_on(current)
    fresh = stones == 0
    made = {X: False, O: False}  # fresh: whether each side has made a line

    def over() -> str | None:
        if not fresh:
            return _over_reason(spec, current)
        if stones and made[mover_at(stones - 1)]:
            return _reason(spec, Value.LOSS, stones)
        return _reason(spec, Value.DRAW, stones) if stones == spec.cells else None

    for number, token in enumerate(tokens, 1):
        try:
            cell = _move_cell(spec, current, token, over)
        except (NotationError, IllegalMoveError) as e:
            raise type(e)(f"move {number} of {shown(text.strip())}: {e}") from None
        player = mover_at(stones)
        current[cell] = player
        stones += 1
        if fresh:
            made[player] = made_through(lines_at(spec)[cell], current, player)
    return tuple(current)


def play_moves(spec: Spec, text: str, board: Sequence[int] | None = None) -> tuple[int, ...]:
    """The board after a move list such as "b2 a1 c3" (spaces or commas), played from `board`
    (the empty board by default); raise naming the first move that fails and why."""
    start = tuple(board) if board is not None else empty_board(spec)
    return play_tokens(spec, start, text.replace(",", " ").split(), text)


# --- positions --------------------------------------------------------------------


def read_cells(spec: Spec, values: Sequence[int]) -> tuple[int, ...]:
    """A board given as cell values (0 empty, 1 x, 2 o, row-major from the top-left), as a
    tuple of ints; NotationError or InvalidPositionError naming what is wrong with it."""
    try:
        board = tuple(int(v) for v in values)
    except (TypeError, ValueError):
        raise NotationError(
            f"a position is text, a sequence of cell values or a code, found"
            f" {type(values).__name__} {values!r:.60}") from None
    if len(board) != spec.cells or any(v not in (EMPTY, X, O) for v in board):
        check_position(spec, board)  # raises, naming the wrong size or the bad value
    return board
