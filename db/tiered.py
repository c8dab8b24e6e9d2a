"""The tiered layout: a table of a game solved as ranked tiers (builder/ranked_build.py: each
tier's positions numbered 0 to its size less one), stored as each tier's int16 scores in blocks
of the layout's `tier_block` indices:

    id INTEGER (the primary key: the tier's number, its place among the table's tiers in key
                order, times 2**32, plus the block's number in the tier),
    first_key TEXT (the tier's name, a colon and the block's first index, twelve digits),
    count, data BLOB, check

A block is fetched by its id and its key checked against the one asked (a row under another
block's id is an error). Tables built before the ids (LAYOUT_TIERED) keep their blocks in the
keyed layout's table (db/keyed.py), the key its primary key; they read as they did.

`data` is zstd over the block's scores, coded a byte each where they fit (`encode_block`);
`check` is CRC-32 of those raw bytes, tested on every read: a damaged block is an error
naming it, never another answer. The table's checksum is a digest of every block's raw bytes
in key order. What a score means is
the builder's (builder/games/ranked_tiers.py); db/ stores numbers under names.
"""
from __future__ import annotations

import threading
import zlib
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import NamedTuple

import numpy as np
import zstandard

from tablebase.db.errors import DamagedTableError
from tablebase.db.facts import (
    LAYOUT_TIERED,
    LAYOUT_TIERED_8192,
    LAYOUT_TIERED_IDS,
    TIERED_ID_LAYOUTS,
    TIERED_LAYOUTS,
)
from tablebase.db.keyed import BLOCK_COLUMNS, ZSTD_LEVEL, KeyedBlock, KeyedReader, Raws

# Indices a block, by layout. A build writes blocks of 8,192: nine men's morris's whole table
# 10.24 GB against 11.07 in blocks of 4,096 (half the rows, and so half the slack of their
# last pages; zstd's data 3% less), a block decompressed in some 12 us against 7
# (docs/benchmarks.md). Tables built before read with their 4,096: the size is the layout's.
TIER_BLOCKS = {LAYOUT_TIERED_8192: 8192, LAYOUT_TIERED_IDS: 4096, LAYOUT_TIERED: 4096}
_DIGITS = 12


class TierRows(NamedTuple):
    """Scores of one tier from index `first` on (a multiple of the layout's block)."""

    tier: str
    first: int
    scores: np.ndarray


def tier_order(tier: str) -> str:
    """The sort key of a tier's name: the order its blocks' keys sort in (the name, then a
    colon), which is the order the layout numbers a table's tiers in (ids, and the rows of its
    counts)."""
    return f"{tier}:"


def tier_block(layout: str) -> int:
    """Indices a block of the tiered `layout`."""
    return TIER_BLOCKS[layout]


def block_key(tier: str, index: int, span: int) -> str:
    """The key of the block of `span` indices that holds `index` of `tier`."""
    return f"{tier_order(tier)}{index - index % span:0{_DIGITS}d}"


# A block's raw bytes: a header (its codes' width, 1 or 2 bytes, then the greatest positive
# score and the least negative one above -32768, int16 each) and a code a score: 0 for 0, 1 for
# -32768, 2 + 2 (top - s) for a positive s, 3 + 2 (s - bottom) for a negative one. Scores near
# the block's extremes (wins and losses of few plies' difference) get small codes, a byte each
# where all fit: nine men's morris's tiers 20 to 25% smaller than as int16 under zstd.
_HEADER = np.dtype([("width", "u1"), ("top", "<i2"), ("bottom", "<i2")])
# Where two bytes a code would be needed but every score's distance from top or bottom is a
# multiple of 2**shift (shift > 0), the block is written STEPPED instead: a byte a code, the
# distances divided by 2**shift, the shift after the header. A game whose wins all take an odd
# number of plies and whose losses an even one has steps of two: nine men's morris's blocks
# that need two bytes (a fifth to a third of its largest tiers') 17-18% smaller under zstd.
STEPPED = 3
_STEPPED = np.dtype([("width", "u1"), ("top", "<i2"), ("bottom", "<i2"), ("shift", "u1")])
# The greatest distance a stepped byte names: codes up to 255, 2 + 2 * 126 the last win.
_STEPS = 126


