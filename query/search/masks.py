"""Cell sets as the compiled search keeps them (its boards' bitmasks and transposition keys,
the zones of its proofs, the pairs of its pairings): one uint64 on a board of up to 64 cells,
a pair of them on a board of up to 128 (9x9 to 11x11), each operation written once here for
both kinds (numba overloads).

    narrow (cells <= 64):   a uint64                   bit c is cell c
    wide   (cells <= 128):  a tuple (low, high)        cell c: bit c of low (c < 64),
                                                       bit c - 64 of high (c >= 64)
    an array of n sets:     uint64[n] narrow,  uint64[n, 2] wide (row i: set i's two words)

numba compiles each kernel once for each kind its arguments are made of (Board makes them
narrow or wide by the board's cells), so a board of up to 64 cells runs one-word code only,
as fast as before wide boards were taken (docs/benchmarks.md): no wide operation, and no test
of which kind a set is, is compiled into its kernels. The Python bodies below do what the
compiled kinds do, for use outside compiled code (tests, Board's accessors).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import types
from numba.extending import overload

WORD = 64
MAX_CELLS = 2 * WORD  # two words: every board up to 11x11 (121 cells)
_ONE, _ZERO, _ALL = np.uint64(1), np.uint64(0), np.uint64(0xFFFFFFFFFFFFFFFF)

Mask = Any  # np.uint64, or a tuple of two (wide): numba reads a tuple as a UniTuple


def words(cells: int) -> int:
    """The words a cell set of a board of `cells` cells takes (1 or 2)."""
    if cells > MAX_CELLS:
        raise ValueError(f"found {cells} cells, expected at most {MAX_CELLS}")
    return 1 if cells <= WORD else 2


def zeros(count: int, width: int) -> np.ndarray:
    """An array of `count` empty cell sets of `width` words."""
    return np.zeros(count if width == 1 else (count, width), dtype=np.uint64)


def pack(sets: list[int], width: int) -> np.ndarray:
    """Cell sets given as Python ints (bit c: cell c) as an array of `width` words each."""
    out = zeros(len(sets), width)
    for i, s in enumerate(sets):
        if width == 1:
            out[i] = s
        else:
            out[i] = (s & int(_ALL), s >> WORD)
    return out


def of_int(value: int, width: int) -> Mask:
    """A cell set given as a Python int as a set of `width` words (a uint64, or a pair)."""
    if width == 1:
        return np.uint64(value)
    return (np.uint64(value & int(_ALL)), np.uint64(value >> WORD))


def as_int(value: Any) -> int:
    """A cell set (a uint64, a pair of words, or an array's row of them) as a Python int."""
    # The type test first: every zone the proof writer turns up to 64 cells is one word, and
    # the test costs a quarter of np.ndim.
    if isinstance(value, (int, np.integer)) or np.ndim(value) == 0:
        return int(value)
    return sum(int(w) << (WORD * i) for i, w in enumerate(value))


def _wide(m: Any) -> bool:
    """Whether a numba type is a wide set (a tuple) or an array of wide sets (two dimensions
    where narrow has one)."""
    return isinstance(m, types.BaseTuple)


# --- values ------------------------------------------------------------------------------

def none_like(m: Mask) -> Mask:
    """The empty set, of the kind of `m`."""
    return (_ZERO, _ZERO) if isinstance(m, tuple) else _ZERO


@overload(none_like)
def _none_like(m):  # type: ignore[no-untyped-def]
    if _wide(m):
        return lambda m: (np.uint64(0), np.uint64(0))
    return lambda m: np.uint64(0)


def all_like(m: Mask) -> Mask:
    """The set of every cell ("nothing known" for a zone), of the kind of `m`."""
    return (_ALL, _ALL) if isinstance(m, tuple) else _ALL


@overload(all_like)
def _all_like(m):  # type: ignore[no-untyped-def]
    if _wide(m):
        return lambda m: (np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64(0xFFFFFFFFFFFFFFFF))
    return lambda m: np.uint64(0xFFFFFFFFFFFFFFFF)


def bit(m: Mask, cell: int) -> Mask:
    """The set of `cell` alone, of the kind of `m`."""
    one = _ONE << np.uint64(cell % WORD)
    if isinstance(m, tuple):
        return (one, _ZERO) if cell < WORD else (_ZERO, one)
    return one


@overload(bit)
def _bit(m, cell):  # type: ignore[no-untyped-def]
    if _wide(m):
        def wide(m, cell):  # type: ignore[no-untyped-def]
            one = np.uint64(1) << np.uint64(cell & 63)
            low = cell < 64
            return (one if low else np.uint64(0), np.uint64(0) if low else one)
        return wide
    return lambda m, cell: np.uint64(1) << np.uint64(cell)


# --- operations --------------------------------------------------------------------------

def join(a: Mask, b: Mask) -> Mask:
    """The union of two sets."""
    return (a[0] | b[0], a[1] | b[1]) if isinstance(a, tuple) else a | b


@overload(join)
def _join(a, b):  # type: ignore[no-untyped-def]
    if _wide(a):
        return lambda a, b: (a[0] | b[0], a[1] | b[1])
    return lambda a, b: a | b


def meet(a: Mask, b: Mask) -> Mask:
    """The intersection of two sets."""
    return (a[0] & b[0], a[1] & b[1]) if isinstance(a, tuple) else a & b


@overload(meet)
def _meet(a, b):  # type: ignore[no-untyped-def]
    if _wide(a):
        return lambda a, b: (a[0] & b[0], a[1] & b[1])
    return lambda a, b: a & b


def has(m: Mask, cell: int) -> bool:
    """Whether `cell` is in the set."""
    if isinstance(m, tuple):
        m = m[cell // WORD]
    return bool((m >> np.uint64(cell % WORD)) & _ONE)


@overload(has)
def _has(m, cell):  # type: ignore[no-untyped-def]
    if _wide(m):
        def wide(m, cell):  # type: ignore[no-untyped-def]
            w = m[0] if cell < 64 else m[1]
            return (w >> np.uint64(cell & 63)) & np.uint64(1) != 0
        return wide
    return lambda m, cell: (m >> np.uint64(cell)) & np.uint64(1) != 0


def empty(m: Mask) -> bool:
    """Whether the set has no cell."""
    return m == (_ZERO, _ZERO) if isinstance(m, tuple) else m == 0


@overload(empty)
def _empty(m):  # type: ignore[no-untyped-def]
    if _wide(m):
        return lambda m: (m[0] | m[1]) == 0
    return lambda m: m == 0


def disjoint(a: Mask, b: Mask) -> bool:
    """Whether two sets have no cell in common."""
    return bool(empty(meet(a, b)))


@overload(disjoint)
def _disjoint(a, b):  # type: ignore[no-untyped-def]
    if _wide(a):
        return lambda a, b: ((a[0] & b[0]) | (a[1] & b[1])) == 0
    return lambda a, b: a & b == 0


def same(a: Mask, b: Mask) -> bool:
    """Whether two sets are equal."""
    return bool(a == b) if not isinstance(a, tuple) else a[0] == b[0] and a[1] == b[1]


@overload(same)
def _same(a, b):  # type: ignore[no-untyped-def]
    if _wide(a):
        return lambda a, b: a[0] == b[0] and a[1] == b[1]
    return lambda a, b: a == b


def below(a: Mask, b: Mask) -> bool:
    """Whether `a` comes before `b` in the sets' order (a total order: of their high words,
    then of their low words), the order the smallest orientation of a board is chosen by."""
    if isinstance(a, tuple):
        return bool(a[1] < b[1] or (a[1] == b[1] and a[0] < b[0]))
    return bool(a < b)


@overload(below)
def _below(a, b):  # type: ignore[no-untyped-def]
    if _wide(a):
        return lambda a, b: a[1] < b[1] or (a[1] == b[1] and a[0] < b[0])
    return lambda a, b: a < b


def count(m: Mask) -> int:
    """The cells in the set."""
    return sum(bin(int(w)).count("1") for w in (m if isinstance(m, tuple) else (m,)))


@overload(count)
def _count(m):  # type: ignore[no-untyped-def]
    if _wide(m):
        return lambda m: count(m[0]) + count(m[1])

    def narrow(m):  # type: ignore[no-untyped-def]  # the bits of a uint64, by halves
        x = m - ((m >> np.uint64(1)) & np.uint64(0x5555555555555555))
        x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2))
                                                   & np.uint64(0x3333333333333333))
        x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)
    return narrow


