"""Positions and moves as people write them: board text, move names and move lists, and a
board drawn for the terminal.

Board text lists the rows from top to bottom separated by '/', one character per cell:
`x`, `o` (either case) or `.` for empty. Cells are numbered as in tablebase.builder.game.geometry,
row-major from the top-left, so the text visits cells 0, 1, 2, ... in order:

    x.o/.x./...      3 | x . o |      cells  0 1 2      moves  a3 b3 c3
                     2 | . x . |             3 4 5             a2 b2 c2
                     1 | . . . |             6 7 8             a1 b1 c1
                         a b c

A flat string of exactly width x height characters is read the same way. A move is a
column letter (a = leftmost; past z come aa, ab, ...) and a row number (1 = bottom), as in
GTP; with +gravity the column letter alone is enough.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np

from tablebase.builder.game import (
    EMPTY,
    PLAYER_NAMES,
    O,
    Spec,
    Value,
    X,
    check_position,
    decode,
    digits,
    mover_at,
    open_cells,
    outcome,
    side_to_move,
)
from tablebase.builder.game.moving import stones_say
from tablebase.query.errors import IllegalMoveError, NotationError

_CELL_CHARS = {".": EMPTY, "x": X, "o": O}
_CHARS = ".xo"
# At most 39 columns (two letters) and 39 rows: a longer name is garbage, refused before any
# arithmetic on it (a long run of letters or digits would cost quadratic time as a number).
_MOVE_RE = re.compile(r"([a-z]{1,3})([0-9]{0,3})")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def column_name(col: int) -> str:
    """The letters of column `col` (0 = leftmost): a, b, ..., z, aa, ab, ..."""
    name = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        name = chr(ord("a") + rest) + name
    return name


def _column_index(letters: str) -> int:
    col = 0
    for ch in letters:
        col = col * 26 + ord(ch) - ord("a") + 1
    return col - 1


def move_name(spec: Spec, cell: int) -> str:
    """The name of a cell: column letter and row number, row 1 being the bottom row."""
    row, col = divmod(cell, spec.width)
    return f"{column_name(col)}{spec.height - row}"


def listed_name(spec: Spec, cell: int) -> str:
    """A move as a move list writes it: the column letter alone with gravity (the stone falls
    to its place), else the cell's name."""
    return column_name(cell % spec.width) if spec.gravity else move_name(spec, cell)


def player_name(player: int) -> str:
    """'x' or 'o'."""
    return PLAYER_NAMES[player]


def to_move_name(ply: int) -> str:
    """The side to move after `ply` stones, 'x' or 'o' (x moves first)."""
    return PLAYER_NAMES[mover_at(ply)]


def plies(n: int) -> str:
    """'1 ply', '7 plies'."""
    return f"{n} pl{'y' if n == 1 else 'ies'}"


def outcome_text(value: int | Value, depth: int | None) -> str:
    """'win in 7 plies', 'draw in 9 plies', 'loss in 0 plies' for the side to move; a draw with
    no depth (stones that move) is 'draw (endless play)'."""
    if depth is None:
        return f"{Value(value).word} (endless play)"
    return f"{Value(value).word} in {plies(depth)}"


def game_over_text(value: int | Value, to_move: str) -> str:
    """Who won a finished game, from its value for `to_move`, the side that would move next:
    'game over: x won' or 'game over: a draw'."""
    if Value(value) == Value.DRAW:
        return "game over: a draw"
    other = "o" if to_move == "x" else "x"
    return f"game over: {to_move if Value(value) == Value.WIN else other} won"


# GTP's column letters: A to Z without I (go's convention, which GTP engines follow).
GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


# --- boards ------------------------------------------------------------------

def empty_board(spec: Spec) -> tuple[int, ...]:
    """The empty board's cell values."""
    return (EMPTY,) * spec.cells


def board_text(spec: Spec, board: Sequence[int]) -> str:
    """Board text of a board given as cell values, e.g. `x.o/.x./...`; of a position of a
    game whose stones move (its cells, then the side to move), followed by ` x` or ` o` where
    the stones do not say whose turn it is."""
    chars = "".join(_CHARS[v] for v in board[:spec.cells])
    w = spec.width
    text = "/".join(chars[i : i + w] for i in range(0, spec.cells, w))
    if len(board) > spec.cells and stones_say(spec, board[:spec.cells]) is None:
        return f"{text} {PLAYER_NAMES[int(board[spec.cells])]}"
    return text


def board_texts(spec: Spec, codes: np.ndarray) -> list[str]:
    """Board text of many whole-board codes at once (the vectorised twin of `board_text`)."""
    return digit_board_texts(spec, digits(codes, spec.cells))


