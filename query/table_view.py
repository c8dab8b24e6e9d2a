"""One complete table read in bulk: its positions as arrays in code order, answers for many
codes at once, the boards of codes and the codes of positions. `Tablebase.table(spec, root)`
gives one; the position questions (probe, moves, line) stay with the Tablebase.

A table's codes are its stored ones: a whole-board table's are base 3 over every cell, an
endgame table's base 3 over its root's empty cells in cell order (builder/games/grid/root.py draws
it). Values are for the side to move.

    >>> from tablebase import build, open_tablebase
    >>> report = build("3x3k3", "tablebase.db")
    >>> with open_tablebase("tablebase.db") as tb:
    ...     table = tb.table("3x3k3")
    ...     print(table.count, table.probe_many([0, 100]).depth)
    765 [9 6]
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from tablebase.builder.games.grid import Spec
from tablebase.builder.games.registry import grid_game
from tablebase.db.facts import CHUNK
from tablebase.db.records import Damage, GameRecord, PositionArrays
from tablebase.query.answer_records import ManyProbes, Position
from tablebase.query.misses import missing_codes_error
from tablebase.query.tables import LOAD_LIMIT, OpenTables, StoredTable

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from tablebase.builder.games.grid.root import Root


class TableView:
    """One complete table of a game, read in bulk: the whole-board table, or the endgame table
    rooted at `root` (cell values as given, any orientation). Use `Tablebase.table`.

    The view names its table by its root, so it follows a table that a concurrent
    `build --force` swaps in, as the Tablebase does.
    """

    def __init__(self, tables: OpenTables, spec: Spec, root: tuple[int, ...] | None) -> None:
        self._tables = tables
        self.spec = spec
        self.root = root
        self._chosen()  # a table the database lacks raises here: MissingTableError

    def _chosen(self) -> StoredTable:
        return self._tables.named(self.spec, self.root)

    @property
    def record(self) -> GameRecord:
        """The table's catalogue record."""
        return self._chosen().record

    @property
    def count(self) -> int:
        """How many positions the table holds (one per symmetry orbit)."""
        return self._chosen().reader.count

    @property
    def table_root(self) -> Root:
        """The root of the table the view reads (what its codes are over)."""
        return self._chosen().root

    def load(self) -> PositionArrays:
        """Every stored (canonical) position of the table, whole and in code order: loaded on
        the first call and kept."""
        return self._tables.loaded(self.spec, self.root)

    def positions(self, batch: int = CHUNK) -> Iterator[PositionArrays]:
        """Every stored (canonical) position in code order, `batch` at a time, as arrays."""
        self._tables.read(self.spec, self._chosen)  # follow a swapped table first
        reader = self._chosen().reader
        with reader.snapshot():
            yield from reader.chunks(batch)

    @property
    def by_ply(self) -> bool:
        """Whether `tiers` reads each ply alone (a packed table), not the whole table (rows)."""
        return self._chosen().reader.by_ply

    def tiers(self, plies: Iterable[int], pool: Executor | None = None
              ) -> Iterator[PositionArrays]:
        """The stored positions of each ply of `plies` in turn, each ply whole and in code
        order, all in one snapshot (blocks decoded on `pool`'s threads if given)."""
        self._tables.read(self.spec, self._chosen)  # follow a swapped table first
        reader = self._chosen().reader
        with reader.snapshot():
            for ply in plies:
                yield reader.tier(ply, pool)

    def get_many(self, codes: np.ndarray | Sequence[int]) -> ManyProbes:
        """Answers for many codes (any orientation) at once; `found` marks those the table
        holds. The first call loads the whole table into memory, up to LOAD_LIMIT positions;
        past it, each code's block is read."""
        chosen = self._chosen()
        asked = chosen.checked_codes(codes)
        if chosen.reader.count > LOAD_LIMIT and not self._tables.is_loaded(self.spec, chosen):
            value, depth, ply, found = chosen.read_many(chosen.canonical_many(asked))
            if not grid_game(self.spec).draws_have_depth:  # a draw by endless play
                depth[found & (value == 0)] = -1
            return ManyProbes(value, depth, ply, found)
        table = self.load()
        n = len(asked)
        value = np.zeros(n, dtype=np.int8)
        depth = np.full(n, -1, dtype=np.int8)
        ply = np.full(n, -1, dtype=np.int16)
        if n == 0 or len(table.codes) == 0:
            return ManyProbes(value, depth, ply, np.zeros(n, dtype=bool))
        wanted = chosen.canonical_many(asked)
        # Binary search for the queries in sorted order: random order misses the cache on
        # every step and costs several times the sort.
        order = np.argsort(wanted, kind="stable")
        index = np.empty(n, dtype=np.int64)
        index[order] = np.searchsorted(table.codes, wanted[order])
        np.minimum(index, len(table.codes) - 1, out=index)
        found = table.codes[index] == wanted
        hit = index[found]
        value[found], depth[found] = table.value[hit], table.depth[hit]
        ply[found] = chosen.on_board(table.codes[hit])
        if not grid_game(self.spec).draws_have_depth:  # a draw by endless play
            depth[found & (value == 0)] = -1
        return ManyProbes(value, depth, ply, found)

    def probe_many(self, codes: np.ndarray | Sequence[int]) -> ManyProbes:
        """Like `get_many`, but raises MissingPositionError if the table lacks any of the codes
        because the rules do not reach them from its root, DamagedTableError if they do."""
        answers = self.get_many(codes)
        if not answers.found.all():
            missing = np.asarray(codes, dtype=np.int64)[~answers.found]
            raise missing_codes_error(self._chosen(), missing, len(answers.found),
                                      self._tables.store.name)
        return answers

    def boards(self, codes: np.ndarray | Sequence[int]) -> np.ndarray:
        """The full boards of the table's codes, as an (N, cells) int8 array."""
        return self._chosen().boards(np.asarray(codes, dtype=np.int64))

    def positions_of(self, codes: np.ndarray | Sequence[int]) -> list[tuple[int, ...]]:
        """The positions of the table's codes as the answers hold them (cell values, then the
        side to move where stones move)."""
        return self._chosen().root.positions_of(np.asarray(codes, dtype=np.int64))

    def stored_codes(self, positions: Sequence[Position]) -> np.ndarray:
        """The stored code of each position (any orientation), or -1 where the table does not
        hold it; a position that cannot be read raises as in `Tablebase.probe`."""
        chosen, codes = self._chosen(), self.load().codes
        game = grid_game(self.spec)
        return np.array([chosen.stored_code(game, game.read(p).board, codes)
                         for p in positions], dtype=np.int64)

    def damage(self) -> list[Damage]:
        """Every damaged part of the table, found by reading it whole: blocks that fail their
        checks, blocks missing; empty for an intact table."""
        self._tables.read(self.spec, self._chosen)  # follow a swapped table first
        return self._chosen().reader.damage()
