"""PostgreSQL specifics of the storage layer: URLs on the psycopg 3 driver, positions bulk
loaded with binary COPY into a table without an index, and the primary key built once, after
the load, in the transaction that publishes the table.

Binary COPY is PostgreSQL's own row format, which numpy writes for a whole chunk at once:

    file   = header, tuple, tuple, ..., trailer (int16 -1)
    header = b"PGCOPY\\n\\xff\\r\\n\\0", flags (int32 0), extension length (int32 0)
    tuple  = field count (int16 4), then per field its length (int32) and its bytes:
             code int64 | ply int16 | value int16 | depth int16     (all big-endian)

so a row is 32 bytes and no Python object is made per row.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from sqlalchemy import Connection, inspect
from sqlalchemy.engine import make_url

from tablebase.db.errors import DatabaseError

# The optional extra that brings the driver (pyproject.toml), named in the error when it is missing.
EXTRA = "postgres"
INSTALL_HINT = f"pip install 'tablebase[{EXTRA}]'"

_HEADER = b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big")
_TRAILER = (-1).to_bytes(2, "big", signed=True)
_TUPLE = np.dtype([("fields", ">i2"),
                   ("code_len", ">i4"), ("code", ">i8"),
                   ("ply_len", ">i4"), ("ply", ">i2"),
                   ("value_len", ">i4"), ("value", ">i2"),
                   ("depth_len", ">i4"), ("depth", ">i2")])
# Sort memory for building the primary key (PostgreSQL's maintenance_work_mem, this build only).
KEY_SORT_MEMORY = "512MB"
# Rows per write to the COPY stream: bounds the bytes held twice (array and buffer) to 8 MiB.
COPY_ROWS = 1 << 18


def is_postgres_url(url: str) -> bool:
    """Whether a SQLAlchemy URL names a PostgreSQL database (any driver)."""
    return url.split("://", 1)[0].split("+", 1)[0] in ("postgresql", "postgres")


def normalise_url(url: str) -> str:
    """`postgresql://` and `postgres://` (no driver named) mean psycopg 3, the driver of our extra;
    a URL naming a driver is kept as it is."""
    scheme, rest = url.split("://", 1)
    if scheme in ("postgresql", "postgres"):
        return "postgresql+psycopg://" + rest
    return url


def missing_driver(url: str, error: ImportError) -> str | None:
    """The message for a PostgreSQL URL whose driver is not installed, or None for other URLs."""
    if not is_postgres_url(url):
        return None
    driver = make_url(url).get_driver_name()
    if driver == "psycopg":
        return f"PostgreSQL needs the psycopg driver, which is not installed: {INSTALL_HINT}"
    return f"the {driver} driver is not installed ({error}); {INSTALL_HINT} brings psycopg 3"


def uses_copy(conn: Connection) -> bool:
    """Whether positions on this connection load by binary COPY (PostgreSQL on psycopg 3)."""
    return conn.dialect.name == "postgresql" and conn.dialect.driver == "psycopg"


def copy_rows(codes: np.ndarray, ply: np.ndarray, value: np.ndarray, depth: np.ndarray) -> bytes:
    """Rows (equal-length arrays) as tuples of PostgreSQL's binary COPY format, without header."""
    rows = np.empty(len(codes), dtype=_TUPLE)
    rows["fields"] = 4
    rows["code_len"], rows["ply_len"], rows["value_len"], rows["depth_len"] = 8, 2, 2, 2
    rows["code"] = codes
    rows["ply"] = ply
    rows["value"] = value
    rows["depth"] = depth
    return rows.tobytes()


def copy_positions(conn: Connection, table: str, codes: np.ndarray, ply: np.ndarray,
                   value: np.ndarray, depth: np.ndarray) -> None:
    """Append rows to `table` with one binary COPY inside the connection's transaction: the
    rows are committed together with the transaction or not at all."""
    import psycopg  # loaded already: the connection is a psycopg one

    raw = conn.connection.dbapi_connection
    quoted = '"' + table.replace('"', '""') + '"'
    try:
        with raw.cursor() as cursor:  # type: ignore[union-attr]
            with cursor.copy(f"COPY {quoted} (code, ply, value, depth) FROM STDIN"
                             " (FORMAT BINARY)") as copy:
                copy.write(_HEADER)
                for start in range(0, len(codes), COPY_ROWS):
                    end = start + COPY_ROWS
                    copy.write(copy_rows(codes[start:end], ply[start:end], value[start:end],
                                         depth[start:end]))
                copy.write(_TRAILER)
    except psycopg.Error as e:
        # SQLAlchemy wraps the errors of its own statements only; this one is the driver's.
        raise DatabaseError(" ".join(str(e).split())[:200]) from e


def copy_blocks(conn: Connection, table: str, rows: list[Any]) -> None:
    """Append block rows (db/blocks.py's BlockRow) to the blocks table `table` with one COPY
    inside the connection's transaction."""
    import psycopg  # loaded already: the connection is a psycopg one

    raw = conn.connection.dbapi_connection
    quoted = '"' + table.replace('"', '""') + '"'
    try:
        with raw.cursor() as cursor:  # type: ignore[union-attr]
            with cursor.copy(f"COPY {quoted} (first_code, ply, count, data) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row((row.first, row.ply, row.count, row.data))
    except psycopg.Error as e:
        raise DatabaseError(" ".join(str(e).split())[:200]) from e


def add_primary_key(conn: Connection, table: str) -> None:
    """Index a loaded positions table by code (once; a duplicate code fails here, before the
    table is published) and gather the planner's statistics, in the caller's transaction."""
    quoted = '"' + table.replace('"', '""') + '"'
    if not inspect(conn).get_pk_constraint(table).get("constrained_columns"):
        # The index is built by one sort of the whole table: the default 64 MB of sort memory
        # spills a large table to disk several times over. LOCAL: this transaction only.
        conn.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{KEY_SORT_MEMORY}'")
        conn.exec_driver_sql(f"ALTER TABLE {quoted} ADD PRIMARY KEY (code)")
    conn.exec_driver_sql(f"ANALYZE {quoted}")


def store_blobs_as_is(conn: Connection, table: str) -> None:
    """On PostgreSQL, keep a blocks table's BLOBs out of TOAST's own compression: they are
    compressed already, so trying again only costs time. Elsewhere nothing to do."""
    if conn.dialect.name == "postgresql":
        quoted = '"' + table.replace('"', '""') + '"'
        conn.exec_driver_sql(f"ALTER TABLE {quoted} ALTER COLUMN data SET STORAGE EXTERNAL")
