"""Writing one game's table: begin a build, stream positions into a fresh table (packed into
blocks, db/blocks.py, or one row each), then swap it in atomically. An unfinished build never
leaves a game that reads as complete."""
from __future__ import annotations

import json
import secrets
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np
from sqlalchemy import Connection, Engine, create_engine, delete, func, insert, inspect, select, update
from sqlalchemy.exc import SQLAlchemyError

from tablebase.db.blocks import BlockRow, pack_tier
from tablebase.db.engine import error_reason
from tablebase.db.errors import DatabaseError, GameExistsError
from tablebase.db.facts import (
    GAME_LAYOUTS,
    LAYOUT_PACKED,
    LAYOUT_ROWS,
    PACK_THREADS,
    POSITIONS_PREFIX,
    SCHEMA_VERSION,
    STORED_LAYOUTS,
    TIERED_ID_LAYOUTS,
)
from tablebase.db.postgres import (
    add_primary_key,
    copy_blocks,
    copy_positions,
    store_blobs_as_is,
    uses_copy,
)
from tablebase.db.ranking import free_map
from tablebase.db.records import (
    STATUS_BUILDING,
    STATUS_COMPLETE,
    GameParams,
    GameRecord,
    GameSummary,
    PlyCounts,
    PositionArrays,
)
from tablebase.db.schema import (
    blocks_table,
    game_plies,
    games,
    keyed_table,
    positions_table,
    positions_table_name,
    tiered_table,
)


@dataclass
class BuildHandle:
    """A build under way: the game row it belongs to, the table it writes in which layout and
    what it holds so far: rows, the positions written (`last_code`: the largest committed);
    packed, the positions of each ply written, and the threads that pack them."""

    game_id: int
    table_name: str
    params: GameParams
    layout: str
    code_limit: int
    rows: int = 0
    last_code: int | None = None
    tiers: dict[int, int] = field(default_factory=dict)
    pool: ThreadPoolExecutor | None = None
    supports: tuple[int, ...] | None = None

    @property
    def written(self) -> int:
        """Positions in the table so far."""
        return sum(self.tiers.values()) if self.layout == LAYOUT_PACKED else self.rows

    def close(self) -> None:
        """Stop the packing threads."""
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None


def begin_build(engine: Engine, params: GameParams, *, force: bool, layout: str = LAYOUT_PACKED,
                coded_cells: int = 0, resume_table: str | None = None,
                supports: tuple[int, ...] | None = None) -> BuildHandle:
    """Create an empty positions table in `layout` for a new build of `params.spec`, or reopen
    `resume_table` (the table of an interrupted build) if it is still there. `coded_cells`:
    the cells a code covers (the root's empty cells), which bound the table's codes;
    `supports`: which digit of a code each digit's stone needs (db/ranking.py; the caller
    knows the rules, gravity's stone under a stone), by which packed blocks rank their codes:
    every digit free if not given."""
    if layout not in STORED_LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}: use {' or '.join(STORED_LAYOUTS)}")
    try:
        with engine.begin() as conn:
            row = conn.execute(select(games.c.id, games.c.status, games.c.positions_table)
                               .where(games.c.spec == params.spec, games.c.root == params.root)
                               ).first()
            if row is not None and row.status == STATUS_COMPLETE and not force:
                raise GameExistsError(
                    f"{params.label} is already built; add --force to rebuild it")
            if row is None:
                game_id = conn.execute(insert(games).values(
                    **params.columns(), status=STATUS_BUILDING, schema_version=SCHEMA_VERSION,
                    tool_version="")).inserted_primary_key[0]  # type: ignore[index]
                keep = None
            else:
                game_id, keep = row.id, row.positions_table
            existing = inspect(conn).get_table_names()
            resumed = resume_table if resume_table in existing and resume_table != keep else None
            # Tables of builds that died (killed, crashed) are nobody's: remove them.
            for name in existing:
                if name.startswith(f"{POSITIONS_PREFIX}{game_id}_") and name not in (keep, resumed):
                    conn.exec_driver_sql(f'DROP TABLE "{name}"')
            handle = BuildHandle(game_id, resumed or positions_table_name(
                game_id, secrets.token_hex(4)), params, layout, 3 ** coded_cells,
                supports=supports if supports is not None else free_map(coded_cells))
            if layout == LAYOUT_PACKED:
                handle.pool = ThreadPoolExecutor(PACK_THREADS)
            if resumed is not None:
                _reopen(conn, handle)
            elif layout == LAYOUT_PACKED:
                blocks_table(handle.table_name).create(conn)
                store_blobs_as_is(conn, handle.table_name)
            elif layout in TIERED_ID_LAYOUTS:
                tiered_table(handle.table_name).create(conn)
            elif layout in GAME_LAYOUTS:  # the keyed layout's blocks table (db/keyed.py)
                keyed_table(handle.table_name).create(conn)
            else:
                # A COPY load appends faster to a bare heap; finish_build adds the key.
                positions_table(handle.table_name, keyed=not uses_copy(conn)).create(conn)
            return handle
    except SQLAlchemyError as e:
        raise DatabaseError(f"cannot start the build of {params.label}: {error_reason(e)}") from e


