"""The read path for a local SQLite file, on the standard library's sqlite3 driver alone.

Importing SQLAlchemy costs about a third of a second, more than half the budget of one
`tablebase probe` process, and a lookup through its Core costs several times one through the
driver. This module serves the common case: a file path (not a URL) naming a database of ours
in this schema version. For anything else `SqliteStore.open` returns None and db.store goes
through db.reader, which owns every message about a database it cannot open.

Its SQL must agree with db/schema.py; tests/test_tablebase.py pins the facts they share.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import fields
from typing import TYPE_CHECKING
from urllib.parse import quote

import numpy as np

from tablebase.db.blocks import BlockRow
from tablebase.db.errors import DatabaseError, read_failure
from tablebase.db.facts import ADDED_IN_3, CHUNK, IN_BATCH, READABLE_VERSIONS
from tablebase.db.records import (
    Damage,
    GameRecord,
    Lookup,
    PlyCounts,
    PositionArrays,
    TableCodes,
    ply_rows,
    rows_lookup,
)
from tablebase.db.store_base import CheckedStore

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from tablebase.db.keyed import KeyedSource, Run

# One stored row, as numpy reads it from the driver's tuples (code, ply, value, depth).
_ROW = np.dtype([("code", np.int64), ("ply", np.int16), ("value", np.int8), ("depth", np.int8)])


def _arrays(rows: np.ndarray) -> PositionArrays:
    return PositionArrays(np.ascontiguousarray(rows["code"]), np.ascontiguousarray(rows["ply"]),
                          np.ascontiguousarray(rows["value"]), np.ascontiguousarray(rows["depth"]))


def read_error(what: str, e: sqlite3.Error | UnicodeDecodeError) -> DatabaseError:
    """The error for a failed read of `what`: DamagedTableError where the file is damaged
    (SQLite's own DatabaseError: "database disk image is malformed", "file is not a
    database"; text that is not UTF-8), DatabaseError otherwise."""
    damaged = type(e) is sqlite3.DatabaseError or isinstance(e, UnicodeDecodeError)
    return read_failure(what, " ".join(str(e).split())[:200], damaged)


class _Table:
    """A stored table's SQL name on a store's sqlite3 connection, and reads in one snapshot."""

    def __init__(self, conn: sqlite3.Connection, game: GameRecord) -> None:
        self._conn = conn
        self._label = game.label
        self.table = str(game.positions_table)
        self._quoted = '"' + self.table.replace('"', '""') + '"'
        self._game_id = game.id
        self._version: int | None = None

    def _fail(self, e: sqlite3.Error | UnicodeDecodeError) -> DatabaseError:
        return read_error(f"positions of {self._label}", e)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Read inside one transaction: every read sees the database at the same moment,
        even while a build commits (WAL keeps the old pages for this reader)."""
        if self._conn.in_transaction:
            yield
            return
        try:
            self._conn.execute("BEGIN")
        except sqlite3.Error as e:
            raise self._fail(e) from e
        try:
            yield
        finally:
            self._conn.rollback()

    def current(self) -> bool:
        """Whether the catalogue still points at this table: asked only when the file has
        changed since the last time (SQLite's data_version counts other connections' commits)."""
        try:
            version = self._conn.execute("PRAGMA data_version").fetchone()[0]
            if version == self._version:
                return True
            self._version = version
            row = self._conn.execute("SELECT positions_table FROM games WHERE id = ?",
                                     (self._game_id,)).fetchone()
        except (sqlite3.Error, UnicodeDecodeError) as e:
            raise self._fail(e) from e
        return row is not None and row[0] == self.table

    def close(self) -> None:
        """Nothing to release: the connection is the store's."""


class SqliteBlocks(_Table):
    """The blocks of a packed table (a BlockSource for db.packed.PackedReader)."""

    _COLUMNS = "SELECT first_code, ply, count, data FROM "

    def _rows(self, where: str, params: tuple[int, ...]) -> list[BlockRow]:
        try:
            return [BlockRow(*row) for row in
                    self._conn.execute(self._COLUMNS + self._quoted + where, params)]
        except sqlite3.Error as e:
            raise self._fail(e) from e

    def block_at(self, ply: int, code: int) -> BlockRow | None:
        """The block of `ply` with the largest key at most `code`, if any."""
        found = self._rows(" WHERE ply = ? AND first_code <= ? ORDER BY first_code DESC"
                           " LIMIT 1", (ply, code))
        return found[0] if found else None

    def first_block(self, ply: int) -> BlockRow | None:
        """The block of `ply` with the smallest key, if any."""
        found = self._rows(" WHERE ply = ? ORDER BY first_code LIMIT 1", (ply,))
        return found[0] if found else None

    def blocks_after(self, ply: int, key: int, limit: int) -> list[BlockRow]:
        """Up to `limit` blocks of `ply` whose keys exceed `key`, in key order."""
        return self._rows(" WHERE ply = ? AND first_code > ? ORDER BY first_code LIMIT ?",
                          (ply, key, limit))

class SqliteReader(_Table):
    """One complete table of the rows layout, read on its store's sqlite3 connection."""

    by_ply = False

    def __init__(self, conn: sqlite3.Connection, game: GameRecord, codes: TableCodes) -> None:
        super().__init__(conn, game)
        self.count = int(game.canonical or 0)
        self._codes = codes
        self._game = game

    def lookup(self, codes: Sequence[int] | np.ndarray) -> Lookup:
        """Value and depth of each canonical code, in the order asked."""
        asked = [int(c) for c in codes]  # Python ints: sqlite3 binds numpy ints as BLOBs
        rows: list[tuple[object, ...]] = []
        wanted = list(set(asked))
        try:
            for start in range(0, len(wanted), IN_BATCH):
                part = wanted[start:start + IN_BATCH]
                rows += self._conn.execute(
                    f"SELECT code, ply, value, depth FROM {self._quoted} WHERE code IN"
                    f" ({','.join('?' * len(part))})", part)
        except sqlite3.Error as e:
            raise self._fail(e) from e
        return rows_lookup(self._codes, asked, rows, f"{self._label} (table {self.table})")

    def chunks(self, batch: int = CHUNK) -> Iterator[PositionArrays]:
        """Every stored position in code order, `batch` rows at a time."""
        query = (f"SELECT code, ply, value, depth FROM {self._quoted} WHERE code > ?"
                 " ORDER BY code LIMIT ?")
        after = -1
        try:
            while True:
                rows = np.fromiter(self._conn.execute(query, (after, batch)), dtype=_ROW)
                if len(rows) == 0:
                    return
                after = int(rows["code"][-1])
                yield _arrays(rows)
        except sqlite3.Error as e:
            raise self._fail(e) from e

    def load(self) -> PositionArrays:
        """The whole table at once, in code order."""
        try:
            cursor = self._conn.execute(
                f"SELECT code, ply, value, depth FROM {self._quoted} ORDER BY code")
            rows = np.fromiter(cursor, dtype=_ROW)
        except sqlite3.Error as e:
            raise self._fail(e) from e
        return _arrays(rows)

    def tier(self, ply: int, pool: Executor | None = None) -> PositionArrays:
        """Every stored position of `ply`, in code order: the whole table read, since no
        index leads to a ply's rows."""
        return ply_rows(self.chunks(), ply)

    def damage(self) -> list[Damage]:
        """None to find: rows carry no checks of their own."""
        return []


# How much of a file a reader maps (SQLite maps up to the file's size): 64 GiB.
_MAPPED = 1 << 36


class SqliteStore(CheckedStore):
    """A read-only sqlite3 connection to a tablebase file: its catalogue and its tables."""

    def __init__(self, conn: sqlite3.Connection, name: str, version: int) -> None:
        self._conn = conn
        self.name = name
        self._version = version

    @classmethod
    def open(cls, target: str) -> SqliteStore | None:
        """The file `target` opened read-only, or None unless it is a tablebase file of a
        schema version this tool reads (the caller then lets db.reader explain)."""
        if "://" in target or not os.path.isfile(target):
            return None
        uri = "file:" + quote(os.path.abspath(target)) + "?mode=ro"
        conn = None
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=30.0)
            # Pages read through a mapping of the file rather than a read call each: a probe
            # of nine men's morris's 13 GB table spent 35 us in SQLite with reads, 19-21 mapped
            # (one block's row in a transaction, warm pages). A file cut while it is mapped
            # would fault; builds never shorten a file (SQLite frees pages within it).
            conn.execute(f"PRAGMA mmap_size = {_MAPPED}")
            row = conn.execute(
                "SELECT value FROM tablebase_meta WHERE key = 'schema_version'").fetchone()
            if row is None or str(row[0]) not in map(str, READABLE_VERSIONS):
                conn.close()
                return None
            version = int(row[0])
        except (sqlite3.Error, UnicodeDecodeError, ValueError):
            if conn is not None:
                conn.close()
            return None
        return cls(conn, target, version)

    def _read(self, what: str, sql: str, params: tuple[object, ...] = ()) -> list[dict]:
        try:
            cursor = self._conn.execute(sql, params)
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]
        except (sqlite3.Error, UnicodeDecodeError) as e:
            raise read_error(f"{what} of {self.name}", e) from e

    def games(self, spec: str | None = None) -> list[GameRecord]:
        """Every table (of `spec`, if given), complete or not, by spec and root."""
        where, params = ("WHERE spec = ? ", (spec,)) if spec is not None else ("", ())
        # Named columns, so that a damaged schema is an error here, not a record missing some.
        columns = ", ".join(f.name for f in fields(GameRecord)
                            if self._version >= 3 or f.name not in ADDED_IN_3)
        rows = self._read("the games", f"SELECT {columns} FROM games {where}ORDER BY spec, root",
                          params)
        return [_record(row) for row in rows]

    def plies(self, game: GameRecord) -> list[PlyCounts]:
        """The per-ply counts of a complete table."""
        rows = self._read(f"the ply counts of {game.label}",
                          "SELECT ply, reachable, canonical, terminal, wins, draws, losses"
                          " FROM game_plies WHERE game_id = ? ORDER BY ply", (game.id,))
        return [PlyCounts(**row) for row in rows]

    def _blocks(self, game: GameRecord) -> SqliteBlocks:
        return SqliteBlocks(self._conn, game)

    def _rows(self, game: GameRecord, codes: TableCodes) -> SqliteReader:
        return SqliteReader(self._conn, game, codes)

    def _run(self, game: GameRecord) -> tuple[Run, str, str, KeyedSource]:
        table = _Table(self._conn, game)

        def run(sql: str, params: Sequence[object]) -> list[tuple[object, ...]]:
            try:
                return self._conn.execute(sql, tuple(params)).fetchall()
            except (sqlite3.Error, UnicodeDecodeError) as e:
                raise table._fail(e) from e
        return run, table._quoted, "?", table

    def integrity(self, thorough: bool = False) -> list[str]:
        """SQLite's quick_check (integrity_check with `thorough`): one line per problem."""
        pragma = "integrity_check" if thorough else "quick_check"
        try:
            lines = [str(row[0]) for row in self._conn.execute(f"PRAGMA {pragma}")]
        except (sqlite3.Error, UnicodeDecodeError) as e:
            return [" ".join(str(e).split())[:200]]
        return [] if lines == ["ok"] else lines

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()


def _record(row: dict) -> GameRecord:
    # SQLite keeps booleans as 0/1.
    return GameRecord(**{**row, "gravity": bool(row["gravity"]), "misere": bool(row["misere"])})
