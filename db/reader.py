"""The read path for any SQLAlchemy URL (PostgreSQL, or a SQLite file named by URL): a store on
one engine, each table read on a connection of its own."""
from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from contextlib import contextmanager
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import Engine, Select, bindparam, select
from sqlalchemy.exc import SQLAlchemyError

from tablebase.db.blocks import BlockRow
from tablebase.db.engine import check_schema, describe, error_reason, open_engine, open_error
from tablebase.db.errors import DatabaseError, read_failure
from tablebase.db.facts import ADDED_IN_3, CHUNK, IN_BATCH
from tablebase.db.records import (
    Damage,
    GameRecord,
    Lookup,
    PlyCounts,
    PositionArrays,
    TableCodes,
    empty_positions,
    ply_rows,
    rows_lookup,
)
from tablebase.db.schema import blocks_table, game_plies, games, positions_table
from tablebase.db.store_base import CheckedStore

if TYPE_CHECKING:
    from tablebase.db.keyed import KeyedSource, Run

# How often a packed table's reader asks whether a rebuild has replaced its table.
CURRENT_SECONDS = 1.0



def _wrap(what: str, e: SQLAlchemyError | UnicodeDecodeError) -> DatabaseError:
    return read_failure(what, error_reason(e), isinstance(e, UnicodeDecodeError))


def list_games(engine: Engine, spec: str | None = None, version: int = 3) -> list[GameRecord]:
    """Every table the database knows (or those of `spec`), complete or not, by spec, the
    whole-board table before the endgame tables, those by root (`version`: the database's
    schema version)."""
    columns = [c for c in games.c if version >= 3 or c.name not in ADDED_IN_3]
    query = select(*columns).order_by(games.c.spec, games.c.root)
    if spec is not None:
        query = query.where(games.c.spec == spec)
    try:
        with engine.connect() as conn:
            rows = conn.execute(query).all()
    except (SQLAlchemyError, UnicodeDecodeError) as e:
        raise _wrap("the games", e) from e
    return [GameRecord(**row._asdict()) for row in rows]


def read_plies(engine: Engine, game: GameRecord) -> list[PlyCounts]:
    """The per-ply counts of a complete table."""
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(game_plies).where(game_plies.c.game_id == game.id)
                                .order_by(game_plies.c.ply)).all()
    except SQLAlchemyError as e:
        raise _wrap(f"the ply counts of {game.label}", e) from e
    return [PlyCounts(r.ply, r.reachable, r.canonical, r.terminal, r.wins, r.draws, r.losses)
            for r in rows]


