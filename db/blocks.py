"""The packed layout's blocks: a table's positions, ply by ply, in code order, cut into
blocks of `BLOCK_POSITIONS`, each stored as one row (its first code as the key, its ply, its
count, one BLOB). A tier is packed as soon as it is solved, so building writes no positions at
the end; a position's ply is the stones of its code, so a lookup knows which ply to read.

A BLOB written now (schema 4) is a 56-byte header, a support map, then two zstd frames:

    header   magic b"TBP2" | codec u8 (1: code gaps, 2: rank gaps) | gap width w u8 | ply u8
             | digits n u8 (of a code) | count u32 | index u32 (the block's place in its ply,
             from 0) | first code i64 | next i64 (the next block's first code in the same ply;
             the ply's last block: 3 ** n) | first rank i64 | next rank i64 | gaps frame's
             length u32 | crc32 u32 of the header's first 52 bytes, the map and the frames
    map      codec 2: n bytes, digit i's support (db/ranking.py; 255: none); codec 1: none
    gaps     zstd: the count - 1 gaps between consecutive ranks (codec 2: a code's rank in its
             class under the map, db/ranking.py) or codes (codec 1), as w byte planes (all low
             bytes, then the next byte of each, ...)
    scores   zstd: count scores (int8, see scores.py: value and depth in one
             byte; a draw's depth is the number of empty cells, which the ply gives)

all little-endian; `ply` counts every stone on the board, the root's included. Ranks are dense
where codes are not (on Connect Four 6x4 their gaps take 0.6 bits a position against 2.6 for
the codes' gaps), and two frames keep the gaps' bytes from diluting the scores' statistics.
A block of schema 3 ("TBP1": a 36-byte header without ranks, map or frame length, then one
frame of code gaps and scores) still reads as it did.

Every read checks the header, the CRC, the key, ply and count its row gives, that the codes (or
ranks) rise and stay below `next`, and for ranks that the map makes a ranking and that the
header's codes have its ranks: a damaged block raises DamagedTableError, never another answer.
A lookup that finds no block for a code, or one whose `next` does not cover it, has found a
damaged table too, unless the block it found is its ply's first and starts after it. A code
outside a block's class or map is not stored (ranks name only codes of their class).
"""
from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import zstandard

from tablebase.db.errors import DamagedTableError
from tablebase.db.ranking import FREE, Ranking, ranking, stones
from tablebase.db.records import PositionArrays
from tablebase.db.scores import depth_of, value_of

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

# Positions a block holds (the last block of a table may hold fewer). Measured on Connect Four
# 6x4 (47.5 M positions): 4,096 a block take 5.4 bits a position with zstd level 9 and decode
# in 16 us; 8,192 take 4.7 bits and 24 us; 16,384 take 4.2 bits and 41 us (docs/storage.md).
# 16,384: on Connect Four 6x5 (1.4 x 10^9 positions) 8,192 took 6.1 bits a position, a tenth of
# it SQLite's page slack around each block; a probe's 17 us more is lost in any answer's cost.
BLOCK_POSITIONS = 16384
# zstd's level for new blocks. Blocks of ranks, Connect Four 6x4, bits a position of the blocks
# and packing on two threads of the loaded machine: level 6 2.24 bits in 14.9 s, 9 2.14 in 24.3 s,
# 12 2.05 in 25.4 s (codes' gaps, level 6: 4.18 in 5.8 s). One core on a ply of Connect Four
# 5x5 (2.4 M positions): level 6 31 ns a position, 9 110 ns (as long as ranking the codes)
# for 0.11 bits less: on the billion-position tables level 9 cost minutes of CPU.
ZSTD_LEVEL = 6
# Blocks a packing thread takes at a time: one job a block spent 5 s of a 6x5 build's main
# thread handing 86,000 jobs out.
_BLOCKS_A_JOB = 16
# A ply of fewer positions than SMALL_PLY is compressed at SMALL_PLY_LEVEL: its time is a
# fraction of a second, and small tables are where bytes a position show most (4x4k4, whole
# file, 512-byte pages: level 9 2.17 bits, 12 2.06, 15 1.99, 19 1.99).
SMALL_PLY, SMALL_PLY_LEVEL = 1 << 18, 15

