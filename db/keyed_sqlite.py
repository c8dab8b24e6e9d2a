"""Writing a table of the keyed layout (db/keyed.py) into a local SQLite file on the standard
library's sqlite3 driver alone: db/sqlite_direct.py's counterpart for a game class's build.

Importing SQLAlchemy costs about 0.2 s, more than a small game's whole walk and solve. This
module serves the common case: a file path (not a URL) naming a new file or a database of ours
in this schema version. For anything else `SqliteKeyedBuild.open` returns None and the caller
builds through db/writer.py, which owns every message about a database it cannot open.

It writes what db/engine.py and db/writer.py write, statement for statement: the same schema
(the DDL below is SQLAlchemy's, as it compiles db/schema.py for SQLite; tests/test_keyed_sqlite.py
compiles it again and compares), the same pragmas, the same catalogue row and its check.
"""
from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import fields
from datetime import datetime, timezone
from typing import Any

from tablebase.db.errors import DatabaseError, GameExistsError
from tablebase.db.facts import (
    DEFAULT_CACHE_BYTES,
    LAYOUT_KEYED,
    POSITIONS_PREFIX,
    SCHEMA_VERSION,
    SQLITE_PAGE_SIZE,
    TIERED_ID_LAYOUTS,
)
from tablebase.db.keyed import Packer
from tablebase.db.records import (
    STATUS_BUILDING,
    STATUS_COMPLETE,
    GameParams,
    GameRecord,
    GameSummary,
    PlyCounts,
)
from tablebase.db.tiered import block_rows, packing

# db/schema.py's catalogue as SQLAlchemy creates it on SQLite (metadata.create_all, in the
# order schema.py defines the tables), and a keyed table (schema.keyed_table) named {name}.
SCHEMA_DDL = (
    '\nCREATE TABLE tablebase_meta (\n\t"key" VARCHAR(64) NOT NULL, \n\tvalue TEXT NOT NULL,'
    ' \n\tPRIMARY KEY ("key")\n)\n\n',
    "\nCREATE TABLE games (\n\tid INTEGER NOT NULL, \n\tspec VARCHAR(64) NOT NULL, \n\troot TEXT"
    " DEFAULT '' NOT NULL, \n\twidth INTEGER NOT NULL, \n\theight INTEGER NOT NULL, \n\tk INTEGER"
    " NOT NULL, \n\tgravity BOOLEAN NOT NULL, \n\tmisere BOOLEAN NOT NULL, \n\tstatus VARCHAR(16)"
    " NOT NULL, \n\tpositions_table VARCHAR(64), \n\treachable BIGINT, \n\tcanonical BIGINT,"
    " \n\tterminal BIGINT, \n\tterminal_canonical BIGINT, \n\twins BIGINT, \n\tdraws BIGINT,"
    " \n\tlosses BIGINT, \n\troot_value SMALLINT, \n\troot_depth SMALLINT, \n\tschema_version"
    " INTEGER NOT NULL, \n\ttool_version VARCHAR(32) NOT NULL, \n\tbuilt_at VARCHAR(32),"
    " \n\tbuild_seconds FLOAT, \n\tstages TEXT, \n\tchecksum VARCHAR(32), \n\tlayout VARCHAR(16)"
    " DEFAULT 'rows' NOT NULL, \n\tstored_bytes BIGINT, \n\trow_check VARCHAR(16), \n\tPRIMARY"
    " KEY (id), \n\tCONSTRAINT games_spec_root UNIQUE (spec, root)\n)\n\n",
    "\nCREATE TABLE game_plies (\n\tgame_id INTEGER NOT NULL, \n\tply INTEGER NOT NULL,"
    " \n\treachable BIGINT NOT NULL, \n\tcanonical BIGINT NOT NULL, \n\tterminal BIGINT NOT"
    " NULL, \n\twins BIGINT NOT NULL, \n\tdraws BIGINT NOT NULL, \n\tlosses BIGINT NOT NULL,"
    " \n\tPRIMARY KEY (game_id, ply), \n\tFOREIGN KEY(game_id) REFERENCES games (id) ON DELETE"
    " CASCADE\n)\n\n",
)
KEYED_DDL = ("\nCREATE TABLE {name} (\n\tfirst_key TEXT NOT NULL, \n\tcount INTEGER NOT NULL,"
             " \n\tdata BLOB NOT NULL, \n\tchk BIGINT NOT NULL, \n\tPRIMARY KEY (first_key)\n)"
             "\n WITHOUT ROWID\n\n")
# The tiered-ids layout's table (schema.tiered_table) named {name}.
TIERED_DDL = ("\nCREATE TABLE {name} (\n\tid INTEGER NOT NULL, \n\tfirst_key TEXT NOT NULL,"
              " \n\tcount INTEGER NOT NULL, \n\tdata BLOB NOT NULL, \n\tchk BIGINT NOT NULL,"
              " \n\tPRIMARY KEY (id)\n)\n\n")
_PLY_COLUMNS = ", ".join(f.name for f in fields(PlyCounts))


