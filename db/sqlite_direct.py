"""Read-only lookups in a local SQLite file on the standard library's sqlite3 driver alone.

Importing SQLAlchemy costs about a third of a second, more than half the budget of one
`tablebase probe` process, and a lookup through its Core costs several times one through the
driver. This module serves the common case: a file path (not a URL) naming a database of ours,
in this schema version, that holds the requested game complete. For anything else it returns
None and the caller goes through db.engine and db.reader, which own every error message.

Its SQL must agree with db/schema.py; tests/test_tablebase.py pins the facts they share.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import NamedTuple
from urllib.parse import quote

import numpy as np

from db.errors import DatabaseError
from db.facts import SCHEMA_VERSION

# One stored row, as numpy reads it from the driver's tuples (code, ply, value, depth).
_ROW = np.dtype([("code", np.int64), ("ply", np.int16), ("value", np.int8), ("depth", np.int8)])


class PositionArrays(NamedTuple):
    """Stored positions as equal-length arrays in code order: canonical code, ply, value
    (-1, 0, 1 for the side to move) and depth (plies to the end under perfect play)."""

    codes: np.ndarray
    ply: np.ndarray
    value: np.ndarray
    depth: np.ndarray


def _arrays(rows: np.ndarray) -> PositionArrays:
    return PositionArrays(np.ascontiguousarray(rows["code"]), np.ascontiguousarray(rows["ply"]),
                          np.ascontiguousarray(rows["value"]), np.ascontiguousarray(rows["depth"]))


class SqlitePositions:
    """One complete game's positions table on an open sqlite3 connection."""

    def __init__(self, conn: sqlite3.Connection, spec: str, table: str, canonical: int) -> None:
        self._conn = conn
        self.spec = spec
        self.table = table
        self.canonical = canonical  # rows in the table, one per orbit
        quoted = '"' + table.replace('"', '""') + '"'
        self._table = quoted
        self._one = f"SELECT ply, value, depth FROM {quoted} WHERE code = ?"

    def _fail(self, e: sqlite3.Error) -> DatabaseError:
        return DatabaseError(f"cannot read positions of {self.spec}: {e}")

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

    def fetch(self, code: int) -> tuple[int, int, int] | None:
        """(ply, value, depth) of one canonical code, or None if the table lacks it."""
        try:
            return self._conn.execute(self._one, (int(code),)).fetchone()
        except sqlite3.Error as e:
            raise self._fail(e) from e

    def fetch_many(self, codes: Iterable[int]) -> dict[int, tuple[int, int, int]]:
        """code -> (ply, value, depth) for those of `codes` the table holds, in one query."""
        wanted = list({int(c) for c in codes})  # Python ints: sqlite3 binds numpy ints as BLOBs
        if not wanted:
            return {}
        marks = ",".join("?" * len(wanted))
        try:
            rows = self._conn.execute(
                f"SELECT code, ply, value, depth FROM {self._table} WHERE code IN ({marks})",
                wanted).fetchall()
        except sqlite3.Error as e:
            raise self._fail(e) from e
        return {code: (ply, value, depth) for code, ply, value, depth in rows}

    def chunks(self, batch: int = 1 << 16) -> Iterator[PositionArrays]:
        """Every stored position in code order, `batch` rows at a time."""
        query = (f"SELECT code, ply, value, depth FROM {self._table} WHERE code > ?"
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
                f"SELECT code, ply, value, depth FROM {self._table} ORDER BY code")
            return _arrays(np.fromiter(cursor, dtype=_ROW))
        except sqlite3.Error as e:
            raise self._fail(e) from e


class SqliteFile:
    """A read-only sqlite3 connection to a tablebase file; hands out one game's positions."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    @classmethod
    def open(cls, target: str) -> SqliteFile | None:
        """The file `target` opened read-only, or None unless it is a tablebase file of this schema."""
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
        return cls(conn)

    def roots(self, spec: str) -> list[str]:
        """The roots of the complete tables of `spec` ('' is the whole board, listed first)."""
        try:
            rows = self._conn.execute(
                "SELECT root FROM games WHERE spec = ? AND status = 'complete'"
                " AND positions_table IS NOT NULL ORDER BY root", (spec,)).fetchall()
        except sqlite3.Error:
            return []
        return [str(r[0]) for r in rows]

    def positions(self, spec: str, root: str = "") -> SqlitePositions | None:
        """The complete table of game `spec` rooted at `root` ('' for the whole board), or None
        if there is none (the caller explains)."""
        try:
            row = self._conn.execute(
                "SELECT positions_table, canonical FROM games WHERE spec = ? AND root = ?"
                " AND status = 'complete' AND positions_table IS NOT NULL",
                (spec, root)).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        return SqlitePositions(self._conn, spec, str(row[0]), int(row[1] or 0))

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()
