"""Writing a table of the keyed layout (db/keyed.py): `open_keyed_build` begins a build, whose
`write` appends blocks in key order and whose `finish` publishes the table as any other.

A local SQLite file is written on the standard library's sqlite3 driver (db/keyed_sqlite.py:
importing SQLAlchemy would cost more than a small game's whole build); a URL, or a file that
writer does not serve, through SQLAlchemy (db/writer.py), imported only then.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from tablebase.db.facts import LAYOUT_KEYED
from tablebase.db.keyed import Packer
from tablebase.db.records import GameParams, GameSummary, PlyCounts
from tablebase.db.tiered import block_rows, packing

if TYPE_CHECKING:
    from sqlalchemy import Connection


class KeyedBuild(Protocol):
    """A build of a keyed table under way."""

    def write(self, chunks: Iterable[Any], digest: Any) -> None:
        """Append every chunk's positions (KeyedRows, or TierRows in the tiered layout;
        ascending keys throughout) as blocks, a transaction a chunk, the next chunk packed
        meanwhile; `digest` (a hashlib object) takes each block's raw bytes, in order."""

    def finish(self, summary: GameSummary, plies: list[PlyCounts]) -> None:
        """Publish the table: the game points at it, complete, atomically."""


@contextmanager
def open_keyed_build(database: str, params: GameParams, *, force: bool,
                     layout: str = LAYOUT_KEYED) -> Iterator[KeyedBuild]:
    """A build of the keyed table `params` names in `database` (a SQLite file path, made if
    missing, or a SQLAlchemy URL); a build left unfinished (an exception inside the block) has
    its table dropped. `layout`: LAYOUT_TIERED_IDS for a table of tiers' scores (db/tiered.py),
    whose `write` takes TierRows. GameExistsError if the table is complete and `force` is false,
    DatabaseError (naming the database or the table) where it cannot be written."""
    if "://" not in database:
        from tablebase.db.keyed_sqlite import SqliteKeyedBuild
        local = SqliteKeyedBuild.open(database, params, force=force, layout=layout)
        if local is not None:
            try:
                yield local
            except BaseException:
                local.abandon()
                raise
            finally:
                local.close()
            return
    with ExitStack() as stack:
        url = _UrlKeyedBuild(stack, database, params, force, layout)
        try:
            yield url
        except BaseException:
            url.abandon()
            raise


class _UrlKeyedBuild:
    """A keyed build through SQLAlchemy (db/writer.py), on an engine `stack` closes."""

    def __init__(self, stack: ExitStack, database: str, params: GameParams, force: bool,
                 layout: str) -> None:
        from tablebase.db.engine import open_database
        from tablebase.db.writer import begin_build

        self._engine = stack.enter_context(open_database(database, writable=True))
        self._handle = begin_build(self._engine, params, force=force, layout=layout)
        self._packer = Packer(*packing(layout))
        self._columns, self._rows = block_rows(layout)
        stack.callback(self._packer.close)

    def write(self, chunks: Iterable[Any], digest: Any) -> None:
        from tablebase.db.writer import write_with

        handle = self._handle
        columns = self._columns
        for blocks in self._packer.stream(chunks, digest):
            # Python ints, strs and bytes: what every driver binds as is.
            data = [tuple(b) for b in self._rows(blocks)]

            def write(conn: Connection, data: list[tuple[object, ...]] = data) -> None:
                mark = "?" if conn.dialect.name == "sqlite" else "%s"
                conn.exec_driver_sql(f'INSERT INTO "{handle.table_name}" ({", ".join(columns)})'
                                     f" VALUES ({', '.join([mark] * len(columns))})", data)
            write_with(self._engine, handle, write)
            handle.rows += sum(b.size for b in blocks)

    def finish(self, summary: GameSummary, plies: list[PlyCounts]) -> None:
        from tablebase.db.writer import finish_build

        finish_build(self._engine, self._handle, summary, plies)

    def abandon(self) -> None:
        from tablebase.db.writer import abandon_build

        abandon_build(self._engine, self._handle)