def _reason(error: BaseException) -> str:
    """The driver's message on one line (as db/engine.py's error_reason words it)."""
    return " ".join(str(error).split())[:200]


class SqliteKeyedBuild:
    """A build of a keyed table under way in a SQLite file: `write` blocks, then `finish`
    (publish) or `abandon`; `close` in every case."""

    def __init__(self, conn: sqlite3.Connection, params: GameParams, game_id: int,
                 table: str, layout: str = LAYOUT_KEYED) -> None:
        self._conn, self._params = conn, params
        self.game_id, self.table_name = game_id, table
        self.rows = 0
        self.layout = layout
        self._packer = Packer(*packing(layout))
        self._columns, self._rows = block_rows(layout)

    @classmethod
    def open(cls, target: str, params: GameParams, *, force: bool, layout: str = LAYOUT_KEYED
             ) -> SqliteKeyedBuild | None:
        """Begin a build of `params` in the file `target` (made if missing), or None unless it
        is a file path this module serves (the caller then builds through db/writer.py).
        GameExistsError if the table is complete and `force` is false; DatabaseError naming
        the table for a failure once the file is known to be ours."""
        if "://" in target:
            return None
        path = os.path.abspath(target)
        folder = os.path.dirname(path)
        if os.path.isdir(path) or not os.path.isdir(folder) or not os.access(folder, os.W_OK) \
                or (os.path.exists(path) and not os.access(path, os.W_OK)):
            return None
        conn = None
        try:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            if not _schema(conn, path):
                conn.close()
                return None
        except (sqlite3.Error, UnicodeDecodeError, ValueError):
            if conn is not None:
                conn.close()
            return None
        try:
            return cls._begin(conn, params, force, layout)
        except BaseException:
            _leave_wal(conn)
            raise

    @classmethod
    def _begin(cls, conn: sqlite3.Connection, params: GameParams, force: bool,
               layout: str) -> SqliteKeyedBuild:
        """db/writer.py's begin_build for the keyed layout: the game's row, the build's table."""
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute("SELECT id, status, positions_table FROM games WHERE spec = ?"
                                   " AND root = ?", (params.spec, params.root)).fetchone()
                if row is not None and row[1] == STATUS_COMPLETE and not force:
                    raise GameExistsError(
                        f"{params.label} is already built; add --force to rebuild it")
                if row is None:
                    columns = {**params.columns(), "status": STATUS_BUILDING,
                               "schema_version": SCHEMA_VERSION, "tool_version": ""}
                    inserted = conn.execute(f"INSERT INTO games ({', '.join(columns)}) VALUES"
                                            f" ({', '.join('?' * len(columns))})",
                                            list(columns.values())).lastrowid
                    assert inserted is not None  # an INSERT's row
                    game_id = inserted
                    keep = None
                else:
                    game_id, keep = int(row[0]), row[2]
                # Tables of builds that died (killed, crashed) are nobody's: remove them.
                for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                            " AND name NOT LIKE 'sqlite~_%' ESCAPE '~'"
                                            " ORDER BY name").fetchall():
                    if name.startswith(f"{POSITIONS_PREFIX}{game_id}_") and name != keep:
                        conn.execute(f'DROP TABLE "{name}"')
                table = f"{POSITIONS_PREFIX}{game_id}_{os.urandom(4).hex()}"
                conn.execute((TIERED_DDL if layout in TIERED_ID_LAYOUTS else KEYED_DDL)
                             .format(name=table))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as e:
            raise DatabaseError(f"cannot start the build of {params.label}: {_reason(e)}") from e
        return cls(conn, params, game_id, table, layout)

    def write(self, chunks: Iterable[Any], digest: Any) -> None:
        """Append every chunk's positions (ascending keys throughout) as blocks, a transaction
        a chunk (compressed on two threads where chunks are large, the next while this one is
        stored); `digest` (a hashlib object) takes each block's raw bytes, in order: the
        table's checksum."""
        for blocks in self._packer.stream(chunks, digest):
            try:
                with _transaction(self._conn):
                    self._conn.executemany(
                        f'INSERT INTO "{self.table_name}" ({", ".join(self._columns)}) VALUES'
                        f' ({", ".join("?" * len(self._columns))})', self._rows(blocks))
            except sqlite3.Error as e:
                raise DatabaseError(f"cannot write positions of {self._params.label}:"
                                    f" {_reason(e)}") from e
            self.rows += sum(b.size for b in blocks)

    def finish(self, summary: GameSummary, plies: list[PlyCounts]) -> None:
        """Point the game at the new table and mark it complete, dropping the old table,
        atomically (db/writer.py's finish_build)."""
        self._packer.close()
        label = self._params.label
        if self.rows != summary.canonical:
            raise DatabaseError(f"{label}: wrote {self.rows} positions, expected"
                                f" {summary.canonical}")
        conn, game_id = self._conn, self.game_id
        try:
            with _transaction(conn):
                old = conn.execute("SELECT positions_table FROM games WHERE id = ?",
                                   (game_id,)).fetchone()
                old = None if old is None else old[0]
                values: dict[str, object] = {
                    "status": STATUS_COMPLETE, "positions_table": self.table_name,
                    "reachable": summary.reachable, "canonical": summary.canonical,
                    "terminal": summary.terminal, "terminal_canonical": summary.terminal_canonical,
                    "wins": summary.wins, "draws": summary.draws, "losses": summary.losses,
                    "root_value": summary.root_value, "root_depth": summary.root_depth,
                    "schema_version": SCHEMA_VERSION, "tool_version": summary.tool_version,
                    "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    "build_seconds": float(summary.build_seconds),
                    "stages": json.dumps(summary.stages), "checksum": summary.checksum,
                    "layout": self.layout, "stored_bytes": self._stored_bytes()}
                conn.execute(f"UPDATE games SET {', '.join(f'{k} = ?' for k in values)}"
                             " WHERE id = ?", [*values.values(), game_id])
                conn.execute("DELETE FROM game_plies WHERE game_id = ?", (game_id,))
                conn.executemany(f"INSERT INTO game_plies (game_id, {_PLY_COLUMNS}) VALUES"
                                 f" ({', '.join('?' * (len(fields(PlyCounts)) + 1))})",
                                 [(game_id, *(int(getattr(p, f.name)) for f in fields(PlyCounts)))
                                  for p in plies])
                # The row's check, over the row as stored (read back: the digest sees what a
                # reader will see; SQLite keeps booleans as 0/1, which the digest reads as such).
                names = [f.name for f in fields(GameRecord)]
                row = conn.execute(f"SELECT {', '.join(names)} FROM games WHERE id = ?",
                                   (game_id,)).fetchone()
                digest = GameRecord(**dict(zip(names, row))).row_digest(plies)
                conn.execute("UPDATE games SET row_check = ? WHERE id = ?", (digest, game_id))
                if old and old != self.table_name:
                    conn.execute(f'DROP TABLE IF EXISTS "{old}"')
        except sqlite3.Error as e:
            raise DatabaseError(f"cannot finish the build of {label}: {_reason(e)}") from e

    def _stored_bytes(self) -> int | None:
        """The new table's pages on disk (SQLite's dbstat), or None where dbstat is missing."""
        try:
            found = self._conn.execute("SELECT SUM(pgsize) FROM dbstat WHERE name = ?",
                                       (self.table_name,)).fetchone()[0]
        except sqlite3.Error:
            return None
        return None if found is None else int(found)

    def abandon(self) -> None:
        """Drop the unfinished table of a failed build (best effort: a later build also
        cleans up)."""
        self._packer.close()
        try:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            self._conn.execute(f'DROP TABLE IF EXISTS "{self.table_name}"')
        except sqlite3.Error:
            pass

    def close(self) -> None:
        """Stop the packing threads, return the file to rollback-journal mode and close it."""
        self._packer.close()
        _leave_wal(self._conn)