class _UrlTable:
    """A stored table read through SQLAlchemy on one open connection, for any dialect."""

    def __init__(self, engine: Engine, game: GameRecord) -> None:
        self._label = game.label
        self.table = str(game.positions_table)
        self._game_id = game.id
        self._checked = time.monotonic()
        try:
            self._conn = engine.connect()
            if engine.dialect.name == "postgresql":
                # A published table never changes, so one statement sees it whole, and a table
                # dropped by a rebuild fails the statement that reads it (Tablebase then reads
                # the new tables). So autocommit is safe, and it saves a snapshot's BEGIN and
                # ROLLBACK: two round trips of the three a probe would cost.
                self._conn.execution_options(isolation_level="AUTOCOMMIT")
        except SQLAlchemyError as e:
            raise self._fail(e) from e

    def _fail(self, e: SQLAlchemyError) -> DatabaseError:
        return _wrap(f"positions of {self._label}", e)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Read inside one transaction, so that every read sees the same moment (on PostgreSQL
        the reader autocommits instead: see __init__)."""
        if self._conn.in_transaction():
            yield
            return
        try:
            transaction = self._conn.begin()
        except SQLAlchemyError as e:
            raise self._fail(e) from e
        try:
            yield
        finally:
            transaction.rollback()

    def current(self) -> bool:
        """Whether the catalogue still points at this table, asked at most once a second (a
        round trip to a server costs as much as the block it would save)."""
        now = time.monotonic()
        if now - self._checked < CURRENT_SECONDS:
            return True
        self._checked = now
        try:
            found = self._conn.execute(select(games.c.positions_table)
                                       .where(games.c.id == self._game_id)).scalar()
        except SQLAlchemyError as e:
            raise self._fail(e) from e
        return found == self.table

    def close(self) -> None:
        """Return the connection to the engine."""
        self._conn.close()


class UrlBlocks(_UrlTable):
    """The blocks of a packed table (a BlockSource for db.packed.PackedReader)."""

    def __init__(self, engine: Engine, game: GameRecord) -> None:
        super().__init__(engine, game)
        t = blocks_table(self.table)
        columns = select(t.c.first_code, t.c.ply, t.c.count, t.c.data)
        of_ply = t.c.ply == bindparam("ply")
        self._at = (columns.where(of_ply, t.c.first_code <= bindparam("code"))
                    .order_by(t.c.first_code.desc()).limit(1))
        self._after = (columns.where(of_ply, t.c.first_code > bindparam("key"))
                       .order_by(t.c.first_code).limit(bindparam("limit")))

    def _rows(self, query: Select, params: dict[str, int]) -> list[BlockRow]:
        try:
            with self.snapshot():  # no transaction left open behind a read
                return [BlockRow(int(r[0]), int(r[1]), int(r[2]), bytes(r[3]))
                        for r in self._conn.execute(query, params)]
        except SQLAlchemyError as e:
            raise self._fail(e) from e

    def block_at(self, ply: int, code: int) -> BlockRow | None:
        """The block of `ply` with the largest key at most `code`, if any."""
        found = self._rows(self._at, {"ply": ply, "code": code})
        return found[0] if found else None

    def first_block(self, ply: int) -> BlockRow | None:
        """The block of `ply` with the smallest key, if any."""
        found = self._rows(self._after, {"ply": ply, "key": -1, "limit": 1})
        return found[0] if found else None

    def blocks_after(self, ply: int, key: int, limit: int) -> list[BlockRow]:
        """Up to `limit` blocks of `ply` whose keys exceed `key`, in key order."""
        return self._rows(self._after, {"ply": ply, "key": key, "limit": limit})

class UrlReader(_UrlTable):
    """One complete table of the rows layout through SQLAlchemy."""

    by_ply = False

    def __init__(self, engine: Engine, game: GameRecord, codes: TableCodes) -> None:
        super().__init__(engine, game)
        self.count = int(game.canonical or 0)
        self._codes = codes
        self._table = positions_table(self.table)
        self._game = game

    def lookup(self, codes: Sequence[int] | np.ndarray) -> Lookup:
        """Value and depth of each canonical code, in the order asked."""
        asked = [int(c) for c in codes]
        wanted = sorted(set(asked))
        t = self._table
        rows: list[tuple[object, ...]] = []
        try:
            with self.snapshot():  # no transaction left open behind a read
                for start in range(0, len(wanted), IN_BATCH):
                    rows += [tuple(r) for r in self._conn.execute(
                        select(t.c.code, t.c.ply, t.c.value, t.c.depth).where(
                            t.c.code.in_(wanted[start:start + IN_BATCH]))).all()]
        except SQLAlchemyError as e:
            raise self._fail(e) from e
        return rows_lookup(self._codes, asked, rows, f"{self._label} (table {self.table})")

    def chunks(self, batch: int = CHUNK) -> Iterator[PositionArrays]:
        """Every stored position in code order, `batch` rows at a time, on this connection."""
        t = self._table
        query = (select(t.c.code, t.c.ply, t.c.value, t.c.depth)
                 .where(t.c.code > bindparam("after")).order_by(t.c.code).limit(batch))
        after = -1
        try:
            with self.snapshot():  # one moment for the whole table, closed at the end
                yield from self._chunks(query, after)
        except SQLAlchemyError as e:
            raise self._fail(e) from e

    def _chunks(self, query: Select, after: int) -> Iterator[PositionArrays]:
        while True:
            rows = self._conn.execute(query, {"after": after}).all()
            if not rows:
                return
            # fromiter over the flattened tuples: np.array on Row objects probes each one
            # as a mapping first, which is two orders of magnitude slower.
            data = np.fromiter(chain.from_iterable(rows), dtype=np.int64,
                               count=4 * len(rows)).reshape(len(rows), 4)
            after = int(data[-1, 0])
            yield PositionArrays(data[:, 0].copy(), data[:, 1].astype(np.int16),
                                 data[:, 2].astype(np.int8), data[:, 3].astype(np.int8))

    def load(self) -> PositionArrays:
        """The whole table at once, in code order."""
        chunks = list(self.chunks())
        if not chunks:
            return empty_positions()
        return PositionArrays(*(np.concatenate([c[i] for c in chunks]) for i in range(4)))

    def tier(self, ply: int, pool: Executor | None = None) -> PositionArrays:
        """Every stored position of `ply`, in code order: the whole table read, since no
        index leads to a ply's rows."""
        return ply_rows(self.chunks(), ply)

    def damage(self) -> list[Damage]:
        """None to find: rows carry no checks of their own."""
        return []


