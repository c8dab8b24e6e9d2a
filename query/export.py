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

from tablebase.builder.games.grid import EMPTY, Spec, X
from tablebase.builder.games.grid.notation import digit_board_texts, listed_name
from tablebase.builder.games.grid.orders import FOUND, move_orders, order_status
from tablebase.builder.games.stones.rules import step_masks
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
    """A moves column this export cannot write: an endgame table of a game whose stones move,
    or a stored position no order of moves reaches (a damaged table)."""


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
    table = tb.table(spec, root)
    if with_moves and spec.moving and table.record.root:
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
    names = np.array([listed_name(spec, c) for c in range(spec.cells)] + [""])
    written = 0
    for chunk in table.positions():
        boards = table.boards(chunk.codes)
        stones = np.count_nonzero(boards, axis=1)
        sides = _sides(spec, chunk.codes, stones)  # 0: x to move, 1: o
        depth = chunk.depth.astype(str)
        texts = digit_board_texts(spec, boards)
        if spec.moving:
            depth[chunk.value == 0] = none
            texts = _with_sides(spec, texts, stones, sides)
        fields = [texts, _TO_MOVE[sides].tolist(), stones.tolist(),
                  _VALUE_WORDS[chunk.value + 1].tolist(), depth.tolist()]
        if with_moves:
            fields.append(_moving_move_lists(spec, names, boards, stones, sides) if spec.moving
                          else _move_lists(names, move_orders(spec, boards), stones))
        out.write("".join([line.format(*row) for row in zip(*fields)]))
        written += len(chunk.codes)
        if progress is not None:
            progress(len(chunk.codes))
    return written


def _sides(spec: Spec, codes: np.ndarray, stones: np.ndarray) -> np.ndarray:
    """The side to move of each position (0 x, 1 o): as the stones say it, or where stones move
    and every one is down, its code's side digit."""
    sides = stones % 2
    if spec.moving:
        moving = stones == 2 * spec.stones
        sides[moving] = codes[moving] // 3 ** spec.cells
    return sides


def _with_sides(spec: Spec, texts: list[str], stones: np.ndarray, sides: np.ndarray) -> list[str]:
    """Board texts followed by ` x` or ` o` where the stones do not say whose turn it is."""
    suffix = np.where(stones == 2 * spec.stones, np.where(sides == 1, " o", " x"), "")
    return [text + end for text, end in zip(texts, suffix.tolist())]


def _move_lists(names: np.ndarray, orders: np.ndarray, ply: np.ndarray) -> list[str]:
    """Each row of cells (padded with -1, which names "") as names joined by spaces."""
    named = names[orders].tolist()
    return [" ".join(row[:p]) for row, p in zip(named, ply.tolist())]


def _moving_move_lists(spec: Spec, names: np.ndarray, boards: np.ndarray, stones: np.ndarray,
                       sides: np.ndarray) -> list[str]:
    """Moves from the empty board to each position of a game whose stones move: its stones'
    placements, x first; where o moves next once every stone is down, the placements of a
    position one x step before it, then that step.

    Such a position before the step always exists for a stored one: x to move, every stone
    down, neither side with a line (x did not have one, o has none since o is to move after
    it), its stones placed in any alternating order, o's last; `order_status` finds one."""
    before = boards.copy()
    step = np.full((len(boards), 2), -1, dtype=np.int64)  # (from, to) of the last move
    waiting = np.flatnonzero((stones == 2 * spec.stones) & (sides == 1))
    masks = step_masks(spec)
    for to in range(spec.cells):
        for start in (c for c in range(spec.cells) if int(masks[to]) >> c & 1):
            rows = waiting[(boards[waiting, to] == X) & (boards[waiting, start] == EMPTY)]
            if not len(rows):
                continue
            back = boards[rows].copy()
            back[:, to], back[:, start] = EMPTY, X
            ok = order_status(spec, back) == FOUND
            before[rows[ok]], step[rows[ok]] = back[ok], (start, to)
            waiting = np.setdiff1d(waiting, rows[ok], assume_unique=True)
    if len(waiting):  # no position play reaches is like this
        text = digit_board_texts(spec, boards[waiting[:1]])[0]
        raise ExportMovesError(f"no order of moves reaches {text} o: no x step back from it"
                               " leaves a position play reaches; run `tablebase verify`")
    placed = _move_lists(names, move_orders(spec, before), np.minimum(stones, 2 * spec.stones))
    return [moves if start < 0 else f"{moves} {names[start]}-{names[to]}"
            for moves, (start, to) in zip(placed, step.tolist())]


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
