"""An order-independent checksum of a positions table, computed on numpy chunks.

Each row (code, ply, value, depth) is hashed with splitmix64 and the hashes are
summed modulo 2**64, so chunks may arrive in any order and any size.
"""
from __future__ import annotations

import numpy as np

_MASK = (1 << 64) - 1


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a well-spread hash of uint64 values, wrapping on purpose."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


class TableChecksum:
    """Accumulates the checksum of rows fed in chunks."""

    def __init__(self) -> None:
        self._total = 0

    def add(self, codes: np.ndarray, ply: np.ndarray, value: np.ndarray, depth: np.ndarray) -> None:
        """Fold a chunk of rows into the checksum."""
        with np.errstate(over="ignore"):
            tail = ((np.asarray(ply, np.uint64) << np.uint64(16))
                    | ((np.asarray(value, np.int64) + 1).astype(np.uint64) << np.uint64(8))
                    | np.asarray(depth, np.uint64))
            row = mix64(mix64(np.asarray(codes, np.int64).astype(np.uint64)) ^ tail)
            self._total = (self._total + int(row.sum(dtype=np.uint64))) & _MASK

    def merge(self, digest: str) -> None:
        """Fold in the checksum (as `hexdigest` gave it) of other rows of the same table."""
        self._total = (self._total + int(digest, 16)) & _MASK

    def hexdigest(self) -> str:
        """The checksum as 16 hex digits."""
        return f"{self._total:016x}"
