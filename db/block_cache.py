"""The decoded blocks a process keeps (db/packed.py's readers share one budget of bytes): a
probe decodes the one block that can hold its code, `moves` a block for each child, and a
server or an audit comes back to the same blocks, so they are kept, least recently used out
first. One budget for the process, not one a reader: a server opens a reader per thread and
table, and a per-reader cache would multiply by both.

    reader A  ply 9: [b0]  [b3]        the shared LRU: (A, b0) (B, b7) (A, b3) ...
    reader B  ply 9: [b7]              over the budget: the oldest leaves its reader's index

Each reader keeps its own index (per ply, the cached blocks' first codes, sorted) so that a
code finds its block by bisection; the cache changes an index only under its lock.
"""
from __future__ import annotations

import bisect
import os
import threading
from collections import OrderedDict

from tablebase.db.blocks import Block

# Bytes of decoded blocks a process keeps (about 9 bytes a position: a block's ranks or codes
# and its scores). Teeko's 21.5 M positions (1,312 blocks) take about 190 MiB: kept whole, a
# moves answer on it reads its ~20 blocks from memory (0.9 ms) instead of decoding ~9 (6 ms).
# TABLEBASE_CACHE_MIB sets another budget (0: keep only the block in use).
CACHE_MIB = 256


def _budget() -> int:
    text = os.environ.get("TABLEBASE_CACHE_MIB", "")
    try:
        return max(0, int(text)) << 20 if text.strip() else CACHE_MIB << 20
    except ValueError:
        return CACHE_MIB << 20  # a typo in the environment is no reason to refuse a probe


def size_of(block: Block) -> int:
    """The bytes a decoded block holds (its arrays; the object's own few hundred aside)."""
    arrays = (block.scores, block._codes, block._ranks)
    return 256 + sum(a.nbytes for a in arrays if a is not None)


class BlockIndex:
    """One reader's cached blocks: per ply, their first codes (sorted) and the blocks."""

    def __init__(self) -> None:
        self.keys: dict[int, list[int]] = {}
        self.blocks: dict[tuple[int, int], Block] = {}

    def find(self, ply: int, code: int) -> Block | None:
        """The cached block of `ply` whose range holds `code`, if any."""
        keys = self.keys.get(ply)
        if not keys:
            return None
        i = bisect.bisect_right(keys, code) - 1
        if i < 0:
            return None
        block = self.blocks[ply, keys[i]]
        return block if code < block.next else None

    def add(self, block: Block) -> None:
        """Index `block` (its ply and first code)."""
        if (block.ply, block.first) not in self.blocks:
            bisect.insort(self.keys.setdefault(block.ply, []), block.first)
        self.blocks[block.ply, block.first] = block

    def drop(self, ply: int, first: int) -> None:
        """Forget the block of `ply` that starts at `first`."""
        if self.blocks.pop((ply, first), None) is not None:
            keys = self.keys[ply]
            del keys[bisect.bisect_left(keys, first)]


class BlockCache:
    """Decoded blocks of every reader, least recently used out first, within `budget` bytes."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.bytes = 0
        self._lru: OrderedDict[tuple[int, int, int], tuple[BlockIndex, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, index: BlockIndex, ply: int, code: int) -> Block | None:
        """The block of `ply` holding `code` if `index`'s reader has it kept (now the most
        recently used)."""
        with self._lock:
            block = index.find(ply, code)
            if block is not None:
                self._lru.move_to_end((id(index), ply, block.first))
            return block

    def keep(self, index: BlockIndex, block: Block) -> None:
        """Keep `block` for `index`'s reader, making room by dropping the least recently used
        blocks of any reader."""
        size = size_of(block)
        with self._lock:
            key = (id(index), block.ply, block.first)
            if key in self._lru:
                self._lru.move_to_end(key)
                return
            while self._lru and self.bytes + size > self.budget:
                (_, ply, first), (owner, old_size) = self._lru.popitem(last=False)
                owner.drop(ply, first)
                self.bytes -= old_size
            index.add(block)
            self._lru[key] = (index, size)
            self.bytes += size

    def clear(self, index: BlockIndex) -> None:
        """Drop every block of `index`'s reader (closed, or its table replaced)."""
        with self._lock:
            for ply, first in list(index.blocks):
                _, size = self._lru.pop((id(index), ply, first))
                self.bytes -= size
            index.keys.clear()
            index.blocks.clear()


# The process's one cache.
blocks = BlockCache(_budget())
