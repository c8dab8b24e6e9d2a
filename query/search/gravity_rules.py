"""The bit rules of a gravity board for the bitboard search (gravity.py, whose docstring draws
the encoding): lines made by bit shifts, the transposition table's one-word entries, the stored
tables at the leaves, the per-thread counters and the layout of a thread's search stack. Compiled
with numba; the search itself is gravity.py's."""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

STOP, LIMIT = 0, 1
NODES, HITS = 8, 9  # + 8 * thread: each thread's counters on their own cache line
_P_W, _P_H, _P_K, _P_C, _P_SHIFT, _P_HINTS, _P_MIRROR, _P_STEPS, _P_BUSY = 0, 1, 2, 3, 4, 5, 6, 7, 10
_BUSY_EMPTY = 12  # nodes of at least this many empty squares are marked busy
_COL = 4  # bb[_COL + col]: the column's bits
# out[]: score, proved low, proved high, move column, aborted, stones, the move's cell
SCORE, LOW, HIGH, MOVE, ABORTED, STONES, CELL = range(7)
OVER = -100  # the score of a board whose last move made a line
_CHECK = 1023  # nodes between looks at the stop flag and the node limit

_U0, _U1, _ALL = np.uint64(0), np.uint64(1), np.uint64(0xFFFFFFFFFFFFFFFF)
# The slot and the entry's tag: the key (B = W (H + 1) bits) times an odd number mod 2**B is a
# bijection of B-bit numbers; its top bits pick the slot (of 2**s), its low B - s bits are the
# tag, so slot and tag give back the key: a position is identified exactly, never by a hash
# alone (bitboard.py makes s >= B - 46). The entry: the tag (46 bits at most), the bounds + 64
# (7 bits each, never 0: a used slot), the hint column + 1 (4 bits; 0: none).
_MUL, _TAG_SHIFT = np.uint64(0x9E3779B97F4A7C15), np.uint64(18)
_HI_SHIFT, _LO_SHIFT, _FIELD = np.uint64(11), np.uint64(4), np.uint64(0x7F)
_BIAS = 64


@intrinsic
def _popcount(typingctx, x):  # type: ignore[no-untyped-def]
    """Set bits of a uint64 (one machine instruction)."""
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return builder.call(fn, args)
    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def wins(me, empty, par):  # type: ignore[no-untyped-def]
    """The empty squares (of `empty`) where a stone of `me` completes k in a row.

    A square x wins when, along some direction of step s, the t squares below it
    (x - s, ..., x - t s) and the k - 1 - t above it are all `me`'s, for some t in [0, k);
    vertically only t = k - 1 (nothing lies above an empty square)."""
    k, h = par[_P_K], par[_P_H]
    r = _U0
    if h >= k:  # vertical lines
        v = _ALL
        for j in range(1, k):
            v &= me << np.uint64(j)
        r = v
    for i in range(3):
        s = par[_P_STEPS + i]
        if s == 0:  # no line of k fits in this direction
            continue
        if k == 4:  # Connect Four, unrolled: pairs below and above, then the third stone
            s1, s2, s3 = np.uint64(s), np.uint64(2 * s), np.uint64(3 * s)
            lo2 = (me << s1) & (me << s2)
            hi2 = (me >> s1) & (me >> s2)
            r |= (lo2 & ((me << s3) | (me >> s1))) | (hi2 & ((me >> s3) | (me << s1)))
        else:
            for t in range(k):
                x = _ALL
                for j in range(1, t + 1):
                    x &= me << np.uint64(j * s)
                for j in range(1, k - t):
                    x &= me >> np.uint64(j * s)
                r |= x
    return r & empty


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _wins4(me, empty, s1, s2, s3):  # type: ignore[no-untyped-def]
    """`wins` for k = 4 with lines in every direction (steps s1, s2, s3 and 1): unrolled, the
    steps held by the caller (Connect Four's hot path)."""
    r = (me << _U1) & (me << np.uint64(2)) & (me << np.uint64(3))
    for s in (s1, s2, s3):
        lo2 = (me << s) & (me << (s + s))
        hi2 = (me >> s) & (me >> (s + s))
        r |= (lo2 & ((me << (s + s + s)) | (me >> s))) | (hi2 & ((me >> (s + s + s)) | (me << s)))
    return r & empty


