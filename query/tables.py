"""The stored tables of one game, which of them a root or a position names, and the tables of
an open database as its readers keep them (`OpenTables`).

A game may have a whole-board table and any number of endgame tables, each rooted at a
position (builder/games/grid/root.py). A board descends from a root when, in some orientation of
the board's symmetry group, every stone of the root is on it (and then the table holds it
exactly when it can be reached from the root). The whole-board table is asked first.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from tablebase.builder.games.errors import NotationError
from tablebase.builder.games.grid import Spec, digits
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.grid.orders import FOUND, GAVE_UP, order_status
from tablebase.builder.games.grid.root import Root
from tablebase.builder.games.grid.symmetry import permutations, transform
from tablebase.builder.games.registry import grid_game
from tablebase.db.records import GameRecord, PositionArrays, TableCodes
from tablebase.db.store import complete_tables
from tablebase.query.errors import MissingTableError
from tablebase.query.swaps import read_following_swaps

if TYPE_CHECKING:
    from tablebase.builder.games.grid.game import GridGame
    from tablebase.db.store_base import Store, TableReader

# Codes read from the store at once by `read_many`.
READ_BATCH = 1 << 16
# Past this many positions, TableView.get_many reads each code's block (read_many) rather than
# load the whole table, which costs about 12 bytes a position in memory.
LOAD_LIMIT = 1 << 26

T = TypeVar("T")


@dataclass(frozen=True)
class StoredTable:
    """One complete table: its root, its catalogue record and the reader of its positions."""

    root: Root
    record: GameRecord
    reader: TableReader

    @property
    def whole(self) -> bool:
        """Whether this is the whole-board table."""
        return self.root.is_whole

    def orientations(self, board: Sequence[int]) -> Iterator[int]:
        """The board maps under which `board` holds this table's root, one per distinct code."""
        if self.whole:
            yield 0
            return
        seen: set[int] = set()
        for s in range(len(permutations(self.root.spec))):
            image = transform(self.root.spec, board, s) if s else tuple(board)
            if self.root.holds(image):
                code = self.root.code_of(image)
                if code not in seen:
                    seen.add(code)
                    yield s

    def reaches(self, board: Sequence[int]) -> bool | None:
        """Whether the rules reach `board` from this table's root (in an orientation that holds
        the root), so that the table must hold it: None where the move-order search
        (builder/games/grid/orders.py) gave up and nothing else settled it."""
        spec = self.root.spec
        images = [transform(spec, board, s) if s else tuple(board)
                  for s in self.orientations(board)]
        if not images:
            return False
        return verdict(order_status(spec, np.array(images, dtype=np.uint8), self.root.board))

    def stored_code(self, game: GridGame, position: Sequence[int], codes: np.ndarray) -> int:
        """The code of `position` (of `game`) among this table's sorted stored `codes` (in
        whichever orientation holds the root), or -1 when they lack it."""
        for code in (self.root.position_code(game.image(position, s))
                     for s in self.orientations(game.board(position))):
            at = int(np.searchsorted(codes, code))
            if at < len(codes) and codes[at] == code:
                return code
        return -1

    def read_many(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(value, depth, ply, found) of canonical codes, read block by block from the store
        rather than from the table loaded whole: for tables too large to load."""
        codes = np.asarray(codes, dtype=np.int64)
        found = np.zeros(len(codes), dtype=bool)
        value, depth = np.zeros(len(codes), dtype=np.int8), np.full(len(codes), -1, dtype=np.int8)
        for start in range(0, len(codes), READ_BATCH):
            part = self.reader.lookup(codes[start:start + READ_BATCH])
            found[start:start + READ_BATCH] = part.found
            value[start:start + READ_BATCH] = part.value
            depth[start:start + READ_BATCH] = part.depth
        ply = np.where(found, self.on_board(codes), -1).astype(np.int16)
        return value, depth, ply, found

    def on_board(self, codes: np.ndarray) -> np.ndarray:
        """The stones on the board of each of this table's codes (a position's ply)."""
        return self.root.on_board(codes)

    def canonical_many(self, codes: np.ndarray) -> np.ndarray:
        """Canonical codes of many codes of this table (any image under its symmetries)."""
        return self.root.canonical_codes(codes)

    def boards(self, codes: np.ndarray) -> np.ndarray:
        """The full boards of this table's codes: an (N, cells) int8 digit array."""
        if self.whole:
            return digits(np.asarray(codes, dtype=np.int64), self.root.spec.cells)
        return self.root.boards_of(codes)

    @property
    def code_limit(self) -> int:
        """One more than the largest code: 3 ** (coded cells)."""
        return 3 ** self.root.code_digits

    def checked_codes(self, codes: np.ndarray | Sequence[int]) -> np.ndarray:
        """`codes` as int64, or NotationError when they are not integers in this table's range."""
        asked = np.asarray(codes)
        if asked.ndim != 1 or not (asked.size == 0 or np.issubdtype(asked.dtype, np.integer)):
            raise NotationError(
                f"codes must be a one-dimensional array of integers, found shape {asked.shape}"
                f" and dtype {asked.dtype}")
        asked = asked.astype(np.int64, copy=False)
        limit = self.code_limit
        if asked.size and (asked.min() < 0 or asked.max() >= limit):
            bad = int(asked[(asked < 0) | (asked >= limit)][0])
            raise NotationError(
                f"code {bad} is out of range for the {self.root.name} table: codes run from 0"
                f" to {limit - 1}")
        return asked