def mix(x: Mask, o: Mask) -> np.uint64:
    """A hash of a board's two sets (x's stones, o's), for its transposition-table slot: the
    slot only places the key, which is the sets themselves, so no collision can mislead."""
    if isinstance(x, tuple):
        return _mix(x[0], o[0]) ^ (_mix(x[1], o[1]) * np.uint64(0xFF51AFD7ED558CCD))
    return _mix(x, o)


def _mix(x: np.uint64, o: np.uint64) -> np.uint64:
    with np.errstate(over="ignore"):
        return np.uint64(x * np.uint64(0x9E3779B97F4A7C15) ^ (o + np.uint64(0x632BE59BD9B4E019))
                         * np.uint64(0xC2B2AE3D27D4EB4F))


@overload(mix)
def _mix_ov(x, o):  # type: ignore[no-untyped-def]
    if _wide(x):
        return lambda x, o: mix(x[0], o[0]) ^ (mix(x[1], o[1]) * np.uint64(0xFF51AFD7ED558CCD))
    return lambda x, o: x * np.uint64(0x9E3779B97F4A7C15) ^ (o + np.uint64(0x632BE59BD9B4E019)) \
        * np.uint64(0xC2B2AE3D27D4EB4F)


def fold(m: Mask) -> np.uint64:
    """One word a set determines, for hashing: a narrow set itself; a wide set's low word
    with its high word folded in by a product (odd, so no high word is lost), which leaves a
    set of cells below 64 as its low word: it hashes as the same set one word wide."""
    if isinstance(m, tuple):
        with np.errstate(over="ignore"):
            return np.uint64(m[0] ^ (np.uint64(m[1]) * np.uint64(0xD6E8FEB86659FD93)))
    return np.uint64(m)


