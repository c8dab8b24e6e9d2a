"""Reading a packed table (db/blocks.py) through any store: `PackedReader` answers lookups
from the one block that can hold each code, keeping recently decoded blocks, and streams the
table ply by ply, block by block, checking that the blocks of each ply follow each other with
nothing missing; `chunks` merges the plies back into code order.

A store supplies the SQL as a `BlockSource`: the block of a ply at or before a code, a ply's
first block, and a ply's blocks after a key.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

import numpy as np

from tablebase.db.block_cache import BlockIndex, blocks
from tablebase.db.blocks import Block, BlockRow, positions, unpack_block
from tablebase.db.errors import DamagedTableError, DatabaseError
from tablebase.db.facts import CHUNK
from tablebase.db.records import (
    Damage,
    GameRecord,
    Lookup,
    PositionArrays,
    TableCodes,
    empty_positions,
    lookup_of,
)
from tablebase.db.scores import depth_of, score_answer, value_of

# What a ply's reader does with each block as it is decoded: (block, rows before it).
Fill = Callable[[Block, int], None]
# Blocks fetched by one statement when streaming a ply.
_FETCH = 8
# Blocks decoding on a pool's threads at once while a ply is read: enough to keep every
# thread busy while the reader takes the oldest.
_AHEAD = 16


class BlockSource(Protocol):
    """The rows of one blocks table, read on a store's connection."""

    def block_at(self, ply: int, code: int) -> BlockRow | None:
        """The block of `ply` with the largest key at most `code`, if any."""
        ...

    def first_block(self, ply: int) -> BlockRow | None:
        """The block of `ply` with the smallest key, if any."""
        ...

    def blocks_after(self, ply: int, key: int, limit: int) -> list[BlockRow]:
        """Up to `limit` blocks of `ply` whose keys exceed `key`, in key order."""
        ...

    def snapshot(self) -> AbstractContextManager[None]:
        """Read inside one transaction."""
        ...

    def current(self) -> bool:
        """Whether the catalogue still points at this table (a forced rebuild replaces it)."""
        ...

    def close(self) -> None:
        """Release what the source holds."""
        ...


