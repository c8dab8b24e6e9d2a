"""Positions and moves as people write them, and as the terminal shows them: move and column
names, board text, outcomes in words, and a board drawn with its coordinates (reading them is
builder/games/grid/position_text.py's).

Board text lists the rows from top to bottom separated by '/', one character per cell:
`x`, `o` or `.` for empty. Cells are numbered as in tablebase.builder.games.grid.geometry,
row-major from the top-left, so the text visits cells 0, 1, 2, ... in order:

    x.o/.x./...      3 | x . o |      cells  0 1 2      moves  a3 b3 c3
                     2 | . x . |             3 4 5             a2 b2 c2
                     1 | . . . |             6 7 8             a1 b1 c1
                         a b c

A move is a column letter (a = leftmost; past z come aa, ab, ...) and a row number (1 =
bottom), as in GTP; with +gravity a move list may give the column letter alone.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tablebase.builder.games.grid import EMPTY, PLAYER_NAMES, Spec, digits, mover_at
from tablebase.builder.games.stones.rules import stones_say

_CHARS = ".xo"


def shown(text: str) -> str:
    """`text` quoted for a message, cut to 60 characters."""
    return repr(text if len(text) <= 60 else text[:57] + "...")


def column_name(col: int) -> str:
    """The letters of column `col` (0 = leftmost): a, b, ..., z, aa, ab, ..."""
    name = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        name = chr(ord("a") + rest) + name
    return name


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
