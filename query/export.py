"""Export: stream every stored position of a game as CSV or JSON Lines, one row per canonical
position in code order, with the columns board, to_move, ply, value and depth."""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TextIO

import numpy as np

from tablebase.builder.game import Spec
from tablebase.query.errors import QueryError
from tablebase.query.notation import digit_board_texts
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
                     root: Position | None = None) -> int:
    """Write every stored position of a table of `spec` (the whole board, or the endgame table
    rooted at `root`) to `out`; return how many rows were written.

    Columns: `board` (board text), `to_move` ('x' or 'o'), `ply` (stones on the board),
    `value` ('win', 'draw' or 'loss' for the side to move) and `depth` (plies to the end under
    perfect play). CSV starts with a header row; JSON Lines writes one object per line with
    those keys. `progress`, if given, is called with the number of rows of each chunk written.
    """
    if fmt not in FORMATS:
        raise UnknownFormatError(f"unknown export format {fmt!r}; known formats: {', '.join(FORMATS)}")
    spec = tb.spec(spec)
    if fmt == "csv":
        out.write(",".join(COLUMNS) + "\n")
        line = "{},{},{},{},{}\n"
    else:
        # Board text holds only '.', 'x', 'o' and '/', so the JSON needs no escaping.
        line = '{{"board": "{}", "to_move": "{}", "ply": {}, "value": "{}", "depth": {}}}\n'
    written = 0
    for chunk in tb.positions(spec, root=root):
        rows = zip(digit_board_texts(spec, tb.boards(spec, chunk.codes, root)), _TO_MOVE[chunk.ply % 2].tolist(),
                   chunk.ply.tolist(), _VALUE_WORDS[chunk.value + 1].tolist(),
                   chunk.depth.tolist())
        out.write("".join([line.format(*row) for row in rows]))
        written += len(chunk.codes)
        if progress is not None:
            progress(len(chunk.codes))
    return written


def export_file(tb: Tablebase, spec: str | Spec, path: str, fmt: str = "csv",
                progress: Callable[[int], None] | None = None,
                root: Position | None = None) -> int:
    """Like `export_positions`, into the file `path`, which appears only once it is complete.

    The rows go to `path` + ".part" first and are renamed at the end, so an interrupted export
    never leaves a file that looks whole. Raises ExportFileError when the file cannot be written.
    """
    if fmt not in FORMATS:
        raise UnknownFormatError(f"unknown export format {fmt!r}; known formats: {', '.join(FORMATS)}")
    tb.count(spec, root)  # a table the database lacks fails here, before any file is made
    partial = path + ".part"
    try:
        with open(partial, "w", encoding="utf-8", newline="") as out:
            written = export_positions(tb, spec, out, fmt, progress, root)
        os.replace(partial, path)
    except OSError as e:
        raise ExportFileError(f"cannot write {path}: {e.strerror or e}") from e
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return written
