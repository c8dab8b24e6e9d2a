"""Reading stored games and positions back, as plain ints and numpy arrays."""
from __future__ import annotations

from itertools import chain
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Connection, Engine, bindparam, select
from sqlalchemy.exc import SQLAlchemyError

from db.engine import error_reason
from db.errors import DatabaseError, GameNotBuiltError
from db.schema import STATUS_COMPLETE, game_plies, games, positions_table
from db.sqlite_direct import _ROW, PositionArrays
from db.writer import PlyCounts


@dataclass(frozen=True)
class GameRecord:
    """A game row: its parameters, status, counts and build facts."""

    id: int
    spec: str
    root: str
    width: int
    height: int
    k: int
    gravity: bool
    misere: bool
    status: str
    positions_table: str | None
    reachable: int | None
    canonical: int | None
    terminal: int | None
    terminal_canonical: int | None
    wins: int | None
    draws: int | None
    losses: int | None
    root_value: int | None
    root_depth: int | None
    schema_version: int
    tool_version: str
    built_at: str | None
    build_seconds: float | None
    stages: str | None
    checksum: str | None

    @property
    def complete(self) -> bool:
        """Whether the game's table is complete and readable."""
        return self.status == STATUS_COMPLETE and self.positions_table is not None

    @property
    def label(self) -> str:
        """The table in messages: the spec, and 'endgame' with the root's stones if any."""
        if not self.root:
            return self.spec
        return f"{self.spec} endgame ({sum(ch != '0' for ch in self.root)} stones)"


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


def get_game(engine: Engine, spec: str, root: str = "") -> GameRecord | None:
    """The row of the table of `spec` rooted at `root` ('' for the whole board), or None."""
    try:
        with engine.connect() as conn:
            row = conn.execute(select(games).where(games.c.spec == spec,
                                                   games.c.root == root)).first()
    except SQLAlchemyError as e:
        raise _wrap(f"game {spec}", e) from e
    return None if row is None else GameRecord(**row._asdict())


def probe_game(engine: Engine, spec: str, root: str = "") -> GameRecord:
    """The complete row of a table; raise GameNotBuiltError if there is none."""
    game = get_game(engine, spec, root)
    what = spec if not root else f"that endgame table of {spec}"
    if game is None:
        raise GameNotBuiltError(f"{what} has not been built in this database")
    if not game.complete:
        raise GameNotBuiltError(f"{what} has no complete table here (its last build did not finish)")
    return game


def read_plies(engine: Engine, game: GameRecord) -> list[PlyCounts]:
    """The per-ply counts of a complete game."""
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(game_plies).where(game_plies.c.game_id == game.id)
                                .order_by(game_plies.c.ply)).all()
    except SQLAlchemyError as e:
        raise _wrap(f"the ply counts of {game.spec}", e) from e
    return [PlyCounts(r.ply, r.reachable, r.canonical, r.terminal, r.wins, r.draws, r.losses)
            for r in rows]


