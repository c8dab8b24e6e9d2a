"""Sets and maps keyed by code for one tier at a time: a direct array of one byte per code
where 3**cells bytes fit the memory plan, a bitmap of one bit per code (marking children, and
ranking a code in its tier) where 3**cells bits fit, sorted arrays with binary search otherwise."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from builder import kernels
from builder.kernels import DIRECT, OFFSET, RANKED, SORTED

_MARK = 1  # a marked code's byte in a direct table (a stored score's byte is score + OFFSET)
_NO_SLOTS = np.empty(0, dtype=np.uint8)
_NO_WORDS = np.empty(0, dtype=np.uint64)
_NO_COUNTS = np.empty(0, dtype=np.int64)


def bitmap_bytes(cells: int, copies: int = 2) -> int:
    """Bytes of `copies` bitmaps over every code of `cells` cells, with the rank counts."""
    words = -(-3 ** cells // 64)
    return copies * words * 8 + (words // kernels.BLOCK_WORDS + 1) * 8


class CodeTable:
    """Deduplicate codes by marking, and look up one int8 score per code of the loaded tier.

    `direct`: a byte per code (marking and lookup); `bits`: two bitmaps (one per marking
    thread, and the loaded tier's set for rank lookups) and a running count per block."""

    def __init__(self, cells: int, direct: bool, bits: bool = False) -> None:
        self.size = 3 ** cells
        self.direct = direct
        self.bits = bits
        self._slots = np.zeros(self.size, dtype=np.uint8) if direct else None
        words = -(-self.size // 64)
        # np.zeros: the OS hands out zero pages lazily, so untouched words cost nothing.
        self._words = [np.zeros(words, dtype=np.uint64) for _ in range(2)] if bits else []
        self._counts = (np.zeros(words // kernels.BLOCK_WORDS + 1, dtype=np.int64)
                        if bits else _NO_COUNTS)
        self._codes: np.ndarray = np.empty(0, dtype=np.int64)
        self._scores: np.ndarray = np.empty(0, dtype=np.int8)

    @property
    def can_mark(self) -> bool:
        """Whether children can be deduplicated by marking rather than sorting."""
        return self.direct or self.bits

    @property
    def mark_bytes(self) -> int:
        """Bytes that reading the marks back scans."""
        return self.size // 8 if self.bits else self.size

    # --- deduplication by marking ----------------------------------------------

    def mark_targets(self) -> list[np.ndarray]:
        """Where compiled marking writes: one bitmap per thread, or the byte table alone."""
        if self.bits:
            return self._words
        assert self._slots is not None
        return [self._slots]

    def mark(self, codes: np.ndarray) -> None:
        """Remember `codes` (duplicates welcome); read them back with `marked`."""
        if self.bits:
            kernels.set_bits(self._words[0], np.asarray(codes, dtype=np.int64))
        else:
            assert self._slots is not None
            self._slots[codes] = _MARK

    def marked(self, chunk: int) -> Iterator[np.ndarray]:
        """Every marked code, ascending, in chunks; the marks are cleared as they are read."""
        if self.bits:
            out = np.empty(max(chunk, 1 << 12) + 64, dtype=np.int64)
            word = 0
            while word < len(self._words[0]):
                n, word = kernels.take_bits(self._words[0], self._words[1], word, out)
                if n:
                    yield out[:n].copy()
            return
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
        step = 1 << 22
        for start in range(0, len(codes), step):
            part = np.asarray(codes[start : start + step], dtype=np.int64)
            if self._slots is not None:
                self._slots[part] = (np.asarray(scores[start : start + step]).astype(np.int16)
                                     + OFFSET).astype(np.uint8)
            elif self.bits:
                kernels.set_bits(self._words[0], part)
        if self._slots is None and self.bits and len(codes):
            # Rank counts need the whole tier in memory: a tier is at most a few hundred MB.
            self._codes = np.asarray(codes, dtype=np.int64)
            kernels.count_blocks(self._words[0], self._codes, self._counts)

    def arrays(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What a compiled lookup needs: (DIRECT / RANKED / SORTED, byte slots, bitmap, rank
        counts, sorted codes, scores), unused parts empty."""
        scores = np.asarray(self._scores, dtype=np.int8)
        if self._slots is not None:
            return DIRECT, self._slots, _NO_WORDS, _NO_COUNTS, _NO_COUNTS, scores
        if self.bits:
            return RANKED, _NO_SLOTS, self._words[0], self._counts, _NO_COUNTS, scores
        return SORTED, _NO_SLOTS, _NO_WORDS, _NO_COUNTS, np.asarray(self._codes, np.int64), scores

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """The scores of `codes`, every one of which must be in the loaded tier."""
        if self._slots is not None:
            raw = self._slots[codes]
            if (raw < OFFSET - 64).any():
                missing = int(codes[np.flatnonzero(raw < OFFSET - 64)[0]])
                raise LookupError(f"code {missing} is not in the loaded tier")
            return (raw.astype(np.int16) - OFFSET).astype(np.int8)
        if len(self._codes) == 0:
            raise LookupError(f"code {int(codes[0])} is not in the loaded tier")
        at = np.minimum(np.searchsorted(self._codes, codes), len(self._codes) - 1)
        found = np.asarray(self._codes[at])
        if not np.array_equal(found, codes):
            raise LookupError(f"code {int(codes[found != codes][0])} is not in the loaded tier")
        return np.asarray(self._scores[at])

    def clear(self) -> None:
        """Forget the loaded tier."""
        if len(self._codes):
            step = 1 << 22
            for start in range(0, len(self._codes), step):
                part = np.asarray(self._codes[start : start + step], dtype=np.int64)
                if self._slots is not None:
                    self._slots[part] = 0
                elif self.bits:
                    kernels.clear_bits(self._words[0], part)
        self._codes = np.empty(0, dtype=np.int64)
        self._scores = np.empty(0, dtype=np.int8)