def _reopen(conn: Connection, handle: BuildHandle) -> None:
    """Take up an interrupted build's table where it stopped."""
    if handle.layout == LAYOUT_ROWS:
        table = positions_table(handle.table_name)
        rows, last = conn.execute(select(func.count(), func.max(table.c.code))).one()
        handle.rows, handle.last_code = int(rows), None if last is None else int(last)
    else:
        t = blocks_table(handle.table_name)
        handle.tiers = {int(ply): int(n) for ply, n in
                        conn.execute(select(t.c.ply, func.sum(t.c.count)).group_by(t.c.ply))}


# Rows per INSERT statement on SQLite: 4 bound values a row, within the 999 variables the
# oldest SQLite versions allow. Binding many rows per statement is 2-3x faster than one row
# per executemany step, the write stage's whole cost.
_ROWS_PER_INSERT = 249


def write_tier(engine: Engine, handle: BuildHandle, ply: int, codes: np.ndarray,
               scores: np.ndarray) -> str:
    """Packed: store one ply's positions (ascending codes, their scores from the solver) as
    blocks (`write_blocks`); return the checksum of the ply's positions (db/checksum.py),
    computed as they are packed."""
    cells = handle.params.width * handle.params.height
    rows, checksum = pack_tier(ply, codes, scores, handle.code_limit, cells, handle.pool,
                               supports=handle.supports)
    write_blocks(engine, handle, ply, rows)
    return checksum


def write_blocks(engine: Engine, handle: BuildHandle, ply: int, rows: list[BlockRow]) -> None:
    """Packed: store one ply's block rows (in code order, numbered from 0) in one transaction
    that first removes any blocks of the ply an interrupted run of the build wrote, so that
    writing a ply again is harmless."""
    table = blocks_table(handle.table_name)

    def write(conn: Connection) -> None:
        conn.execute(delete(table).where(table.c.ply == ply))
        if rows:
            conn.execute(insert(table), [{"first_code": r.first, "ply": r.ply, "count": r.count,
                                          "data": r.data} for r in rows])
    write_with(engine, handle, write)
    handle.tiers[ply] = sum(r.count for r in rows)


def blocks_written(handle: BuildHandle, ply: int, positions: int) -> None:
    """Packed: count one ply's blocks as written by others (a cluster's workers, each writing
    its own code range with `BlockTarget.store`)."""
    handle.tiers[ply] = positions


