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
from urllib.parse import quote

import numpy as np

from tablebase.db.errors import DatabaseError
from tablebase.db.facts import SCHEMA_VERSION
from tablebase.db.records import GameRecord, Lookup, PlyCounts, PositionArrays, lookup_of
from tablebase.db.store import CHUNK, IN_BATCH

# One stored row, as numpy reads it from the driver's tuples (code, ply, value, depth).
_ROW = np.dtype([("code", np.int64), ("ply", np.int16), ("value", np.int8), ("depth", np.int8)])


def _arrays(rows: np.ndarray) -> PositionArrays:
    return PositionArrays(np.ascontiguousarray(rows["code"]), np.ascontiguousarray(rows["ply"]),
                          np.ascontiguousarray(rows["value"]), np.ascontiguousarray(rows["depth"]))


class SqliteReader:
    """One complete table of a SQLite file, read on its store's sqlite3 connection."""

    def __init__(self, conn: sqlite3.Connection, game: GameRecord) -> None:
        self._conn = conn
        self._label = game.label
        self.table = str(game.positions_table)
        self.count = int(game.canonical or 0)
        self._quoted = '"' + self.table.replace('"', '""') + '"'

    def _fail(self, e: sqlite3.Error) -> DatabaseError:
        return DatabaseError(f"cannot read positions of {self._label}: {e}")

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

    def lookup(self, codes: Sequence[int] | np.ndarray) -> Lookup:
        """Value and depth of each canonical code, in the order asked."""
        asked = [int(c) for c in codes]  # Python ints: sqlite3 binds numpy ints as BLOBs
        found: dict[int, tuple[int, int]] = {}
        wanted = list(set(asked))
        try:
            for start in range(0, len(wanted), IN_BATCH):
                part = wanted[start:start + IN_BATCH]
                rows = self._conn.execute(
                    f"SELECT code, value, depth FROM {self._quoted} WHERE code IN"
                    f" ({','.join('?' * len(part))})", part)
                found.update((code, (value, depth)) for code, value, depth in rows)
        except sqlite3.Error as e:
            raise self._fail(e) from e
        return lookup_of(asked, found)

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

    def close(self) -> None:
        """Nothing to release: the connection is the store's."""


class SqliteStore:
    """A read-only sqlite3 connection to a tablebase file: its catalogue and its tables."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self._conn = conn
        self.name = name

    @classmethod
    def open(cls, target: str) -> SqliteStore | None:
        """The file `target` opened read-only, or None unless it is a tablebase file of this
        schema version (the caller then lets db.reader explain)."""
        if "://" in target or not os.path.isfile(target):
            return None
        uri = "file:" + quote(os.path.abspath(target)) + "?mode=ro"
        conn = None
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=30.0)
            row = conn.execute(
                "SELECT value FROM tablebase_meta WHERE key = 'schema_version'").fetchone()
            if row is None or str(row[0]) != str(SCHEMA_VERSION):
                conn.close()
                return None
        except sqlite3.Error:
            if conn is not None:
                conn.close()
            return None
        return cls(conn, target)

    def _read(self, what: str, sql: str, params: tuple[object, ...] = ()) -> list[dict]:
        try:
            cursor = self._conn.execute(sql, params)
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]
        except sqlite3.Error as e:
            raise DatabaseError(f"{self.name}: cannot read {what}: {e}") from e

    def games(self, spec: str | None = None) -> list[GameRecord]:
        """Every table (of `spec`, if given), complete or not, by spec and root."""
        where, params = ("WHERE spec = ? ", (spec,)) if spec is not None else ("", ())
        rows = self._read("the games", f"SELECT * FROM games {where}ORDER BY spec, root", params)
        return [_record(row) for row in rows]

    def plies(self, game: GameRecord) -> list[PlyCounts]:
        """The per-ply counts of a complete table."""
        rows = self._read(f"the ply counts of {game.label}",
                          "SELECT ply, reachable, canonical, terminal, wins, draws, losses"
                          " FROM game_plies WHERE game_id = ? ORDER BY ply", (game.id,))
        return [PlyCounts(**row) for row in rows]

    def reader(self, game: GameRecord) -> SqliteReader:
        """A reader of a complete table."""
        game.check_complete()
        return SqliteReader(self._conn, game)

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()


def _record(row: dict) -> GameRecord:
    # SQLite keeps booleans as 0/1.
    return GameRecord(**{**row, "gravity": bool(row["gravity"]), "misere": bool(row["misere"])})
