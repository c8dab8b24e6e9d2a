"""The rankings of db/ranking.py over whole arrays, compiled: ranks of codes (packing a block)
and codes of ranks (reading blocks in bulk). Imported on first use: a probe ranks its few codes
in Python and never pays for loading compiled code."""
from __future__ import annotations

import numpy as np

from tablebase.compiled import njit

# The six base-3 digits of each number below 3 ** 6 (low digit first): a code is read a chunk of
# six digits at a time, each chunk split off by a division by a constant.
_SIX = np.array([[(v // 3 ** t) % 3 for t in range(6)] for v in range(729)], np.int64)


@njit(cache=True, nogil=True)
def rank_codes(codes: np.ndarray, table: np.ndarray, bits: np.ndarray, needs: np.ndarray,
               full: int, x0: int, o0: int) -> np.ndarray:  # pragma: no cover - compiled
    """The rank of each code in the class (x0 1's, o0 2's) under the map; -1 outside it.
    Codes in order share their high digits: the walk keeps its state before each digit and
    resumes below the highest digit where a code differs from the one before (found a chunk
    of six digits at a time: on a billion-position table this is a minute of CPU)."""
    n = bits.shape[0]
    groups = (n + 5) // 6
    limit = 1
    for _ in range(n):
        limit = limit * 3 if limit <= (1 << 62) // 3 else (1 << 63) - 1
    out = np.empty(codes.shape[0], np.int64)
    digits = np.zeros(groups * 6, np.int64)
    chunk = np.full(groups, -1, np.int64)  # the code before's chunks (-1: none to resume from)
    now = np.empty(groups, np.int64)
    at_mask = np.empty(n, np.int64)  # the walk's state before each digit
    at_x = np.empty(n, np.int64)
    at_o = np.empty(n, np.int64)
    at_rank = np.empty(n, np.int64)
    at_mask[n - 1], at_x[n - 1], at_o[n - 1], at_rank[n - 1] = full, x0, o0, 0
    stopped = -1  # the digit where the previous walk found its code outside the class
    for j in range(codes.shape[0]):
        code = codes[j]
        if code < 0 or code >= limit:
            out[j] = -1
            for q in range(groups):
                chunk[q] = -1  # start the next walk from the top
            stopped = -1
            continue
        rest = code
        for q in range(groups):
            now[q] = rest % 729
            rest //= 729
        q = groups - 1
        while q >= 0 and now[q] == chunk[q]:
            q -= 1
        if q < 0:
            out[j] = out[j - 1]
            continue
        t = 5
        if chunk[q] >= 0:  # the highest digit of chunk q where the two codes differ
            while _SIX[now[q], t] == _SIX[chunk[q], t]:
                t -= 1
        top = min(q * 6 + t, n - 1)
        for c in range(q + 1):
            chunk[c] = now[c]
            for t in range(6):
                digits[c * 6 + t] = _SIX[now[c], t]
        if stopped > top:  # the same digits as the code before where that one left the class
            out[j] = -1
            continue
        mask, x, o, rank = at_mask[top], at_x[top], at_o[top], at_rank[top]
        stopped = -1
        for i in range(top, -1, -1):
            at_mask[i], at_x[i], at_o[i], at_rank[i] = mask, x, o, rank
            d, k = digits[i], bits[i]
            off, on = mask, mask
            if k >= 0:
                off, on = mask & ~(1 << k), mask | (1 << k)
            allowed = (not needs[i]) or ((mask >> k) & 1) == 1
            if d >= 1:
                if not allowed or (d == 1 and x == 0) or (d == 2 and o == 0):
                    stopped = i
                    break
                rank += table[i, off, x, o]
                if d == 2 and x > 0:
                    rank += table[i, on, x - 1, o]
                mask = on
                if d == 1:
                    x -= 1
                else:
                    o -= 1
            else:
                mask = off
        out[j] = rank if stopped < 0 and x == 0 and o == 0 else -1
    return out


@njit(cache=True, nogil=True)
def unrank_codes(ranks: np.ndarray, table: np.ndarray, bits: np.ndarray, needs: np.ndarray,
                 full: int, x0: int, o0: int) -> np.ndarray:  # pragma: no cover - compiled
    """The code of each rank of the class (ranks from 0 to its size - 1). Ranks in order
    share their high digits: the walk keeps, before each digit, its state and the ranks its
    prefix covers, and resumes at the lowest digit whose prefix covers the next rank."""
    n = bits.shape[0]
    out = np.empty(ranks.shape[0], np.int64)
    power = np.empty(n, np.int64)
    p = 1
    for i in range(n):
        power[i] = p
        p *= 3
    at_mask = np.empty(n, np.int64)
    at_x = np.empty(n, np.int64)
    at_o = np.empty(n, np.int64)
    at_base = np.zeros(n, np.int64)  # the prefix before digit i covers ranks base .. base+size-1
    at_size = np.zeros(n, np.int64)
    at_code = np.zeros(n, np.int64)
    at_mask[n - 1], at_x[n - 1], at_o[n - 1] = full, x0, o0
    at_size[n - 1] = table[n, full, x0, o0]
    for j in range(ranks.shape[0]):
        r = ranks[j]
        level = 0
        while level < n and not (at_base[level] <= r < at_base[level] + at_size[level]):
            level += 1
        if level == n:
            level = n - 1
        mask, x, o = at_mask[level], at_x[level], at_o[level]
        base, code = at_base[level], at_code[level]
        for i in range(level, -1, -1):
            at_mask[i], at_x[i], at_o[i] = mask, x, o
            at_base[i], at_size[i], at_code[i] = base, table[i + 1, mask, x, o], code
            k = bits[i]
            off, on = mask, mask
            if k >= 0:
                off, on = mask & ~(1 << k), mask | (1 << k)
            allowed = (not needs[i]) or ((mask >> k) & 1) == 1
            zero = table[i, off, x, o]
            if r - base < zero:
                mask = off
            else:
                base += zero
                one = table[i, on, x - 1, o] if allowed and x > 0 else 0
                if r - base < one:
                    code += power[i]
                    x -= 1
                else:
                    base += one
                    code += 2 * power[i]
                    o -= 1
                mask = on
        out[j] = code
    return out