MAGIC_3 = b"TBP1"  # schema 3's blocks, read as they are
MAGIC = b"TBP2"
CODEC_CODES = 1  # gaps between codes
CODEC_RANKS = 2  # gaps between ranks (db/ranking.py)
HEADER_3 = struct.Struct("<4sBBBBIIqqI")
HEADER = struct.Struct("<4sBBBBIIqqqqII")
_CHECKED_3 = HEADER_3.size - 4  # the CRC covers the header up to itself, then the rest
_CHECKED = HEADER.size - 4


class Block:
    """One decoded block: where it sits and its positions (codes ascending, scores). A block
    of ranks makes its codes only when asked (`codes`); `find` needs none."""

    __slots__ = ("ply", "index", "first", "next", "scores", "_codes", "_ranks", "_ranking")

    def __init__(self, ply: int, index: int, first: int, next_code: int, scores: np.ndarray,
                 codes: np.ndarray | None = None, ranks: np.ndarray | None = None,
                 ranking: Ranking | None = None) -> None:
        self.ply, self.index, self.first, self.next = ply, index, first, next_code
        self.scores, self._codes, self._ranks, self._ranking = scores, codes, ranks, ranking

    def __len__(self) -> int:
        return len(self.scores)

    @property
    def codes(self) -> np.ndarray:
        """The block's codes, ascending (int64)."""
        if self._codes is None:
            assert self._ranking is not None and self._ranks is not None
            self._codes = self._ranking.codes(self._ranks)
        return self._codes

    def find(self, code: int) -> int:
        """Where `code` sits in the block, or -1 if the block does not hold it."""
        if self._codes is None and self._ranking is not None and self._ranks is not None:
            rank, member = self._ranking.below(code)
            if not member:
                return -1
            keys, key = self._ranks, rank
        else:
            keys, key = self.codes, code
        i = int(np.searchsorted(keys, key))
        return i if i < len(keys) and int(keys[i]) == key else -1


class BlockRow(NamedTuple):
    """One block as stored: key (its first code), ply, count and BLOB."""

    first: int
    ply: int
    count: int  # type: ignore[assignment]  # a field named as tuple's method
    data: bytes


_local = threading.local()


def _compressor(level: int) -> zstandard.ZstdCompressor:
    # A zstd context is not thread-safe: one per thread and level.
    found = _local.__dict__.setdefault("compressors", {})
    if level not in found:
        found[level] = zstandard.ZstdCompressor(level=level)
    return found[level]


def _decompressor() -> zstandard.ZstdDecompressor:
    found = getattr(_local, "decompressor", None)
    if found is None:
        found = _local.decompressor = zstandard.ZstdDecompressor()
    return found


def _planes(gaps: np.ndarray) -> tuple[int, bytes]:
    """(byte width, the gaps as that many byte planes, low bytes first)."""
    gaps = np.ascontiguousarray(gaps, np.uint64)
    width = (int(gaps.max()).bit_length() + 7) // 8 if len(gaps) else 0
    return width, gaps.view(np.uint8).reshape(-1, 8)[:, :width].T.tobytes()


def _ranked(codes: np.ndarray, supports: tuple[int, ...] | None
            ) -> tuple[Ranking, np.ndarray] | None:
    """The ranking of a block's codes and their ranks, if the map ranks every one of them."""
    if supports is None:
        return None
    try:
        found = ranking(supports, *stones(int(codes[0]), len(supports)))
    except ValueError:
        return None  # a map too wide for a table of ranks
    ranks = found.ranks(codes)
    return (found, ranks) if int(ranks.min()) >= 0 else None


