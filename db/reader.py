"""The read path for any SQLAlchemy URL (PostgreSQL, or a SQLite file named by URL): a store on
one engine, each table read on a connection of its own."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import chain

import numpy as np
from sqlalchemy import Engine, Select, bindparam, select
from sqlalchemy.exc import SQLAlchemyError

from tablebase.db.engine import describe, error_reason, open_engine
from tablebase.db.errors import DatabaseError
from tablebase.db.records import (GameRecord, Lookup, PlyCounts, PositionArrays, empty_positions,
                                  lookup_of)
from tablebase.db.schema import game_plies, games, positions_table
from tablebase.db.store import CHUNK, IN_BATCH



def _wrap(what: str, e: SQLAlchemyError) -> DatabaseError:
    return DatabaseError(f"cannot read {what}: {error_reason(e)}")


def list_games(engine: Engine, spec: str | None = None) -> list[GameRecord]:
    """Every table the database knows (or those of `spec`), complete or not, by spec, the
    whole-board table before the endgame tables, those by root."""
    query = select(games).order_by(games.c.spec, games.c.root)
    if spec is not None:
        query = query.where(games.c.spec == spec)
    try:
        with engine.connect() as conn:
            rows = conn.execute(query).all()
    except SQLAlchemyError as e:
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


class UrlReader:
    """One complete table through SQLAlchemy, on one open connection, for any dialect."""

    def __init__(self, engine: Engine, game: GameRecord) -> None:
        self._label = game.label
        self.table = str(game.positions_table)
        self.count = int(game.canonical or 0)
        self._table = positions_table(self.table)
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

    def lookup(self, codes: Sequence[int] | np.ndarray) -> Lookup:
        """Value and depth of each canonical code, in the order asked."""
        asked = [int(c) for c in codes]
        wanted = sorted(set(asked))
        t = self._table
        found: dict[int, tuple[int, int]] = {}
        try:
            with self.snapshot():  # no transaction left open behind a read
                for start in range(0, len(wanted), IN_BATCH):
                    rows = self._conn.execute(select(t.c.code, t.c.value, t.c.depth).where(
                        t.c.code.in_(wanted[start:start + IN_BATCH]))).all()
                    found.update((int(r.code), (r.value, r.depth)) for r in rows)
        except SQLAlchemyError as e:
            raise self._fail(e) from e
        return lookup_of(asked, found)

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

    def close(self) -> None:
        """Return the connection to the engine."""
        self._conn.close()


class UrlStore:
    """A database named by a SQLAlchemy URL (or a file db.sqlite_direct does not read), opened
    read-only through db.engine."""

    def __init__(self, engine: Engine, name: str) -> None:
        self._engine = engine
        self.name = name

    @classmethod
    def open(cls, target: str) -> UrlStore:
        """`target` opened read-only; DatabaseError naming it when it cannot be."""
        return cls(open_engine(target, writable=False), describe(target))

    def games(self, spec: str | None = None) -> list[GameRecord]:
        """Every table (of `spec`, if given), complete or not, by spec and root."""
        return list_games(self._engine, spec)

    def plies(self, game: GameRecord) -> list[PlyCounts]:
        """The per-ply counts of a complete table."""
        return read_plies(self._engine, game)

    def reader(self, game: GameRecord) -> UrlReader:
        """A reader of a complete table."""
        game.check_complete()
        return UrlReader(self._engine, game)

    def close(self) -> None:
        """Dispose of the engine."""
        self._engine.dispose()
