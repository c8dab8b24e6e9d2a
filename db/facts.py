"""Facts about our databases shared by db.schema/db.engine (SQLAlchemy) and db.sqlite_direct
(plain sqlite3, which must not import SQLAlchemy: it costs a third of a second)."""
from __future__ import annotations

SCHEMA_VERSION = 2  # 2: games gained `root` (endgame tables)
DEFAULT_DATABASE = "tablebase.db"
