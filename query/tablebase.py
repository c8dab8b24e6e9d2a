"""The probing API: a position's value and depth, every move's value, the perfect moves and a
perfect line, all read from a built table; best moves are derived by probing children.

A position is looked up through its canonical code; moves are reported in the caller's own
orientation. Values are always for the side to move, except a move's value, which is for the
player making the move (lichess reports the value of the position after it instead).

    >>> from tablebase import build, open_tablebase
    >>> report = build("3x3k3", "tablebase.db")
    >>> with open_tablebase("tablebase.db") as tb:
    ...     tb.probe("3x3k3", "x.o/.x./...")
    Probe(value=<Value.DRAW: 0>, depth=6, to_move='o', terminal=False, ply=3)
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from numbers import Integral
from typing import TypeVar

import numpy as np

from tablebase.builder.game import (EMPTY, O, X, Spec, Value, check_position, decode, mover_at,
                                    open_cells, parse_spec, score)
from tablebase.builder.game.root import Root
from tablebase.db.errors import DatabaseError
from tablebase.db.facts import CHUNK, DEFAULT_DATABASE
from tablebase.db.records import Damage, GameRecord, PlyCounts, PositionArrays
from tablebase.db.store import complete_tables, open_store
from tablebase.db.store_base import Store
from tablebase.query.errors import MissingPositionError, NotationError
from tablebase.query.misses import missing_codes_error, missing_error
from tablebase.query.notation import move_name, parse_board, to_move_name
from tablebase.query.records import ManyProbes, MoveInfo, Position, Probe, Step, TableInfo
from tablebase.query.tables import LOAD_LIMIT, StoredTable, select_table

_VALUES = {-1: Value.LOSS, 0: Value.DRAW, 1: Value.WIN}
_SWAPS_FOLLOWED = 8  # a table swapped under a read this many times in a row is an error

T = TypeVar("T")


class Tablebase:
    """Answers from the tables of one database, opened read-only. Use `open_tablebase`.

    Every method takes the game as a spec string (`"3x3k3"`, `"tictactoe"`) or a Spec, and a
    position as board text (`"x.o/.x./..."`), a sequence of cell values (0 empty, 1 x, 2 o,
    row-major from the top-left), or a code. Bad input raises a ValueError subclass
    (`InvalidPositionError`) naming the fault; a game the database has not built raises
    `GameNotBuiltError` (a LookupError).
    """

    def __init__(self, db: str = DEFAULT_DATABASE) -> None:
        self.db = db
        self._store: Store = open_store(db)
        self._games: dict[Spec, list[StoredTable]] = {}
        self._arrays: dict[tuple[Spec, str], PositionArrays] = {}
        self._specs: dict[str, Spec] = {}

    def close(self) -> None:
        """Close the database."""
        for tables in self._games.values():
            _close(tables)
        self._games.clear()
        self._arrays.clear()
        self._store.close()

    # --- the catalogue and table selection -------------------------------------------

    def spec(self, spec: str | Spec) -> Spec:
        """The Spec named by a spec string (or the Spec itself)."""
        if isinstance(spec, Spec):
            return spec
        found = self._specs.get(spec)
        if found is None:
            found = self._specs[spec] = parse_spec(spec)
        return found

    @property
    def name(self) -> str:
        """The database as messages name it: its path, or its URL without the password."""
        return self._store.name

    def catalogue(self, spec: str | Spec | None = None) -> list[GameRecord]:
        """Every stored table (of `spec`, if given), complete or not, by spec: the whole-board
        table first, then the endgame tables by root. DamagedTableError if a complete table's
        catalogue row fails its check: a damaged catalogue lists nothing."""
        records = self._store.games(None if spec is None else self.spec(spec).name)
        for record in records:
            if record.complete:
                self._store.check(record)
        return records

    def plies(self, record: GameRecord) -> list[PlyCounts]:
        """The per-ply counts of a complete table of the catalogue."""
        return self._store.plies(record)

    def record(self, spec: str | Spec, root: Position | None = None) -> GameRecord:
        """The catalogue record of the complete table `root` names (see `table`)."""
        spec = self.spec(spec)
        return self._table(spec, root).record

    def tables(self, spec: str | Spec) -> list[TableInfo]:
        """The complete tables of a game: the whole board (root None) first, then each endgame
        table by root, with its count of stored positions."""
        spec = self.spec(spec)
        return [TableInfo(None if t.whole else t.root.board, t.reader.count,
                          t.root.cells, len(t.root.symmetries)) for t in self._tables(spec)]

    def _tables(self, spec: Spec) -> list[StoredTable]:
        """The complete tables of `spec`, the whole-board one first; GameNotBuiltError if none."""
        tables = self._games.get(spec)
        if tables is None:
            tables = []
            for g in complete_tables(self._store, spec.name):
                reader = self._store.reader(g)  # checks the catalogue row before it is used
                tables.append(StoredTable(Root.from_key(spec, g.root), g, reader))
            self._games[spec] = tables
        return tables

    def _table(self, spec: Spec, root: Position | None) -> StoredTable:
        """The table named by its root (any orientation; None: the whole-board table)."""
        board = None if root is None else self.read_board(spec, root)
        return select_table(spec, self._tables(spec), board)

    def _read(self, spec: Spec, read: Callable[[], T]) -> T:
        """Run `read` in one snapshot of the game's tables. If a concurrent `build --force`
        swapped in a new table since this Tablebase looked, look again and retry (each retry
        follows another swap): a reader sees the old complete table or the new one, never a
        mixture."""
        for attempt in range(_SWAPS_FOLLOWED):
            tables = self._tables(spec)
            try:
                with ExitStack() as stack:
                    for table in tables:
                        stack.enter_context(table.reader.snapshot())
                    return read()
            except DatabaseError:
                if attempt == _SWAPS_FOLLOWED - 1 or not self._swapped(spec, tables):
                    raise
        raise AssertionError("unreachable")

    def _swapped(self, spec: Spec, tables: list[StoredTable]) -> bool:
        """Forget the cached tables of `spec`; whether the game now has different ones."""
        self._games.pop(spec, None)
        for key in [k for k in self._arrays if k[0] == spec]:
            del self._arrays[key]
        _close(tables)
        # Raises GameNotBuiltError if the game lost its complete tables meanwhile.
        now = self._tables(spec)
        return [t.reader.table for t in now] != [t.reader.table for t in tables]

    # --- reading positions -------------------------------------------------------------

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
        """The error for a board no table holds (query/misses.py)."""
        def holder(parent: tuple[int, ...]) -> StoredTable | None:
            found = self._locate(spec, parent)
            return None if found is None or found[0].terminal else found[1]
        return missing_error(spec, board, self._tables(spec), holder, self.name)

    def _find(self, spec: Spec, board: tuple[int, ...]) -> tuple[Probe, StoredTable, int]:
        """The probe of `board`, the table that holds it, and the board map to read it with."""
        found = self._locate(spec, board)
        if found is None:
            raise self._missing(spec, board)
        return found

    def _locate(self, spec: Spec, board: tuple[int, ...]
                ) -> tuple[Probe, StoredTable, int] | None:
        """What `_find` finds, or None where no table holds `board`."""
        # Only reachable positions are stored, and symmetry keeps stone counts, lines and
        # floating stones, so a board found in a table is a legal one: checking it is
        # needed only to explain a miss.
        for table in self._tables(spec):
            for image in table.orientations(board):
                found = table.reader.lookup([table.code_of(board, image)])
                if found.found[0]:
                    value, depth = int(found.value[0]), int(found.depth[0])
                    ply = sum(1 for v in board if v != EMPTY)
                    return (Probe(_VALUES[value], depth, to_move_name(ply), depth == 0, ply),
                            table, image)
        return None

    def _moves_board(self, spec: Spec, board: tuple[int, ...]
                     ) -> tuple[Probe, list[MoveInfo], StoredTable]:
        probe, table, image = self._find(spec, board)
        if probe.terminal:
            return probe, [], table
        mover = mover_at(probe.ply)
        children = []
        for cell in open_cells(spec, board):
            child = list(board)
            child[cell] = mover
            children.append((cell, table.code_of(child, image)))
        found = table.reader.lookup([code for _, code in children])
        scored = []
        for i, (cell, code) in enumerate(children):
            if not found.found[i]:
                child = list(board)
                child[cell] = mover
                raise self._missing(spec, tuple(child))
            value, depth = _VALUES[-int(found.value[i])], int(found.depth[i])
            scored.append((score(value, depth + 1), cell, value, depth))
        scored.sort(key=lambda s: (-s[0], s[1]))  # best first; ties in cell order
        top = scored[0][0]
        return probe, [MoveInfo(move_name(spec, cell), cell, value, depth, key == top)
                       for key, cell, value, depth in scored], table

    # --- one position ------------------------------------------------------------

    def probe(self, spec: str | Spec, position: Position) -> Probe:
        """Value (for the side to move) and depth (plies to the end) of `position`.

        Raises MissingPositionError (a KeyError) when no table holds the position: the rules
        reach it from no table's root (or their search gave up), or no endgame table covers it;
        DamagedTableError (a DatabaseError) when a table lacks a position the rules reach from
        its root; an InvalidPositionError (a ValueError) for a board that cannot be read or
        cannot arise.
        """
        spec = self.spec(spec)
        board = self.read_board(spec, position)
        return self._read(spec, lambda: self._find(spec, board)[0])

    def examine(self, spec: str | Spec, position: Position
                ) -> tuple[Probe, list[MoveInfo], tuple[int, ...] | None]:
        """`probe`, `moves` and the root of the table that holds `position` (None: the
        whole-board table, else the root as the table stores it), read at once."""
        spec = self.spec(spec)
        board = self.read_board(spec, position)
        probe, moves, table = self._read(spec, lambda: self._moves_board(spec, board))
        return probe, moves, None if table.whole else table.root.board

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
            probe, moves, _ = self._moves_board(spec, board)
            steps: list[Step] = []
            while moves:
                best = moves[0]
                child = list(board)
                child[best.cell] = mover_at(probe.ply)
                board = tuple(child)
                steps.append(Step(best.move, best.cell, probe.to_move, best.value, best.depth,
                                  board))
                probe, moves, _ = self._moves_board(spec, board)
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
            arrays = self._read(spec, lambda: self._table(spec, root).reader.load())
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
        `found` marks those the table holds. The first call loads the whole table into memory,
        up to LOAD_LIMIT positions; past it, each code's block is read."""
        spec = self.spec(spec)
        chosen = self._table(spec, root)
        asked = chosen.checked_codes(codes)
        if chosen.reader.count > LOAD_LIMIT and (spec, chosen.root.key) not in self._arrays:
            return ManyProbes(*chosen.read_many(chosen.canonical_many(asked)))
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

    def stored_codes(self, spec: str | Spec, positions: Sequence[Position],
                     root: Position | None = None) -> np.ndarray:
        """The stored code of each position (any orientation) in a table (see `table`), or -1
        where the table does not hold it; a position that cannot be read raises as in `probe`."""
        spec = self.spec(spec)
        chosen, codes = self._table(spec, root), self.table(spec, root).codes
        return np.array([chosen.stored_code(self.read_board(spec, p), codes) for p in positions],
                        dtype=np.int64)

    def probe_many(self, spec: str | Spec, codes: np.ndarray | Sequence[int],
                   root: Position | None = None) -> ManyProbes:
        """Like `get_many`, but raises MissingPositionError if the table lacks any of the codes
        because the rules do not reach them from its root, DamagedTableError if they do."""
        spec = self.spec(spec)
        answers = self.get_many(spec, codes, root)
        if not answers.found.all():
            missing = np.asarray(codes, dtype=np.int64)[~answers.found]
            raise missing_codes_error(self._table(spec, root), missing, len(answers.found),
                                      self.name)
        return answers

    def positions(self, spec: str | Spec, batch: int = CHUNK,
                  root: Position | None = None) -> Iterator[PositionArrays]:
        """Every stored (canonical) position of a table (see `table`) in code order, `batch`
        at a time, as arrays."""
        spec = self.spec(spec)
        self._read(spec, lambda: self._table(spec, root))  # follow a swapped table first
        reader = self._table(spec, root).reader
        with reader.snapshot():
            yield from reader.chunks(batch)

    def damage(self, spec: str | Spec, root: Position | None = None) -> list[Damage]:
        """Every damaged part of a table (see `table`), found by reading it whole: blocks that
        fail their checks, blocks missing; empty for an intact table."""
        spec = self.spec(spec)
        self._read(spec, lambda: self._table(spec, root))  # follow a swapped table first
        return self._table(spec, root).reader.damage()

    def integrity(self, thorough: bool = False) -> list[str]:
        """The database file's own check (SQLite's quick_check, or with `thorough` its
        integrity_check): one line per problem, none for a sound file (or a server)."""
        return self._store.integrity(thorough)

    def count(self, spec: str | Spec, root: Position | None = None) -> int:
        """How many positions a table (see `table`) holds (one per symmetry orbit)."""
        return self._table(self.spec(spec), root).reader.count


def _close(tables: list[StoredTable]) -> None:
    for table in tables:
        table.reader.close()


@contextmanager
def open_tablebase(db: str = DEFAULT_DATABASE) -> Iterator[Tablebase]:
    """Open a database of built games read-only, as a context manager yielding a Tablebase.

    `db` is a SQLite file path or a SQLAlchemy URL; raises DatabaseError (a StorageError)
    when it cannot be opened or is not a tablebase database.
    """
    tb = Tablebase(os.fspath(db))
    try:
        yield tb
    finally:
        tb.close()