def pack_block(ply: int, index: int, codes: np.ndarray, scores: np.ndarray,
               next_code: int, supports: tuple[int, ...] | None = None,
               level: int = ZSTD_LEVEL) -> BlockRow:
    """One block's row, from its codes (ascending int64) and scores (int8). `supports`: the
    codes' support map (db/ranking.py; one entry a digit), under which the block stores ranks
    if every code keeps it; None stores the codes' gaps. `level`: zstd's."""
    n = len(codes)
    codes = np.asarray(codes, np.int64)
    ranked = _ranked(codes, supports)
    if ranked is None:
        codec, keys, first_rank, next_rank, table = CODEC_CODES, codes, 0, 0, b""
        digits = 0
    else:
        found, keys = ranked
        assert supports is not None
        codec, first_rank = CODEC_RANKS, int(keys[0])
        next_rank = found.below(int(next_code))[0]
        table = bytes(FREE if s < 0 else s for s in supports)
        digits = len(supports)
    width, planes = _planes(np.diff(keys))
    compressor = _compressor(level)
    gaps = compressor.compress(planes)
    body = table + gaps + compressor.compress(np.asarray(scores, np.int8).tobytes())
    head = HEADER.pack(MAGIC, codec, width, ply, digits, n, index, int(codes[0]),
                       int(next_code), first_rank, next_rank, len(gaps), 0)
    crc = zlib.crc32(body, zlib.crc32(head[:_CHECKED]))
    return BlockRow(int(codes[0]), ply, n, head[:_CHECKED] + crc.to_bytes(4, "little") + body)


def unpack_block(row: BlockRow, where: Callable[[], str]) -> Block:
    """A stored block decoded and checked; DamagedTableError naming `where()` if it fails."""
    def damaged(reason: str) -> DamagedTableError:
        return DamagedTableError(f"{where()}: block at code {row.first} is damaged ({reason});"
                                 " run `tablebase verify` on it", reason)
    data = row.data
    if not isinstance(data, (bytes, bytearray, memoryview)) or len(data) < HEADER_3.size:
        raise damaged("too short")
    data = bytes(data)
    if data[:4] == MAGIC_3:
        return _unpack_3(row, data, damaged)
    if data[:4] != MAGIC or len(data) < HEADER.size:
        raise damaged("not a block header")
    (_, codec, width, ply, digits, n, index, first, next_code, first_rank, next_rank,
     gaps_length, crc) = HEADER.unpack_from(data)
    if zlib.crc32(data[HEADER.size:], zlib.crc32(data[:_CHECKED])) != crc:
        raise damaged("checksum mismatch")
    if (codec not in (CODEC_CODES, CODEC_RANKS) or first != row.first or ply != row.ply
            or n != row.count or n < 1 or width > 8 or (n > 1) != (width > 0)
            or (codec == CODEC_CODES) != (digits == 0)):
        raise damaged("header disagrees with its row")
    at = HEADER.size + digits
    ranked: Ranking | None = None
    if codec == CODEC_RANKS:
        supports = tuple(-1 if b == FREE else b for b in data[HEADER.size:at])
        try:
            ranked = ranking(supports, *stones(first, digits))
        except ValueError as e:
            raise damaged(f"no ranking: {e}") from None
        if (ranked.below(first) != (first_rank, True)
                or ranked.below(next_code)[0] != next_rank or next_code > 3 ** digits):
            raise damaged("its codes and ranks disagree")
    try:
        decompressor = _decompressor()
        gaps_raw = decompressor.decompress(data[at:at + gaps_length],
                                           max_output_size=8 * n)
        scores_raw = decompressor.decompress(data[at + gaps_length:], max_output_size=n + 1)
    except zstandard.ZstdError as e:
        raise damaged(f"cannot decompress: {e}") from None
    if len(gaps_raw) != width * (n - 1) or len(scores_raw) != n:
        raise damaged("wrong length")
    base, limit = (first_rank, next_rank) if ranked is not None else (first, next_code)
    keys = _keys(gaps_raw, width, n, base)
    if keys is None or int(keys[-1]) >= limit:
        raise damaged("codes out of order")
    scores = np.frombuffer(scores_raw, np.int8, n)
    if ranked is not None:
        return Block(ply, index, first, next_code, scores, ranks=keys, ranking=ranked)
    return Block(ply, index, first, next_code, scores, codes=keys)


def _keys(raw: bytes, width: int, n: int, first: int) -> np.ndarray | None:
    """The rising keys (codes or ranks) from `first` by the gaps of `raw` (w byte planes);
    None unless every gap is positive and nothing overflows."""
    planes = np.frombuffer(raw, np.uint8, width * (n - 1)).reshape(width, n - 1)
    gaps = planes[0].astype(np.uint64) if width else np.empty(0, np.uint64)
    for byte in range(1, width):
        gaps |= planes[byte].astype(np.uint64) << np.uint64(8 * byte)
    keys = np.empty(n, np.int64)
    keys[0] = first
    np.cumsum(gaps, out=keys[1:].view(np.uint64))
    keys[1:] += first
    if n > 1 and (gaps.min() == 0 or keys[-1] <= first):
        return None
    return keys