def verdict(status: np.ndarray) -> bool | None:
    """From order_status of some boards: True where an order of moves was found for any,
    else None where the search gave up on one, else False."""
    if (status == FOUND).any():
        return True
    return None if (status == GAVE_UP).any() else False


def select_table(spec: Spec, tables: Sequence[StoredTable],
                 root: Sequence[int] | None) -> StoredTable:
    """The table whose root is `root` in any orientation (None or the empty board: the
    whole-board table), among a game's complete `tables`; MissingTableError naming what the
    database holds otherwise. The one place that answers "which table does this root name"."""
    if root is None or not any(root[:spec.cells]):
        for table in tables:
            if table.whole:
                return table
        if root is not None:
            raise MissingTableError(f"{spec.name} has no whole-board table here")
        n = len(tables)
        raise MissingTableError(
            f"{spec.name} has no whole-board table here, only {n} endgame"
            f" table{'s' if n != 1 else ''}: pick one by its root", pick_root=True)
    for table in tables:
        if table.root.is_at(root):
            return table
    raise MissingTableError(
        f"no endgame table of {spec.name} is rooted at {board_text(spec, root)!r}"
        " (`tablebase info` lists the tables)", board=tuple(root))


class OpenTables:
    """The complete tables of an open store, by game, as its readers keep them: each game's
    tables are looked up once, a read runs in one snapshot of them and follows a table that a
    concurrent `build --force` swapped in, and a table loaded whole is kept."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._games: dict[Spec, list[StoredTable]] = {}
        self._arrays: dict[tuple[Spec, str], PositionArrays] = {}

    def close(self) -> None:
        """Close every reader and the store."""
        for tables in self._games.values():
            _close(tables)
        self._games.clear()
        self._arrays.clear()
        self.store.close()

    def of(self, spec: Spec) -> list[StoredTable]:
        """The complete tables of `spec`, the whole-board one first; GameNotBuiltError if none."""
        tables = self._games.get(spec)
        if tables is None:
            tables = []
            for g in complete_tables(self.store, spec.name):
                root = grid_game(spec).table_root(g.root)
                # The store checks the catalogue row before it is used.
                codes = TableCodes(3 ** root.code_digits, root.stored_plies, root.answer_possible)
                reader = self.store.reader(g, codes)
                tables.append(StoredTable(root, g, reader))
            self._games[spec] = tables
        return tables

    def named(self, spec: Spec, root: Sequence[int] | None) -> StoredTable:
        """The table `root` names (cell values in any orientation; None: the whole board)."""
        return select_table(spec, self.of(spec), root)

    def read(self, spec: Spec, read: Callable[[], T]) -> T:
        """Run `read` in one snapshot of the game's tables. If a concurrent `build --force`
        swapped in a new table since these were looked up, look again and retry (each retry
        follows another swap): a reader sees the old complete table or the new one, never a
        mixture."""
        return read_following_swaps(lambda: self.of(spec), _readers,
                                    lambda tables: self._swapped(spec, tables),
                                    lambda _tables: read())

    def _swapped(self, spec: Spec, tables: list[StoredTable]) -> bool:
        """Forget the cached tables of `spec`; whether the game now has different ones."""
        self._games.pop(spec, None)
        for key in [k for k in self._arrays if k[0] == spec]:
            del self._arrays[key]
        _close(tables)
        # Raises GameNotBuiltError if the game lost its complete tables meanwhile.
        now = self.of(spec)
        return [t.reader.table for t in now] != [t.reader.table for t in tables]

    def loaded(self, spec: Spec, root: Sequence[int] | None) -> PositionArrays:
        """The table `root` names, whole, in code order: loaded once and kept."""
        key = (spec, self.named(spec, root).root.key)
        arrays = self._arrays.get(key)
        if arrays is None:
            arrays = self.read(spec, lambda: self.named(spec, root).reader.load())
            self._arrays[key] = arrays
        return arrays

    def is_loaded(self, spec: Spec, table: StoredTable) -> bool:
        """Whether `loaded` keeps `table` already."""
        return (spec, table.root.key) in self._arrays


def _readers(tables: list[StoredTable]) -> list[TableReader]:
    return [table.reader for table in tables]


def _close(tables: list[StoredTable]) -> None:
    for table in tables:
        table.reader.close()
