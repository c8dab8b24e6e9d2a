"""Export: stream every stored position of a game as CSV or JSON Lines, one row per canonical
position in code order, with the columns board, to_move, ply, value and depth, and on request
moves (an order of moves from the empty board that reaches the position)."""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TextIO

import numpy as np

from tablebase.builder.game import Spec
from tablebase.builder.game.orders import move_orders
from tablebase.query.errors import QueryError
from tablebase.query.notation import digit_board_texts, listed_name
from tablebase.query.tablebase import Position, Tablebase

FORMATS = ("csv", "jsonl")
COLUMNS = ("board", "to_move", "ply", "value", "depth")

_VALUE_WORDS = np.array(["loss", "draw", "win"])  # indexed by value + 1
_TO_MOVE = np.array(["x", "o"])  # indexed by ply % 2


class UnknownFormatError(QueryError, ValueError):
    """An export format other than those in FORMATS."""


class ExportFileError(QueryError, OSError):
    """The output file cannot be written (names the file and the system's reason)."""


def export_positions(tb: Tablebase, spec: str | Spec, out: TextIO, fmt: str = "csv",
                     progress: Callable[[int], None] | None = None,
                     root: Position | None = None, with_moves: bool = False) -> int:
    """Write every stored position of a table of `spec` (the whole board, or the endgame table
    rooted at `root`) to `out`; return how many rows were written.

    Columns: `board` (board text), `to_move` ('x' or 'o'), `ply` (stones on the board),
    `value` ('win', 'draw' or 'loss' for the side to move) and `depth` (plies to the end under
    perfect play); `with_moves` adds `moves`: moves from the empty board, x first, that reach
    the position with every move legal, separated by spaces, as `--moves` takes them (column
    letters with gravity). CSV starts with a header row; JSON Lines writes one object per line
    with those keys. `progress`, if given, is called with the number of rows of each chunk
    written.
    """
    if fmt not in FORMATS:
        raise UnknownFormatError(f"unknown export format {fmt!r}; known formats: {', '.join(FORMATS)}")
    spec = tb.spec(spec)
    columns = COLUMNS + (("moves",) if with_moves else ())
    if fmt == "csv":
        out.write(",".join(columns) + "\n")
        line = ",".join("{}" for _ in columns) + "\n"
    else:
        # Board text and move names hold only letters, digits, '.', '/' and spaces, so the
        # JSON needs no escaping.
        line = "{{" + ", ".join(f'"{c}": ' + ("{}" if c in ("ply", "depth") else '"{}"')
                                for c in columns) + "}}\n"
    names = np.array([listed_name(spec, c) for c in range(spec.cells)] + [""])
    written = 0
    table = tb.table(spec, root)
    for chunk in table.positions():
        boards = table.boards(chunk.codes)
        fields = [digit_board_texts(spec, boards), _TO_MOVE[chunk.ply % 2].tolist(),
                  chunk.ply.tolist(), _VALUE_WORDS[chunk.value + 1].tolist(),
                  chunk.depth.tolist()]
        if with_moves:
            fields.append(_move_lists(names, move_orders(spec, boards), chunk.ply))
        out.write("".join([line.format(*row) for row in zip(*fields)]))
        written += len(chunk.codes)
        if progress is not None:
            progress(len(chunk.codes))
    return written


def _move_lists(names: np.ndarray, orders: np.ndarray, ply: np.ndarray) -> list[str]:
    """Each row of cells (padded with -1, which names "") as names joined by spaces."""
    named = names[orders].tolist()
    return [" ".join(row[:p]) for row, p in zip(named, ply.tolist())]


def export_file(tb: Tablebase, spec: str | Spec, path: str, fmt: str = "csv",
                progress: Callable[[int], None] | None = None,
                root: Position | None = None, with_moves: bool = False) -> int:
    """Like `export_positions`, into the file `path`, which appears only once it is complete.

    The rows go to `path` + ".part" first and are renamed at the end, so an interrupted export
    never leaves a file that looks whole. Raises ExportFileError when the file cannot be written.
    """
    if fmt not in FORMATS:
        raise UnknownFormatError(f"unknown export format {fmt!r}; known formats: {', '.join(FORMATS)}")
    tb.table(spec, root)  # a table the database lacks fails here, before any file is made
    partial = path + ".part"
    try:
        with open(partial, "w", encoding="utf-8", newline="") as out:
            written = export_positions(tb, spec, out, fmt, progress, root, with_moves)
        os.replace(partial, path)
    except OSError as e:
        raise ExportFileError(f"cannot write {path}: {e.strerror or e}") from e
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return written