def digit_board_texts(spec: Spec, boards: np.ndarray) -> list[str]:
    """Board text of many boards given as an (N, cells) digit array."""
    w, h = spec.width, spec.height
    chars = np.frombuffer(_CHARS.encode(), dtype=np.uint8)[boards]
    width = spec.cells + h - 1
    out = np.full((len(chars), width), ord("/"), dtype=np.uint8)
    for row in range(h):
        out[:, row * (w + 1) : row * (w + 1) + w] = chars[:, row * w : (row + 1) * w]
    return np.ascontiguousarray(out).view(f"S{width}").ravel().astype(str).tolist()


def parse_board(spec: Spec, text: str) -> tuple[int, ...]:
    """Cell values of board text; raise NotationError naming what is wrong with it.

    Only reads: whether the board can arise in play is `check_position`'s question.
    """
    raw = text.strip()
    w, h = spec.width, spec.height
    example = board_text(spec, empty_board(spec))
    if " " in raw or "\t" in raw:
        raise NotationError(
            f"board {_shown(text)}: a space is not a cell; write '.' for an empty cell, e.g."
            f" {example}")
    if "/" in raw:
        rows = raw.split("/")
        if len(rows) != h:
            raise NotationError(
                f"board {_shown(text)} has {len(rows)} rows, expected {h} for {spec.name}"
                f" ({h} rows of {w} cells separated by '/', e.g. {example})")
        for number, row in enumerate(rows, 1):
            if len(row) != w:
                raise NotationError(
                    f"board {_shown(text)}: row {number} from the top ({row!r}) has {len(row)}"
                    f" cells, expected {w} for {spec.name}")
        flat = "".join(rows)
    else:
        flat = raw
        if len(flat) != spec.cells:
            raise NotationError(
                f"board {_shown(text)} has {len(flat)} cells, expected {spec.cells} for"
                f" {spec.name}: {h} rows of {w} separated by '/', e.g. {example},"
                f" or all {spec.cells} cells in one string")
    board = []
    for cell, ch in enumerate(flat):
        value = _CELL_CHARS.get(ch.lower())
        if value is None:
            raise NotationError(
                f"board {_shown(text)}: unknown character {ch!r} at {move_name(spec, cell)};"
                " use x, o and . (empty)")
        board.append(value)
    return tuple(board)


def read_position(spec: Spec, position: str | Sequence[int] | int) -> tuple[int, ...]:
    """The cell values of a position given in any accepted form: board text, a sequence of
    cell values (0 empty, 1 x, 2 o, row-major from the top-left) or a code. Only reads (a
    NotationError or InvalidPositionError names the fault): whether the board can arise in
    play is `check_position`'s question."""
    if isinstance(position, str):
        return parse_board(spec, position)
    if isinstance(position, Integral) and not isinstance(position, bool):
        code = int(position)
        if not 0 <= code < 3 ** spec.cells:
            raise NotationError(
                f"code {code} is out of range for {spec.name}: codes run from 0 to"
                f" {3 ** spec.cells - 1}")
        return decode(code, spec.cells)
    try:
        board = tuple(int(v) for v in position)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise NotationError(
            f"a position is board text, a sequence of cell values or a code, found"
            f" {type(position).__name__} {position!r:.60}") from None
    if len(board) != spec.cells or any(v not in (EMPTY, X, O) for v in board):
        check_position(spec, board)  # raises, naming the wrong size or the bad value
    return board


def draw_board(spec: Spec, board: Sequence[int], highlight: int | None = None) -> str:
    """A picture of the board with coordinates; the `highlight` cell's stone is upper case."""
    label = len(str(spec.height))
    cols = [column_name(c) for c in range(spec.width)]
    cell_width = max(len(c) for c in cols)
    lines = []
    for row in range(spec.height):
        cells = []
        for col in range(spec.width):
            cell = row * spec.width + col
            ch = _CHARS[board[cell]]
            cells.append((ch.upper() if cell == highlight else ch).ljust(cell_width))
        lines.append(f"{spec.height - row:>{label}} | {' '.join(cells).rstrip()}")
    lines.append(" " * (label + 3) + " ".join(c.ljust(cell_width) for c in cols).rstrip())
    return "\n".join(lines)


# --- moves -------------------------------------------------------------------

def _over_reason(spec: Spec, board: Sequence[int]) -> str | None:
    done = outcome(spec, board)
    if done is None:
        return None
    if done == Value.DRAW:
        return "the board is full"
    last = player_name(mover_at(sum(1 for v in board if v) - 1))
    return f"{last} completed {spec.k} in a row"


