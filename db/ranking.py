"""Ranks of codes, so that a block can store small gaps between ranks instead of large gaps
between codes. A code is base 3, one digit a cell; its *class* is the number of 1 and 2 digits
it holds (x's and o's: one class a ply). A *support map* may say that a digit can be non-zero
only if another, higher digit is (a stone needs the stone under it, on a gravity board: the
builder passes the map, db knows nothing of games). A code's rank is the number of codes of its
class that keep the map and are smaller: ranks are dense (0 .. size - 1), rise with the codes,
and `unrank` gives the code back.

    digits   d(n-1) ... d(i+1) d(i) ... d(0)      walked from the highest digit down
    count[i][open][x][o]  = ways to fill digits i-1 .. 0 with x 1's and o 2's, `open` being the
                            chains whose last digit walked was non-zero

A digit supports at most one other, so the map's digits form chains (a column of a gravity
board), each a bit of `open`; a digit that needs another may be non-zero only while its
chain's bit is set, and every digit of a chain sets or clears the bit.
"""
from __future__ import annotations

from functools import cached_property, lru_cache

import numpy as np

# A stored support map's byte for a digit that needs no other.
FREE = 255
# Entries of a ranking's table at most (8 bytes each): a bigger class falls back to codes.
MAX_TABLE = 1 << 22


class Ranking:
    """The ranks of one class (`x` 1's and `o` 2's) of codes of len(`supports`) digits under a
    support map (`supports[i]`: the digit that digit i needs, higher than i, or -1); ValueError
    if the map is not one or the table would be too big. The classes of a map share one
    table of counts (`_counts`): what a reader of every ply keeps is one table, not one a ply."""

    def __init__(self, supports: tuple[int, ...], x: int, o: int) -> None:
        n = len(supports)
        if x < 0 or o < 0 or x + o > n:
            raise ValueError(f"no codes of {n} digits hold {x} x's and {o} o's")
        half = (n + 1) // 2
        self.table, bits, self.full = _counts(supports, max(x, half), max(o, half))
        self.digits, self.x, self.o = n, x, o
        self.bits = np.array(bits, np.int64)
        self.needs = np.array([s >= 0 for s in supports], np.bool_)
        self.size = int(self.table[n, self.full, x, o])

    def below(self, code: int) -> tuple[int, bool]:
        """(how many codes of the class keeping the map are smaller than `code`, whether
        `code` is one of them), for any code from 0 to 3 ** digits. Plain Python (a probe
        ranks a few codes; loading compiled code would cost more than it saves)."""
        if code >= 3 ** self.digits:
            return self.size, False
        flat, steps = self._flat, self._steps
        s_mask, s_x = self._strides
        mask, x, o, rank = self.full, self.x, self.o, 0
        power = 3 ** (self.digits - 1)
        for i in range(self.digits - 1, -1, -1):
            d, code = divmod(code, power)
            power //= 3
            base, k, needs = steps[i]
            if k >= 0:
                off, on = mask & ~(1 << k), mask | (1 << k)
                allowed = not needs or (mask >> k) & 1
            else:
                off = on = mask
                allowed = True
            if d == 0:
                mask = off
                continue
            rank += flat[base + off * s_mask + x * s_x + o]
            if d == 1:
                if not allowed or x == 0:
                    return rank, False  # no code of the class goes on from here
                x -= 1
            else:
                if allowed and x > 0:
                    rank += flat[base + on * s_mask + (x - 1) * s_x + o]
                if not allowed or o == 0:
                    return rank, False
                o -= 1
            mask = on
        return rank, x == 0 and o == 0

    @cached_property
    def _flat(self) -> memoryview:
        return np.ascontiguousarray(self.table).data.cast("B").cast("q")

    @cached_property
    def _steps(self) -> list[tuple[int, int, bool]]:
        """Per digit: where its counts start in the flat table, its chain's bit, whether it
        needs another digit."""
        size = self.table[0].size
        return [(i * size, int(self.bits[i]), bool(self.needs[i])) for i in range(self.digits)]

    @cached_property
    def _strides(self) -> tuple[int, int]:
        _, masks, xs, os_ = self.table.shape
        return xs * os_, os_

    def ranks(self, codes: np.ndarray) -> np.ndarray:
        """The rank of each code (int64), -1 for a code outside the class or the map."""
        from tablebase.compiled import read_only  # numba: not imported to answer a probe
        from tablebase.db.ranking_kernels import rank_codes
        return rank_codes(read_only(codes, np.int64), self.table, self.bits,
                          self.needs, self.full, self.x, self.o)

    def codes(self, ranks: np.ndarray) -> np.ndarray:
        """The code of each rank (0 .. size - 1)."""
        from tablebase.db.ranking_kernels import unrank_codes
        return unrank_codes(np.ascontiguousarray(ranks, np.int64), self.table, self.bits,
                            self.needs, self.full, self.x, self.o)


@lru_cache(maxsize=8)
def _counts(supports: tuple[int, ...], x: int, o: int) -> tuple[np.ndarray, list[int], int]:
    """(count[i][open][x][o] for up to `x` 1's and `o` 2's, each digit's chain bit or -1, the
    mask of every chain open) of a support map; ValueError if it is not one or too big."""
    n = len(supports)
    supported = [s for s in supports if s >= 0]
    if any(not i < s < n for i, s in enumerate(supports) if s >= 0) or len(
            set(supported)) != len(supported):
        raise ValueError("a support map names higher digits, each at most once")
    bit = [-1] * n
    chains = 0
    for i in range(n - 1, -1, -1):  # a digit's support is walked before it
        if supports[i] >= 0:
            bit[i] = bit[supports[i]]
        elif i in supported:
            bit[i], chains = chains, chains + 1
    if (n + 1) * (x + 1) * (o + 1) << chains > MAX_TABLE:
        raise ValueError(f"the ranking table would need {chains} chains")
    table = np.zeros((n + 1, 1 << chains, x + 1, o + 1), np.int64)
    table[0, :, 0, 0] = 1
    masks = np.arange(1 << chains)
    for c in range(1, n + 1):
        k = bit[c - 1]
        off = masks & ~(1 << k) if k >= 0 else masks
        on = masks | (1 << k) if k >= 0 else masks
        allowed = ((masks >> k) & 1) == 1 if supports[c - 1] >= 0 else np.ones(len(masks), bool)
        table[c] = table[c - 1][off]
        stone = np.zeros_like(table[c])
        stone[:, 1:, :] += table[c - 1][on][:, :-1, :]
        stone[:, :, 1:] += table[c - 1][on][:, :, :-1]
        table[c] += np.where(allowed[:, None, None], stone, 0)
    table.setflags(write=False)
    return table, bit, (1 << chains) - 1


@lru_cache(maxsize=64)
def ranking(supports: tuple[int, ...], x: int, o: int) -> Ranking:
    """The (cached) ranking of a class; ValueError as `Ranking`."""
    return Ranking(supports, x, o)


def stones(code: int, digits: int) -> tuple[int, int]:
    """The 1's and 2's of `code` (x's and o's)."""
    x = o = 0
    for _ in range(digits):
        code, d = divmod(code, 3)
        x += d == 1
        o += d == 2
    return x, o


def free_map(digits: int) -> tuple[int, ...]:
    """The support map under which every digit is free."""
    return (-1,) * digits
