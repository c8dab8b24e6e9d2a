"""verify's look-ups of a child among the next tier's codes (kernel.py's compiled pass): a
hash table of the tier's indices where it fits, else a fenced binary search. Written apart
from the builder's hash table (builder/hashtable.py), as the rest of verify is apart from the
builder."""
from __future__ import annotations

import numpy as np

from tablebase.builder.game.compiled import njit
from tablebase.builder.game.kernel import prefetch
from tablebase.builder.kernels import split_rows

# Rows whose children are searched for together: each step of their binary searches asks for
# every search's next key before reading the first, so the searches wait on memory together.
GROUP = 16
# Keys a segment between two fence posts (every STEP-th key) holds: four cache lines of codes.
STEP = 32


@njit(cache=True, nogil=True)
def fenced_search(keys: np.ndarray, fence: np.ndarray, kids: np.ndarray, m: int | np.int64,
            base: np.ndarray) -> None:
    """base[j]: the first index of sorted `keys` holding at least kids[j] (len(keys) if none),
    for the first m kids. First in `fence` (keys[::STEP], small enough to stay in cache),
    the binary searches in lockstep (every search halves the same length at each step, so one
    step of all of them is a group of independent loads); then each in its segment of STEP
    keys, whose cache lines are all asked for first."""
    n, posts = keys.shape[0], fence.shape[0]
    for j in range(m):
        base[j] = 0
    if n == 0:
        return
    length = posts
    while length > 1:
        half = length >> 1
        for j in range(m):
            prefetch(fence, base[j] + half)
        for j in range(m):
            if fence[base[j] + half] < kids[j]:
                base[j] += half
        length -= half
    # fence[base[j]] < kids[j] <= fence[base[j] + 1], unless kids[j] <= keys[0]: the answer lies
    # in keys[STEP * base[j] + 1 : STEP * (base[j] + 1) + 1].
    for j in range(m):
        if fence[base[j]] < kids[j]:
            base[j] = STEP * base[j] + 1
            for line in range(0, STEP, 8):
                prefetch(keys, base[j] + line)
        else:
            base[j] = -1  # at or before the first key
    for j in range(m):
        lo = base[j]
        if lo < 0:
            base[j] = 0
            continue
        hi = min(lo + STEP - 1, n)
        while lo < hi:
            mid = (lo + hi) >> 1
            if keys[mid] < kids[j]:
                lo = mid + 1
            else:
                hi = mid
        base[j] = lo


# Rows of the next tier in a hash table of their indices, at most half full (open
# addressing, linear probing): a look-up waits on memory about twice (the slot, then the code
# it names), where the fenced search waits four or five times. `_HASH`: Fibonacci hashing.
_HASH = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True, inline="always")
def _home(code: int, shift: int) -> int:
    return np.int64((np.uint64(code) * _HASH) >> np.uint64(shift))  # type: ignore[return-value]


@njit(cache=True, nogil=True)
def _place(keys: np.ndarray, slots: np.ndarray, shift: int) -> None:
    """slots (all -1 before): each index of `keys` in the first free slot from its code's
    home; GROUP homes prefetched at a time."""
    mask = slots.shape[0] - 1
    homes = np.empty(GROUP, np.int64)
    for a in range(0, keys.shape[0], GROUP):
        b = min(a + GROUP, keys.shape[0])
        for i in range(a, b):
            homes[i - a] = _home(keys[i], shift)
            prefetch(slots, homes[i - a])
        for i in range(a, b):
            h = homes[i - a]
            while slots[h] >= 0:
                h = (h + 1) & mask
            slots[h] = i


@njit(cache=True, nogil=True)
def probe(keys: np.ndarray, slots: np.ndarray, shift: int, kids: np.ndarray, m: int | np.int64,
           found: np.ndarray) -> None:
    """found[j]: the index of kids[j] in `keys` (len(keys) if it has none), for the first m
    kids: every slot asked for first, then every code the slots name, then each probe."""
    n = keys.shape[0]
    mask = slots.shape[0] - 1
    for j in range(m):
        found[j] = _home(kids[j], shift)
        prefetch(slots, found[j])
    for j in range(m):
        prefetch(keys, max(slots[found[j]], 0))
    for j in range(m):
        h = found[j]
        found[j] = n
        while slots[h] >= 0:
            if keys[slots[h]] == kids[j]:
                found[j] = slots[h]
                break
            h = (h + 1) & mask


@njit(cache=True, nogil=True)
def _place_part(keys: np.ndarray, slots: np.ndarray, shift: int, lo: int, hi: int,
                late: np.ndarray) -> int:
    """Empty slots [lo, hi), then `_place` there the keys whose home is in [lo, hi), probing no
    further than hi - 1: those that would go further are left, by index, in `late`; their
    count (-1: more than `late` holds)."""
    slots[lo:hi] = -1
    n = 0
    homes = np.empty(GROUP, np.int64)
    rows = np.empty(GROUP, np.int64)
    i = 0
    while i < keys.shape[0]:
        g = 0
        while g < GROUP and i < keys.shape[0]:
            h = _home(keys[i], shift)
            if lo <= h < hi:
                rows[g], homes[g] = i, h
                prefetch(slots, h)
                g += 1
            i += 1
        for j in range(g):
            h = homes[j]
            while h < hi and slots[h] >= 0:
                h += 1
            if h == hi:
                if n == late.shape[0]:
                    return -1
                late[n] = rows[j]
                n += 1
            else:
                slots[h] = rows[j]
    return n


def hashed(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """The hash table of sorted `keys` (int32 slots, at least twice as many as keys) and its
    shift. Each core empties and fills its part of the slots (the keys whose home is there),
    the few whose probe would cross into the next part placed after."""
    bits = max(4, (2 * len(keys)).bit_length())
    slots = np.empty(1 << bits, np.int32)
    shift = 64 - bits
    lates = [np.empty(1 << 16, np.int64) for _ in range(2)]
    counts = split_rows(len(slots), lambda piece, lo, hi: _place_part(
        keys, slots, shift, lo, hi, lates[piece]))
    if any(n < 0 for n in counts):  # far too many crossings: all again, on this thread
        slots.fill(-1)
        _place(keys, slots, shift)
        return slots, shift
    for late, n in zip(lates, counts):
        if n:
            # Each from its home on, past the full slots that sent it out of its part: every
            # key is still found from its home before the first free slot.
            _place_late(keys, late[:n], slots, shift)
    return slots, shift


@njit(cache=True, nogil=True)
def _place_late(keys: np.ndarray, rows: np.ndarray, slots: np.ndarray, shift: int) -> None:
    """Each key of `rows` (indices into `keys`) in the first free slot from its home."""
    mask = slots.shape[0] - 1
    for i in rows:
        h = _home(keys[i], shift)
        while slots[h] >= 0:
            h = (h + 1) & mask
        slots[h] = i