def parse_move(spec: Spec, board: Sequence[int], text: str) -> int:
    """The cell a move name plays on `board`; raise NotationError if it cannot be read or is off
    the board, IllegalMoveError if the cell may not be played now."""
    m = _MOVE_RE.fullmatch(text.strip().lower()) if len(text) <= 40 else None
    alone = " (or a column letter alone, with +gravity)" if spec.gravity else ""
    if m is None:
        raise NotationError(
            f"cannot read move {_shown(text)}: expected a column letter and a row number such as"
            f" b2{alone}")
    letters, number = m.group(1), m.group(2)
    col = _column_index(letters)
    last_col = column_name(spec.width - 1)
    if not number and (not spec.gravity or col >= spec.width):
        raise NotationError(
            f"cannot read move {_shown(text)}: expected a column letter a-{last_col} and a row"
            f" number 1-{spec.height} such as b2{alone}")
    if col >= spec.width or (number and not 1 <= int(number) <= spec.height):
        raise NotationError(
            f"move {text!r} is off the {spec.width}x{spec.height} board: columns run a-{last_col},"
            f" rows 1-{spec.height}")
    reason = _over_reason(spec, board)
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
        raise NotationError(f"cannot read cell {_shown(text)}: expected a column letter and a"
                            " row number such as b2")
    col, row = _column_index(m.group(1)), int(m.group(2))
    if col >= spec.width or not 1 <= row <= spec.height:
        raise NotationError(
            f"cell {text!r} is off the {spec.width}x{spec.height} board: columns run"
            f" a-{column_name(spec.width - 1)}, rows 1-{spec.height}")
    return (spec.height - row) * spec.width + col


def place(board: Sequence[int], cell: int) -> tuple[int, ...]:
    """The board after the side to move puts a stone on `cell` (no legality check)."""
    out = list(board)
    out[cell] = side_to_move(board)
    return tuple(out)


def play_moves(spec: Spec, text: str, board: Sequence[int] | None = None) -> tuple[int, ...]:
    """The board after a move list such as "b2 a1 c3" (spaces or commas), played from `board`
    (the empty board by default); raise naming the first move that fails and why."""
    current = tuple(board) if board is not None else empty_board(spec)
    for number, token in enumerate(text.replace(",", " ").split(), 1):
        try:
            cell = parse_move(spec, current, token)
        except (NotationError, IllegalMoveError) as e:
            raise type(e)(f"move {number} of {_shown(text.strip())}: {e}") from None
        current = place(current, cell)
    return current


_BOARD_CHARS = frozenset("xXoO./")


def parse_position(spec: Spec, text: str) -> tuple[int, ...]:
    """The position one line names: board text; board text then moves ("x.o/.x./... b2 a1");
    moves from the empty board ("b2 a1 c3"); or, with +gravity on at most nine columns, a
    string of column digits from 1 (Pascal Pons' test files: "4453" plays d, d, e, c)."""
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise NotationError("an empty line names no position")
    if set(tokens[0]) <= _BOARD_CHARS:
        board = parse_board(spec, tokens[0])
        return play_moves(spec, " ".join(tokens[1:]), board) if len(tokens) > 1 else board
    if spec.gravity and spec.width <= 9 and len(tokens) == 1 and tokens[0].isdigit():
        columns = []
        for ch in tokens[0]:
            if not 1 <= int(ch) <= spec.width:
                raise NotationError(
                    f"column {ch} in {_shown(tokens[0])}: columns run from 1 to {spec.width}")
            columns.append(column_name(int(ch) - 1))
        return play_moves(spec, " ".join(columns))
    return play_moves(spec, " ".join(tokens))


_CELL_BYTES = np.full(256, 255, dtype=np.uint8)
for _ch, _v in ((".", 0), ("x", 1), ("X", 1), ("o", 2), ("O", 2)):
    _CELL_BYTES[ord(_ch)] = _v


def parse_boards(spec: Spec, texts: Sequence[Any]) -> np.ndarray:
    """Cell values (n, cells) of many board texts at once: the usual form ('x.o/.x./...') read
    with numpy, anything else (or anything wrong) through parse_board, which names the fault
    and the board's place in the list."""
    n, w, h = len(texts), spec.width, spec.height
    out = np.zeros((n, spec.cells), dtype=np.uint8)
    length = spec.cells + h - 1
    plain = np.array([isinstance(t, str) and len(t) == length and t.isascii() for t in texts],
                     dtype=bool)
    bad = ~plain
    if plain.any():
        chosen = np.flatnonzero(plain)
        raw = np.frombuffer("".join(texts[int(i)] for i in chosen).encode("ascii"),
                            dtype=np.uint8).reshape(len(chosen), length)
        slashes = np.array([r * (w + 1) + w for r in range(h - 1)], dtype=np.int64)
        cells = np.delete(np.arange(length), slashes)
        values = _CELL_BYTES[raw[:, cells]]
        ok = (values != 255).all(axis=1) & (raw[:, slashes] == ord("/")).all(axis=1)
        out[chosen[ok]] = values[ok]
        bad[chosen[~ok]] = True
    for i in np.flatnonzero(bad).tolist():
        text = texts[i]
        if not isinstance(text, str):
            raise NotationError(f"board {i + 1} of {n}: expected board text, found"
                                f" {json_kind(text)}")
        try:
            out[i] = parse_board(spec, text)
        except ValueError as e:
            raise type(e)(f"board {i + 1} of {n}: {e}") from None
    return out


def json_kind(value: object) -> str:
    """What a value is, in the words of JSON (batches of boards arrive as JSON)."""
    return {dict: "an object", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)
