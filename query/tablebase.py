"""The probing API: a position's value and depth, every move's value, the perfect moves and a
perfect line, all read from a built table; best moves are derived by probing children.

A position is looked up through its canonical code; moves are reported in the caller's own
orientation. Values are always for the side to move, except a move's value, which is for the
player making the move (lichess reports the value of the position after it instead).

    from query import open_tablebase
    with open_tablebase("tablebase.db") as tb:
        tb.probe("3x3k3", "x.o/.x./...")   # Probe(value=<Value.LOSS: -1>, depth=4, to_move='o', ...)
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from numbers import Integral
from typing import Any, TypeVar

import numpy as np

from builder.game import (EMPTY, O, X, InvalidPositionError, Spec, Value,
                          check_position, decode, open_cells, parse_spec, score)
from builder.game.root import Root
from db.errors import DatabaseError
from db.facts import DEFAULT_DATABASE
from db.sqlite_direct import PositionArrays, SqliteFile
from query.errors import (ImpossiblePositionError, MissingPositionError, MissingTableError,
                          NotationError)
from query.notation import board_text, move_name, parse_board, to_move_name
from query.tables import StoredTable, same_root

# A position as callers give it: board text, cell values, or a code.
Position = str | Sequence[int] | int

_VALUES = {-1: Value.LOSS, 0: Value.DRAW, 1: Value.WIN}


def _plies(n: int) -> str:
    return f"{n} pl{'y' if n == 1 else 'ies'}"


@dataclass(frozen=True)
class Probe:
    """What the table says about one position.

    `value` is for the side to move (`to_move`, 'x' or 'o'); `depth` is plies to the end under
    perfect play (0 exactly when the position is `terminal`); `ply` counts the stones.
    """

    value: Value
    depth: int
    to_move: str
    terminal: bool
    ply: int

    def __str__(self) -> str:
        return f"{self.to_move} to move: {self.value.word} in {_plies(self.depth)}"


@dataclass(frozen=True)
class MoveInfo:
    """One legal move: its name and cell in the caller's orientation, its value for the player
    making it, the depth (plies to the end) of the position it leads to, and whether it keeps
    the position's perfect value and depth."""

    move: str
    cell: int
    value: Value
    depth: int
    best: bool


@dataclass(frozen=True)
class Step:
    """One move of a perfect line: who plays it (`player`), its value for that player, the
    plies left after it (`depth`), and the board after it as cell values."""

    move: str
    cell: int
    player: str
    value: Value
    depth: int
    board: tuple[int, ...]


@dataclass(frozen=True)
class TableInfo:
    """One stored table of a game: its root (cell values; None for the whole board), how many
    positions it stores, how many cells its codes cover, and the size of its symmetry group."""

    root: tuple[int, ...] | None
    positions: int
    cells: int
    symmetries: int


@dataclass(frozen=True)
class ManyProbes:
    """Answers for many codes at once, as equal-length arrays in the order asked.

    `value` (-1 loss, 0 draw, 1 win) is for the side to move, `depth` in plies, `ply` the
    stones on the board; where `found` is False the table lacks the code and the other
    arrays hold 0, -1 and -1.
    """

    value: np.ndarray
    depth: np.ndarray
    ply: np.ndarray
    found: np.ndarray


T = TypeVar("T")


