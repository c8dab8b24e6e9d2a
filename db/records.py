"""The records the storage layer reads and writes, free of any driver: a stored table's
catalogue row (`GameRecord`), its counts per ply (`PlyCounts`) and positions as arrays
(`PositionArrays`). Both read paths (db/sqlite_direct.py, db/reader.py) return these; the
writers (db/writer.py, db/keyed_sqlite.py) take what names a table and what its build found
(`GameParams`, `GameSummary`)."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, NamedTuple

import numpy as np

from tablebase.db.errors import DamagedTableError, DatabaseError, GameNotBuiltError
from tablebase.db.facts import GAME_LAYOUTS, LAYOUT_ROWS, STORED_LAYOUTS

STATUS_BUILDING = "building"
STATUS_COMPLETE = "complete"


def table_label(spec: str, root: str, keyed: bool = False) -> str:
    """A table in messages: the spec, and 'endgame' with the root's stones if any (`root` is the
    stored root key: '' for the whole board, else one digit per cell)."""
    if not root:
        return spec
    if keyed:  # a keyed table's root: a position's text (db/keyed.py)
        return f"{spec} from {root!r}"
    return f"{spec} endgame ({sum(ch != '0' for ch in root)} stones)"


@dataclass(frozen=True)
class GameParams:
    """What names a table: its spec string, the parameters it stands for, and its root ('' for
    the whole board, else one digit per cell)."""

    spec: str
    width: int
    height: int
    k: int
    gravity: bool
    misere: bool
    root: str = ""
    keyed: bool = False  # a game class's table, whose root is a position's text

    @property
    def label(self) -> str:
        """The table in messages (see `table_label`)."""
        return table_label(self.spec, self.root, self.keyed)

    def columns(self) -> dict[str, object]:
        """The catalogue row's columns that name the table (db/schema.py's games)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "keyed"}


@dataclass(frozen=True)
class GameSummary:
    """What a finished build records about its game."""

    reachable: int
    canonical: int
    terminal: int
    terminal_canonical: int
    wins: int
    draws: int
    losses: int
    root_value: int
    root_depth: int
    tool_version: str
    build_seconds: float
    stages: dict[str, dict[str, float]]
    checksum: str


@dataclass(frozen=True)
class GameRecord:
    """A stored table's catalogue row: its game, root key, status, counts and build facts."""

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
    # Schema version 3 (a version-2 database's tables are rows of unmeasured size).
    layout: str = LAYOUT_ROWS
    stored_bytes: int | None = None
    row_check: str | None = None

    @property
    def root_plies(self) -> int | None:
        """The root's depth, or None for a draw by endless play (stored as -1) or none stored."""
        return None if self.root_depth is None or self.root_depth < 0 else self.root_depth

    @property
    def complete(self) -> bool:
        """Whether the table is complete and readable."""
        return self.status == STATUS_COMPLETE and self.positions_table is not None

    @property
    def label(self) -> str:
        """The table in messages (see `table_label`)."""
        return table_label(self.spec, self.root, self.layout in GAME_LAYOUTS)

    @property
    def bits_per_position(self) -> float | None:
        """The positions table's size on disk, in bits a stored position (None: unmeasured)."""
        if not self.stored_bytes or not self.canonical:
            return None
        return 8 * self.stored_bytes / self.canonical

    def row_digest(self, plies: Sequence[PlyCounts]) -> str:
        """A digest of every field of the row but its check (booleans as booleans, whatever
        the driver returns) and of the per-ply counts: what `row_check` holds."""
        facts = [bool(value) if name in ("gravity", "misere") else value
                 for name, value in asdict(self).items() if name != "row_check"]
        facts.append([tuple(asdict(p).values()) for p in plies])
        import hashlib  # here: a reader that never asks starts without it

        return hashlib.blake2b(repr(facts).encode(), digest_size=8).hexdigest()

    def check_row(self, plies: Sequence[PlyCounts], version: int, database: str) -> None:
        """Raise DamagedTableError naming `database` unless the row and its per-ply counts
        match `row_check` (a database of schema `version` 2 has none)."""
        if version >= 3 and self.row_check != self.row_digest(plies):
            raise DamagedTableError(
                f"{database}: the catalogue row of {self.label} is damaged (it does not match"
                " its check); run `tablebase verify`, then rebuild the table with --force",
                "catalogue row does not match its check")

    def check_complete(self) -> None:
        """Raise GameNotBuiltError unless the table is complete (a reader reads only those),
        DatabaseError if its layout is not one this tool reads."""
        if not self.complete:
            raise GameNotBuiltError(f"{self.label} has no complete table here")
        if self.layout not in STORED_LAYOUTS:
            raise DatabaseError(f"{self.label} is stored in a layout this tool does not read"
                                f" ({self.layout!r}); upgrade tablebase")


