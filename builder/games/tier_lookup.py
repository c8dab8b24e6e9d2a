"""How a tier's compiled kernels read the scores of the next tier, which the builder loads
(builder/codetable.py), and mark the children it collects: the three forms of the loaded
tier and the reads of each, and the bitmap of marks, written once for every family's kernels
and the builder's own fill. A kernel that computes where a
group of look-ups go, prefetches them all, then reads them, waits on memory about once a group.

    mode     what the loaded tier is                          a score read as
    DIRECT   slots: a byte per code, score + OFFSET (0: none)  slots[code] - OFFSET
    HASHED   keys: open addressing, one word a slot             hashed_score(keys[probe(...)])
             (code << SCORE_BITS | score + 64; EMPTY_KEY free)
    SORTED   keys: the sorted codes, values: their scores       values[lower_bound(...)]
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from tablebase.builder.games.tier_kernels import OPEN, NextTier
from tablebase.compiled import njit

__all__ = ["NextTier"]  # what these reads read, beside them

DIRECT, HASHED, SORTED = 0, 1, 2
# Scores live in [-64, 64]; a direct table slot holds score + OFFSET so that 0 means "absent"
# and a fresh np.zeros table (lazily allocated by the OS) starts empty.
OFFSET = 66
# Below every real score (-64): a parent with no move yet. It is OPEN, so that a term array
# (ends as scores, OPEN where play goes on) tells a kernel which rows keep their own score.
UNSET = OPEN
MISSING = -1  # where a kernel found a child that is not in the loaded tier

# A hash table's slot h holds one word, a code and its score together (a look-up that finds
# its code has its score in the same cache line), or EMPTY_KEY when free; a code lives at the
# first free slot from its home slot, wrapping around. Codes must be below 2**55 (at most 34
# cells of base-3 digits: HASH_CELLS); scores are in [-64, 64] (misère: a win in 0 plies
# scores 64).
EMPTY_KEY = -1
SCORE_BITS = 8
HASH_CELLS = 34  # 3**34 < 2**55: a code and a score fit one non-negative int64
_SCORE_MASK = (1 << SCORE_BITS) - 1
# Look-ups at once: the children of this many parents (or codes filled) are prefetched before
# the first is read (random look-ups into a 512 MB table: groups of 16 to 64 alike, 8 slower).
GROUP = 32


def kernel_array(a: np.ndarray, dtype: type) -> np.ndarray:
    """`a` as a contiguous, writable array of `dtype`: one machine-code version per kernel
    (numba compiles, caches and loads another for every read-only argument)."""
    a = np.ascontiguousarray(a, dtype=dtype)
    return a if a.flags.writeable else a.copy()


@njit(cache=True, nogil=True, inline="always")
def set_bit(words: np.ndarray, code: int) -> None:
    """Mark `code` in a bitmap of uint64 words: bit code & 63 of word code >> 6."""
    words[code >> 6] |= np.uint64(1) << np.uint64(code & 63)


@njit(cache=True, nogil=True, inline="always")
def home(code: int, shift: int) -> int:
    """A code's home slot in a hash table of 2**(64 - shift) slots."""
    return np.int64((np.uint64(code) * np.uint64(0x9E3779B97F4A7C15))  # type: ignore[return-value]
                    >> np.uint64(shift))


@njit(cache=True, nogil=True, inline="always")
def entry(code: int, score: int) -> int:
    """A hash table slot's word: the code and its score."""
    return (np.int64(code) << SCORE_BITS) | (np.int64(score) + 64)  # type: ignore[return-value]


@njit(cache=True, nogil=True, inline="always")
def probe_from(keys: np.ndarray, h: int, code: int) -> int:
    """From slot h on, the slot holding `code`, or the free slot where the search ends."""
    mask = keys.shape[0] - 1
    while keys[h] >> SCORE_BITS != code and keys[h] != EMPTY_KEY:
        h = (h + 1) & mask
    return h


@njit(cache=True, nogil=True, inline="always")
def probe(keys: np.ndarray, shift: int, code: int) -> int:
    """The slot holding `code`, or the free slot where the search for it ends."""
    return probe_from(keys, home(code, shift), code)


@njit(cache=True, nogil=True, inline="always")
def hashed_score(entry: int) -> int:
    """The score held in a slot's word."""
    return (entry & _SCORE_MASK) - 64


@njit(cache=True, nogil=True, inline="always")
def lower_bound(keys, lo, hi, key):  # type: ignore[no-untyped-def]
    """The first index of keys[lo:hi] (sorted ascending) holding at least `key`, else hi."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


if TYPE_CHECKING:  # what a compiled caller sees (the intrinsic's own signature is numba's)
    def prefetch(array: Any, index: int) -> None:
        """Ask for the cache line of array[index] without waiting for it."""
else:
    @intrinsic
    def prefetch(typingctx, array, index):  # type: ignore[no-untyped-def]
        """Ask for the cache line of array[index] without waiting for it (LLVM's prefetch: a read,
        kept in every cache level). Only a hint: an index out of range reads nothing.

        A look-up at random into a table of gigabytes waits about 100 ns on memory; a kernel that
        computes where a group of look-ups go, prefetches them all, then reads them, waits about
        once per group instead of once per look-up."""
        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            kind = signature.args[0]
            data = context.make_array(kind)(context, builder, args[0])
            at = cgutils.get_item_pointer(context, builder, kind, data, [args[1]], wraparound=False,
                                          boundscheck=False)
            byte = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            hint = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32]),
                "llvm.prefetch.p0i8")
            # read (0), the highest locality (3), data rather than instructions (1)
            builder.call(hint, [builder.bitcast(at, byte), ir.Constant(i32, 0), ir.Constant(i32, 3),
                                ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return types.void(array, types.intp), codegen