@dataclass(frozen=True)
class BlockTarget:
    """What a cluster's worker needs to pack one code range of a ply into blocks, and to
    write them itself where the database is a server (PostgreSQL: `url` is set); on SQLite
    (`url` None) the rows go back to the client, the file's one writer, which inserts them."""

    table: str
    cells: int
    url: str | None = None
    supports: tuple[int, ...] | None = None

    @classmethod
    def of(cls, engine: Engine, handle: BuildHandle) -> BlockTarget:
        """The target of a packed build: workers write directly where the database is a server."""
        url = (engine.url.render_as_string(hide_password=False)
               if engine.dialect.name == "postgresql" else None)
        return cls(handle.table_name, handle.params.width * handle.params.height, url,
                   handle.supports)

    def store(self, ply: int, first_index: int, codes: np.ndarray, scores: np.ndarray,
              next_code: int, low: int, high: int, pool: ThreadPoolExecutor | None = None
              ) -> tuple[list[BlockRow] | None, str]:
        """Pack one code range [low, high) of `ply` (its positions, the next range's first code
        `next_code`, its blocks numbered from `first_index`; on `pool`'s threads if given);
        write them when the worker writes (replacing what a lost run wrote in the range) and
        return (None, checksum), else (rows, checksum)."""
        rows, checksum = pack_tier(ply, codes, scores, next_code, self.cells, pool, first_index,
                                   self.supports)
        if self.url is None:
            return rows, checksum
        table = blocks_table(self.table)
        engine = _worker_engine(self.url)
        try:
            with engine.begin() as conn:
                conn.execute(delete(table).where(table.c.ply == ply, table.c.first_code >= low,
                                                 table.c.first_code < high))
                copy_blocks(conn, self.table, rows)
        except SQLAlchemyError as e:
            raise DatabaseError(f"cannot write blocks of ply {ply}: {error_reason(e)}") from e
        return None, checksum


_engines: dict[str, Engine] = {}


def _worker_engine(url: str) -> Engine:
    """One engine per database for the life of a worker process (it writes every tier)."""
    if url not in _engines:
        _engines[url] = create_engine(url)
    return _engines[url]


def write_positions(engine: Engine, handle: BuildHandle, chunk: PositionArrays) -> None:
    """Rows: append a chunk of positions (ascending codes, after every code written before)
    in one transaction."""
    codes, ply, value, depth = chunk
    n = len(codes)
    write_with(engine, handle, lambda conn: (
        copy_positions(conn, handle.table_name, codes, ply, value, depth) if uses_copy(conn)
        else _insert(conn, handle.table_name, codes, ply, value, depth)))
    handle.rows += n
    if n:
        handle.last_code = int(codes[-1])


def write_with(engine: Engine, handle: BuildHandle, write) -> None:  # type: ignore[no-untyped-def]
    """Run `write(conn)` in one transaction, its errors named after the build."""
    try:
        with engine.begin() as conn:
            write(conn)
    except SQLAlchemyError as e:
        raise DatabaseError(f"cannot write positions of {handle.params.label}: {error_reason(e)}") from e
    except DatabaseError as e:  # from COPY, which runs on the driver's own cursor
        raise DatabaseError(f"cannot write positions of {handle.params.label}: {e}") from e


def _insert(conn: Connection, table: str, codes: np.ndarray, ply: np.ndarray,
            value: np.ndarray, depth: np.ndarray) -> None:
    """Insert rows with INSERT statements (SQLite, and any database without COPY)."""
    # tolist() makes Python ints: sqlite3 stores a numpy integer as a BLOB that never matches
    # an INTEGER again.
    flat = np.column_stack([np.asarray(codes, np.int64), np.asarray(ply, np.int64),
                            np.asarray(value, np.int64), np.asarray(depth, np.int64)]
                           ).ravel().tolist()
    if conn.dialect.name == "sqlite":
        _insert_sqlite(conn, table, flat)
    else:
        conn.execute(insert(positions_table(table)),
                     [dict(zip(("code", "ply", "value", "depth"), flat[i : i + 4]))
                      for i in range(0, len(flat), 4)])


