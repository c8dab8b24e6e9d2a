"""Sets and maps keyed by code for one tier: a direct array indexed by code where
3**cells bytes fit the memory budget, sorted arrays with binary search otherwise."""
from __future__ import annotations

import numpy as np

# Scores live in [-64, 64]; a direct slot holds score + _OFFSET so that 0 means "absent"
# and a fresh np.zeros table (lazily allocated by the OS) starts empty.
_OFFSET = 65


def sorted_unique(codes: np.ndarray) -> np.ndarray:
    """The distinct values of `codes`, sorted (sorts `codes` in place)."""
    # np.unique hashes in numpy 2.x, which is several times slower than sorting int64 here.
    codes.sort()
    keep = np.empty(len(codes), dtype=bool)
    keep[:1] = True
    np.not_equal(codes[1:], codes[:-1], out=keep[1:])
    return codes[keep]


class CodeTable:
    """Deduplicate codes and look up one int8 score per code, for one tier at a time."""

    def __init__(self, cells: int, direct_bytes_limit: int) -> None:
        self.size = 3 ** cells
        self.direct = self.size <= direct_bytes_limit
        self._slots = np.zeros(self.size, dtype=np.uint8) if self.direct else None
        self._codes = np.empty(0, dtype=np.int64)
        self._scores = np.empty(0, dtype=np.int8)

    def unique(self, chunks: list[np.ndarray]) -> np.ndarray:
        """The sorted distinct codes among `chunks`."""
        total = sum(len(c) for c in chunks)
        if total == 0:
            return np.empty(0, dtype=np.int64)
        # Scanning the direct table costs its size; sorting costs the candidates.
        if self._slots is not None and self.size <= 64 * total:
            for chunk in chunks:
                self._slots[chunk] = 1
            found = np.flatnonzero(self._slots).astype(np.int64)
            self._slots[found] = 0
            return found
        return sorted_unique(np.concatenate(chunks))

    def load(self, codes: np.ndarray, scores: np.ndarray) -> None:
        """Make `codes` (sorted) with their `scores` the tier that `lookup` answers from."""
        self.clear()
        self._codes, self._scores = codes, scores
        if self._slots is not None:
            self._slots[codes] = (scores.astype(np.int16) + _OFFSET).astype(np.uint8)

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """The scores of `codes`, every one of which must be in the loaded tier."""
        if self._slots is not None:
            raw = self._slots[codes]
            if not raw.all():
                missing = int(codes[np.flatnonzero(raw == 0)[0]])
                raise LookupError(f"code {missing} is not in the loaded tier")
            return (raw.astype(np.int16) - _OFFSET).astype(np.int8)
        at = np.searchsorted(self._codes, codes)
        at_clipped = np.minimum(at, len(self._codes) - 1)
        if len(self._codes) == 0 or not np.array_equal(self._codes[at_clipped], codes):
            bad = codes if len(self._codes) == 0 else codes[self._codes[at_clipped] != codes]
            raise LookupError(f"code {int(bad[0])} is not in the loaded tier")
        return self._scores[at_clipped]

    def clear(self) -> None:
        """Forget the loaded tier."""
        if self._slots is not None and len(self._codes):
            self._slots[self._codes] = 0
        self._codes = np.empty(0, dtype=np.int64)
        self._scores = np.empty(0, dtype=np.int8)