def iter_positions(engine: Engine, game: GameRecord, batch: int = 1 << 16
                   ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Every stored position in code order, in chunks of arrays (codes, ply, value, depth)."""
    table = positions_table(str(game.positions_table))
    query = (select(table.c.code, table.c.ply, table.c.value, table.c.depth)
             .where(table.c.code > bindparam("after")).order_by(table.c.code).limit(batch))
    after = -1
    try:
        with engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                # SQLAlchemy's rows cost more than the reading itself (verify streams whole
                # tables): on SQLite read the driver's tuples straight into numpy.
                yield from _sqlite_chunks(conn, str(game.positions_table), batch)
                return
            while True:
                rows = conn.execute(query, {"after": after}).all()
                if not rows:
                    return
                # fromiter over the flattened tuples: np.array on Row objects probes each one
                # as a mapping first, which is two orders of magnitude slower.
                data = np.fromiter(chain.from_iterable(rows), dtype=np.int64,
                                   count=4 * len(rows)).reshape(len(rows), 4)
                after = int(data[-1, 0])
                yield (data[:, 0], data[:, 1].astype(np.int16), data[:, 2].astype(np.int8),
                       data[:, 3].astype(np.int8))
    except SQLAlchemyError as e:
        raise _wrap(f"positions of {game.spec}", e) from e


def _sqlite_chunks(conn: Connection, table: str, batch: int
                   ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """iter_positions on the sqlite3 driver connection under `conn`."""
    raw = conn.connection.dbapi_connection
    assert raw is not None
    sql = f'SELECT code, ply, value, depth FROM "{table}" WHERE code > ? ORDER BY code LIMIT ?'
    after = -1
    while True:
        rows = np.fromiter(raw.execute(sql, (after, batch)), dtype=_ROW)
        if len(rows) == 0:
            return
        after = int(rows["code"][-1])
        yield (np.ascontiguousarray(rows["code"]), np.ascontiguousarray(rows["ply"]),
               np.ascontiguousarray(rows["value"]), np.ascontiguousarray(rows["depth"]))


def load_positions(engine: Engine, game: GameRecord) -> PositionArrays:
    """A complete game's whole table as arrays in code order (for answering many codes at once)."""
    chunks = list(iter_positions(engine, game))
    if not chunks:
        empty = np.empty(0, dtype=np.int8)
        return PositionArrays(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int16), empty,
                              empty.copy())
    return PositionArrays(*(np.concatenate([c[i] for c in chunks]) for i in range(4)))


class PositionReader:
    """One complete game's positions through SQLAlchemy, on one open connection, for any dialect.

    Local SQLite files are served faster by db.sqlite_direct; this is the path for URLs.
    """

    def __init__(self, engine: Engine, game: GameRecord) -> None:
        self._engine = engine
        self._game = game
        self.spec = game.spec
        self.table = str(game.positions_table)
        self.canonical = int(game.canonical or 0)
        table = positions_table(str(game.positions_table))
        self._table = table
        self._one = select(table.c.ply, table.c.value, table.c.depth).where(
            table.c.code == bindparam("code"))
        try:
            self._conn = engine.connect()
            if engine.dialect.name == "postgresql":
                # A published table never changes, so one statement sees it whole, and a table
                # dropped by a rebuild fails the statement that reads it (Tablebase then reads
                # the new tables). So autocommit is safe, and it saves a snapshot's BEGIN and
                # ROLLBACK: two round trips of the three a probe would cost.
                self._conn.execution_options(isolation_level="AUTOCOMMIT")
        except SQLAlchemyError as e:
            raise _wrap(f"positions of {game.spec}", e) from e

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
            raise _wrap(f"positions of {self.spec}", e) from e
        try:
            yield
        finally:
            transaction.rollback()

    def fetch(self, code: int) -> tuple[int, int, int] | None:
        """(ply, value, depth) of one canonical code, or None if the table lacks it."""
        try:
            row = self._conn.execute(self._one, {"code": int(code)}).first()
        except SQLAlchemyError as e:
            raise _wrap(f"positions of {self.spec}", e) from e
        return None if row is None else (row.ply, row.value, row.depth)

    def fetch_many(self, codes: Iterable[int]) -> dict[int, tuple[int, int, int]]:
        """code -> (ply, value, depth) for those of `codes` the table holds, in one query."""
        wanted = sorted({int(c) for c in codes})
        if not wanted:
            return {}
        t = self._table
        try:
            rows = self._conn.execute(select(t.c.code, t.c.ply, t.c.value, t.c.depth)
                                      .where(t.c.code.in_(wanted))).all()
        except SQLAlchemyError as e:
            raise _wrap(f"positions of {self.spec}", e) from e
        return {int(r.code): (r.ply, r.value, r.depth) for r in rows}

    def chunks(self, batch: int = 1 << 16) -> Iterator[PositionArrays]:
        """Every stored position in code order, `batch` rows at a time."""
        for chunk in iter_positions(self._engine, self._game, batch):
            yield PositionArrays(*chunk)

    def load(self) -> PositionArrays:
        """The whole table at once, in code order."""
        return load_positions(self._engine, self._game)

    def close(self) -> None:
        """Return the connection to the engine."""
        self._conn.close()