class TableCodes(NamedTuple):
    """What a table's codes are, as the game that made them says (db knows no rules): every
    code lies in [0, `limit`), `plies` gives the ply each code's position is stored under
    (a packed table keeps a ply's positions together, in blocks, and stores no ply of its own),
    and `possible(value, depth, ply)` whether a row's answer can be a position's at that ply
    (a check of the rows layout, whose rows carry none of their own)."""

    limit: int
    plies: Callable[[Sequence[int]], list[int]]
    possible: Callable[[int, int, int], bool]


@dataclass(frozen=True)
class PlyCounts:
    """Counts for one ply: positions with all images, canonical ones, terminal, and by value.
    A table of ranked tiers keeps a row a tier instead, `ply` its number in the layout's
    order (db/tiered.py's tier_order)."""

    ply: int
    reachable: int
    canonical: int
    terminal: int
    wins: int
    draws: int
    losses: int


class PositionArrays(NamedTuple):
    """Stored positions as equal-length arrays in code order: canonical code, ply (stones on
    the board), value (-1, 0, 1 for the side to move) and depth (plies to the end)."""

    codes: np.ndarray
    ply: np.ndarray
    value: np.ndarray
    depth: np.ndarray


class Damage(NamedTuple):
    """A damaged part of a stored table: the damaged block's first code (or the code where a
    ply's chain of blocks breaks; None: the ply as a whole), its ply, and what is wrong, in a
    few words."""

    code: int | None
    ply: int
    reason: str

    @property
    def where(self) -> str:
        """The damaged part in messages."""
        if self.code is None:
            return f"ply {self.ply}"
        return f"block at code {self.code} of ply {self.ply}"


class Lookup(NamedTuple):
    """Answers for codes, in the order asked: `found` marks the codes the table holds; where it
    is False, `value` is 0 and `depth` -1."""

    found: np.ndarray
    value: np.ndarray
    depth: np.ndarray


def lookup_of(asked: Sequence[int], found: Mapping[int, tuple[int, int]]) -> Lookup:
    """The Lookup of the codes `asked`, from code -> (value, depth) of those a table holds."""
    n = len(asked)
    hit = np.zeros(n, dtype=bool)
    value = np.zeros(n, dtype=np.int8)
    depth = np.full(n, -1, dtype=np.int8)
    for i, code in enumerate(asked):
        row = found.get(code)
        if row is not None:
            hit[i], value[i], depth[i] = True, row[0], row[1]
    return Lookup(hit, value, depth)


def rows_lookup(codes: TableCodes, asked: Sequence[int],
                rows: Sequence[Sequence[Any]], where: str) -> Lookup:
    """The Lookup of the codes `asked` from the rows (code, ply, value, depth) a table of the
    rows layout returned for them, each checked first: rows carry no checks of their own, and
    a page damaged where SQLite cannot tell still yields rows. A row's code must be one of the
    table's and its ply and answer ones `codes` says are possible; DamagedTableError naming
    `where` for one that is not."""
    found: dict[int, tuple[int, int]] = {}
    for row in rows:
        if len(row) != 4 or not all(type(v) is int for v in row) \
                or not 0 <= row[0] < codes.limit:  # SQLite keeps any type
            raise _bad_row(where, row)
    # Row by row in plain Python: numpy's overhead on a few rows would cost more than the probe.
    for row, stored in zip(rows, codes.plies([row[0] for row in rows])):
        code, ply, value, depth = row
        if ply != stored or not codes.possible(value, depth, ply):
            raise _bad_row(where, row)
        found[code] = (value, depth)
    return lookup_of(asked, found)


def _bad_row(where: str, row: Sequence[object]) -> DamagedTableError:
    names = ("code", "ply", "value", "depth")
    shown = ", ".join(f"{name} {v!r:.20}" for name, v in zip(names, row))
    return DamagedTableError(f"{where} is damaged: a row ({shown}) holds what no position of the"
                             " table can; run `tablebase verify`", "a row no position can hold")


def empty_positions() -> PositionArrays:
    """A table with no positions."""
    return PositionArrays(np.empty(0, np.int64), np.empty(0, np.int16), np.empty(0, np.int8),
                          np.empty(0, np.int8))


def ply_rows(chunks: Iterable[PositionArrays], ply: int) -> PositionArrays:
    """The rows of `ply` among chunks in code order, joined: a table of rows, which has no
    index on ply, read whole for one ply."""
    parts = [PositionArrays(*(a[c.ply == ply] for a in c)) for c in chunks]
    if not parts:
        return empty_positions()
    return PositionArrays(*(np.concatenate([p[i] for p in parts]) for i in range(4)))
