"""verify's look-ups of a child among the next tier's rows (first_pass.py's compiled pass): a
hash table of the tier's codes, values and depths where it fits, else a fenced binary search
of its codes. Written apart
from the builder's hash table (builder/hashtable.py), as the rest of verify is apart from the
builder."""
from __future__ import annotations

import numpy as np

from tablebase.builder.games.tier_lookup import prefetch
from tablebase.builder.kernels import split_rows
from tablebase.compiled import njit

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


# A row of the next tier as the compiled pass reads it (`states`): its value + 1 above its
# depth's 7 bits (value 3: a value or depth no position has), and REACHED once a stored parent
# leads to it. In the hash table a row is one int64 entry, its code above its state (STATE
# bits: codes up to 2 ** 53, every code of 33 free cells), so that a child costs the compiled
# pass one load: its code, value and depth come together.
STATE = 10
REACHED = 1 << 9
_VALUE, _DEPTH = 7, 0x7F  # the value's shift and the depth's mask within a state


def states(value: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Each row's state (uint16), not yet reached."""
    ok = (value >= -1) & (value <= 1) & (depth >= 0)  # int8: at most 127
    both = (value.astype(np.int16) + 1) << _VALUE | depth.astype(np.int16)
    return np.where(ok, both, 3 << _VALUE).astype(np.uint16)


@njit(cache=True, nogil=True, inline="always")
def outcome(state: int | np.int64) -> tuple[np.int64, np.int64]:
    """(value, depth) of a state; value 2 for a row that has none."""
    return (np.int64(state) >> _VALUE & 3) - 1, np.int64(state) & _DEPTH


def fits(codes: int) -> bool:
    """Whether an entry (code above state) holds every code of a table of `codes` codes."""
    return codes <= 1 << (63 - STATE)


def table_bytes(rows: int) -> int:
    """The bytes of the hash table of `rows` rows (`hashed`)."""
    return 8 << _bits(rows)


def _bits(rows: int) -> int:
    # At most three quarters full: a probe rarely leaves its entry's cache line (8 entries).
    return max(4, (4 * rows // 3).bit_length())


# Open addressing, linear probing. `_HASH`: Fibonacci hashing.
_HASH = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True, inline="always")
def _home(code: int, shift: int) -> int:
    return np.int64((np.uint64(code) * _HASH) >> np.uint64(shift))  # type: ignore[return-value]


@njit(cache=True, nogil=True)
def _place(keys: np.ndarray, states: np.ndarray, table: np.ndarray, shift: int) -> None:
    """Each row's entry in the first free slot (all -1 before) from its code's home; GROUP
    homes prefetched at a time."""
    mask = table.shape[0] - 1
    homes = np.empty(GROUP, np.int64)
    for a in range(0, keys.shape[0], GROUP):
        b = min(a + GROUP, keys.shape[0])
        for i in range(a, b):
            homes[i - a] = _home(keys[i], shift)
            prefetch(table, homes[i - a])
        for i in range(a, b):
            h = homes[i - a]
            while table[h] >= 0:
                h = (h + 1) & mask
            table[h] = keys[i] << STATE | np.int64(states[i])


@njit(cache=True, nogil=True)
def probe(table: np.ndarray, shift: int, kids: np.ndarray, m: int | np.int64,
          found: np.ndarray) -> None:
    """found[j]: the slot of the entry of code kids[j] (len(table) if there is none), for the
    first m kids: every home asked for first, then each probe."""
    mask = table.shape[0] - 1
    for j in range(m):
        found[j] = _home(kids[j], shift)
        prefetch(table, found[j])
    for j in range(m):
        h = found[j]
        found[j] = table.shape[0]
        while table[h] >= 0:
            if table[h] >> STATE == kids[j]:
                found[j] = h
                break
            h = (h + 1) & mask


@njit(cache=True, nogil=True)
def _place_part(keys: np.ndarray, states: np.ndarray, table: np.ndarray, shift: int, lo: int,
                hi: int, late: np.ndarray) -> int:
    """Empty slots [lo, hi), then `_place` there the rows whose home is in [lo, hi), probing no
    further than hi - 1: those that would go further are left, by index, in `late`; their
    count (-1: more than `late` holds)."""
    table[lo:hi] = -1
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
                prefetch(table, h)
                g += 1
            i += 1
        for j in range(g):
            h = homes[j]
            while h < hi and table[h] >= 0:
                h += 1
            if h == hi:
                if n == late.shape[0]:
                    return -1
                late[n] = rows[j]
                n += 1
            else:
                table[h] = keys[rows[j]] << STATE | np.int64(states[rows[j]])
    return n


def hashed(keys: np.ndarray, states: np.ndarray) -> tuple[np.ndarray, int]:
    """The hash table of the rows of sorted `keys` with their `states` (int64 entries, -1 for
    none, `table_bytes`) and its shift. Each core empties and fills its part of the slots (the
    rows whose home is there), the few whose probe would cross into the next part placed
    after."""
    bits = _bits(len(keys))
    table = np.empty(1 << bits, np.int64)
    shift = 64 - bits
    lates = [np.empty(1 << 16, np.int64) for _ in range(2)]
    counts = split_rows(len(table), lambda piece, lo, hi: _place_part(
        keys, states, table, shift, lo, hi, lates[piece]))
    if any(n < 0 for n in counts):  # far too many crossings: all again, on this thread
        table.fill(-1)
        _place(keys, states, table, shift)
        return table, shift
    for late, n in zip(lates, counts):
        if n:
            # Each from its home on, past the full slots that sent it out of its part: every
            # row is still found from its home before the first free slot.
            _place(keys[late[:n]], states[late[:n]], table, shift)
    return table, shift


@njit(cache=True, nogil=True)
def _unreached_part(table: np.ndarray, out: np.ndarray) -> int:
    """The codes of the entries not REACHED, the first len(out) in `out`; how many there are."""
    n = 0
    for h in range(table.shape[0]):
        entry = table[h]
        if entry >= 0 and entry & REACHED == 0:
            if n < out.shape[0]:
                out[n] = entry >> STATE
            n += 1
    return n


def unreached(table: np.ndarray) -> np.ndarray:
    """The codes of the hash table's rows no parent has reached, ascending (both cores)."""
    parts: list[np.ndarray] = []

    def part(_: int, lo: int, hi: int) -> int:
        out = np.empty(1 << 10, np.int64)
        n = _unreached_part(table[lo:hi], out)
        if n > len(out):
            out = np.empty(n, np.int64)
            _unreached_part(table[lo:hi], out)
        parts.append(out[:n])
        return n

    split_rows(len(table), part)
    return np.sort(np.concatenate(parts)) if parts else np.empty(0, np.int64)