def encode_block(scores: np.ndarray) -> bytes:
    """The raw bytes of a block of int16 scores (see _HEADER and STEPPED)."""
    s = np.asarray(scores, np.int32)
    wins, losses = s > 0, (s < 0) & (s > -32768)
    top = int(s[wins].max()) if wins.any() else 0
    bottom = int(s[losses].min()) if losses.any() else 0
    gap = np.where(wins, top - s, np.where(losses, s - bottom, 0))
    code = np.where(wins, 2 + 2 * gap, np.where(losses, 3 + 2 * gap, np.where(s == -32768, 1, 0)))
    if len(code) == 0 or int(code.max()) < 256:
        return np.array([(1, top, bottom)], _HEADER).tobytes() + code.astype("u1").tobytes()
    every = int(np.bitwise_or.reduce(gap))
    shift = (every & -every).bit_length() - 1  # the largest power of two dividing every gap
    if shift > 0 and int(gap.max()) >> shift <= _STEPS and _stepped_fits(top, bottom, shift):
        code = np.where(code > 1, (code & 1) + 2 + 2 * (gap >> shift), code)
        return np.array([(STEPPED, top, bottom, shift)], _STEPPED).tobytes() + \
            code.astype("u1").tobytes()
    return np.array([(2, top, bottom)], _HEADER).tobytes() + code.astype("<u2").tobytes()


def _stepped_fits(top: int, bottom: int, shift: int) -> bool:
    """Whether every byte of a stepped block with this header names an int16 (so that one
    read, whichever code it holds, names no score out of range)."""
    return 0 < shift < 15 and top - (_STEPS << shift) >= -32768 and \
        bottom + (_STEPS << shift) <= 32767


class ScoreBlock:
    """A block's scores as stored (`encode_block`), read one at a time (`at`: a probe decodes
    the one it needs, where decoding the block whole cost some 40 us) or all at once."""

    __slots__ = ("codes", "top", "bottom", "shift", "raw")

    def __init__(self, raw: bytes, count: int) -> None:
        """ValueError where `raw` is not `count` scores."""
        self.raw = raw  # what the table's checksum digests
        if len(raw) < _HEADER.itemsize:
            raise ValueError("its contents are cut")
        width, self.top, self.bottom = np.frombuffer(raw, _HEADER, 1)[0].tolist()
        self.shift, head = 0, _HEADER.itemsize
        if width == STEPPED and len(raw) >= _STEPPED.itemsize:
            self.shift, width, head = int(raw[_HEADER.itemsize]), 1, _STEPPED.itemsize
            if not _stepped_fits(self.top, self.bottom, self.shift):
                raise ValueError("its contents disagree with its row")
        # encode_block writes top >= 0 >= bottom; with them every code names an int16 (a win
        # top - c/2 + 1 >= -32766, a loss bottom + c/2 - 1 <= 32766; a stepped block's header
        # is checked above), so a block that reads here has no score out of range, whichever
        # of its scores a reader decodes.
        if (width not in (1, 2) or len(raw) != head + width * count
                or self.top < 0 or self.bottom > 0):
            raise ValueError("its contents disagree with its row")
        self.codes = np.frombuffer(raw, "u1" if width == 1 else "<u2", count, head)

    def __len__(self) -> int:
        return len(self.codes)

    def at(self, i: int) -> int:
        """The score at offset i (an int16: the header, checked as the block was read, keeps
        every code in range)."""
        code = int(self.codes[i])
        gap = ((code >> 1) - 1) << self.shift
        return (0 if code == 0 else -32768 if code == 1 else
                self.bottom + gap if code & 1 else self.top - gap)

    def tally(self, score: int) -> tuple[int, int, int, int, int]:
        """How many of its scores are below zero (-32768 aside), zero, above zero, -32768, and
        equal to `score` (a negative one above -32768), counted from the codes undecoded."""
        codes = self.codes
        # A code a score: 0 zero, 1 -32768, odd past it negative, even past it positive.
        odd = int(np.count_nonzero(codes & 1))
        zero, least = int(np.count_nonzero(codes == 0)), int(np.count_nonzero(codes == 1))
        gap, off = divmod(score - self.bottom, 1 << self.shift)
        found = int(np.count_nonzero(codes == 3 + 2 * gap)) \
            if self.bottom <= score < 0 and off == 0 else 0
        return odd - least, zero, len(codes) - odd - zero, least, found

    def scores(self) -> np.ndarray:
        """Every score, int16 (in range, as `at` says)."""
        code = self.codes.astype(np.int32)
        gap = ((code >> 1) - 1) << self.shift
        scores = np.where(code == 0, 0, np.where(code == 1, -32768, np.where(
            code & 1, self.bottom + gap, self.top - gap)))
        return scores.astype(np.int16)


