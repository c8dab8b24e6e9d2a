"""Export: stream every stored position of a game as CSV or JSON Lines, one row per canonical
position in code order, with the columns board, to_move, ply, value and depth, and on request
moves (an order of moves from the empty board that reaches the position).

Where stones move, the board text of a position of the movement phase ends in its side to move
(` x`, ` o`), a draw by endless play has no depth (empty in CSV, null in JSON), and the moves
reaching a position where o moves next are the placements of a position one x step before it,
then that step."""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

import numpy as np

from tablebase.builder.games.grid import Spec
from tablebase.builder.games.registry import grid_game
from tablebase.query.errors import QueryError

if TYPE_CHECKING:
    from tablebase.query.tablebase import Position, Tablebase

FORMATS = ("csv", "jsonl")
COLUMNS = ("board", "to_move", "ply", "value", "depth")

_VALUE_WORDS = np.array(["loss", "draw", "win"])  # indexed by value + 1
_TO_MOVE = np.array(["x", "o"])  # indexed by ply % 2


class UnknownFormatError(QueryError, ValueError):
    """An export format other than those in FORMATS."""


class ExportFileError(QueryError, OSError):
    """The output file cannot be written (names the file and the system's reason)."""


class ExportMovesError(QueryError, ValueError):
    """A moves column this export cannot write: an endgame table of a game whose stones move.
    (A stored position no order of moves reaches, in a damaged table, is the game's
    InvalidPositionError.)"""


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
    game = grid_game(spec)
    table = tb.table(spec, root)
    if with_moves and not game.endgame_moves_listed and table.record.root:
        raise ExportMovesError(f"--with-moves: an endgame table of {spec.name} has no moves"
                               " column (its positions can lie many steps past its root);"
                               " leave it out, or export the whole-board table with it")
    columns = COLUMNS + (("moves",) if with_moves else ())
    if fmt == "csv":
        out.write(",".join(columns) + "\n")
        line = ",".join("{}" for _ in columns) + "\n"
    else:
        # Board text and move names hold only letters, digits, '.', '/', '-' and spaces, so
        # the JSON needs no escaping.
        line = "{{" + ", ".join(f'"{c}": ' + ("{}" if c in ("ply", "depth") else '"{}"')
                                for c in columns) + "}}\n"
    none = "" if fmt == "csv" else "null"  # the depth of a draw by endless play
    written = 0
    for chunk in table.positions():
        boards = table.boards(chunk.codes)
        stones = np.count_nonzero(boards, axis=1)
        sides = game.sides_of(chunk.codes, stones)  # 0: x to move, 1: o
        depth = chunk.depth.astype(str)
        if not game.draws_have_depth:
            depth[chunk.value == 0] = none
        fields = [game.texts_of(boards, stones, sides), _TO_MOVE[sides].tolist(), stones.tolist(),
                  _VALUE_WORDS[chunk.value + 1].tolist(), depth.tolist()]
        if with_moves:
            fields.append(game.move_lists(boards, stones, sides))
        out.write("".join([line.format(*row) for row in zip(*fields)]))
        written += len(chunk.codes)
        if progress is not None:
            progress(len(chunk.codes))
    return written


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
    return write_whole(path, lambda out: export_positions(tb, spec, out, fmt, progress, root,
                                                          with_moves))


def write_whole(path: str, write: Callable[[TextIO], int]) -> int:
    """`write(out)` into the file `path`, which appears only once it is complete (the rows go
    to `path` + ".part" first and are renamed at the end); its count of rows. Raises
    ExportFileError when the file cannot be written."""
    partial = path + ".part"
    try:
        with open(partial, "w", encoding="utf-8", newline="") as out:
            written = write(out)
        os.replace(partial, path)
    except OSError as e:
        raise ExportFileError(f"cannot write {path}: {e.strerror or e}") from e
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return written
