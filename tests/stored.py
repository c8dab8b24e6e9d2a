"""What a table stores, read without db/: rows straight from SQL, blocks of the packed layout
by a deliberately plain decoder written from the format in docs/storage.md (struct, zstd, a
Python loop), so that tests compare the reader under test with an independent one; and where
a rows table's positions sit in the SQLite file, read from SQLite's file format, so that tests
can damage chosen pages.
"""
from __future__ import annotations

import itertools
import sqlite3
import struct
import zlib
from collections.abc import Iterable
from contextlib import closing
from functools import lru_cache
from pathlib import Path

import zstandard

WIN_SCORE = 64  # docs/storage.md: a win in d scores 64 - d, a loss in d scores d - 64


def decode_block(data: bytes, cells: int) -> dict[int, tuple[int, int, int]]:
    """code -> (ply, value, depth) of one packed block; AssertionError if it is not intact."""
    if data[:4] == b"TBP1":
        magic, codec, width, ply, _, count, _, first, nxt, crc = struct.unpack_from(
            "<4sBBBBIIqqI", data)
        assert codec == 1
        assert zlib.crc32(data[:32] + data[36:]) == crc
        raw = zstandard.ZstdDecompressor().decompress(data[36:])
        assert len(raw) == width * (count - 1) + count
        gaps, scores = raw[:width * (count - 1)], raw[width * (count - 1):]
        keys, key_limit, supports = first, nxt, None
    else:
        (magic, codec, width, ply, digits, count, _, first, nxt, first_rank, next_rank,
         gaps_length, crc) = struct.unpack_from("<4sBBBBIIqqqqII", data)
        assert magic == b"TBP2" and codec in (1, 2)
        assert zlib.crc32(data[:52] + data[56:]) == crc
        at = 56 + digits
        supports = tuple(-1 if b == 255 else b for b in data[56:at]) if codec == 2 else None
        zstd = zstandard.ZstdDecompressor()
        gaps = zstd.decompress(data[at:at + gaps_length]) if gaps_length else b""
        scores = zstd.decompress(data[at + gaps_length:])
        assert len(gaps) == width * (count - 1) and len(scores) == count
        keys, key_limit = (first_rank, next_rank) if codec == 2 else (first, nxt)
    out = {}
    # The gaps' bytes are stored plane by plane (all low bytes, then the next, ...).
    gap_values = [0] * (count - 1)
    for b in range(width):
        plane = gaps[b * (count - 1):(b + 1) * (count - 1)]
        gap_values = [g | (v << (8 * b)) for g, v in zip(gap_values, plane)]
    assert all(gap > 0 for gap in gap_values)
    keyed = list(itertools.accumulate(gap_values, initial=keys))
    key = keyed[-1]
    codes = keyed if supports is None else _unrank(supports, _stones(first, len(supports)), keyed)
    for code, score in zip(codes, struct.unpack(f"{count}b", scores)):
        if score > 0:
            value, depth = 1, WIN_SCORE - score
        elif score < 0:
            value, depth = -1, WIN_SCORE + score
        else:
            value, depth = 0, cells - ply
        out[code] = (ply, value, depth)
    assert key < key_limit and max(out) < nxt and min(out) == first
    return out


