"""Sets and maps keyed by code for one tier at a time.

Deduplicating children: a direct array of one byte per code where 3**cells bytes fit the memory
plan, else a bitmap of one bit per code where that fits, else (builder/sortedruns.py) sorting.
Looking up the next tier's scores: the byte array where it fits and the tier is dense in it,
else an open-addressing hash table of the tier, else binary search in its sorted arrays.
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from tablebase.builder import kernels
from tablebase.builder.games.tier_lookup import (
    DIRECT,
    HASH_CELLS,
    HASHED,
    OFFSET,
    SORTED,
    NextTier,
    kernel_array,
)
from tablebase.builder.hashtable import fill_hash
from tablebase.db.scores import WIN_SCORE

# Table bytes per stored position above which a direct table loses to a hash table or search.
SPARSE = 64
_NO_SLOTS = np.empty(0, dtype=np.uint8)
_NO_CODES = np.empty(0, dtype=np.int64)
_NO_SCORES = np.empty(0, dtype=np.int8)


def bitmap_bytes(cells: int) -> int:
    """Bytes of the two bitmaps (one per marking thread) over every code of `cells` cells."""
    return 2 * 8 * -(-3 ** cells // 64)


def put_scores(slots: np.ndarray, codes: np.ndarray, scores: np.ndarray) -> None:
    """Write `scores` into a direct table's `slots` (a byte per code, score + OFFSET) at `codes`,
    a few million at a time (each step's index array is a temporary)."""
    step = 1 << 22
    for start in range(0, len(codes), step):
        part = np.asarray(codes[start : start + step], dtype=np.int64)
        slots[part] = (np.asarray(scores[start : start + step]).astype(np.int16)
                       + OFFSET).astype(np.uint8)


def hash_slots(positions: int) -> int:
    """Slots of the hash table of a tier of `positions`: a power of two, at most half full."""
    return 1 << max(4, (2 * positions - 1).bit_length())


def hash_bytes(positions: int) -> int:
    """Bytes of the hash table of a tier of `positions`: a word (a code and its score) a slot."""
    return 8 * hash_slots(positions)


class CodeTable:
    """Deduplicate codes by marking, and look up one int8 score per code of the loaded tier.

    `direct`: a byte per code, for marking and lookups; `bits`: two bitmaps for marking (one
    per thread); `hashed`: lookups in a hash table of the tier where there is no byte array
    (codes of at most HASH_CELLS cells; else binary search).
    """

    def __init__(self, cells: int, direct: bool, bits: bool = False, hashed: bool = False) -> None:
        self.size = 3 ** cells
        self.direct = direct
        self.bits = bits
        self.hashed = hashed and not direct and cells <= HASH_CELLS
        self._slots = np.zeros(self.size, dtype=np.uint8) if direct else None
        # np.zeros: the OS hands out zero pages lazily, so untouched words cost nothing.
        self._words = [np.zeros(-(-self.size // 64), dtype=np.uint64) for _ in range(2)] \
            if bits else []
        self._codes: np.ndarray = _NO_CODES
        self._scores: np.ndarray = _NO_SCORES
        self._keys, self._shift = _NO_CODES, 0
        # The hash table's memory, kept from tier to tier: fresh pages cost a fault each, and
        # a build's tiers grow to the largest and shrink after it.
        self._space = _NO_CODES

    @classmethod
    def over(cls, cells: int, slots: np.ndarray) -> CodeTable:
        """A direct lookup table over `slots` (a byte per code, score + OFFSET, 0 for absent)
        that others fill: a file every worker of one machine maps. `load` is never called."""
        table = cls(cells, direct=False)
        table.direct, table._slots = True, slots
        return table

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
        if self._slots is not None:
            put_scores(self._slots, codes, scores)
        elif self.hashed:
            slots = hash_slots(len(codes))
            if len(self._space) < slots:
                self._space = _NO_CODES  # freed before the larger one is made
                self._space = np.empty(slots, dtype=np.int64)
            self._keys = self._space[:slots]  # emptied by fill_hash, on both cores
            self._shift = 64 - (slots.bit_length() - 1)
            fill_hash(np.asarray(codes, dtype=np.int64), np.asarray(scores, np.int8),
                              self._keys, self._shift)

    def arrays(self) -> NextTier:
        """The loaded tier as a tier's kernels read it (TierKernels.solve)."""
        if self._slots is not None:
            return NextTier(DIRECT, kernel_array(self._slots, np.uint8), _NO_CODES, _NO_SCORES,
                            0, WIN_SCORE)
        if self.hashed:
            return NextTier(HASHED, _NO_SLOTS, self._keys, _NO_SCORES, self._shift, WIN_SCORE)
        return NextTier(SORTED, _NO_SLOTS, kernel_array(self._codes, np.int64),
                        kernel_array(self._scores, np.int8), 0, WIN_SCORE)

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
        if self._slots is not None and len(self._codes):
            step = 1 << 22
            for start in range(0, len(self._codes), step):
                self._slots[np.asarray(self._codes[start : start + step], dtype=np.int64)] = 0
        self._codes, self._scores = _NO_CODES, _NO_SCORES
        self._keys = _NO_CODES
