"""What a table stores, read without db/: rows straight from SQL, blocks of the packed layout
by a deliberately plain decoder written from the format in docs/storage.md (struct, zstd, a
Python loop), so that tests compare the reader under test with an independent one.
"""
from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable

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
