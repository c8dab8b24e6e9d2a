"""What every store is: the read interface (`Store`, the catalogue of one database, and
`TableReader`, one complete table: values and depths for codes, chunks in code order) and
`CheckedStore`, the base both backends build on (db/sqlite_direct.py, db/reader.py). Nothing
above db/ knows how a table is laid out; db/store.py opens the right backend.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

import numpy as np

from tablebase.db.errors import DatabaseError
from tablebase.db.facts import (
    CHUNK,
    GAME_LAYOUTS,
    LAYOUT_PACKED,
    TIERED_LAYOUTS,
)
from tablebase.db.packed import BlockSource, PackedReader
from tablebase.db.records import Damage, GameRecord, Lookup, PlyCounts, PositionArrays, TableCodes

if TYPE_CHECKING:  # a game class's tables: imported when one is read (zstd, numpy's parts)
    from tablebase.db.keyed import KeyedReader, KeyedSource, Run


class TableReader(Protocol):
    """One complete stored table, read through the connection its store holds.

    `table` names the stored table (a forced rebuild replaces it with another name); `count`
    is how many positions it holds, one per symmetry orbit; `by_ply` says whether `tier`
    reads its ply alone (a packed table) or the whole table (rows).
    """

    table: str
    count: int
    by_ply: bool

    def snapshot(self) -> AbstractContextManager[None]:
        """Read inside one transaction: every read sees the same moment."""
        ...

    def lookup(self, codes: Sequence[int] | np.ndarray) -> Lookup:
        """Value (for the side to move) and depth of each canonical code, in the order asked."""
        ...

    def chunks(self, batch: int = CHUNK) -> Iterator[PositionArrays]:
        """Every stored position in code order, `batch` at a time."""
        ...

    def load(self) -> PositionArrays:
        """The whole table at once, in code order."""
        ...

    def tier(self, ply: int, pool: Executor | None = None) -> PositionArrays:
        """Every stored position of `ply`, whole and in code order. A packed table reads that
        ply's blocks alone (decoded on `pool`'s threads if given); a table of rows, which has
        no index on ply, reads every row (`by_ply` says which)."""
        ...

    def damage(self) -> list[Damage]:
        """Every damaged part of the table found by reading it whole (blocks that fail their
        checks, blocks missing); a table of rows has no checks of its own, so none."""
        ...

    def close(self) -> None:
        """Release what the reader holds (its store stays open)."""
        ...


class Store(Protocol):
    """The tables of one database, opened read-only."""

    name: str  # the database as messages name it (a path, or a URL without its password)

    def games(self, spec: str | None = None) -> list[GameRecord]:
        """Every table (of `spec`, if given), complete or not: by spec, the whole-board table
        before the endgame tables, those by root."""
        ...

    def plies(self, game: GameRecord) -> list[PlyCounts]:
        """The per-ply counts of a complete table."""
        ...

    def check(self, game: GameRecord) -> list[PlyCounts]:
        """The per-ply counts of a complete table, its catalogue row checked against its digest
        first (a damaged row can say anything): DamagedTableError if it fails."""
        ...

    def reader(self, game: GameRecord, codes: TableCodes) -> TableReader:
        """A reader of a complete table (`codes`: what its codes are, as its game says)."""
        ...

    def keyed(self, game: GameRecord) -> KeyedReader:
        """A reader of a complete table of the keyed layout (db/keyed.py)."""
        ...

    def integrity(self, thorough: bool = False) -> list[str]:
        """The database's own check of its file, one line per problem (SQLite's quick_check,
        or with `thorough` its integrity_check; nothing to check on a server)."""
        ...

    def close(self) -> None:
        """Close the database."""
        ...


class CheckedStore:
    """What both stores share (db/sqlite_direct.py, db/reader.py): a table's catalogue row is
    checked before it is used, and its reader is the one of its layout. A store supplies `name`,
    `_version` (its schema version), `plies`, and the blocks or rows of a table."""

    name: str
    _version: int

    def plies(self, game: GameRecord) -> list[PlyCounts]:
        """The per-ply counts of a complete table."""
        raise NotImplementedError

    def _blocks(self, game: GameRecord) -> BlockSource:
        raise NotImplementedError

    def _rows(self, game: GameRecord, codes: TableCodes) -> TableReader:
        raise NotImplementedError

    def _run(self, game: GameRecord) -> tuple[Run, str, str, KeyedSource]:
        """A function that runs one statement on `game`'s table, the table's quoted name, the
        driver's parameter mark, and the table's source (its snapshots; releasing the
        connection it runs on)."""
        raise NotImplementedError

    def check(self, game: GameRecord) -> list[PlyCounts]:
        """The per-ply counts of a complete table, its catalogue row checked against its digest
        first (a damaged row can say anything): DamagedTableError if it fails."""
        counts = self.plies(game)
        game.check_row(counts, self._version, self.name)
        game.check_complete()
        return counts

    def reader(self, game: GameRecord, codes: TableCodes) -> TableReader:
        """A reader of a complete table, in its layout; `codes`: what its codes are, as the
        game that made them says."""
        counts = self.check(game)
        if game.layout == LAYOUT_PACKED:
            return PackedReader(self._blocks(game), game, {p.ply: p.canonical for p in counts},
                                codes)
        if game.layout in GAME_LAYOUTS:
            raise DatabaseError(f"{game.label} is a table of positions by their text: read it"
                                " with `keyed`")
        return self._rows(game, codes)

    def keyed(self, game: GameRecord) -> KeyedReader:
        """A reader of a complete table of a game given as a class: of the keyed layout
        (db/keyed.py), or a TieredReader of the tiered one (db/tiered.py)."""
        self.check(game)
        if game.layout not in GAME_LAYOUTS:
            raise DatabaseError(f"{game.label} is stored {game.layout}, not by its positions' text")
        from tablebase.db.keyed import KeyedReader

        run, quoted, mark, source = self._run(game)
        reader: type[KeyedReader] = KeyedReader
        if game.layout in TIERED_LAYOUTS:
            from tablebase.db.tiered import tiered_reader
            reader = tiered_reader(game.layout)
        return reader(run, quoted, game.label, int(game.canonical or 0), mark, source)
