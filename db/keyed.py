"""The keyed layout: a table of a game whose positions are Python values (a user's class),
stored under their keys (the text of each orbit's smallest image) in key order, packed into
blocks of BLOCK positions:

    first_key TEXT (the primary key: the block's smallest key), count, data BLOB, check

`data` is zstd over the block's raw bytes: its positions' ply (int32: the fewest moves from
the table's start), value (int8: -1, 0, +1 for the side to move) and depth (int32: plies to
the end; -1 a draw by endless play), then their keys joined by newlines (a key is one line).
`check` is CRC-32 of the raw bytes, tested on every read: a damaged block is an error naming
it, never another answer. The table's checksum is a digest of every block's raw bytes in key
order. One reader serves both drivers: each store hands it a function that runs one
statement (`Run`), its parameter mark, and the table's `KeyedSource` (its snapshots, whether
the catalogue still points at it).
"""
from __future__ import annotations

import zlib
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np
import zstandard

from tablebase.db.errors import DamagedTableError, DatabaseError
from tablebase.db.facts import PACK_THREADS

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

# Positions a block: a probe decodes one block (some tens of microseconds).
BLOCK = 512
# Decoded blocks a reader keeps: a position's moves lead to a few blocks, read again and again.
CACHED_BLOCKS = 128
# Keys looked up together at most: their blocks are fetched by one query (SQLite takes 32,766
# parameters) and held at once.
_FETCHED = 256
ZSTD_LEVEL = 3
# A chunk of at most this many blocks is compressed on the writer's own thread: starting the
# packing threads (and importing concurrent.futures) costs more than they save on it.
THREADED_BLOCKS = 64

# Runs one statement with its parameters and returns its rows.
Run = Callable[[str, Sequence[object]], list[tuple[object, ...]]]


class KeyedSource(Protocol):
    """What a store holds a keyed table by, beside its `Run`."""

    table: str

    def snapshot(self) -> AbstractContextManager[None]:
        """Read inside one transaction."""
        ...

    def current(self) -> bool:
        """Whether the catalogue still points at this table (a forced rebuild replaces it)."""
        ...

    def close(self) -> None:
        """Release what the source holds."""
        ...


class KeyedRows(NamedTuple):
    """Stored positions of the keyed layout, in key order: keys and equal-length arrays."""

    keys: list[str]
    ply: np.ndarray
    value: np.ndarray
    depth: np.ndarray


class KeyedLookup(NamedTuple):
    """Answers for keys, in the order asked; where `found` is False, value 0, depth and ply -1."""

    found: np.ndarray
    value: np.ndarray
    depth: np.ndarray
    ply: np.ndarray


class KeyedBlock(NamedTuple):
    """One stored block: its first key, positions, compressed data and check."""

    first_key: str
    size: int
    data: bytes
    check: int


# A KeyedBlock's columns, in its order, as a blocks table stores them.
BLOCK_COLUMNS = ("first_key", "count", "data", "chk")


def raw_block(rows: KeyedRows) -> bytes:
    """The raw bytes of a block of rows (see the module's picture)."""
    return b"".join((np.asarray(rows.ply, "<i4").tobytes(), np.asarray(rows.value, "i1").tobytes(),
                     np.asarray(rows.depth, "<i4").tobytes(), "\n".join(rows.keys).encode()))


def _raws(rows: KeyedRows) -> tuple[list[bytes], list[tuple[str, int]]]:
    """The raw bytes of each block of rows in key order, and each block's first key and size."""
    raws, firsts = [], []
    for start in range(0, len(rows.keys), BLOCK):
        raws.append(raw_block(KeyedRows(rows.keys[start:start + BLOCK], rows.ply[start:start + BLOCK],
                                        rows.value[start:start + BLOCK],
                                        rows.depth[start:start + BLOCK])))
        firsts.append((rows.keys[start], min(BLOCK, len(rows.keys) - start)))
    return raws, firsts