class Tablebase:
    """Answers from the tables of one database, opened read-only. Use `open_tablebase`.

    Every method takes the game as a spec string (`"3x3k3"`, `"tictactoe"`) or a Spec, and a
    position as board text (`"x.o/.x./..."`), a sequence of cell values (0 empty, 1 x, 2 o,
    row-major from the top-left), or a code. Bad input raises a ValueError subclass
    (`InvalidPositionError`) naming the fault; a game the database has not built raises
    `db.errors.GameNotBuiltError`.
    """

    def __init__(self, db: str = DEFAULT_DATABASE) -> None:
        self.db = db
        # A local SQLite file is read on the plain sqlite3 driver (see db/sqlite_direct.py);
        # anything else, and every error message about the database, goes through db.engine,
        # imported only then because importing its driver layer costs a third of a second.
        self._file = SqliteFile.open(db)
        self._engine: Any = None  # a db.engine engine, opened only when needed
        if self._file is None:
            self._engine = self._open_engine()
        self._games: dict[Spec, list[StoredTable]] = {}
        self._arrays: dict[tuple[Spec, str], PositionArrays] = {}
        self._specs: dict[str, Spec] = {}

    def _open_engine(self) -> Any:
        from db.engine import open_engine
        return open_engine(self.db, writable=False)

    def close(self) -> None:
        """Close the database."""
        for tables in self._games.values():
            _close(tables)
        self._games.clear()
        self._arrays.clear()
        if self._file is not None:
            self._file.close()
        if self._engine is not None:
            self._engine.dispose()

    # --- plumbing ------------------------------------------------------------

    def spec(self, spec: str | Spec) -> Spec:
        """The Spec named by a spec string (or the Spec itself)."""
        if isinstance(spec, Spec):
            return spec
        found = self._specs.get(spec)
        if found is None:
            found = self._specs[spec] = parse_spec(spec)
        return found

    def _tables(self, spec: Spec) -> list[StoredTable]:
        """The complete tables of `spec`, the whole-board one first; GameNotBuiltError if none."""
        tables = self._games.get(spec)
        if tables is not None:
            return tables
        tables = []
        if self._file is not None:
            for key in self._file.roots(spec.name):
                positions = self._file.positions(spec.name, key)
                if positions is not None:
                    tables.append(StoredTable(Root.from_key(spec, key), positions))
        if not tables:
            from db.reader import PositionReader, list_games, probe_game
            if self._engine is None:
                self._engine = self._open_engine()
            games = [g for g in list_games(self._engine, spec.name) if g.complete]
            if not games:
                # Raises GameNotBuiltError with the reason (never built, or unfinished).
                games = [probe_game(self._engine, spec.name)]
            tables = [StoredTable(Root.from_key(spec, g.root), PositionReader(self._engine, g))
                      for g in games]
        self._games[spec] = tables
        return tables

    def _read(self, spec: Spec, read: Callable[[], T]) -> T:
        """Run `read` in one snapshot of the game's tables. If a concurrent `build --force`
        swapped in a new table since this Tablebase looked, look again and retry once: a
        reader sees the old complete table or the new one, never a mixture."""
        tables = self._tables(spec)
        try:
            with ExitStack() as stack:
                for table in tables:
                    stack.enter_context(table.positions.snapshot())
                return read()
        except DatabaseError:
            if not self._swapped(spec, tables):
                raise
        with ExitStack() as stack:
            for table in self._tables(spec):
                stack.enter_context(table.positions.snapshot())
            return read()

    def _swapped(self, spec: Spec, tables: list[StoredTable]) -> bool:
        """Forget the cached tables of `spec`; whether the game now has different ones."""
        self._games.pop(spec, None)
        for key in [k for k in self._arrays if k[0] == spec]:
            del self._arrays[key]
        _close(tables)
        # Raises GameNotBuiltError if the game lost its complete tables meanwhile.
        now = self._tables(spec)
        return [t.positions.table for t in now] != [t.positions.table for t in tables]

    def _table(self, spec: Spec, root: Position | None) -> StoredTable:
        """The table named by its root (any orientation; None: the whole-board table)."""
        tables = self._tables(spec)
        if root is None:
            for table in tables:
                if table.whole:
                    return table
            raise MissingTableError(
                f"{spec.name} has no whole-board table here, only"
                f" {len(tables)} endgame table{'s' if len(tables) != 1 else ''}: pick one by its"
                " root (--root POSITION; `tablebase info` lists them)")
        board = self.read_board(spec, root)
        for table in tables:
            if same_root(spec, table.root, board):
                return table
        if not any(board):
            raise MissingTableError(f"{spec.name} has no whole-board table here")
        raise MissingTableError(
            f"no endgame table of {spec.name} is rooted at {board_text(spec, board)!r}"
            " (`tablebase info` lists the tables)", board=board)

    def tables(self, spec: str | Spec) -> list[TableInfo]:
        """The complete tables of a game: the whole board (root None) first, then each endgame
        table by root, with its count of stored positions."""
        spec = self.spec(spec)
        return [TableInfo(None if t.whole else t.root.board, t.positions.canonical,
                          t.root.cells, len(t.root.symmetries)) for t in self._tables(spec)]

    def read_board(self, spec: str | Spec, position: Position) -> tuple[int, ...]:
        """The cell values of a position given in any accepted form (read, not yet checked)."""
        spec = self.spec(spec)
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

    def _missing(self, spec: Spec, board: tuple[int, ...]) -> Exception:
        """The error for a board no table holds: impossible, or possible but unreachable."""
        text = board_text(spec, board)
        try:
            check_position(spec, board)
        except InvalidPositionError as e:
            return ImpossiblePositionError(f"position {text!r} ({spec.name}): {e}")
        if any(t.whole for t in self._tables(spec)):
            return MissingPositionError(
                f"position {text!r} ({spec.name}) cannot be reached from the empty board, so the"
                " table does not hold it")
        return MissingPositionError(
            f"no table of {spec.name} holds position {text!r}: it descends from none of the"
            " endgame tables' roots", build_from=text)

    def _find(self, spec: Spec, board: tuple[int, ...]) -> tuple[Probe, StoredTable, int]:
        """The probe of `board`, the table that holds it, and the board map to read it with."""
        # Only reachable positions are stored, and symmetry keeps stone counts, lines and
        # floating stones, so a board found in a table is a legal one: checking it is
        # needed only to explain a miss.
        for table in self._tables(spec):
            for image in table.orientations(board):
                row = table.positions.fetch(table.code_of(board, image))
                if row is not None:
                    ply, value, depth = row
                    return (Probe(_VALUES[value], depth, to_move_name(ply), depth == 0, ply),
                            table, image)
        raise self._missing(spec, board)

    def _probe_board(self, spec: Spec, board: tuple[int, ...]) -> Probe:
        return self._find(spec, board)[0]

    def _moves_board(self, spec: Spec, board: tuple[int, ...]) -> tuple[Probe, list[MoveInfo]]:
        probe, table, image = self._find(spec, board)
        if probe.terminal:
            return probe, []
        mover = X if probe.ply % 2 == 0 else O
        children = []
        for cell in open_cells(spec, board):
            child = list(board)
            child[cell] = mover
            children.append((cell, table.code_of(child, image)))
        rows = table.positions.fetch_many([code for _, code in children])
        scored = []
        for cell, code in children:
            row = rows.get(code)
            if row is None:
                raise MissingPositionError(
                    f"the {table.root.name} table lacks the position after"
                    f" {move_name(spec, cell)} from {board_text(spec, board)!r}, a stored"
                    " position: the table is incomplete; rebuild it with --force")
            value, depth = _VALUES[-row[1]], row[2]
            scored.append((score(value, depth + 1), cell, value, depth))
        scored.sort(key=lambda s: (-s[0], s[1]))  # best first; ties in cell order
        top = scored[0][0]
        return probe, [MoveInfo(move_name(spec, cell), cell, value, depth, key == top)
                       for key, cell, value, depth in scored]

    # --- one position ------------------------------------------------------------

    def probe(self, spec: str | Spec, position: Position) -> Probe:
        """Value (for the side to move) and depth (plies to the end) of `position`.

        Raises MissingPositionError (a KeyError) when the table does not hold the position,
        which for a possible board means it cannot be reached from the empty board, and an
        InvalidPositionError (a ValueError) for a board that cannot be read or cannot arise.
        """
        spec = self.spec(spec)
        board = self.read_board(spec, position)
        return self._read(spec, lambda: self._probe_board(spec, board))

    def get(self, spec: str | Spec, position: Position, default: Probe | None = None
            ) -> Probe | None:
        """Like `probe`, but returns `default` instead of raising MissingPositionError."""
        try:
            return self.probe(spec, position)
        except MissingPositionError:
            return default

    def moves(self, spec: str | Spec, position: Position) -> list[MoveInfo]:
        """Every legal move, best first: wins fastest first, then draws, then losses slowest first.

        A move's value is for the player making it (the negation of the value of the position
        it leads to, which is for the opponent); its depth is that position's depth. Moves are
        named and numbered in the orientation `position` was given in; empty once the game is
        over.
        """
        spec = self.spec(spec)
        board = self.read_board(spec, position)
        return self._read(spec, lambda: self._moves_board(spec, board)[1])

    def best_moves(self, spec: str | Spec, position: Position) -> list[MoveInfo]:
        """The moves that keep the position's perfect value and depth (see `moves`)."""
        return [m for m in self.moves(spec, position) if m.best]

    def line(self, spec: str | Spec, position: Position) -> list[Step]:
        """A perfect line from `position` to the end of the game; its length is the depth.

        At each step the first of the best moves (in cell order) is played.
        """
        spec = self.spec(spec)
        start = self.read_board(spec, position)

        def walk() -> list[Step]:
            board = start
            probe, moves = self._moves_board(spec, board)
            steps: list[Step] = []
            while moves:
                best = moves[0]
                child = list(board)
                child[best.cell] = X if probe.ply % 2 == 0 else O
                board = tuple(child)
                steps.append(Step(best.move, best.cell, probe.to_move, best.value, best.depth,
                                  board))
                probe, moves = self._moves_board(spec, board)
            return steps
        return self._read(spec, walk)

    # --- many positions -------------------------------------------------------------

    def table(self, spec: str | Spec, root: Position | None = None) -> PositionArrays:
        """A table whole, in code order, loaded once and kept (canonical codes only): the
        whole-board table, or with `root` the endgame table rooted there (codes over its
        root's empty cells, see builder/game/root.py)."""
        spec = self.spec(spec)
        chosen = self._table(spec, root)
        key = (spec, chosen.root.key)
        arrays = self._arrays.get(key)
        if arrays is None:
            arrays = self._read(spec, lambda: self._table(spec, root).positions.load())
            self._arrays[key] = arrays
        return arrays

    def boards(self, spec: str | Spec, codes: np.ndarray | Sequence[int],
               root: Position | None = None) -> np.ndarray:
        """The full boards of a table's codes (see `table`), as an (N, cells) int8 array."""
        spec = self.spec(spec)
        return self._table(spec, root).boards(np.asarray(codes, dtype=np.int64))

    def get_many(self, spec: str | Spec, codes: np.ndarray | Sequence[int],
                 root: Position | None = None) -> ManyProbes:
        """Answers for many codes (any orientation) of one table at once (see `table`);
        `found` marks those the table holds. The first call loads the whole table into memory.
        """
        spec = self.spec(spec)
        chosen = self._table(spec, root)
        asked = np.asarray(codes)
        if asked.ndim != 1 or not (asked.size == 0 or np.issubdtype(asked.dtype, np.integer)):
            raise NotationError(
                f"codes must be a one-dimensional array of integers, found shape {asked.shape}"
                f" and dtype {asked.dtype}")
        asked = asked.astype(np.int64, copy=False)
        limit = chosen.code_limit
        if asked.size and (asked.min() < 0 or asked.max() >= limit):
            bad = int(asked[(asked < 0) | (asked >= limit)][0])
            raise NotationError(
                f"code {bad} is out of range for the {chosen.root.name} table: codes run from 0"
                f" to {limit - 1}")
        table = self.table(spec, root)
        n = len(asked)
        value = np.zeros(n, dtype=np.int8)
        depth = np.full(n, -1, dtype=np.int8)
        ply = np.full(n, -1, dtype=np.int16)
        if n == 0 or len(table.codes) == 0:
            return ManyProbes(value, depth, ply, np.zeros(n, dtype=bool))
        wanted = chosen.canonical_many(asked)
        # Binary search for the queries in sorted order: random order misses the cache on
        # every step and costs several times the sort.
        order = np.argsort(wanted, kind="stable")
        index = np.empty(n, dtype=np.int64)
        index[order] = np.searchsorted(table.codes, wanted[order])
        np.minimum(index, len(table.codes) - 1, out=index)
        found = table.codes[index] == wanted
        hit = index[found]
        value[found], depth[found], ply[found] = table.value[hit], table.depth[hit], table.ply[hit]
        return ManyProbes(value, depth, ply, found)

    def probe_many(self, spec: str | Spec, codes: np.ndarray | Sequence[int],
                   root: Position | None = None) -> ManyProbes:
        """Like `get_many`, but raises MissingPositionError if the table lacks any of the codes."""
        spec = self.spec(spec)
        answers = self.get_many(spec, codes, root)
        if not answers.found.all():
            missing = np.flatnonzero(~answers.found)
            first = int(np.asarray(codes)[missing[0]])
            board = tuple(int(v) for v in self.boards(spec, [first], root)[0])
            where = ("they cannot be reached from the empty board" if root is None
                     else "they cannot be reached from its root")
            raise MissingPositionError(
                f"{len(missing):,} of {len(answers.found):,} codes are not in the"
                f" {self._table(spec, root).root.name} table ({where}); the first is code"
                f" {first}, {board_text(spec, board)!r}")
        return answers

    def positions(self, spec: str | Spec, batch: int = 1 << 16,
                  root: Position | None = None) -> Iterator[PositionArrays]:
        """Every stored (canonical) position of a table (see `table`) in code order, `batch`
        at a time, as arrays."""
        spec = self.spec(spec)
        self._read(spec, lambda: self._table(spec, root))  # follow a swapped table first
        positions = self._table(spec, root).positions
        with positions.snapshot():
            yield from positions.chunks(batch)

    def count(self, spec: str | Spec, root: Position | None = None) -> int:
        """How many positions a table (see `table`) holds (one per symmetry orbit)."""
        return self._table(self.spec(spec), root).positions.canonical


def _close(tables: list[StoredTable]) -> None:
    for table in tables:
        close = getattr(table.positions, "close", None)
        if close is not None:
            close()


@contextmanager
def open_tablebase(db: str = DEFAULT_DATABASE) -> Iterator[Tablebase]:
    """Open a database of built games read-only, as a context manager yielding a Tablebase.

    `db` is a SQLite file path or a SQLAlchemy URL; raises db.errors.DatabaseError when it
    cannot be opened or is not a tablebase database.
    """
    tb = Tablebase(os.fspath(db))
    try:
        yield tb
    finally:
        tb.close()