def decode_block(raw: bytes, count: int) -> np.ndarray:
    """The int16 scores of a block's raw bytes (`encode_block`'s inverse): ValueError where
    they are not `count` scores."""
    return ScoreBlock(raw, count).scores()


def tier_raws(rows: TierRows, span: int) -> tuple[list[bytes], list[tuple[str, int]]]:
    """The raw bytes of each block of `span` indices of `rows`, and each block's key and size
    (db/keyed.py's Packer packs them as it packs keyed rows)."""
    if ":" in rows.tier or rows.first % span:
        raise ValueError(f"tier {rows.tier!r} from index {rows.first}: not a tier's blocks")
    scores = np.asarray(rows.scores, "<i2")
    raws, firsts = [], []
    for start in range(0, len(scores), span):
        part = scores[start:start + span]
        raws.append(encode_block(part))
        firsts.append((block_key(rows.tier, rows.first + start, span), len(part)))
    return raws, firsts


# zstd's level for a tier's blocks: 11, where zstd takes up its optimal parser, stores nine men's
# morris's blocks in 3.00 bits an index against 3.29 at 3 and 3.14 at 6 (6,000 blocks drawn
# over the whole table), at 226 us a block against 27 and 75 (its write some eight minutes
# longer, of a four-hour build), and decodes them as fast (docs/benchmarks.md).
TIER_ZSTD_LEVEL = 11


class Packing(NamedTuple):
    """How a layout's chunks are packed: cut into raw blocks by `raws` (None: keyed rows), each
    compressed at zstd's `level`."""

    raws: Raws | None
    level: int


def packing(layout: str) -> Packing:
    """How a layout's chunks are packed: tiers' scores, or keyed rows."""
    if layout in TIERED_LAYOUTS:
        return Packing(partial(tier_raws, span=tier_block(layout)), TIER_ZSTD_LEVEL)
    return Packing(None, ZSTD_LEVEL)


# A tier's number is shifted past any block number (2**32 blocks: 1.7e13 indices a tier).
_ID_SHIFT = 32


