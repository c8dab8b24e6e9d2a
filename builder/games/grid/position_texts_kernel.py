"""Position text read in compiled code, a whole batch in one call (builder/games/grid/position_text.py's
`read_positions`): board text, board text then moves, moves, and Pons' column digits, each line
played into its cells, a move's line test by the rules kernel's compiled form (only the lines
through its cell, from the empty board). The kernel reads what it can prove well formed and
legal, and leaves every other line to the Python reader, which names the fault: it never
accepts a line the Python reader refuses, nor reads one differently (tests/test_reading.py).

The batch is one buffer of bytes (each line UTF-8, so a line with any byte past ASCII is left
to Python: its whitespace and case rules are Unicode's) and the bounds of each line in it.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numba
import numpy as np

from tablebase.builder.games.grid import Spec
from tablebase.builder.games.grid.geometry import line_ends, lines, lines_through
from tablebase.builder.games.grid.kernel import made_line, made_line_at
from tablebase.compiled import njit

# A byte's class: what str.split() splits on (ASCII whitespace, and the comma a move list may
# use), a cell of board text ('.', x, o either case), '/', a digit; anything else (letters
# are told by their codes: x and o are cells and letters both).
_OTHER, _SEP, _CELL, _SLASH, _DIGIT = 0, 1, 2, 3, 4
_CLASS = np.zeros(256, dtype=np.uint8)
for _b in (*range(9, 14), *range(28, 33), ord(",")):
    _CLASS[_b] = _SEP
for _b in b"0123456789":
    _CLASS[_b] = _DIGIT
for _b in b".xXoO":
    _CLASS[_b] = _CELL
_CLASS[ord("/")] = _SLASH
_CLASS.setflags(write=False)
# A cell character's value: '.' 0, x 1, o 2 (either case).
_VALUE = np.zeros(256, dtype=np.uint8)
for _b, _v in ((b"x", 1), (b"X", 1), (b"o", 2), (b"O", 2)):
    _VALUE[_b[0]] = _v
_VALUE.setflags(write=False)
# The longest move name the Python reader tries to read (reading._move_cell).
_LONGEST_MOVE = 40
# The players' digits as a compiled callee is passed them: typed, not literals (numba compiles
# a callee once for each literal argument).
_X, _O = np.int64(1), np.int64(2)


@njit(cache=True, nogil=True, inline="always")
def _token(data, cls, at, end):  # type: ignore[no-untyped-def]
    """(start, stop) of the first token of data[at:end] (stop == start: none)."""
    while at < end and cls[data[at]] == _SEP:
        at += 1
    stop = at
    while stop < end and cls[data[stop]] != _SEP:
        stop += 1
    return at, stop


@njit(cache=True, nogil=True)
def _board(data, cls, value, s, e, w, h, b):  # type: ignore[no-untyped-def]
    """Board text data[s:e] (cells and slashes only) into `b`; whether it reads."""
    slashes = 0
    for i in range(s, e):
        slashes += cls[data[i]] == _SLASH
    if slashes == 0:
        if e - s != w * h:
            return False
        for i in range(s, e):
            b[i - s] = value[data[i]]
        return True
    if slashes != h - 1 or e - s != w * h + h - 1:
        return False
    i = s
    for row in range(h):
        for col in range(w):
            if cls[data[i]] != _CELL:
                return False
            b[row * w + col] = value[data[i]]
            i += 1
        if row < h - 1:
            if cls[data[i]] != _SLASH:
                return False
            i += 1
    return True


@njit(cache=True, nogil=True)
def _move(data, cls, s, e, w, h, gravity):  # type: ignore[no-untyped-def]
    """(column, row number) of the move name data[s:e]: row 0 for a column alone (+gravity);
    column -1 where the name does not read or is off the board."""
    if e - s > _LONGEST_MOVE:
        return -1, 0
    i, col, letters = s, 0, 0
    while i < e and 97 <= (data[i] | 32) <= 122 and letters < 3:  # a letter (x, o: cells too)
        col = col * 26 + (data[i] | 32) - 96  # a -> 1 (| 32: lower case)
        letters += 1
        i += 1
    number, figures = 0, 0
    while i < e and cls[data[i]] == _DIGIT and figures < 3:
        number = number * 10 + data[i] - 48
        figures += 1
        i += 1
    col -= 1
    if letters == 0 or i != e or col >= w or (figures == 0 and not gravity) \
            or (figures > 0 and not 1 <= number <= h):
        return -1, 0
    return col, number


@njit(cache=True, nogil=True)
def _read(data, cls, value, lo, hi, w, h, gravity, digits, lines_, ends, first, through, b):  # type: ignore[no-untyped-def]
    """Line data[lo:hi] into `b` (zeros); 0 where it does not read (left to Python), 1 where
    board text (then moves, perhaps) reads, 2 where moves from the empty board do."""
    cells = w * h
    for i in range(lo, hi):
        if data[i] >= 128:
            return 0
    s, e = _token(data, cls, lo, hi)
    if s == e:
        return 0
    board, figures = True, True
    for i in range(s, e):
        c = cls[data[i]]
        board &= c == _CELL or c == _SLASH
        figures &= c == _DIGIT
    fresh = True
    at = lo  # where the moves start
    if board:
        if not _board(data, cls, value, s, e, w, h, b):
            return 0
        for i in range(cells):
            fresh &= b[i] == 0
        at = e
    column_digits = False
    if figures and digits:
        rest, _ = _token(data, cls, e, hi)
        column_digits = rest == hi
    stones = 0
    for i in range(cells):
        stones += b[i] != 0
    # Whether each side has a line: from board text, as the board holds.
    made_x = made_o = False
    if not fresh:
        made_x = made_line(b, lines_, ends, _X)
        made_o = made_line(b, lines_, ends, _O)
    i = s
    while True:
        if column_digits:
            if i == e:
                break
            col, number = data[i] - 49, 0  # '1' -> column 0
            i += 1
            if col < 0 or col >= w:
                return 0
        else:
            t, at = _token(data, cls, at, hi)
            if t == at:
                break
            col, number = _move(data, cls, t, at, w, h, gravity)
            if col < 0:
                return 0
        if stones == cells or (stones > 0 and (made_x if stones % 2 == 1 else made_o)):
            return 0  # the game is over
        landing = -1
        if gravity:  # the first empty cell from the top that rests on a stone or the floor
            for row in range(h):
                cell = row * w + col
                if b[cell] == 0 and (row == h - 1 or b[cell + w] != 0):
                    landing = cell
                    break
            if landing < 0:
                return 0
        cell = landing if number == 0 else (h - number) * w + col
        if b[cell] != 0 or (gravity and cell != landing):
            return 0
        player = 1 + stones % 2
        b[cell] = player
        stones += 1
        made = (made_line_at(b, lines_, ends, first, through, cell, player) if fresh
                else made_line(b, lines_, ends, player))
        if player == 1:
            made_x = made
        else:
            made_o = made
    return 1 if board else 2


@njit(cache=True, nogil=True)
def read_lines(data, bounds, cls, value, w, h, gravity, digits, lines_, ends, first, through,  # type: ignore[no-untyped-def]
               cells, played, read):
    """Each line i (data[bounds[i]:bounds[i + 1]]) into cells[i]; read[i] whether it read,
    played[i] whether from the empty board by moves."""
    for r in range(bounds.shape[0] - 1):
        cells[r, :] = 0
        kind = _read(data, cls, value, bounds[r], bounds[r + 1], w, h, gravity, digits, lines_,
                     ends, first, through, cells[r])
        if kind == 0:
            cells[r, :] = 0
        read[r] = kind != 0
        played[r] = kind == 2 or (kind == 1 and _empty_start(data, cls, bounds[r], bounds[r + 1]))


@njit(cache=True, nogil=True)
def _empty_start(data, cls, lo, hi):  # type: ignore[no-untyped-def]
    """Whether the board text that starts the line data[lo:hi] is the empty board."""
    s, e = _token(data, cls, lo, hi)
    for i in range(s, e):
        if cls[data[i]] == _CELL and data[i] != 46:  # '.'
            return False
    return True


class _Reader:
    """The compiled reader's arguments for one game, kept: one position is read in a call to
    the kernel's compiled entry, without numba's dispatcher, which looks the type of each of
    its 14 arguments up again at every call (most of a reading of one easy position's text)."""

    def __init__(self, spec: Spec) -> None:
        first, through = lines_through(spec)
        self.rules = (_CLASS, _VALUE, spec.width, spec.height, spec.gravity,
                      spec.gravity and spec.width <= 9,
                      *(np.ascontiguousarray(a, dtype=np.int64)
                        for a in (lines(spec), line_ends(spec), first, through)))
        self.bounds = np.zeros(2, dtype=np.int64)
        self.cells = np.zeros((1, spec.cells), dtype=np.uint8)
        self.played = np.zeros(1, dtype=np.bool_)
        self.read = np.zeros(1, dtype=np.bool_)
        self.entry: Callable[..., None] | None = None

    def batch(self, data: np.ndarray, bounds: np.ndarray, cells: np.ndarray,
              played: np.ndarray, read: np.ndarray) -> None:
        """read_lines on a batch's arrays, by its compiled entry once the first call found it
        (every batch's arrays have the same types: writable, C-contiguous)."""
        args = (data, bounds, *self.rules, cells, played, read)
        if self.entry is None:
            read_lines(*args)
            compiled = read_lines.overloads.get(tuple(numba.typeof(a) for a in args))
            self.entry = getattr(compiled, "entry_point", None) or read_lines
        else:
            self.entry(*args)


@lru_cache(maxsize=None)
def _reader(spec: Spec) -> _Reader:
    return _Reader(spec)


def read_text(spec: Spec, text: str) -> tuple[tuple[int, ...], bool] | None:
    """One position's text read: (cells, played), or None where the Python reader must read it
    (or name its fault)."""
    reader = _reader(spec)
    data = np.frombuffer(bytearray(text.encode("utf-8", "surrogatepass") or b"\0"), np.uint8)
    reader.bounds[1] = len(data) if text else 0
    reader.batch(data, reader.bounds, reader.cells, reader.played, reader.read)
    if not reader.read[0]:
        return None
    return tuple(reader.cells[0].tolist()), bool(reader.played[0])


def read_texts(spec: Spec, texts: Sequence[str], cells: np.ndarray, played: np.ndarray,
               rows: Sequence[int]) -> list[bool]:
    """Read each of `texts` into row rows[i] of `cells` (uint8) and `played`; whether each read
    (those that did not are the Python reader's to read, or to name the fault of)."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
    bounds = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in encoded], out=bounds[1:])
    data = np.frombuffer(bytearray(b"".join(encoded) or b"\0"), dtype=np.uint8)
    out = np.empty((len(texts), spec.cells), dtype=np.uint8)
    found = np.zeros(len(texts), dtype=np.bool_)
    read = np.zeros(len(texts), dtype=np.bool_)
    _reader(spec).batch(data, bounds, out, found, read)
    index = np.asarray(rows, dtype=np.int64)
    cells[index[read]] = out[read]
    played[index[read]] = found[read]
    return read.tolist()