class UrlStore(CheckedStore):
    """A database named by a SQLAlchemy URL (or a file db.sqlite_direct does not read), opened
    read-only through db.engine."""

    def __init__(self, engine: Engine, name: str, version: int) -> None:
        self._engine = engine
        self.name = name
        self._version = version

    @classmethod
    def open(cls, target: str) -> UrlStore:
        """`target` opened read-only; DatabaseError naming it when it cannot be."""
        engine = open_engine(target, writable=False)
        name = describe(target)
        try:
            return cls(engine, name, check_schema(engine, name))
        except SQLAlchemyError as e:
            engine.dispose()
            raise open_error(name, e) from e

    def games(self, spec: str | None = None) -> list[GameRecord]:
        """Every table (of `spec`, if given), complete or not, by spec and root."""
        return list_games(self._engine, spec, self._version)

    def plies(self, game: GameRecord) -> list[PlyCounts]:
        """The per-ply counts of a complete table."""
        return read_plies(self._engine, game)

    def _blocks(self, game: GameRecord) -> UrlBlocks:
        return UrlBlocks(self._engine, game)

    def _rows(self, game: GameRecord, codes: TableCodes) -> UrlReader:
        return UrlReader(self._engine, game, codes)

    def _run(self, game: GameRecord) -> tuple[Run, str, str, KeyedSource]:
        table = _UrlTable(self._engine, game)
        conn = table._conn

        def run(sql: str, params: Sequence[object]) -> list[tuple[object, ...]]:
            try:
                return [tuple(row) for row in conn.exec_driver_sql(sql, tuple(params)).all()]
            except (SQLAlchemyError, UnicodeDecodeError) as e:
                raise _wrap(f"positions of {game.label}", e) from e
        mark = "?" if self._engine.dialect.paramstyle == "qmark" else "%s"
        return run, '"' + table.table.replace('"', '""') + '"', mark, table

    def integrity(self, thorough: bool = False) -> list[str]:
        """A SQLite file's quick_check (integrity_check with `thorough`), one line per problem;
        nothing to check on a server, which keeps its own files."""
        if self._engine.dialect.name != "sqlite":
            return []
        pragma = "integrity_check" if thorough else "quick_check"
        try:
            with self._engine.connect() as conn:
                lines = [str(row[0]) for row in conn.exec_driver_sql(f"PRAGMA {pragma}")]
        except (SQLAlchemyError, UnicodeDecodeError) as e:
            return [error_reason(e)]
        return [] if lines == ["ok"] else lines

    def close(self) -> None:
        """Dispose of the engine."""
        self._engine.dispose()