class _transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (as db/engine.py's engines)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is None:
            self._conn.execute("COMMIT")
        elif self._conn.in_transaction:
            self._conn.execute("ROLLBACK")


def _schema(conn: sqlite3.Connection, path: str) -> bool:
    """Set the connection up as db/engine.py sets a writer's, and make the schema in a new
    file; whether the file holds our schema in this version (False: db/engine.py explains)."""
    for pragma in ("busy_timeout = 30000", "foreign_keys = ON", "synchronous = NORMAL",
                   f"cache_size = -{max(DEFAULT_CACHE_BYTES >> 10, 2048)}"):
        conn.execute(f"PRAGMA {pragma}")
    if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
        conn.execute(f"PRAGMA page_size = {SQLITE_PAGE_SIZE}")
        if os.path.getsize(path):  # a file not new: VACUUM writes it again with its page size
            conn.execute("VACUUM")
        # WAL before the schema is made: its commits then wait for no sync of the disk (what
        # db/engine.py makes first, then sets WAL: the same file, some 15 ms sooner).
        conn.execute("PRAGMA journal_mode = WAL")
    with _transaction(conn):
        tables = {name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            for statement in SCHEMA_DDL:
                conn.execute(statement)
            conn.execute("INSERT INTO tablebase_meta (\"key\", value) VALUES (?, ?)",
                         ("schema_version", str(SCHEMA_VERSION)))
        elif "games" not in tables:
            return False
        else:
            found = conn.execute("SELECT value FROM tablebase_meta WHERE \"key\" ="
                                 " 'schema_version'").fetchone()
            if found is None or str(found[0]) != str(SCHEMA_VERSION):
                return False
    # Readers keep reading while a build writes (a property of the file, set once it is ours).
    conn.execute("PRAGMA journal_mode = WAL")
    return True


def _leave_wal(conn: sqlite3.Connection) -> None:
    """Return the file to rollback-journal mode (as db/engine.py's writer does: a finished
    database is one file that reads touch not at all) and close the connection; if another
    connection is busy with the file, it stays in WAL mode."""
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.execute("PRAGMA busy_timeout = 0")
        conn.execute("PRAGMA journal_mode = DELETE")
    except sqlite3.Error:
        pass
    finally:
        conn.close()
