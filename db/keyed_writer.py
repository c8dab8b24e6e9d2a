"""Writing a table of the keyed layout (db/keyed.py): blocks in key order into the table
`writer.begin_build` made; `writer.finish_build` publishes it as any other."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import Connection, Engine

from tablebase.db.keyed import KeyedRows, pack
from tablebase.db.writer import PACK_THREADS, BuildHandle, write_with


def write_keyed(engine: Engine, handle: BuildHandle, rows: KeyedRows, digest: Any) -> None:
    """Append positions (ascending keys, after every key written before) as blocks, in one
    transaction, compressed on the build's packing threads; `digest` (a hashlib object) takes
    each block's raw bytes, in order: the table's checksum."""
    if handle.pool is None:
        handle.pool = ThreadPoolExecutor(PACK_THREADS)
    blocks = pack(rows, handle.pool)
    for _, raw in blocks:
        digest.update(raw)
    # Python ints, strs and bytes: what every driver binds as is.
    data = [(b.first_key, b.size, b.data, b.check) for b, _ in blocks]

    def write(conn: Connection) -> None:
        mark = "?" if conn.dialect.name == "sqlite" else "%s"
        conn.exec_driver_sql(f'INSERT INTO "{handle.table_name}" (first_key, count, data, chk)'
                             f" VALUES ({', '.join([mark] * 4)})", data)
    write_with(engine, handle, write)
    handle.rows += len(rows.keys)
