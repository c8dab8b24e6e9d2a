"""Writing a table of the keyed layout (db/keyed.py): rows in key order, each with its check,
into the table `writer.begin_build` made; `writer.finish_build` publishes it as any other."""
from __future__ import annotations

import numpy as np
from sqlalchemy import Connection, Engine

from tablebase.db.keyed import KeyedRows, row_checks
from tablebase.db.writer import BuildHandle, write_with


def write_keyed(engine: Engine, handle: BuildHandle, rows: KeyedRows, digests: np.ndarray) -> None:
    """Append positions (ascending keys, after every key written before; `digests`:
    db.keyed.key_digests of their keys) in one transaction, each with its row check."""
    checks = row_checks(digests, rows.ply, rows.value, rows.depth)
    # Python ints and strs: sqlite3 stores numpy integers as BLOBs.
    data = list(zip(rows.keys, rows.ply.tolist(), rows.value.tolist(), rows.depth.tolist(),
                    checks.tolist()))

    def write(conn: Connection) -> None:
        mark = "?" if conn.dialect.name == "sqlite" else "%s"
        conn.exec_driver_sql(f'INSERT INTO "{handle.table_name}" (key, ply, value, depth, chk)'
                             f" VALUES ({', '.join([mark] * 5)})", data)
    write_with(engine, handle, write)
    handle.rows += len(data)