def block_id(number: int, index: int, span: int) -> int:
    """The id of the block of `span` indices holding `index` of the tier numbered `number`."""
    return (number << _ID_SHIFT) | (index // span)


class TierIds:
    """Numbers a build's blocks as they come, in key order: a tier's number is its place
    among the tiers met so far (so ids ascend as keys do, and a table read in id order is read
    in key order)."""

    def __init__(self, span: int) -> None:
        self._span = span
        self._numbers: dict[str, int] = {}
        self._last = ""

    def rows(self, blocks: Sequence[KeyedBlock]) -> list[tuple[object, ...]]:
        """Each block's row: its id, then the block. ValueError where keys do not ascend."""
        out: list[tuple[object, ...]] = []
        for block in blocks:
            if block.first_key <= self._last:
                raise ValueError(f"block {block.first_key!r} written after {self._last!r}")
            self._last = block.first_key
            tier, _, index = block.first_key.rpartition(":")
            number = self._numbers.setdefault(tier, len(self._numbers))
            out.append((block_id(number, int(index), self._span), *block))
        return out


def block_rows(layout: str) -> tuple[tuple[str, ...], Callable[[Sequence[KeyedBlock]],
                                                              Sequence[tuple[object, ...]]]]:
    """The columns a build of `layout` inserts its blocks under, and its blocks' rows: with an
    id before each in a tiered layout with ids (TierIds), the blocks as they are otherwise."""
    if layout in TIERED_ID_LAYOUTS:
        return ("id", *BLOCK_COLUMNS), TierIds(tier_block(layout)).rows
    return BLOCK_COLUMNS, lambda blocks: blocks


def decode_scores(block: KeyedBlock, where: str, span: int) -> ScoreBlock:
    """A stored block's scores (blocks of `span` indices): DamagedTableError naming `where` if
    it fails its check or its contents disagree with its row (a score that names no int16 is
    found where it is read)."""
    first, count, data, check = block
    try:
        if not (isinstance(first, str) and type(count) is int and 0 < count <= span
                and isinstance(data, bytes | bytearray | memoryview) and type(check) is int):
            raise ValueError("a column of the wrong type")
        tier, _, index = first.rpartition(":")
        if not tier or len(index) != _DIGITS or not index.isdigit() or int(index) % span:
            raise ValueError("its key is not a tier's block")
        raw = _decompressor().decompress(bytes(data))
        if zlib.crc32(raw) != check:
            raise ValueError("its check does not match")
        return ScoreBlock(raw, count)
    except (ValueError, zstandard.ZstdError) as e:
        raise _damaged(where, first, e) from e


def _damaged(where: str, first: object, error: Exception) -> DamagedTableError:
    return DamagedTableError(f"{where}: the block at key {str(first)!r:.40} is damaged ({error});"
                             " run `tablebase verify`, then rebuild the table with --force",
                             "a block that fails its check")


_local = threading.local()


def _decompressor() -> zstandard.ZstdDecompressor:
    """This thread's zstd decompressor (one is not to be shared between threads; making one
    a block cost half a block's decompression)."""
    found = getattr(_local, "decompressor", None)
    if found is None:
        found = _local.decompressor = zstandard.ZstdDecompressor()
    return found


class TieredReader(KeyedReader):
    """One complete table of the tiered layout: its snapshots and block cache are the keyed
    reader's; a block is found by its key alone (a tier's name and an index name it)."""

    span = TIER_BLOCKS[LAYOUT_TIERED]  # indices a block

    def scores(self, tiers: Sequence[str], indices: Sequence[int]) -> np.ndarray:
        """The score at each (tier, index), in the order asked (int16). DamagedTableError
        where a block is missing or damaged, or an index lies past its tier's last block."""
        span = self.span
        keys = [block_key(t, i, span) for t, i in zip(tiers, indices)]
        found = self._held(keys, partial(decode_scores, span=span))
        out = np.empty(len(keys), np.int16)
        for i, (key, index) in enumerate(zip(keys, indices)):
            held = found.get(key)
            if held is None or index % span >= len(held):
                raise DamagedTableError(f"{self._label}: the block of tier {key.split(':')[0]}"
                                        f" that holds index {index} is missing; rebuild the"
                                        " table with --force", "a block that is missing")
            try:
                out[i] = held.at(index % span)
            except ValueError as e:
                raise _damaged(self._label, key, e) from e
        return out

    def tier_chunks(self) -> Iterator[TierRows]:
        """Every stored block in key order (tiers by name, each by index), each checked."""
        for tier, first, block in self.tier_blocks():
            try:
                scores = block.scores()
            except ValueError as e:
                raise _damaged(self._label, block_key(tier, first, self.span), e) from e
            yield TierRows(tier, first, scores)

    def tier_blocks(self) -> Iterator[tuple[str, int, ScoreBlock]]:
        """(tier, first index, its scores undecoded) of every stored block in key order, each
        checked (its key too): a reader of a few of a block's scores decodes those alone."""
        for block in self._in_order(64):
            scores = decode_scores(block, self._label, self.span)
            tier, _, index = block.first_key.rpartition(":")
            yield tier, int(index), scores


class TieredIdReader(TieredReader):
    """One complete table of the tiered-ids layout: a block is fetched by its id (the tiers'
    numbers read once, a query a tier) and its key checked against the one asked."""

    span = TIER_BLOCKS[LAYOUT_TIERED_IDS]
    _numbers: dict[str, int] | None = None  # each tier's number, once read

    def _keeps(self) -> bool:
        return self._numbers is not None or super()._keeps()

    def _forget(self) -> None:
        self._numbers = None
        super()._forget()

    def _tier_numbers(self) -> dict[str, int]:
        """Each stored tier's number: the first row from each number on (some hundreds of
        queries of a row, once; the tiers' keys ascending with their numbers, or the table is
        damaged)."""
        if self._numbers is None:
            numbers: dict[str, int] = {}
            last, number = "", 0
            while rows := self._run(f"SELECT id, first_key FROM {self._quoted} WHERE id >="
                                    f" {self._mark} ORDER BY id LIMIT 1", [number << _ID_SHIFT]):
                found, key = rows[0]
                tier = str(key).rpartition(":")[0]
                if type(found) is not int or tier_order(tier) <= last:
                    raise _damaged(self._label, key, ValueError("its id is out of order"))
                number = found >> _ID_SHIFT
                numbers[tier], last = number, tier_order(tier)
                number += 1
            self._numbers = numbers
        return self._numbers

    def _checked(self, row: Sequence[object], numbers: dict[str, int]) -> KeyedBlock:
        """A row (id, first key, count, data, check) as a block, its id checked against its
        key: a row under another block's id is damage, never another block's scores."""
        found, key = row[0], str(row[1])
        tier, _, index = key.rpartition(":")
        number = numbers.get(tier)
        if number is None or not index.isdigit() or \
                block_id(number, int(index), self.span) != found:
            raise _damaged(self._label, key, ValueError(f"it is stored under id {found}"))
        return KeyedBlock(*row[1:])  # type: ignore[arg-type]

    def _fetch(self, firsts: list[str]) -> list[tuple[object, ...]]:
        numbers = self._tier_numbers()
        ids = []
        for key in firsts:
            tier, _, index = key.rpartition(":")
            if tier in numbers and index.isdigit():
                ids.append(block_id(numbers[tier], int(index), self.span))
        if not ids:
            return []
        rows = self._run(f"SELECT id, first_key, count, data, chk FROM {self._quoted} WHERE id"
                         f" IN ({', '.join([self._mark] * len(ids))})", ids)
        return [tuple(self._checked(row, numbers)) for row in rows]

    def _in_order(self, batch: int) -> Iterator[KeyedBlock]:
        """Every stored block in id order, which is key order, `batch` rows a query."""
        numbers = self._tier_numbers()
        after = -1
        while rows := self._run(f"SELECT id, first_key, count, data, chk FROM {self._quoted}"
                                f" WHERE id > {self._mark} ORDER BY id LIMIT {batch}", [after]):
            for row in rows:
                yield self._checked(row, numbers)
            after = int(rows[-1][0])  # type: ignore[call-overload]


class Tiered8192Reader(TieredIdReader):
    """One complete table of the tiered-8192 layout: the tiered-ids layout's, blocks of 8,192."""

    span = TIER_BLOCKS[LAYOUT_TIERED_8192]


def tiered_reader(layout: str) -> type[TieredReader]:
    """The reader of a table of the tiered `layout`."""
    return {LAYOUT_TIERED: TieredReader, LAYOUT_TIERED_IDS: TieredIdReader,
            LAYOUT_TIERED_8192: Tiered8192Reader}[layout]