def _blocks(firsts: list[tuple[str, int]], packed: Iterable[tuple[bytes, int]],
            raws: list[bytes]) -> list[tuple[KeyedBlock, bytes]]:
    return [(KeyedBlock(first, size, data, check), raw)
            for (first, size), (data, check), raw in zip(firsts, packed, raws)]


def _pack_all(raws: list[bytes], level: int = ZSTD_LEVEL) -> list[tuple[bytes, int]]:
    """zstd at `level` and CRC-32 of each raw block, in order (one compressor for them all, on
    one thread: a compressor is not to be shared between threads)."""
    compressor = zstandard.ZstdCompressor(level=level)
    return [(compressor.compress(raw), zlib.crc32(raw)) for raw in raws]


def pack(rows: KeyedRows) -> list[tuple[KeyedBlock, bytes]]:
    """The blocks of rows in key order, each with its raw bytes (for the table's checksum)."""
    raws, firsts = _raws(rows)
    return _blocks(firsts, _pack_all(raws), raws)


# A chunk's raw blocks and each block's first key and size (`_raws`; db/tiered.py's tier_raws).
Raws = Callable[[Any], tuple[list[bytes], list[tuple[str, int]]]]


class Packer:
    """Packs a build's chunks of rows, on PACK_THREADS threads from the first chunk of more
    than THREADED_BLOCKS blocks (zstd and CRC-32 let go of the GIL); `close` stops them.
    `raws` cuts a chunk into raw blocks: keyed rows by default; `level`: zstd's."""

    def __init__(self, raws: Raws | None = None, level: int = ZSTD_LEVEL) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._raws: Raws = _raws if raws is None else raws
        self._level = level

    def stream(self, chunks: Iterable[Any], digest: Any) -> Iterator[list[KeyedBlock]]:
        """Each chunk's blocks (`pack`), in order, their raw bytes given to `digest` (a hashlib
        object: the table's checksum) as each is yielded, once a chunk (a call a block cost
        the writer's thread a wait on the GIL each). Where threads pack, a chunk's blocks are
        compressed while the caller stores the chunk before it (the writer's thread would
        otherwise wait on them: a quarter of a large table's writing), each thread given a
        run of blocks (a task a block cost the writer's thread more than its blocks did)."""
        for blocks in self._packed(chunks):
            digest.update(b"".join(raw for _, raw in blocks))
            yield [block for block, _ in blocks]

    def _packed(self, chunks: Iterable[Any]) -> Iterator[list[tuple[KeyedBlock, bytes]]]:
        pending: tuple[list[Future[list[tuple[bytes, int]]]], list[bytes],
                       list[tuple[str, int]]] | None = None
        for rows in chunks:
            raws, firsts = self._raws(rows)
            if self._pool is None and len(raws) > THREADED_BLOCKS:
                from concurrent.futures import ThreadPoolExecutor
                self._pool = ThreadPoolExecutor(PACK_THREADS)
            if self._pool is None:
                yield _blocks(firsts, _pack_all(raws, self._level), raws)
                continue
            step = -(-len(raws) // PACK_THREADS)
            started = ([self._pool.submit(_pack_all, raws[a:a + step], self._level)
                        for a in range(0, len(raws), step)], raws, firsts)
            if pending is not None:
                yield _done(*pending)
            pending = started
        if pending is not None:
            yield _done(*pending)

    def close(self) -> None:
        """Stop the threads, if any were started."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def _done(futures: list[Future[list[tuple[bytes, int]]]], raws: list[bytes],
          firsts: list[tuple[str, int]]) -> list[tuple[KeyedBlock, bytes]]:
    return _blocks(firsts, (packed for f in futures for packed in f.result()), raws)


class FoundBlock(NamedTuple):
    """A stored block decoded for lookups: its keys left as the newline-joined bytes they are
    stored as (between a newline each side), found by a search of those bytes rather than
    split into a list (a list of a block's keys cost a lookup more than the rest of its
    decoding did)."""

    keys: bytes
    ply: np.ndarray
    value: np.ndarray
    depth: np.ndarray

    def at(self, key: str) -> int:
        """Where `key` is among the block's keys, or -1. A key is one line: the line between
        two newlines that equals it is the key itself, and the newlines before it count it."""
        if "\n" in key:  # no stored key is two lines (two of them joined would match)
            return -1
        # (A text no stored key can be, lone surrogates and all, is simply not found.)
        at = self.keys.find(b"\n" + key.encode(errors="surrogatepass") + b"\n")
        return -1 if at < 0 else self.keys.count(b"\n", 0, at)


def unpack(block: KeyedBlock, where: str) -> KeyedRows:
    """The rows of a stored block: DamagedTableError naming `where` if it fails its check."""
    found = decode(block, where)
    return KeyedRows(found.keys[1:-1].decode().split("\n"), found.ply, found.value, found.depth)


def decode(block: KeyedBlock, where: str) -> FoundBlock:
    """A stored block for lookups (`unpack`'s checks): DamagedTableError naming `where` if it
    fails its check or its contents disagree with its row."""
    first, count, data, check = block
    try:
        if not (isinstance(first, str) and type(count) is int and count > 0
                and isinstance(data, bytes | bytearray | memoryview) and type(check) is int):
            raise ValueError("a column of the wrong type")
        raw = zstandard.ZstdDecompressor().decompress(bytes(data))
        if zlib.crc32(raw) != check:
            raise ValueError("its check does not match")
        ply = np.frombuffer(raw, "<i4", count, 0)
        value = np.frombuffer(raw, "i1", count, 4 * count)
        depth = np.frombuffer(raw, "<i4", count, 5 * count)
        keys = b"\n" + raw[9 * count:] + b"\n"
        keys.decode()  # UTF-8, as written (a block that is not says so)
        # (The values' range checked in numpy: a block's in a few microseconds, where a set of
        # them took a sixth of a block's decoding.)
        if keys.count(b"\n") != count + 1 or not keys.startswith(b"\n" + first.encode() + b"\n") \
                or bool(((value < -1) | (value > 1)).any()):
            raise ValueError("its contents disagree with its row")
    except (ValueError, zstandard.ZstdError, UnicodeError) as e:
        raise DamagedTableError(f"{where}: the block at key {str(first)!r:.40} is damaged ({e});"
                                " run `tablebase verify`, then rebuild the table with --force",
                                "a block that fails its check") from e
    return FoundBlock(keys, ply, value, depth)


class KeyedReader:
    """One complete table of the keyed layout, read through `run` (`mark`: the driver's
    parameter mark, ? or %s)."""

    by_ply = False

    def __init__(self, run: Run, quoted: str, label: str, count: int, mark: str,
                 source: KeyedSource) -> None:
        self._run, self._quoted, self._label, self._mark = run, quoted, label, mark
        self.count = count
        self._source = source
        self.table = source.table
        self.close = source.close
        self._cache: OrderedDict[str, Any] = OrderedDict()  # decoded blocks by first key
        self._firsts: list[str] | None = None

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Read inside one transaction. What the reader keeps (the blocks' first keys, decoded
        blocks) is kept only while the table is the catalogue's: once a rebuild has replaced
        it, this forgets them and raises DatabaseError, as a read of a dropped table would
        (its reader then looks the game's tables up again)."""
        with self._source.snapshot():
            if self._keeps() and not self._source.current():
                self._forget()
                raise DatabaseError(f"{self._label} (table {self.table}) was replaced by a"
                                    " rebuild")
            yield

    def _keeps(self) -> bool:
        """Whether the reader keeps anything of its table between snapshots."""
        return self._firsts is not None or bool(self._cache)

    def _forget(self) -> None:
        """Forget what the reader kept of a table a rebuild has replaced."""
        self._firsts = None
        self._cache.clear()

    def _blocks_of(self, keys: Sequence[str]) -> list[FoundBlock | None]:
        """The decoded block that would hold each key, None before the first block. The
        blocks' first keys are read once (a few thousand rows for millions of positions), so a
        key whose block is cached costs a bisect; the blocks not cached are fetched in one
        query (a position's moves lead to a dozen blocks: a query each took a third of it)."""
        if self._firsts is None:
            # Sorted here, in Python's order (the blocks' own): a server's collation may differ.
            self._firsts = sorted(str(r[0]) for r in self._run(
                f"SELECT first_key FROM {self._quoted}", []))
        firsts = [self._firsts[at] if at >= 0 else None
                  for at in (bisect_right(self._firsts, key) - 1 for key in keys)]
        found = self._held([f for f in firsts if f is not None], decode)
        for first in firsts:
            if first is not None and first not in found:  # the table changed under its reader
                raise DamagedTableError(f"{self._label}: a block is missing (first key"
                                        f" {first!r:.40}); rebuild the table")
        return [None if first is None else found[first] for first in firsts]

    def _held(self, firsts: Sequence[str], decoder: Callable[[KeyedBlock, str], Any]
              ) -> dict[str, Any]:
        """The blocks whose first keys are `firsts`, decoded by `decoder`: from the cache, or
        fetched in one query a run of _FETCHED and cached; a key no row has is left out.
        (Held here too: more blocks than the cache keeps may be asked at once.)"""
        found: dict[str, Any] = {}
        missing = []
        for first in dict.fromkeys(firsts):
            cached = self._cache.get(first)
            if cached is None:
                missing.append(first)
            else:
                self._cache.move_to_end(first)
                found[first] = cached
        for start in range(0, len(missing), _FETCHED):
            for row in self._fetch(missing[start:start + _FETCHED]):
                block = decoder(KeyedBlock(*row), self._label)  # type: ignore[arg-type]
                found[str(row[0])] = self._cache[str(row[0])] = block
                if len(self._cache) > CACHED_BLOCKS:
                    self._cache.popitem(last=False)
        return found

    def _fetch(self, firsts: list[str]) -> list[tuple[object, ...]]:
        """The rows (first key, count, data, check) of the blocks whose first keys are
        `firsts`, in one query; a key no row has is left out."""
        marks = ", ".join([self._mark] * len(firsts))
        return self._run(f"SELECT first_key, count, data, chk FROM {self._quoted}"
                         f" WHERE first_key IN ({marks})", firsts)

    def _in_order(self, batch: int) -> Iterator[KeyedBlock]:
        """Every stored block in key order, `batch` rows a query, undecoded."""
        after: str | None = None
        while True:
            where = "" if after is None else f" WHERE first_key > {self._mark}"
            rows = self._run(f"SELECT first_key, count, data, chk FROM {self._quoted}{where}"
                             f" ORDER BY first_key LIMIT {batch}", [] if after is None else [after])
            if not rows:
                return
            for row in rows:
                yield KeyedBlock(*row)  # type: ignore[arg-type]
            after = str(rows[-1][0])

    def lookup(self, keys: Sequence[str]) -> KeyedLookup:
        """Value (for the side to move), depth and ply of each key, in the order asked."""
        n = len(keys)
        out = KeyedLookup(np.zeros(n, bool), np.zeros(n, np.int8), np.full(n, -1, np.int32),
                          np.full(n, -1, np.int32))
        # A run of keys at a time: the blocks one run needs are held at once (at most _FETCHED).
        blocks = (block for start in range(0, n, _FETCHED)
                  for block in self._blocks_of(keys[start:start + _FETCHED]))
        for i, (key, block) in enumerate(zip(keys, blocks)):
            if block is None:
                continue
            at = block.at(key)
            if at >= 0:
                out.found[i] = True
                out.value[i], out.depth[i], out.ply[i] = block.value[at], block.depth[at], \
                    block.ply[at]
        return out

    def chunks(self) -> Iterator[KeyedRows]:
        """Every stored position in key order, a block at a time, each block checked."""
        for block in self._in_order(16):
            yield unpack(block, self._label)
