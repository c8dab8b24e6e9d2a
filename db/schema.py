"""The tables: one row per table of a game (the whole board, and any number of endgame tables,
each named by its root), its counts per ply, and one positions table per build, in one of two
layouts: packed (the default: one row per block of positions, db/blocks.py) or rows (one row
per position, for reading in SQL).

Each build writes a fresh positions table; the game row points at it only once it
is complete, so a reader sees either the previous complete table or none at all.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from tablebase.db.facts import LAYOUT_ROWS, POSITIONS_PREFIX

metadata = MetaData()

meta = Table(
    "tablebase_meta", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

games = Table(
    "games", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("spec", String(64), nullable=False),
    # The root position, one digit per cell (0 empty, 1 x, 2 o, row-major); '' for the empty
    # board, i.e. the whole-board table. Rules live in builder/: here it is just a string.
    Column("root", Text, nullable=False, server_default=""),
    Column("width", Integer, nullable=False),
    Column("height", Integer, nullable=False),
    Column("k", Integer, nullable=False),
    Column("gravity", Boolean, nullable=False),
    Column("misere", Boolean, nullable=False),
    Column("status", String(16), nullable=False),
    Column("positions_table", String(64)),
    # Positions counted with all their symmetric images, then one per orbit.
    Column("reachable", BigInteger),
    Column("canonical", BigInteger),
    Column("terminal", BigInteger),
    Column("terminal_canonical", BigInteger),
    # Canonical positions by value for the side to move.
    Column("wins", BigInteger),
    Column("draws", BigInteger),
    Column("losses", BigInteger),
    Column("root_value", SmallInteger),
    Column("root_depth", SmallInteger),
    Column("schema_version", Integer, nullable=False),
    Column("tool_version", String(32), nullable=False),
    Column("built_at", String(32)),
    Column("build_seconds", Float),
    Column("stages", Text),  # JSON: seconds and peak bytes per stage
    Column("checksum", String(32)),
    # Added by schema version 3 (a version-2 database has neither: its tables are rows).
    Column("layout", String(16), nullable=False, server_default=LAYOUT_ROWS),
    Column("stored_bytes", BigInteger),  # the positions table's size on disk, as built
    # A digest of what answers depend on (db/records.py, GameRecord.row_digest): a damaged
    # catalogue row is an error, never a wrong depth or a missing ply.
    Column("row_check", String(16)),
    UniqueConstraint("spec", "root", name="games_spec_root"),
)

game_plies = Table(
    "game_plies", metadata,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("ply", Integer, primary_key=True, autoincrement=False),
    Column("reachable", BigInteger, nullable=False),
    Column("canonical", BigInteger, nullable=False),
    Column("terminal", BigInteger, nullable=False),
    Column("wins", BigInteger, nullable=False),
    Column("draws", BigInteger, nullable=False),
    Column("losses", BigInteger, nullable=False),
)

# In SQLite only a column declared exactly INTEGER PRIMARY KEY becomes the rowid,
# which makes the code the B-tree key itself: no second index, smallest rows.
_CODE_TYPE = BigInteger().with_variant(Integer(), "sqlite")


def positions_table_name(game_id: int, build_id: str) -> str:
    """The name of one build's positions table."""
    return f"{POSITIONS_PREFIX}{game_id}_{build_id}"


def blocks_table(name: str) -> Table:
    """The blocks table `name` of a packed table: first code (the key), ply, count, BLOB, and
    an index by ply and first code, which finds the one block of a ply that can hold a code."""
    return Table(
        name, MetaData(),
        Column("first_code", _CODE_TYPE, primary_key=True, autoincrement=False),
        Column("ply", SmallInteger, nullable=False),
        Column("count", Integer, nullable=False),
        Column("data", LargeBinary, nullable=False),
        Index(f"{name}_by_ply", "ply", "first_code"),
    )


def keyed_table(name: str) -> Table:
    """The blocks table `name` of the keyed layout (db/keyed.py): each block's first key, its
    count of positions, its data and its check; on SQLite without a rowid, so the key is the
    B-tree's."""
    return Table(
        name, MetaData(),
        # Ordered by code points, as Python orders strs (PostgreSQL's default collation is the
        # locale's; SQLite compares UTF-8 bytes, the same order).
        Column("first_key", Text().with_variant(Text(collation="C"), "postgresql"),
               primary_key=True),
        *_block_columns(),
        sqlite_with_rowid=False,
    )


def _block_columns() -> list[Column[Any]]:
    """What a block of a game class's table holds beside its key: its count of positions, its
    data and its check."""
    return [Column("count", Integer, nullable=False),
            Column("data", LargeBinary, nullable=False),
            Column("chk", BigInteger, nullable=False)]


def tiered_table(name: str) -> Table:
    """The blocks table `name` of the tiered layout (db/tiered.py): each block's id (its tier's
    number in key order, shifted, plus the block's number in the tier: the rowid on SQLite,
    whose inner pages then hold ids of a few bytes, where rows of a kilobyte or more kept a
    text-keyed tree nine pages deep on nine men's morris, against six), its key (checked on
    every read), its count of positions, its data and its check."""
    return Table(
        name, MetaData(),
        Column("id", _CODE_TYPE, primary_key=True, autoincrement=False),
        Column("first_key", Text, nullable=False),
        *_block_columns(),
    )


def positions_table(name: str, *, keyed: bool = True) -> Table:
    """The positions table `name` of the rows layout: canonical code, ply, value (-1/0/1 for
    the side to move), depth.

    `keyed=False` creates it without its primary key, for a bulk load that builds the key
    once at the end (PostgreSQL, db/postgres.py)."""
    code = (Column("code", _CODE_TYPE, primary_key=True, autoincrement=False) if keyed
            else Column("code", _CODE_TYPE, nullable=False, autoincrement=False))
    return Table(
        name, MetaData(),
        code,
        Column("ply", SmallInteger, nullable=False),
        Column("value", SmallInteger, nullable=False),
        Column("depth", SmallInteger, nullable=False),
    )
