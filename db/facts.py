"""Facts about our databases shared by the SQLAlchemy side (schema, engine) and the plain
sqlite3 reader, which must not import SQLAlchemy (it costs a third of a second)."""
from __future__ import annotations

# 2: games gained `root` (endgame tables); 3: `layout`, `stored_bytes`; 4: packed blocks rank
# their codes (db/blocks.py, "TBP2"), which a reader of schema 3 cannot decode.
SCHEMA_VERSION = 4
# Versions this tool reads: a version-2 database answers as it is (its tables are rows), a
# version-3 one too (its blocks store codes' gaps).
READABLE_VERSIONS = (2, 3, 4)
# The catalogue's columns that schema version 3 added: a version-2 database has none of them.
ADDED_IN_3 = ("layout", "stored_bytes", "row_check")
DEFAULT_DATABASE = "tablebase.db"
# How a table's positions are stored: blocks (db/blocks.py) or one row per position.
LAYOUT_PACKED = "packed"
LAYOUT_ROWS = "rows"
LAYOUTS = (LAYOUT_PACKED, LAYOUT_ROWS)
# A game whose positions are Python values: one row a position under its text (db/keyed.py).
LAYOUT_KEYED = "keyed"
# Such a game solved as ranked tiers: each tier's scores by index (db/tiered.py), blocks of
# 8,192 indices found by an integer id (a rowid: the tree's inner pages hold ids, not rows);
# tables built before, blocks of 4,096 by id or, earlier still, by their text key.
LAYOUT_TIERED_8192 = "tiered-8192"
LAYOUT_TIERED_IDS = "tiered-ids"
LAYOUT_TIERED = "tiered"
TIERED_LAYOUTS = (LAYOUT_TIERED_8192, LAYOUT_TIERED_IDS, LAYOUT_TIERED)
# The tiered layouts whose blocks have ids.
TIERED_ID_LAYOUTS = (LAYOUT_TIERED_8192, LAYOUT_TIERED_IDS)
# The layouts of a game given as a class (its tables' roots are positions' texts).
GAME_LAYOUTS = (LAYOUT_KEYED, *TIERED_LAYOUTS)
# Every layout a table may be stored in.
STORED_LAYOUTS = (*LAYOUTS, *GAME_LAYOUTS)
# How many positions a chunk of `TableReader.chunks` holds unless asked otherwise.
CHUNK = 1 << 16
# Codes bound in one `IN (...)` list by a lookup (SQLite accepts 32,766 parameters).
IN_BATCH = 10_000

# The page size of a new SQLite file (SQLite's default is 4096). A packed block's last page is
# half empty on average: Connect Four 6x4, whole file, 2.36 bits a position with 2048-byte pages,
# 2.23 with 512 (4x4k4: 2.41, 2.17), in the same build time and probe time.
SQLITE_PAGE_SIZE = 512
# SQLite's page cache for a writer, unless the caller sizes it (a build sizes it by its budget).
DEFAULT_CACHE_BYTES = 256 << 20
# A build's positions table is named positions_{game id}_{build id}.
POSITIONS_PREFIX = "positions_"

# Threads that pack a table's blocks (zstd and numpy release the GIL): the machine's two cores.
PACK_THREADS = 2