def _stones(code: int, digits: int) -> tuple[int, int]:
    ds = [code // 3 ** i % 3 for i in range(digits)]
    return ds.count(1), ds.count(2)


def _unrank(supports: tuple[int, ...], stones: tuple[int, int], ranks: list[int]) -> list[int]:
    """The codes of ascending `ranks` among the codes with these stones (x's, o's) in which
    every non-zero digit i has its support digit supports[i] non-zero too, ascending: digit by
    digit from the highest, each digit's choices in order, counting the ways to finish each
    (docs/storage.md); one walk for all the ranks, entering only the choices that hold one."""
    ways, steps = _counter(supports)
    codes: list[int] = []
    wanted = [*ranks, -1]  # the ranks still to find, the next at wanted[len(codes)]

    def walk(j: int, filled: frozenset[int], x: int, o: int, code: int, base: int) -> None:
        if j < 0:
            assert wanted[len(codes)] == base
            codes.append(code)
            return
        for d, f in steps(j, filled, x, o):
            x_left, o_left = x - (d == 1), o - (d == 2)
            n = ways(j, f, x_left, o_left)
            if base <= wanted[len(codes)] < base + n:
                walk(j - 1, f, x_left, o_left, code + d * 3 ** j, base)
            base += n

    walk(len(supports) - 1, frozenset(), *stones, 0, 0)
    assert len(codes) == len(ranks), "rank out of range"
    return codes


@lru_cache(maxsize=None)
def _counter(supports: tuple[int, ...]):  # type: ignore[no-untyped-def]
    """(ways, steps) for a support map: ways(i, filled, x, o) counts the ways to fill digits
    i - 1 .. 0 with x 1's and o 2's, `filled` being the non-zero digits that a lower digit needs;
    steps(j, ...) lists the digits digit j may take, each with the `filled` after it."""
    @lru_cache(maxsize=None)
    def steps(j: int, filled: frozenset[int], x: int, o: int) -> list[tuple[int, frozenset[int]]]:
        out = []
        for d in (0, 1, 2):
            if d and supports[j] >= 0 and supports[j] not in filled:
                continue
            if (d == 1 and x == 0) or (d == 2 and o == 0):
                continue
            after = {k for k in filled if k != supports[j]} | ({j} if d and j in supports else set())
            out.append((d, frozenset(after)))
        return out

    @lru_cache(maxsize=None)
    def ways(i: int, filled: frozenset[int], x: int, o: int) -> int:
        if i == 0:
            return int(x == 0 and o == 0)
        return sum(ways(i - 1, f, x - (d == 1), o - (d == 2)) for d, f in steps(i - 1, filled, x, o))

    return ways, steps


def count_block_positions(rows: Iterable[tuple[bytes]]) -> int:
    """The positions a packed table's blocks hold, by each block's header (each block's
    checksum checked, its contents not decoded): a count for tables too large to decode here."""
    total = 0
    for (data,) in rows:
        data = bytes(data)
        head = 32 if data[:4] == b"TBP1" else 52  # the checksum follows the rest of the header
        assert data[:4] in (b"TBP1", b"TBP2")
        (crc,) = struct.unpack_from("<I", data, head)
        assert zlib.crc32(data[:head] + data[head + 4:]) == crc
        total += struct.unpack_from("<I", data, 8)[0]  # count: after magic and four bytes
    return total


def decode_blocks(rows: Iterable[tuple[bytes]], cells: int) -> dict[int, tuple[int, int, int]]:
    """code -> (ply, value, depth) of every block of a packed table's rows (data only)."""
    out: dict[int, tuple[int, int, int]] = {}
    for (data,) in rows:
        out.update(decode_block(bytes(data), cells))
    return out


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's big-endian varint at `at`: (value, where the next field starts)."""
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9


def leaf_pages(path: str | Path, table: str) -> tuple[int, dict[int, list[int]]]:
    """(page size, page number -> the rowids it holds) for every leaf page of a rowid table's
    B-tree (in the rows layout the rowid is the code), walked from its root page down through
    the interior pages, from the file format (sqlite.org/fileformat.html): a page's header
    starts with its type (5 interior, 13 leaf), its cell count at byte 3; an interior page
    keeps its right-most child at byte 8 and 4-byte child pointers at the start of its cells;
    a leaf cell is a varint payload size, then the varint rowid."""
    data = Path(path).read_bytes()
    size = struct.unpack_from(">H", data, 16)[0]
    size = 65536 if size == 1 else size
    with closing(sqlite3.connect(path)) as conn:
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                               (table,)).fetchone()
    leaves: dict[int, list[int]] = {}
    pending = [root]
    while pending:
        page = pending.pop()
        base = (page - 1) * size
        head = base + (100 if page == 1 else 0)  # page 1 opens with the file's header
        kind, cells = data[head], struct.unpack_from(">H", data, head + 3)[0]
        assert kind in (5, 13), (page, kind)
        pointers = head + (12 if kind == 5 else 8)
        starts = [base + struct.unpack_from(">H", data, pointers + 2 * i)[0]
                  for i in range(cells)]
        if kind == 5:
            pending += [struct.unpack_from(">I", data, at)[0] for at in starts]
            pending.append(struct.unpack_from(">I", data, head + 8)[0])
        else:
            leaves[page] = [_varint(data, _varint(data, at)[1])[0] for at in starts]
    return size, leaves