def _insert_sqlite(conn: Connection, table: str, flat: list[int]) -> None:
    """Insert rows given as one flat list (code, ply, value, depth, code, ...) in big statements."""
    def statement(rows: int) -> str:
        return f'INSERT INTO "{table}" (code, ply, value, depth) VALUES ' + ",".join(
            ["(?, ?, ?, ?)"] * rows)
    step = 4 * _ROWS_PER_INSERT
    whole = len(flat) - len(flat) % step
    if whole:
        conn.exec_driver_sql(statement(_ROWS_PER_INSERT),
                             [tuple(flat[i : i + step]) for i in range(0, whole, step)])
    if whole < len(flat):
        conn.exec_driver_sql(statement((len(flat) - whole) // 4), tuple(flat[whole:]))


def finish_build(engine: Engine, handle: BuildHandle, summary: GameSummary,
                 plies: list[PlyCounts]) -> None:
    """Point the game at the new table and mark it complete, dropping the old table, atomically."""
    handle.close()
    if handle.written != summary.canonical:
        raise DatabaseError(
            f"{handle.params.label}: wrote {handle.written} positions, expected {summary.canonical}")
    try:
        with engine.begin() as conn:
            if uses_copy(conn):
                # In the publishing transaction: a failure leaves the table unpublished.
                add_primary_key(conn, handle.table_name)
            old = conn.execute(select(games.c.positions_table)
                               .where(games.c.id == handle.game_id)).scalar()
            conn.execute(update(games).where(games.c.id == handle.game_id).values(
                status=STATUS_COMPLETE, positions_table=handle.table_name,
                reachable=summary.reachable, canonical=summary.canonical,
                terminal=summary.terminal, terminal_canonical=summary.terminal_canonical,
                wins=summary.wins, draws=summary.draws, losses=summary.losses,
                root_value=summary.root_value, root_depth=summary.root_depth,
                schema_version=SCHEMA_VERSION, tool_version=summary.tool_version,
                built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                build_seconds=summary.build_seconds, stages=json.dumps(summary.stages),
                checksum=summary.checksum, layout=handle.layout,
                stored_bytes=_stored_bytes(conn, handle)))
            conn.execute(delete(game_plies).where(game_plies.c.game_id == handle.game_id))
            if plies:  # (a table of ranked tiers keeps none)
                conn.execute(insert(game_plies), [
                    {"game_id": handle.game_id, "ply": p.ply, "reachable": p.reachable,
                     "canonical": p.canonical, "terminal": p.terminal, "wins": p.wins,
                     "draws": p.draws, "losses": p.losses} for p in plies])
            # The row's check, over the row as stored (read back: the digest sees what a
            # reader will see).
            row = conn.execute(select(games).where(games.c.id == handle.game_id)).one()
            digest = GameRecord(**row._asdict()).row_digest(plies)
            conn.execute(update(games).where(games.c.id == handle.game_id)
                         .values(row_check=digest))
            if old and old != handle.table_name:
                conn.exec_driver_sql(f'DROP TABLE IF EXISTS "{old}"')
    except SQLAlchemyError as e:
        raise DatabaseError(
            f"cannot finish the build of {handle.params.label}: {error_reason(e)}") from e


def _stored_bytes(conn: Connection, handle: BuildHandle) -> int | None:
    """The new table's size on disk: its pages (SQLite's dbstat, PostgreSQL's relation size
    with its index and TOAST), or, packed without dbstat, its blocks' bytes; None if unknown."""
    name = handle.table_name
    try:
        if conn.dialect.name == "postgresql":
            return int(conn.exec_driver_sql("SELECT pg_total_relation_size(%s)",
                                            (name,)).scalar_one())
        if conn.dialect.name == "sqlite":
            with conn.begin_nested():  # dbstat may be missing: a failure must not end the build
                found = conn.exec_driver_sql("SELECT SUM(pgsize) FROM dbstat WHERE name = ?",
                                             (name,)).scalar()
            return None if found is None else int(found)
    except SQLAlchemyError:
        pass
    if handle.layout == LAYOUT_PACKED:
        t = blocks_table(name)
        return int(conn.execute(select(func.sum(func.length(t.c.data)))).scalar() or 0)
    return None


def abandon_build(engine: Engine, handle: BuildHandle) -> None:
    """Drop the unfinished table of a failed build (best effort: a later build also cleans up)."""
    handle.close()
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(f'DROP TABLE IF EXISTS "{handle.table_name}"')
    except SQLAlchemyError:
        pass
