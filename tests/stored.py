"""What a table stores, read without db/: rows straight from SQL, blocks of the packed layout
by a deliberately plain decoder written from the format in docs/storage.md (struct, zstd, a
Python loop), so that tests compare the reader under test with an independent one; and where
a rows table's positions sit in the SQLite file, read from SQLite's file format, so that tests
can damage chosen pages.
"""
from __future__ import annotations

import sqlite3
import struct
import zlib
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path

import zstandard

WIN_SCORE = 64  # docs/storage.md: a win in d scores 64 - d, a loss in d scores d - 64


def decode_block(data: bytes, cells: int) -> dict[int, tuple[int, int, int]]:
    """code -> (ply, value, depth) of one packed block; AssertionError if it is not intact."""
    magic, codec, width, ply, _, count, _, first, nxt, crc = struct.unpack_from("<4sBBBBIIqqI", data)
    assert magic == b"TBP1" and codec == 1
    assert zlib.crc32(data[:32] + data[36:]) == crc
    raw = zstandard.ZstdDecompressor().decompress(data[36:])
    assert len(raw) == width * (count - 1) + count
    out = {}
    code = first
    for i in range(count):
        if i:
            gap = sum(raw[b * (count - 1) + i - 1] << (8 * b) for b in range(width))
            assert gap > 0
            code += gap
        score = struct.unpack_from("b", raw, width * (count - 1) + i)[0]
        if score > 0:
            value, depth = 1, WIN_SCORE - score
        elif score < 0:
            value, depth = -1, WIN_SCORE + score
        else:
            value, depth = 0, cells - ply
        out[code] = (ply, value, depth)
    assert code < nxt
    return out


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