class PackedReader:
    """One complete table in the packed layout (see TableReader in db/store_base.py).

    `plies` maps each ply of the table to how many positions it holds (the catalogue's
    counts): what a ply's blocks must add up to.
    """

    by_ply = True

    def __init__(self, source: BlockSource, game: GameRecord, plies: Mapping[int, int],
                 codes: TableCodes) -> None:
        self._source = source
        self._label = game.label
        self.table = str(game.positions_table)
        self.count = int(game.canonical or 0)
        self._plies = {p: n for p, n in sorted(plies.items()) if n}
        self._codes = codes
        self._cells = game.width * game.height
        self._cache = BlockIndex()  # its blocks kept in the process's cache (block_cache.py)

    def _where(self) -> str:
        return f"{self._label} (table {self.table})"

    def _damaged(self, what: str) -> DamagedTableError:
        return DamagedTableError(f"{self._where()} is damaged: {what}; run `tablebase verify`"
                                 " on it", what)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Read inside one transaction: every read sees the same moment. Decoded blocks are
        kept only while the table is the catalogue's: once a rebuild has replaced it, this
        raises DatabaseError, as a read of a dropped table would (Tablebase then looks again)."""
        with self._source.snapshot():
            if self._cache.blocks and not self._source.current():
                blocks.clear(self._cache)
                raise DatabaseError(f"{self._where()} was replaced by a rebuild")
            yield

    # --- one block at a time ------------------------------------------------------------

    def _block_for(self, ply: int, code: int) -> Block | None:
        """The block of `ply` whose range holds `code`; None if the code lies before the ply's
        first block, or the table has no such ply."""
        found = blocks.get(self._cache, ply, code)
        if found is not None:
            return found
        if ply not in self._plies:
            return None
        row = self._source.block_at(ply, code)
        if row is None:
            head = self._source.first_block(ply)
            if head is None:
                raise self._damaged(f"the blocks of ply {ply} are missing")
            block = unpack_block(head, self._where)
            if block.index == 0 and block.first > code:
                return None  # before the ply's first code: not a stored position
            raise self._damaged(f"no block of ply {ply} holds code {code} (blocks are missing)")
        block = unpack_block(row, self._where)
        if block.first > code or code >= block.next:
            raise self._damaged(f"no block of ply {ply} holds code {code} (blocks are missing)")
        blocks.keep(self._cache, block)
        return block

    def lookup(self, codes: Sequence[int] | np.ndarray) -> Lookup:
        """Value and depth of each canonical code, in the order asked."""
        asked = [int(c) for c in codes]
        wanted = sorted({c for c in asked if 0 <= c < self._codes.limit})
        found: dict[int, tuple[int, int]] = {}
        for code, ply in zip(wanted, self._codes.plies(wanted)):
            block = self._block_for(ply, code)
            if block is None:
                continue
            i = block.find(code)
            if i >= 0:
                found[code] = score_answer(int(block.scores[i]), self._cells - ply)
        return lookup_of(asked, found)

    # --- the whole table ----------------------------------------------------------------

    def _rows(self, ply: int) -> Iterator[BlockRow]:
        """The stored blocks of `ply`, in key order, `_FETCH` a statement."""
        key = -1
        while True:
            rows = self._source.blocks_after(ply, key, _FETCH)
            if not rows:
                return
            yield from rows
            key = rows[-1].first

    def _decoded(self, ply: int, pool: Executor | None, fill: Fill | None
                 ) -> Iterator[tuple[BlockRow, Block | DamagedTableError]]:
        """The blocks of `ply` in key order, each decoded (and given to `fill`, with the
        rows the catalogue puts before it) or the error its checks raised; on `pool`'s threads
        if given, a few blocks ahead."""
        def decode(row: BlockRow, at: int) -> Block | DamagedTableError:
            try:
                block = unpack_block(row, self._where)
            except DamagedTableError as e:
                return e
            if fill is not None:
                fill(block, at)
            return block
        if pool is None:
            at = 0
            for row in self._rows(ply):
                yield row, decode(row, at)
                at += row.count
            return
        waiting: deque[tuple[BlockRow, Future[Block | DamagedTableError]]] = deque()
        at = 0
        for row in self._rows(ply):
            waiting.append((row, pool.submit(decode, row, at)))
            at += row.count
            if len(waiting) >= _AHEAD:
                row, future = waiting.popleft()
                yield row, future.result()
        while waiting:
            row, future = waiting.popleft()
            yield row, future.result()

    def _walk(self, ply: int, pool: Executor | None = None, fill: Fill | None = None
              ) -> Iterator[Block | Damage]:
        """The blocks of `ply` in order, or the Damage found in a block's place: a block that
        fails its checks, blocks missing between two, a ply that ends early (`pool`, `fill`:
        as `_decoded`)."""
        index, expect, total, damaged = 0, None, 0, False
        for row, block in self._decoded(ply, pool, fill):
            if isinstance(block, DamagedTableError):
                yield Damage(row.first, ply, block.reason)
                # Where the next block starts is unknown.
                index, expect, damaged = index + 1, None, True
                continue
            if expect is not None and block.first != expect:
                yield Damage(expect, ply, f"the blocks up to code {block.first} are missing")
                damaged = True
            elif block.index != index:
                yield Damage(block.first, ply, f"block {block.index} of the ply stands where"
                             f" block {index} belongs")
                damaged = True
            index, expect = block.index + 1, block.next
            total += len(block)
            yield block
        if index == 0:
            yield Damage(None, ply, "the ply has no blocks")
        elif expect is not None and expect != self._codes.limit:
            yield Damage(expect, ply, "the blocks from this code on are missing")
        elif not damaged and total != self._plies[ply]:
            yield Damage(None, ply, f"its blocks hold {total:,} positions, the catalogue says"
                         f" {self._plies[ply]:,}")

    def _ply(self, ply: int) -> Iterator[PositionArrays]:
        """The positions of `ply` block by block; DamagedTableError at the first damage."""
        for item in self._walk(ply):
            if isinstance(item, Damage):
                raise self._damaged(f"{item.where}: {item.reason}")
            yield positions(item, self._cells)

    def tier(self, ply: int, pool: Executor | None = None) -> PositionArrays:
        """Every stored position of `ply`, whole and in code order: that ply's blocks alone,
        decoded on `pool`'s threads if given; DamagedTableError at the first damage."""
        n = self._plies.get(ply, 0)
        codes, value, depth = np.empty(n, np.int64), np.empty(n, np.int8), np.empty(n, np.int8)
        empties = self._cells - ply

        def fill(block: Block, at: int) -> None:
            # On the decoding thread: the copies and the values and depths are most of the
            # work. A block past n or out of place ends the walk in a Damage.
            if at + len(block) <= n:
                codes[at:at + len(block)] = block.codes
                value[at:at + len(block)] = value_of(block.scores)
                depth[at:at + len(block)] = depth_of(block.scores, empties)
        if n:
            with self.snapshot():
                for item in self._walk(ply, pool, fill):
                    if isinstance(item, Damage):
                        raise self._damaged(f"{item.where}: {item.reason}")
        return PositionArrays(codes, np.full(n, ply, np.int16), value, depth)

    def chunks(self, batch: int = CHUNK) -> Iterator[PositionArrays]:
        """Every stored position in code order, about `batch` at a time: the plies' blocks
        merged, each decoded once."""
        with self.snapshot():
            streams = {ply: self._ply(ply) for ply in self._plies}
            held: dict[int, list[PositionArrays]] = {ply: [] for ply in streams}
            while streams or any(held.values()):
                for ply in list(streams):  # hold at least `batch` // plies of every live ply
                    while sum(len(p.codes) for p in held[ply]) < max(1, batch // len(held)):
                        part = next(streams[ply], None)
                        if part is None:
                            del streams[ply]
                            break
                        held[ply].append(part)
                # Everything up to the smallest last code held by a live ply can go: no block
                # still to come holds a smaller code.
                live = [held[p][-1].codes[-1] for p in streams if held[p]]
                cut = min(live) if live else None
                parts = []
                for ply, waiting in held.items():
                    if not waiting:
                        continue
                    whole = _join(waiting)
                    n = len(whole.codes) if cut is None else int(
                        np.searchsorted(whole.codes, cut, side="right"))
                    parts.append(PositionArrays(*(a[:n] for a in whole)))
                    held[ply] = [PositionArrays(*(a[n:] for a in whole))] if n < len(whole.codes) else []
                if parts:
                    yield _in_code_order(_join(parts))

    def load(self) -> PositionArrays:
        """The whole table at once, in code order."""
        with self.snapshot():
            parts = [part for ply in self._plies for part in self._ply(ply)]
        return _in_code_order(_join(parts)) if parts else empty_positions()

    def damage(self) -> list[Damage]:
        """Every damaged block (and every gap in a ply's chain of blocks), without stopping at
        the first: what `tablebase verify` reports."""
        with self.snapshot():
            return [item for ply in self._plies for item in self._walk(ply)
                    if isinstance(item, Damage)]

    def close(self) -> None:
        """Release the source."""
        blocks.clear(self._cache)
        self._source.close()


def _join(parts: list[PositionArrays]) -> PositionArrays:
    if len(parts) == 1:
        return parts[0]
    return PositionArrays(*(np.concatenate([p[i] for p in parts]) for i in range(4)))


def _in_code_order(arrays: PositionArrays) -> PositionArrays:
    # A stable sort of runs already sorted (one a ply) merges them: numpy's timsort finds them.
    order = np.argsort(arrays.codes, kind="stable")
    return PositionArrays(*(a[order] for a in arrays))