def _unpack_3(row: BlockRow, data: bytes, damaged: Callable[[str], DamagedTableError]) -> Block:
    """A schema-3 block (TBP1: codes' gaps and scores in one frame), decoded and checked."""
    magic, codec, width, ply, reserved, n, index, first, next_code, crc = \
        HEADER_3.unpack_from(data)
    if codec != CODEC_CODES or reserved != 0:
        raise damaged("not a block header")
    if zlib.crc32(data[HEADER_3.size:], zlib.crc32(data[:_CHECKED_3])) != crc:
        raise damaged("checksum mismatch")
    if (first != row.first or ply != row.ply or n != row.count or n < 1 or width > 8
            or (n > 1) != (width > 0)):
        raise damaged("header disagrees with its row")
    try:
        raw = _decompressor().decompress(data[HEADER_3.size:], max_output_size=9 * n)
    except zstandard.ZstdError as e:
        raise damaged(f"cannot decompress: {e}") from None
    if len(raw) != width * (n - 1) + n:
        raise damaged("wrong length")
    codes = _keys(raw[:width * (n - 1)], width, n, first)
    if codes is None or int(codes[-1]) >= next_code:
        raise damaged("codes out of order")
    scores = np.frombuffer(raw, np.int8, n, offset=width * (n - 1))
    return Block(ply, index, first, next_code, scores, codes=codes)


def positions(block: Block, cells: int) -> PositionArrays:
    """A decoded block's positions, values and depths from the scores (`cells`: the board's)."""
    ply = np.full(len(block.codes), block.ply, np.int16)
    return PositionArrays(block.codes, ply, value_of(block.scores),
                          depth_of(block.scores, cells - block.ply))


def pack_tier(ply: int, codes: np.ndarray, scores: np.ndarray, code_limit: int, cells: int,
              pool: ThreadPoolExecutor | None = None, first_index: int = 0,
              supports: tuple[int, ...] | None = None) -> tuple[list[BlockRow], str]:
    """The block rows of one ply's positions (ascending codes, their scores), packed on
    `pool`'s threads if given, and the checksum (db/checksum.py) of those positions;
    `code_limit` ends the last block (3 ** coded cells, or, for a code range of the ply that a
    cluster's worker packs, the first code of the ply's next range), `cells` is the board's,
    the blocks are numbered from `first_index`, and `supports` is the codes' support map
    (`pack_block`)."""
    # The checksum is compiled (numba): imported by the packing that needs it, so that a reader
    # (`tablebase probe`) starts without numba.
    from tablebase.db.checksum import TableChecksum

    level = SMALL_PLY_LEVEL if len(codes) < SMALL_PLY else ZSTD_LEVEL

    def job(index: int) -> tuple[BlockRow, str]:
        start = index * BLOCK_POSITIONS
        end = start + BLOCK_POSITIONS
        part = np.asarray(codes[start:end], np.int64)
        part_scores = np.asarray(scores[start:end], np.int8)
        row = pack_block(ply, first_index + index, part, part_scores,
                         int(codes[end]) if end < len(codes) else code_limit, supports, level)
        block = positions(Block(ply, first_index + index, row.first, 0, part_scores, part), cells)
        checksum = TableChecksum()
        checksum.add(*block)
        return row, checksum.hexdigest()
    count = blocks_of(len(codes))
    step = max(1, min(_BLOCKS_A_JOB, count // 8))  # at least 8 jobs where there are blocks

    def run(first: int) -> list[tuple[BlockRow, str]]:
        return [job(i) for i in range(first, min(first + step, count))]
    firsts = range(0, count, step)
    done = [one for part in (pool.map(run, firsts) if pool is not None else map(run, firsts))
            for one in part]
    whole = TableChecksum()
    for _, digest in done:
        whole.merge(digest)
    return [row for row, _ in done], whole.hexdigest()


def blocks_of(positions: int) -> int:
    """The blocks that `positions` consecutive positions of a ply are packed into."""
    return -(-positions // BLOCK_POSITIONS)
