"""The keyed layout: a table of a game whose positions are Python values (a user's class),
one row a stored position under its key, the text of its orbit's smallest image:

    key TEXT (the primary key), ply (fewest moves from the table's start), value (-1, 0, +1
    for the side to move), depth (plies to the end; -1: a draw by endless play), check

`check` is a 32-bit digest of the row's four fields, tested on every read: a damaged row is an
error naming the table, never another answer. The table's checksum (db/checksum.py) folds in
each row's key digest, ply, value and depth. One reader serves both drivers: each store hands
it a function that runs one statement (`Run`) and its parameter mark.
"""
from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

import numpy as np

from tablebase.db.errors import DamagedTableError
from tablebase.db.facts import CHUNK, IN_BATCH

# Runs one statement with its parameters and returns its rows.
Run = Callable[[str, Sequence[object]], list[tuple[object, ...]]]
_MASK = 0xFFFFFFFF


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


def key_digests(keys: Sequence[str]) -> np.ndarray:
    """CRC-32 of each key's UTF-8 bytes, as int64."""
    return np.fromiter((zlib.crc32(k.encode()) for k in keys), dtype=np.int64, count=len(keys))


def row_checks(digests: np.ndarray, ply: np.ndarray, value: np.ndarray,
               depth: np.ndarray) -> np.ndarray:
    """Each row's check: its key's digest mixed with its ply, value and depth (int64)."""
    mixed = (np.asarray(ply, np.int64) * 0x9E3779B1 + (np.asarray(value, np.int64) + 1)
             * 0x85EBCA77 + (np.asarray(depth, np.int64) + 2) * 0xC2B2AE3D) & _MASK
    return (np.asarray(digests, np.int64) ^ mixed) & _MASK


def _row_check(key: str, ply: int, value: int, depth: int) -> int:
    """`row_checks` of one row, in plain Python (a probe's few rows)."""
    mixed = (ply * 0x9E3779B1 + (value + 1) * 0x85EBCA77 + (depth + 2) * 0xC2B2AE3D) & _MASK
    return (zlib.crc32(key.encode()) ^ mixed) & _MASK


class KeyedReader:
    """One complete table of the keyed layout, read through `run` (`mark`: the driver's
    parameter mark, ? or %s)."""

    by_ply = False

    def __init__(self, run: Run, quoted: str, label: str, count: int, mark: str,
                 close: Callable[[], None]) -> None:
        self._run, self._quoted, self._label, self._mark = run, quoted, label, mark
        self.count = count
        self.close = close

    def _checked(self, row: tuple[object, ...]) -> tuple[str, int, int, int]:
        key, ply, value, depth, check = row
        if not (isinstance(key, str) and all(type(v) is int for v in (ply, value, depth, check))
                and value in (-1, 0, 1) and _row_check(key, ply, value, depth) == check):  # type: ignore[arg-type]
            shown = ", ".join(f"{v!r:.30}" for v in row)
            raise DamagedTableError(f"{self._label} is damaged: a row ({shown}) fails its check;"
                                    " run `tablebase verify`, then rebuild the table with --force",
                                    "a row that fails its check")
        return key, ply, value, depth  # type: ignore[return-value]

    def lookup(self, keys: Sequence[str]) -> KeyedLookup:
        """Value (for the side to move), depth and ply of each key, in the order asked."""
        wanted = list(set(keys))
        found: dict[str, tuple[int, int, int]] = {}
        for start in range(0, len(wanted), IN_BATCH):
            part = wanted[start:start + IN_BATCH]
            marks = ",".join([self._mark] * len(part))
            for row in self._run(f"SELECT key, ply, value, depth, chk FROM {self._quoted}"
                                 f" WHERE key IN ({marks})", part):
                key, ply, value, depth = self._checked(row)
                found[key] = (value, depth, ply)
        n = len(keys)
        out = KeyedLookup(np.zeros(n, bool), np.zeros(n, np.int8), np.full(n, -1, np.int32),
                          np.full(n, -1, np.int32))
        for i, key in enumerate(keys):
            hit = found.get(key)
            if hit is not None:
                out.found[i] = True
                out.value[i], out.depth[i], out.ply[i] = hit
        return out

    def chunks(self, batch: int = CHUNK) -> Iterator[KeyedRows]:
        """Every stored position in key order, `batch` at a time, each row checked."""
        after: str | None = None
        while True:
            where = "" if after is None else f" WHERE key > {self._mark}"
            rows = self._run(f"SELECT key, ply, value, depth, chk FROM {self._quoted}{where}"
                             f" ORDER BY key LIMIT {int(batch)}", [] if after is None else [after])
            if not rows:
                return
            checked = [self._checked(row) for row in rows]
            after = checked[-1][0]
            yield KeyedRows([r[0] for r in checked], np.array([r[1] for r in checked], np.int32),
                            np.array([r[2] for r in checked], np.int8),
                            np.array([r[3] for r in checked], np.int32))
