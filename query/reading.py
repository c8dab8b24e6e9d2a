"""One reading of a position, for every face (the command line, the Python API, the HTTP API,
the audit): board text, board text then moves, moves from the empty board, or with +gravity
on at most nine columns Pascal Pons' column digits ("4453" plays d, d, e, c), read into a
`Reading`: the cells, the side to move, and whether legal moves from the empty board reached
it (such a position needs no reachability test before a search).

Board text lists the rows from top to bottom separated by '/', one character per cell: `x`,
`o` (either case) or `.` for empty; a flat string of exactly width x height characters is read
the same way (query/notation.py draws the cell numbering). A move is a column letter
(a = leftmost; past z come aa, ab, ...) and a row number (1 = bottom), as in GTP; with
+gravity the column letter alone is enough. Moves are separated by spaces or commas.

`read_position` reads one, in Python; `read_positions` a batch: the usual board text with
numpy, the other forms in one compiled call where the batch is large (reading_kernel.py),
and each position that fails there again in Python, which names the fault.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from numbers import Integral
from typing import Any

import numpy as np

from tablebase.builder.game import (
    EMPTY,
    O,
    Spec,
    Value,
    X,
    check_position,
    decode,
    mover_at,
    open_cells,
    outcome,
)
from tablebase.builder.game.geometry import line_ends, lines, lines_through
from tablebase.query.errors import IllegalMoveError, NotationError
from tablebase.query.notation import (
    board_text,
    column_name,
    empty_board,
    move_name,
    player_name,
    shown,
)

_CELL_CHARS = {".": EMPTY, "x": X, "o": O}
_BOARD_CHARS = frozenset("xXoO./")
# At most 39 columns (two letters) and 39 rows: a longer name is garbage, refused before any
# arithmetic on it (a long run of letters or digits would cost quadratic time as a number).
_MOVE_RE = re.compile(r"([a-z]{1,3})([0-9]{0,3})")
# Batches of at least this many positions in other forms than plain board text are read by
# the compiled reader (whose first use in a process loads numba and the kernel).
COMPILED_BATCH = 32


@dataclass(frozen=True, slots=True)
class Reading:
    """A position as read: its cells (0 empty, 1 x, 2 o, row-major from the top-left), the
    side to move (X or O: today the stone counts say it, x moving first), and whether it was
    `played`: reached by legal moves from the empty board, so reachable by construction."""

    board: tuple[int, ...]
    to_move: int
    played: bool = False

    @property
    def ply(self) -> int:
        """Stones on the board."""
        return sum(1 for v in self.board if v)


def reading_of(board: Sequence[int], played: bool = False) -> Reading:
    """The Reading of a board of cell values (its side to move from the stone counts)."""
    cells = tuple(board)
    return Reading(cells, mover_at(len(cells) - cells.count(EMPTY)), played)


# --- board text -------------------------------------------------------------------

def parse_board(spec: Spec, text: str) -> tuple[int, ...]:
    """Cell values of board text; raise NotationError naming what is wrong with it.

    Only reads: whether the board can arise in play is `check_position`'s question.
    """
    raw = text.strip()
    w, h = spec.width, spec.height
    example = board_text(spec, empty_board(spec))
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
    return _reason(spec, done, sum(1 for v in board if v))


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
    col = 0
    for ch in letters:
        col = col * 26 + ord(ch) - ord("a") + 1
    col -= 1
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


def place(board: Sequence[int], cell: int) -> tuple[int, ...]:
    """The board after the side to move puts a stone on `cell` (no legality check)."""
    out = list(board)
    out[cell] = mover_at(sum(1 for v in board if v))
    return tuple(out)


@lru_cache(maxsize=None)
def _lines_at(spec: Spec) -> tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...]:
    """For each cell, the (cells, ends) of the lines through it, as Python ints."""
    first, through = lines_through(spec)
    table, ends = lines(spec).tolist(), line_ends(spec).tolist()
    return tuple(tuple((tuple(table[i]), tuple(ends[i])) for i in through[first[c]:first[c + 1]])
                 for c in range(spec.cells))


def _made_at(spec: Spec, board: Sequence[int], cell: int, player: int) -> bool:
    """Whether `player` has a line through `cell` (+exact: a run of exactly k)."""
    return any(all(board[c] == player for c in line) and all(e < 0 or board[e] != player
                                                               for e in ends)
               for line, ends in _lines_at(spec)[cell])


def _play(spec: Spec, board: Sequence[int], tokens: Sequence[str], text: str) -> tuple[int, ...]:
    """The board after the moves `tokens` (of the move list `text`, for messages), from
    `board`; raise naming the first move that fails and why.

    Played from the empty board, no line is on the board before a move (the game would have
    ended), so only the lines through each move's cell are looked at; from board text, which
    may hold anything, every line each time, as `outcome` does."""
    current = list(board)
    stones = sum(1 for v in current if v)
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
            made[player] = _made_at(spec, current, cell, player)
    return tuple(current)


def play_moves(spec: Spec, text: str, board: Sequence[int] | None = None) -> tuple[int, ...]:
    """The board after a move list such as "b2 a1 c3" (spaces or commas), played from `board`
    (the empty board by default); raise naming the first move that fails and why."""
    start = tuple(board) if board is not None else empty_board(spec)
    return _play(spec, start, text.replace(",", " ").split(), text)


# --- positions --------------------------------------------------------------------

def _read_text(spec: Spec, text: str) -> Reading:
    """The position one line of text names (see the module's docstring)."""
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise NotationError("an empty line names no position")
    if set(tokens[0]) <= _BOARD_CHARS or "/" in tokens[0]:  # no move has a '/'
        start = parse_board(spec, tokens[0])
        board = _play(spec, start, tokens[1:], " ".join(tokens[1:])) if len(tokens) > 1 else start
        return reading_of(board, not any(start))
    if spec.gravity and spec.width <= 9 and len(tokens) == 1 and tokens[0].isdigit():
        columns = []
        for ch in tokens[0]:
            if not 1 <= int(ch) <= spec.width:
                raise NotationError(
                    f"column {ch} in {shown(tokens[0])}: columns run from 1 to {spec.width}")
            columns.append(column_name(int(ch) - 1))
        return reading_of(_play(spec, empty_board(spec), columns, tokens[0]), True)
    return reading_of(_play(spec, empty_board(spec), tokens, text), True)


def read_position(spec: Spec, position: str | Sequence[int] | int | Reading | None = None,
                  moves: str | None = None, compiled: bool = False) -> Reading:
    """The position given in any accepted form, then `moves` played from it: text (board text,
    board text then moves, moves from the empty board, Pons' column digits with +gravity), a
    Reading, a sequence of cell values (0 empty, 1 x, 2 o, row-major from the top-left) or a
    code; None is the empty board. Text is read by the compiled reader first where
    `compiled` (a search loads it anyway: a few microseconds a position, against some
    hundred in Python). Only reads (a NotationError, IllegalMoveError or InvalidPositionError
    names the fault): whether a board not `played` can arise in play is `check_position`'s
    question."""
    if position is None:
        found = Reading(empty_board(spec), X, True)
    elif isinstance(position, Reading):
        found = position
    elif isinstance(position, str):
        got = None
        if compiled:
            from tablebase.query.reading_kernel import read_text

            got = read_text(spec, position)
        found = _read_text(spec, position) if got is None else reading_of(*got)
    elif isinstance(position, Integral) and not isinstance(position, bool):
        code = int(position)
        if not 0 <= code < 3 ** spec.cells:
            raise NotationError(
                f"code {code} is out of range for {spec.name}: codes run from 0 to"
                f" {3 ** spec.cells - 1}")
        found = reading_of(decode(code, spec.cells))
    else:
        try:
            board = tuple(int(v) for v in position)  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise NotationError(
                f"a position is text, a sequence of cell values or a code, found"
                f" {type(position).__name__} {position!r:.60}") from None
        if len(board) != spec.cells or any(v not in (EMPTY, X, O) for v in board):
            check_position(spec, board)  # raises, naming the wrong size or the bad value
        found = reading_of(board)
    if moves and moves.strip():
        found = reading_of(play_moves(spec, moves, found.board), found.played)
    return found


@dataclass(frozen=True)
class Readings:
    """Many positions read at once, in the order given: row i of `cells` (uint8, zeros where
    position i could not be read) and `played[i]`, or `errors[i]`, the error that position
    gives (NotationError, IllegalMoveError or InvalidPositionError, without its place)."""

    cells: np.ndarray
    played: np.ndarray
    errors: dict[int, ValueError]

    def __len__(self) -> int:
        return len(self.cells)

    def reading(self, i: int) -> Reading:
        """Position i as a Reading (raises its error if it has one)."""
        if i in self.errors:
            raise self.errors[i]
        return reading_of(self.cells[i].tolist(), bool(self.played[i]))


_CELL_BYTES = np.full(256, 255, dtype=np.uint8)
for _ch, _v in ((".", 0), ("x", 1), ("X", 1), ("o", 2), ("O", 2)):
    _CELL_BYTES[ord(_ch)] = _v


def read_positions(spec: Spec, positions: Sequence[Any], compiled: bool | None = None
                   ) -> Readings:
    """Every position of `positions` (each in a form `read_position` takes) at once: board text
    of the usual form ('x.o/.x./...') with numpy; other text in one compiled call when
    `compiled` (None: when there are at least COMPILED_BATCH of it); the rest, and each
    position the compiled reader leaves, in Python, which names the fault."""
    n = len(positions)
    cells = np.zeros((n, spec.cells), dtype=np.uint8)
    played = np.zeros(n, dtype=bool)
    errors: dict[int, ValueError] = {}
    texts = [isinstance(p, str) for p in positions]
    plain = _plain_boards(spec, positions, texts, cells, played)
    rest = [i for i in range(n) if not plain[i]]
    other = [i for i in rest if texts[i]]
    if other and (compiled or (compiled is None and len(other) >= COMPILED_BATCH)):
        from tablebase.query.reading_kernel import read_texts

        done = read_texts(spec, [positions[i] for i in other], cells, played, other)
        left = {i for i, read in zip(other, done) if not read}
        rest = [i for i in rest if not texts[i] or i in left]
    for i in rest:
        try:
            found = read_position(spec, positions[i])
        except ValueError as e:
            errors[i] = e
            continue
        cells[i] = found.board
        played[i] = found.played
    return Readings(cells, played, errors)


def _plain_boards(spec: Spec, positions: Sequence[Any], texts: list[bool], cells: np.ndarray,
                  played: np.ndarray) -> np.ndarray:
    """Read the positions that are board text of the usual form ('x.o/.x./...', rows joined by
    '/', ASCII) with numpy, into `cells` and `played`; whether each was."""
    w, h = spec.width, spec.height
    length = spec.cells + h - 1
    plain = np.array([t and len(p) == length and p.isascii() for t, p in zip(texts, positions)],
                     dtype=bool)
    if not plain.any():
        return plain
    chosen = np.flatnonzero(plain)
    raw = np.frombuffer("".join(positions[int(i)] for i in chosen).encode("ascii"),
                        dtype=np.uint8).reshape(len(chosen), length)
    slashes = np.array([r * (w + 1) + w for r in range(h - 1)], dtype=np.int64)
    values = _CELL_BYTES[raw[:, np.delete(np.arange(length), slashes)]]
    ok = (values != 255).all(axis=1) & (raw[:, slashes] == ord("/")).all(axis=1)
    cells[chosen[ok]] = values[ok]
    played[chosen[ok]] = ~values[ok].any(axis=1)
    plain[chosen[~ok]] = False
    return plain
