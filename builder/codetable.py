"""Sets and maps keyed by code for one tier at a time: a direct array indexed by code where
3**cells bytes fit the memory plan, sorted arrays with binary search otherwise."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

# Scores live in [-64, 64]; a direct slot holds score + _OFFSET so that 0 means "absent"
# and a fresh np.zeros table (lazily allocated by the OS) starts empty. Marked codes hold 1.
_OFFSET = 66
_MARK = 1


class CodeTable:
    """Deduplicate codes by marking, and look up one int8 score per code of the loaded tier."""

    def __init__(self, cells: int, direct: bool) -> None:
        self.size = 3 ** cells
        self.direct = direct
        self._slots = np.zeros(self.size, dtype=np.uint8) if direct else None
        self._codes: np.ndarray = np.empty(0, dtype=np.int64)
        self._scores: np.ndarray = np.empty(0, dtype=np.int8)

    # --- deduplication by marking (direct tables only) -------------------------

    def mark(self, codes: np.ndarray) -> None:
        """Remember `codes` (duplicates welcome); read them back with `marked`."""
        assert self._slots is not None
        self._slots[codes] = _MARK

    def marked(self, chunk: int) -> Iterator[np.ndarray]:
        """Every marked code, ascending, in chunks; the marks are cleared as they are read."""
        assert self._slots is not None
        step = max(chunk, 1 << 24)
        for start in range(0, self.size, step):
            window = self._slots[start : start + step]
            found = np.flatnonzero(window)
            if found.size:
                window[found] = 0
                for i in range(0, found.size, chunk):
                    yield found[i : i + chunk].astype(np.int64) + start

    # --- lookup ------------------------------------------------------------------

    def load(self, codes: np.ndarray, scores: np.ndarray) -> None:
        """Make sorted `codes` with their `scores` the tier that `lookup` answers from."""
        self.clear()
        self._codes, self._scores = codes, scores
        if self._slots is not None:
            step = 1 << 22
            for start in range(0, len(codes), step):
                part = np.asarray(codes[start : start + step])
                self._slots[part] = (np.asarray(scores[start : start + step]).astype(np.int16)
                                     + _OFFSET).astype(np.uint8)

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """The scores of `codes`, every one of which must be in the loaded tier."""
        if self._slots is not None:
            raw = self._slots[codes]
            if (raw < _OFFSET - 64).any():
                missing = int(codes[np.flatnonzero(raw < _OFFSET - 64)[0]])
                raise LookupError(f"code {missing} is not in the loaded tier")
            return (raw.astype(np.int16) - _OFFSET).astype(np.int8)
        if len(self._codes) == 0:
            raise LookupError(f"code {int(codes[0])} is not in the loaded tier")
        at = np.minimum(np.searchsorted(self._codes, codes), len(self._codes) - 1)
        found = np.asarray(self._codes[at])
        if not np.array_equal(found, codes):
            raise LookupError(f"code {int(codes[found != codes][0])} is not in the loaded tier")
        return np.asarray(self._scores[at])

    def clear(self) -> None:
        """Forget the loaded tier."""
        if self._slots is not None and len(self._codes):
            step = 1 << 22
            for start in range(0, len(self._codes), step):
                self._slots[np.asarray(self._codes[start : start + step])] = 0
        self._codes = np.empty(0, dtype=np.int64)
        self._scores = np.empty(0, dtype=np.int8)
