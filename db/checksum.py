"""An order-independent checksum of a positions table, computed on numpy chunks.

Each row (code, ply, value, depth) is hashed with splitmix64 and the hashes are
summed modulo 2**64, so chunks may arrive in any order and any size.
"""
from __future__ import annotations

import numpy as np

from tablebase.compiled import njit, read_only

_MASK = (1 << 64) - 1


@njit(cache=True, nogil=True)
def mix64(x):  # type: ignore[no-untyped-def]
    """splitmix64's finaliser: a well-spread hash of uint64 values (an array or one), wrapping
    on purpose."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True)
def _rows_total(codes, ply, value, depth):  # type: ignore[no-untyped-def]
    """The sum (mod 2**64) of the rows' hashes, in one pass (no temporary arrays)."""
    total = np.uint64(0)
    for i in range(codes.shape[0]):
        tail = ((np.uint64(ply[i]) << np.uint64(16)) | (np.uint64(value[i] + 1) << np.uint64(8))
                | np.uint64(depth[i]))
        total += mix64(mix64(np.uint64(codes[i])) ^ tail)
    return total


class TableChecksum:
    """Accumulates the checksum of rows fed in chunks."""

    def __init__(self) -> None:
        self._total = 0

    def add(self, codes: np.ndarray, ply: np.ndarray, value: np.ndarray, depth: np.ndarray) -> None:
        """Fold a chunk of rows into the checksum."""
        total = _rows_total(read_only(codes), *(np.ascontiguousarray(x) for x in (ply, value, depth)))
        self._total = (self._total + int(total)) & _MASK

    def merge(self, digest: str) -> None:
        """Fold in the checksum (as `hexdigest` gave it) of other rows of the same table."""
        self._total = (self._total + int(digest, 16)) & _MASK

    def hexdigest(self) -> str:
        """The checksum as 16 hex digits."""
        return f"{self._total:016x}"