@overload(fold)
def _fold(m):  # type: ignore[no-untyped-def]
    if _wide(m):
        return lambda m: m[0] ^ (m[1] * np.uint64(0xD6E8FEB86659FD93))
    return lambda m: m


def words_of(m: Mask) -> tuple[np.int64, np.int64]:
    """The set's low and high words as int64s (a narrow set's high word is 0), to be kept in
    an int64 array."""
    low, high = m if isinstance(m, tuple) else (m, _ZERO)
    return np.int64(np.uint64(low).view(np.int64)), np.int64(np.uint64(high).view(np.int64))


@overload(words_of)
def _words_of(m):  # type: ignore[no-untyped-def]
    if _wide(m):
        return lambda m: (np.int64(m[0]), np.int64(m[1]))
    return lambda m: (np.int64(m), np.int64(0))


# --- arrays of sets ----------------------------------------------------------------------

def get(a: np.ndarray, i: int) -> Mask:
    """Set i of an array of sets."""
    return (a[i, 0], a[i, 1]) if a.ndim == 2 else a[i]


@overload(get)
def _get(a, i):  # type: ignore[no-untyped-def]
    if a.ndim == 2:
        return lambda a, i: (a[i, 0], a[i, 1])
    return lambda a, i: a[i]


def put(a: np.ndarray, i: int, m: Mask) -> None:
    """Set set i of an array of sets to `m`."""
    if a.ndim == 2:
        a[i, 0], a[i, 1] = m
    else:
        a[i] = m


@overload(put)
def _put(a, i, m):  # type: ignore[no-untyped-def]
    if a.ndim == 2:
        def wide(a, i, m):  # type: ignore[no-untyped-def]
            a[i, 0] = m[0]
            a[i, 1] = m[1]
        return wide

    def narrow(a, i, m):  # type: ignore[no-untyped-def]
        a[i] = m
    return narrow


def add_cell(a: np.ndarray, i: int, cell: int) -> None:
    """Put `cell` into set i of an array of sets (one word touched)."""
    if a.ndim == 2:
        a[i, cell // WORD] |= _ONE << np.uint64(cell % WORD)
    else:
        a[i] |= _ONE << np.uint64(cell)


@overload(add_cell)
def _add_cell(a, i, cell):  # type: ignore[no-untyped-def]
    if a.ndim == 2:
        def wide(a, i, cell):  # type: ignore[no-untyped-def]
            a[i, cell >> 6] |= np.uint64(1) << np.uint64(cell & 63)
        return wide

    def narrow(a, i, cell):  # type: ignore[no-untyped-def]
        a[i] |= np.uint64(1) << np.uint64(cell)
    return narrow


def drop_cell(a: np.ndarray, i: int, cell: int) -> None:
    """Take `cell` out of set i of an array of sets (one word touched)."""
    if a.ndim == 2:
        a[i, cell // WORD] &= ~(_ONE << np.uint64(cell % WORD))
    else:
        a[i] &= ~(_ONE << np.uint64(cell))


@overload(drop_cell)
def _drop_cell(a, i, cell):  # type: ignore[no-untyped-def]
    if a.ndim == 2:
        def wide(a, i, cell):  # type: ignore[no-untyped-def]
            a[i, cell >> 6] &= ~(np.uint64(1) << np.uint64(cell & 63))
        return wide

    def narrow(a, i, cell):  # type: ignore[no-untyped-def]
        a[i] &= ~(np.uint64(1) << np.uint64(cell))
    return narrow


def array_like(m: Mask, count: int) -> np.ndarray:
    """`count` empty sets of the kind of `m`, as an array."""
    return zeros(count, 2 if isinstance(m, tuple) else 1)


@overload(array_like)
def _array_like(m, count):  # type: ignore[no-untyped-def]
    if _wide(m):
        return lambda m, count: np.zeros((count, 2), dtype=np.uint64)
    return lambda m, count: np.zeros(count, dtype=np.uint64)
