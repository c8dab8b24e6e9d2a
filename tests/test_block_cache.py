"""The decoded blocks a process keeps (db/block_cache.py): one budget for every reader, the
least recently used out first, a reader's index always agreeing with what is kept; and reads
through a cache far too small for the table give the same answers as through a large one."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.pipeline import build
from tablebase.db import block_cache
from tablebase.db.block_cache import BlockCache, BlockIndex, size_of
from tablebase.db.blocks import Block
from tablebase.query import open_tablebase


def _block(ply: int, first: int, n: int = 100) -> Block:
    codes = np.arange(first, first + 2 * n, 2, dtype=np.int64)
    return Block(ply, 0, first, first + 2 * n, np.zeros(n, np.int8), codes=codes)


def test_budget_is_shared_and_least_recent_goes_first() -> None:
    """Two readers' blocks under one budget: the oldest leaves, whoever's it was; a block
    looked at is young again; every index finds exactly what is kept."""
    size = size_of(_block(1, 0))
    cache = BlockCache(3 * size)
    a, b = BlockIndex(), BlockIndex()
    cache.keep(a, _block(1, 0))
    cache.keep(b, _block(1, 1000))
    cache.keep(a, _block(1, 2000))
    assert cache.get(a, 1, 10) is not None  # a's first block is now the youngest
    cache.keep(b, _block(2, 0))  # over the budget: b's block at 1000 is the oldest
    assert cache.bytes <= cache.budget
    assert cache.get(b, 1, 1010) is None and 1000 not in b.keys[1]
    assert cache.get(a, 1, 10) is not None and cache.get(a, 1, 2010) is not None
    assert cache.get(b, 2, 10) is not None
    assert cache.get(a, 1, 500) is None  # past the block's end: not this block's code
    cache.clear(a)
    assert a.blocks == {} and cache.get(a, 1, 10) is None
    assert cache.bytes == size  # b's one block left


def test_a_block_kept_twice_counts_once() -> None:
    """Keeping a block already kept changes nothing but its age."""
    cache = BlockCache(10 * size_of(_block(1, 0)))
    a = BlockIndex()
    cache.keep(a, _block(1, 0))
    cache.keep(a, _block(1, 0))
    assert cache.bytes == size_of(_block(1, 0)) and a.keys[1] == [0]


def test_tiny_cache_answers_as_a_large_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """A cache of one block: every look-up decodes again, the answers are the same."""
    db = str(tmp_path / "t.db")
    build(parse_spec("4x4k3"), db)
    with open_tablebase(db) as tb:
        whole = tb.table("4x4k3").load()
        codes = whole.codes[:: max(1, len(whole.codes) // 500)]
        reader = tb.table("4x4k3")._chosen().reader
        large = reader.lookup(codes)
    monkeypatch.setattr(block_cache, "blocks", BlockCache(0))
    monkeypatch.setattr("tablebase.db.packed.blocks", block_cache.blocks)
    with open_tablebase(db) as tb:
        reader = tb.table("4x4k3")._chosen().reader
        small = [reader.lookup([c]) for c in codes]
        assert block_cache.blocks.bytes <= max(size_of(b) for b in reader._cache.blocks.values())
    for i, one in enumerate(small):
        assert one.found[0] and one.value[0] == large.value[i] and one.depth[0] == large.depth[i]
    assert np.array_equal(large.value, whole.value[:: max(1, len(whole.codes) // 500)])