@njit(cache=True, nogil=True, error_model="numpy")
def has_line(x, par):  # type: ignore[no-untyped-def]
    """Whether the stones x hold k in a row."""
    k = par[_P_K]
    for i in range(4):
        s = 1 if i == 3 else par[_P_STEPS + i]
        if s == 0 or (i == 3 and par[_P_H] < k):
            continue
        v = x
        for j in range(1, k):
            v &= x >> np.uint64(j * s)
        if v:
            return True
    return False


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _bound(entry, shift):  # type: ignore[no-untyped-def]
    return np.int64((entry >> shift) & _FIELD) - _BIAS


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _slot(key, shift, bb):  # type: ignore[no-untyped-def]
    """(slot, tag) of a key."""
    h = (key * _MUL) & bb[2]
    return np.int64(h >> shift), h & bb[3]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _store(tt, slot, tag, low, high, col):  # type: ignore[no-untyped-def]
    """One aligned 64-bit store: another thread reads the old entry or the new, never half."""
    tt[slot] = ((tag << _TAG_SHIFT) | (np.uint64(high + _BIAS) << _HI_SHIFT)
                | (np.uint64(low + _BIAS) << _LO_SHIFT) | np.uint64(col + 1))


@intrinsic
def _prefetch(typingctx, arr, idx):  # type: ignore[no-untyped-def]
    """Ask the memory for arr[idx] now (a hint; it changes no value)."""
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", [i8p], ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]))
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])  # read, keep, data
        return context.get_dummy_value()
    return types.void(arr, idx), codegen


@njit(cache=True, nogil=True, error_model="numpy")
def table_score(lt_info, lt_bits, lt_data, lt_codes, lt_scores, xs, os, n, c):  # type: ignore[no-untyped-def]
    """The score a stored table gives the board (x's and o's bitboards, n stones), or -999.

    lt_info rows: root stones, free cells, stabiliser size, weights offset (lt_data), code
    offset, code count, orientation, bits offset (lt_bits: root x, root o, then each free
    cell's bit in this orientation). lt_scores: 0 a draw, +-(depth + 1) a win or loss."""
    for t in range(lt_info.shape[0]):
        if n < lt_info[t, 0]:
            continue
        nf, ns, wo, bo = lt_info[t, 1], lt_info[t, 2], lt_info[t, 3], lt_info[t, 7]
        rx, ro = lt_bits[bo], lt_bits[bo + 1]
        if (xs & rx) != rx or (os & ro) != ro:
            continue
        best = -1
        for s in range(ns):
            code = 0
            for i in range(nf):
                bit = lt_bits[bo + 2 + i]
                if xs & bit:
                    code += lt_data[wo + s * nf + i]
                elif os & bit:
                    code += 2 * lt_data[wo + s * nf + i]
            if best < 0 or code < best:
                best = code
        a, b = lt_info[t, 4], lt_info[t, 4] + lt_info[t, 5]
        end = b
        while a < b:
            mid = (a + b) >> 1
            if lt_codes[mid] < best:
                a = mid + 1
            else:
                b = mid
        if a < end and lt_codes[a] == best:
            v = np.int64(lt_scores[a])
            if v == 0:
                return 0
            m = n + abs(v) - 1  # stones on the board after the last move
            return (c + 2 - m) // 2 if v > 0 else -((c + 2 - m) // 2)
    return -999


_NONE = -999  # table_score: no stored table holds the board
# The stack (`stack_arrays`): su (uint64, a row a ply: me, mask, both mirrored, the tag) and si.
# A frame's fields in `si` (one row a ply below the node searched): the window, the node's
# proved bounds, its key's orientation, the moves (columns, best first) and their order keys.
_A, _B, _A0, _LO, _HI, _FLIP, _N, _I, _BEST, _BS, _CUR, _SLOT, _N0, _MARK, _MV = range(15)


def stack_arrays(cells: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """A thread's stack for `_search`: su and si, a row a ply."""
    return (np.zeros((cells + 2, 5), dtype=np.uint64),
            np.zeros((cells + 2, _MV + 3 * width), dtype=np.int64))


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _stopped(ctl, t, nodes):  # type: ignore[no-untyped-def]
    """Publish this thread's nodes; whether the search must stop (flag, node limit, or
    another thread's solve finished: ctl[STOP] is 1 for the budget, 2 for that)."""
    ctl[NODES + 8 * t] = nodes
    total = 0
    for j in range((ctl.shape[0] - 8) // 8):
        total += ctl[NODES + 8 * j]
    return ctl[STOP] != 0 or total >= ctl[LIMIT]
