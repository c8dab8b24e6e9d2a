"""The packed layout's blocks: a table's positions, ply by ply, in code order, cut into
blocks of `BLOCK_POSITIONS`, each stored as one row (its first code as the key, its ply, its
count, one BLOB). A tier is packed as soon as it is solved, so building writes no positions at
the end; a position's ply is the stones of its code, so a lookup knows which ply to read.

A BLOB is a 36-byte header, then the block's data compressed with zstd:

    header   magic b"TBP1" | codec u8 (1: zstd) | gap width w u8 | ply u8 | reserved u8 (0)
             | count u32 | index u32 (the block's place in its ply, from 0)
             | first code i64 | next i64 (the next block's first code in the same ply; the
             ply's last block: 3 ** coded cells) | crc32 u32 of the header's first 32 bytes
             and the compressed data
    data     the count - 1 gaps between consecutive codes as w byte planes (all low bytes,
             then the next byte of each, ...), then count scores (int8, see
             builder/game/values.py: value and depth in one byte; a draw's depth is the
             number of empty cells, which the ply gives)

all little-endian; `ply` counts every stone on the board, the root's included.

Every read checks the header, the CRC, the key, ply and count its row gives, and that the
codes rise and stay below `next`: a damaged block raises DamagedTableError, never another
answer. A lookup that finds no block for a code, or one whose `next` does not cover it, has
found a damaged table too, unless the block it found is its ply's first and starts after it.
"""
from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
import zstandard

from tablebase.builder.game.values import depth_of, value_of
from tablebase.db.checksum import TableChecksum
from tablebase.db.errors import DamagedTableError
from tablebase.db.records import PositionArrays

# Positions a block holds (the last block of a table may hold fewer). Measured on Connect Four
# 6x4 (47.5 M positions): 4,096 a block take 5.4 bits a position with zstd level 9 and decode
# in 16 us; 8,192 take 4.7 bits and 24 us; 16,384 take 4.2 bits and 41 us (docs/storage.md).
# 16,384: on Connect Four 6x5 (1.4 x 10^9 positions) 8,192 took 6.1 bits a position, a tenth of
# it SQLite's page slack around each block; a probe's 17 us more is lost in any answer's cost.
BLOCK_POSITIONS = 16384
# zstd's level for new blocks: level 6 takes 4.84 bits a position on Connect Four 6x4 and packs
# it in 0.94 s on two threads; level 3 5.29 bits in 0.44 s, level 9 4.71 bits in 1.21 s.
ZSTD_LEVEL = 6

MAGIC = b"TBP1"
CODEC_ZSTD = 1
HEADER = struct.Struct("<4sBBBBIIqqI")
_CHECKED = HEADER.size - 4  # the CRC covers the header up to itself, then the data


class Block(NamedTuple):
    """One decoded block: where it sits and its positions (codes ascending, scores)."""

    ply: int
    index: int  # type: ignore[assignment]  # a field named as tuple's method
    first: int
    next: int
    codes: np.ndarray
    scores: np.ndarray


class BlockRow(NamedTuple):
    """One block as stored: key (its first code), ply, count and BLOB."""

    first: int
    ply: int
    count: int  # type: ignore[assignment]  # a field named as tuple's method
    data: bytes


_local = threading.local()


def _compressor() -> zstandard.ZstdCompressor:
    # A zstd context is not thread-safe: one per thread.
    found = getattr(_local, "compressor", None)
    if found is None:
        found = _local.compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    return found


def _decompressor() -> zstandard.ZstdDecompressor:
    found = getattr(_local, "decompressor", None)
    if found is None:
        found = _local.decompressor = zstandard.ZstdDecompressor()
    return found


def pack_block(ply: int, index: int, codes: np.ndarray, scores: np.ndarray,
               next_code: int) -> BlockRow:
    """One block's row, from its codes (ascending int64) and scores (int8)."""
    n = len(codes)
    gaps = np.diff(codes).astype(np.uint64)
    width = (int(gaps.max()).bit_length() + 7) // 8 if n > 1 else 0
    planes = gaps.view(np.uint8).reshape(-1, 8)[:, :width].T  # little-endian: low byte first
    body = _compressor().compress(planes.tobytes() + np.asarray(scores, np.int8).tobytes())
    head = HEADER.pack(MAGIC, CODEC_ZSTD, width, ply, 0, n, index, int(codes[0]),
                       int(next_code), 0)
    crc = zlib.crc32(body, zlib.crc32(head[:_CHECKED]))
    return BlockRow(int(codes[0]), ply, n, head[:_CHECKED] + crc.to_bytes(4, "little") + body)


def unpack_block(row: BlockRow, where: Callable[[], str]) -> Block:
    """A stored block decoded and checked; DamagedTableError naming `where()` if it fails."""
    def damaged(reason: str) -> DamagedTableError:
        return DamagedTableError(f"{where()}: block at code {row.first} is damaged ({reason});"
                                 " run `tablebase verify` on it", reason)
    data = row.data
    if not isinstance(data, (bytes, bytearray, memoryview)) or len(data) < HEADER.size:
        raise damaged("too short")
    data = bytes(data)
    magic, codec, width, ply, reserved, n, index, first, next_code, crc = HEADER.unpack_from(data)
    if magic != MAGIC or codec != CODEC_ZSTD or reserved != 0:
        raise damaged("not a block header")
    if zlib.crc32(data[HEADER.size:], zlib.crc32(data[:_CHECKED])) != crc:
        raise damaged("checksum mismatch")
    if (first != row.first or ply != row.ply or n != row.count or n < 1 or width > 8
            or (n > 1) != (width > 0)):
        raise damaged("header disagrees with its row")
    try:
        raw = _decompressor().decompress(data[HEADER.size:], max_output_size=9 * n)
    except zstandard.ZstdError as e:
        raise damaged(f"cannot decompress: {e}") from None
    if len(raw) != width * (n - 1) + n:
        raise damaged("wrong length")
    planes = np.frombuffer(raw, np.uint8, width * (n - 1)).reshape(width, n - 1)
    gaps = planes[0].astype(np.uint64) if width else np.empty(0, np.uint64)
    for byte in range(1, width):
        gaps |= planes[byte].astype(np.uint64) << np.uint64(8 * byte)
    codes = np.empty(n, np.int64)
    codes[0] = first
    np.cumsum(gaps, out=codes[1:].view(np.uint64))
    codes[1:] += first
    if (n > 1 and (gaps.min() == 0 or codes[-1] <= first)) or codes[-1] >= next_code:
        raise damaged("codes out of order")
    scores = np.frombuffer(raw, np.int8, n, offset=width * (n - 1))
    return Block(ply, index, first, next_code, codes, scores)


def positions(block: Block, cells: int) -> PositionArrays:
    """A decoded block's positions, values and depths from the scores (`cells`: the board's)."""
    ply = np.full(len(block.codes), block.ply, np.int16)
    return PositionArrays(block.codes, ply, value_of(block.scores),
                          depth_of(block.scores, cells - block.ply))


def pack_tier(ply: int, codes: np.ndarray, scores: np.ndarray, code_limit: int, cells: int,
              pool: ThreadPoolExecutor | None = None, first_index: int = 0
              ) -> tuple[list[BlockRow], str]:
    """The block rows of one ply's positions (ascending codes, their scores), packed on
    `pool`'s threads if given, and the checksum (db/checksum.py) of those positions;
    `code_limit` ends the last block (3 ** coded cells, or, for a code range of the ply that a
    cluster's worker packs, the first code of the ply's next range), `cells` is the board's,
    and the blocks are numbered from `first_index`."""
    def job(index: int) -> tuple[BlockRow, str]:
        start = index * BLOCK_POSITIONS
        end = start + BLOCK_POSITIONS
        part = np.asarray(codes[start:end], np.int64)
        part_scores = np.asarray(scores[start:end], np.int8)
        row = pack_block(ply, first_index + index, part, part_scores,
                         int(codes[end]) if end < len(codes) else code_limit)
        block = positions(Block(ply, first_index + index, row.first, 0, part, part_scores), cells)
        checksum = TableChecksum()
        checksum.add(*block)
        return row, checksum.hexdigest()
    jobs = range(blocks_of(len(codes)))
    done = list(pool.map(job, jobs)) if pool is not None else [job(i) for i in jobs]
    whole = TableChecksum()
    for _, digest in done:
        whole.merge(digest)
    return [row for row, _ in done], whole.hexdigest()


def blocks_of(positions: int) -> int:
    """The blocks that `positions` consecutive positions of a ply are packed into."""
    return -(-positions // BLOCK_POSITIONS)
