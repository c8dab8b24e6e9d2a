"""The compiled search of gravity boards (Connect Four and its kin, normal rules) on bitboards:
the rules by bit tricks, a transposition table of one 64-bit word a slot, and the whole solve
(null windows on the score, then a move keeping it) in one call that releases the GIL, so that
threads may share the table (numba, no recursion: see kernel.py's explicit stack).

The encoding, drawn for 7x6 (a column of H + 1 bits, bottom first; cell = row * W + col of the
rest of the package has row 0 on top):

    bit of each square                      the two boards
     6 13 20 27 34 41 48   <- spare row     me    the stones of the side to move
     5 12 19 26 33 40 47                    mask  every stone
     4 11 18 25 32 39 46                    key   me + mask: in each column the h stones
     3 10 17 24 31 38 45                          give 2**h - 1 plus the mover's bits, a number
     2  9 16 23 30 37 44                          of [2**h - 1, 2**(h+1) - 2], so the key is
     1  8 15 22 29 36 43                          the position itself, never a hash
     0  7 14 21 28 35 42   <- bottom row

The spare row stays empty: a line shifted across a column's top meets it and breaks, so no
line wraps. A column's lowest empty square is the bit `(mask + bottom) & column`.

Scores count stones (Pons' scale), always for the side to move: with n stones on a board of C
cells, a game won (lost) by a last move that leaves m stones on the board scores
(C + 2 - m) // 2 (its negative); a draw 0. A winner's m always has the same parity, so the score
and the depth m - n determine each other (engine.py converts); a move's score is minus its
child's, as the stones the winner plays do not depend on whose turn it is.

Arrays (`Bitboards` in bitboard.py makes them):

    par     int64   W, H, k, C, bucket shift, steps horizontal and diagonal, busy (_P_*)
    bb      uint64  bottom row, board, key mask, tag mask, then each column's bits
    order   int64   the columns, centre first
    tt      uint64  the table (tag | work | high + 64 | low + 64), then the busy marks
    ctl     int64   STOP, LIMIT, then per thread (at 8 + 8 t) nodes and table hits
    lt_*            the stored tables at the leaves (bitboard.py, `leaf_arrays`)
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

STOP, LIMIT = 0, 1
NODES, HITS = 8, 9  # + 8 * thread: each thread's counters on their own cache line
_P_W, _P_H, _P_K, _P_C, _P_SHIFT, _P_STEPS, _P_BUSY = 0, 1, 2, 3, 4, 5, 8
_BUSY_EMPTY = 12  # nodes of at least this many empty squares are marked busy
_COL = 4  # bb[_COL + col]: the column's bits
# out[]: score, proved low, proved high, move column, aborted, stones, the move's cell
SCORE, LOW, HIGH, MOVE, ABORTED, STONES, CELL = range(7)
OVER = -100  # the score of a board whose last move made a line
_CHECK = 1023  # nodes between looks at the stop flag and the node limit

_U0, _U1, _ALL = np.uint64(0), np.uint64(1), np.uint64(0xFFFFFFFFFFFFFFFF)
# The bucket and the entry's tag: the key (B = W (H + 1) bits) times an odd number mod 2**B is a
# bijection of B-bit numbers; its top bits pick a bucket of two slots (2**(s-1) of them), its
# low B - s + 1 bits are the tag, so bucket and tag give back the key: a position is identified
# exactly, never by a hash alone (bitboard.py makes s >= B - 43). The entry: the tag (44 bits
# at most), the work (empty squares, 6 bits), the bounds + 64 (7 bits each, never 0: a used
# slot). A bucket's first slot keeps the entry of most work, its second the latest other (one
# cache line: both come with one load).
_MUL, _TAG_SHIFT, _WORK_SHIFT = np.uint64(0x9E3779B97F4A7C15), np.uint64(20), np.uint64(14)
_HI_SHIFT, _LO_SHIFT, _FIELD = np.uint64(7), np.uint64(0), np.uint64(0x7F)
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
    """(the bucket's first slot, tag) of a key."""
    h = (key * _MUL) & bb[2]
    return np.int64(h >> shift) << 1, h & bb[3]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _entry(tt, slot, tag):  # type: ignore[no-untyped-def]
    """The key's entry in its bucket, or 0."""
    e = tt[slot]
    if (e >> _TAG_SHIFT) == tag and (e & (_FIELD << _LO_SHIFT)):
        return e
    e = tt[slot + 1]
    if (e >> _TAG_SHIFT) == tag and (e & (_FIELD << _LO_SHIFT)):
        return e
    return _U0


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _store(tt, slot, tag, low, high, work):  # type: ignore[no-untyped-def]
    """Aligned 64-bit stores: another thread reads the old entry or the new, never half."""
    e = ((tag << _TAG_SHIFT) | (np.uint64(work) << _WORK_SHIFT)
         | (np.uint64(high + _BIAS) << _HI_SHIFT) | (np.uint64(low + _BIAS) << _LO_SHIFT))
    first = tt[slot]
    if (first >> _TAG_SHIFT) == tag:
        tt[slot] = e
    elif np.int64((first >> _WORK_SHIFT) & np.uint64(63)) <= work:
        tt[slot] = e
        tt[slot + 1] = first  # the entry it displaces stays, as the latest other
    else:
        tt[slot + 1] = e


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
# The stack (`stack_arrays`): su (uint64, a row a ply: me, mask, the tag, then each move's
# child key, by column) and si.
# A frame's fields in `si` (one row a ply below the node searched): the window, the node's
# proved bounds, its key's orientation, the moves (columns, best first) and their order keys.
_A, _B, _A0, _LO, _HI, _N, _I, _BEST, _BS, _CUR, _SLOT, _N0, _MARK, _MV = range(14)


def stack_arrays(cells: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """A thread's stack for `_search`: su and si, a row a ply."""
    return (np.zeros((cells + 2, 3 + width), dtype=np.uint64),
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


@njit(cache=True, nogil=True, error_model="numpy")
def _search(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes, lt_scores,  # type: ignore[no-untyped-def]
            su, si, n0, alpha, beta):
    """(score, stopped) of the board in su[0] (me, mask; n0 stones; its side
    to move cannot win at once): exact inside (alpha, beta), else a bound beyond the window
    it fell out of (fail-soft). Negamax over an explicit stack: enter, try moves, return."""
    w, c = par[_P_W], par[_P_C]
    shift = np.uint64(par[_P_SHIFT])
    # Threads mark the big nodes they are searching in `busy` slots past the table's end; a
    # thread puts off a move whose child another is searching (ABDADA): the threads split
    # the work instead of repeating it. It only orders moves: every move is still searched.
    nbusy = par[_P_BUSY]
    size = tt.shape[0] - nbusy
    bottom, board = bb[0], bb[1]
    tables = lt_info.shape[0] > 0
    s1, s2, s3 = np.uint64(par[_P_STEPS]), np.uint64(par[_P_STEPS + 1]), np.uint64(par[_P_STEPS + 2])
    four = par[_P_K] == 4 and par[_P_H] >= 4 and s1 != 0 and s2 != 0 and s3 != 0
    nodes, hits = ctl[NODES + 8 * t], 0
    d, r = 0, 0
    si[0, _A], si[0, _B], si[0, _BEST] = alpha, beta, -1
    while True:
        # --- enter the node at depth d: r and done, or its frame made ready to try moves
        nodes += 1
        if (nodes & _CHECK) == 0 and _stopped(ctl, t, nodes):
            ctl[HITS + 8 * t] += hits
            return 0, True
        n = n0 + d
        me, mk = su[d, 0], su[d, 1]
        empty = board & ~mk
        possible = (mk + bottom) & board
        # where the opponent would complete a line
        threat = _wins4(me ^ mk, empty, s1, s2, s3) if four else wins(me ^ mk, empty, par)
        forced = possible & threat
        done = True
        if forced & (forced - _U1):  # two threats to block: lost at the opponent's next move
            r = -((c - n) // 2)
        else:
            # Never play below an opponent's winning square (it would play there and win), and
            # block a single threat: any other move loses at once, so while a move remains
            # that does not, the best is among those that do not.
            moves = (forced if forced else possible) & ~(threat >> _U1)
            if moves == 0:
                r = -((c - n) // 2)
            elif n >= c - 2:  # we cannot win now, the opponent cannot win with the last square
                r = 0
            else:
                # We cannot win now and the opponent cannot win next: the game runs at least
                # to our next stone (lo) and is not won by us before it (hi).
                lo, hi = -((c - 2 - n) // 2), (c - 1 - n) // 2
                key = me + mk
                slot, tag = _slot(key, shift, bb)
                e = _entry(tt, slot, tag)
                if e:
                    lo, hi = max(lo, _bound(e, _LO_SHIFT)), min(hi, _bound(e, _HI_SHIFT))
                elif tables:
                    xs, os = (me, me ^ mk) if n % 2 == 0 else (me ^ mk, me)
                    held = table_score(lt_info, lt_bits, lt_data, lt_codes, lt_scores, xs, os, n, c)
                    if held != _NONE:
                        hits += 1
                        lo = hi = held
                        _store(tt, slot, tag, held, held, c - n)
                a, b = si[d, _A], si[d, _B]
                if lo >= b:
                    r = lo
                elif hi <= a or lo == hi:
                    r = hi
                else:
                    done = False
                    su[d, 2], si[d, _SLOT] = tag, slot
                    a, b = max(a, lo), min(b, hi)
                    si[d, _A], si[d, _B], si[d, _A0], si[d, _LO], si[d, _HI] = a, b, a, lo, hi
                    si[d, _I], si[d, _BEST], si[d, _BS] = 0, -1, -1000
                    # Order: by the squares the move makes winning for us (Pons' order: it only
                    # orders, never prunes), centre first on ties.
                    m = 0
                    for i in range(w):
                        col = order[i]
                        mv = moves & bb[_COL + col]
                        if mv == 0:
                            continue
                        # The child's table slot, fetched now: its entry comes from memory
                        # while this loop counts threats (most nodes wait on that load).
                        ckey = (me ^ mk) + (mk | mv)
                        su[d, 3 + col] = ckey
                        _prefetch(tt, _slot(ckey, shift, bb)[0])
                        made = (_wins4(me | mv, empty & ~mv, s1, s2, s3) if four
                                else wins(me | mv, empty & ~mv, par))
                        score = np.int64(_popcount(made))
                        j = m
                        while j > 0 and si[d, _MV + 2 * w + j - 1] < score:
                            si[d, _MV + j] = si[d, _MV + j - 1]
                            si[d, _MV + 2 * w + j] = si[d, _MV + 2 * w + j - 1]
                            j -= 1
                        si[d, _MV + j], si[d, _MV + 2 * w + j] = col, score
                        m += 1
                    si[d, _N], si[d, _N0] = m, m
                    si[d, _MARK] = 0
                    if nbusy and c - n >= _BUSY_EMPTY:
                        si[d, _MARK] = size + ((slot >> 1) & (nbusy - 1))
                        tt[si[d, _MARK]] = key + _U1
        if done:
            # --- return r up the stack until a node has a move left to try
            while True:
                if d == 0:
                    ctl[NODES + 8 * t] = nodes
                    ctl[HITS + 8 * t] += hits
                    return r, False
                d -= 1
                s, col = -r, si[d, _CUR]
                if s > si[d, _BS]:
                    si[d, _BS], si[d, _BEST] = s, col
                slot, tag = si[d, _SLOT], su[d, 2]
                if s >= si[d, _B]:  # a cut: s is a lower bound
                    _store(tt, slot, tag, s, si[d, _HI], c - n0 - d)
                    if si[d, _MARK]:
                        tt[si[d, _MARK]] = _U0
                    r = s
                    continue
                if s > si[d, _A]:
                    si[d, _A] = s
                if si[d, _I] < si[d, _N]:
                    break
                r = si[d, _BS]
                if r > si[d, _A0]:  # inside the window: exact
                    _store(tt, slot, tag, r, r, c - n0 - d)
                else:  # every move at most r: an upper bound
                    _store(tt, slot, tag, si[d, _LO], r, c - n0 - d)
                if si[d, _MARK]:
                    tt[si[d, _MARK]] = _U0
        # --- play the node's next move: the child at depth d + 1 (copy-make: no undo)
        me, mk = su[d, 0], su[d, 1]
        while True:
            i = si[d, _I]
            si[d, _I] = i + 1
            col = si[d, _MV + i]
            mv = (mk + bottom) & bb[_COL + col]
            if i == 0 or i >= si[d, _N0] or si[d, _MARK] == 0:
                break
            ckey = su[d, 3 + col]  # the child's key, from the ordering
            if tt[size + ((_slot(ckey, shift, bb)[0] >> 1) & (nbusy - 1))] != ckey + _U1:
                break
            si[d, _MV + si[d, _N]] = col  # another thread is in that child: try it last
            si[d, _N] += 1
        si[d, _CUR] = col
        su[d + 1, 0], su[d + 1, 1] = me ^ mk, mk | mv
        si[d + 1, _A], si[d + 1, _B] = -si[d, _B], -si[d, _A]
        d += 1


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _half(x):  # type: ignore[no-untyped-def]
    """x / 2 rounded towards zero."""
    return x // 2 if x >= 0 else -((-x) // 2)


@njit(cache=True, nogil=True, error_model="numpy")
def solve(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes, lt_scores,  # type: ignore[no-untyped-def]
          su, si, cell_bits, cells, out):
    """Solve a board of cell values (uint8, row-major; cell_bits: each cell's bit) into out[]:
    `_solve`'s, its stones, and the cell of the move (-1: none)."""
    x, mk, n = _U0, _U0, 0
    for i in range(cells.shape[0]):
        if cells[i]:
            bit = _U1 << np.uint64(cell_bits[i])
            n += 1
            mk |= bit
            if cells[i] == 1:
                x |= bit
    _solve(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes, lt_scores, su, si,
           x if n % 2 == 0 else x ^ mk, mk, n, out)
    out[STONES], out[CELL] = n, -1
    col = out[MOVE]
    if col >= 0:
        h, w = par[_P_H], par[_P_W]
        drop = (mk + bb[0]) & bb[_COL + col]  # the square the stone lands on
        for row in range(h):
            if drop >> np.uint64(col * (h + 1) + h - 1 - row):
                out[CELL] = row * w + col
                break


@njit(cache=True, nogil=True, error_model="numpy")
def _solve(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes, lt_scores,  # type: ignore[no-untyped-def]
           su, si, me, mk, n, out):
    """Solve the board (me, mask; n stones) into out[]: its score, the proved low and high, a
    column keeping the score (-1: none or not found), and aborted (1: stopped by the budget
    with only low and high proved; 2: stopped because another thread finished). A finished
    game scores OVER (its last move made a line) or 0 (a full board), with no move."""
    w, c = par[_P_W], par[_P_C]
    bottom, board = bb[0], bb[1]
    out[MOVE], out[ABORTED] = -1, 0
    if n > 0 and has_line(me ^ mk, par):
        out[SCORE] = out[LOW] = out[HIGH] = OVER
        return
    if n == c:
        out[SCORE] = out[LOW] = out[HIGH] = 0
        return
    possible = (mk + bottom) & board
    win = wins(me, board & ~mk, par) & possible
    if win:
        for col in range(w):
            if win & bb[_COL + col]:
                out[MOVE] = col
                break
        out[SCORE] = out[LOW] = out[HIGH] = (c + 1 - n) // 2
        return
    # The score lies in [loss at the opponent's next move, win with our next stone but one].
    lo, hi, move = -((c - n) // 2), (c - 1 - n) // 2, -1
    while lo < hi:
        # Null windows, each halving [lo, hi], nearer zero first (most positions score near it).
        med = lo + (hi - lo) // 2
        if med <= 0 and _half(lo) < med:
            med = _half(lo)
        elif med >= 0 and _half(hi) > med:
            med = _half(hi)
        su[0, 0], su[0, 1] = me, mk
        r, stopped = _search(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes,
                             lt_scores, su, si, n, med, med + 1)
        if stopped:
            out[LOW], out[HIGH], out[ABORTED] = lo, hi, 1 if ctl[STOP] != 2 else 2
            return
        if r <= med:
            hi = r
        else:  # the move that cut at the root (if the root searched one) scores at least r
            lo, move = r, si[0, _BEST]
    out[SCORE] = out[LOW] = out[HIGH] = lo
    if move >= 0:
        out[MOVE] = move
        return
    # Otherwise a move keeping it: the first whose child scores at most -lo (every child
    # scores at least that); where every move loses at once, the block if there is one.
    threat = wins(me ^ mk, board & ~mk, par)
    forced = possible & threat
    moves = (forced if forced else possible) & ~(threat >> _U1)
    if moves == 0:
        moves = forced if forced else possible
        for col in range(w):
            if moves & bb[_COL + col]:
                out[MOVE] = col
                return
    for i in range(w):
        col = order[i]
        mv = moves & bb[_COL + col]
        if mv == 0:
            continue
        if n + 1 == c:  # the last square: a draw
            out[MOVE] = col
            return
        su[0, 0], su[0, 1] = me ^ mk, mk | mv
        r, stopped = _search(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes,
                             lt_scores, su, si, n + 1, -lo, -lo + 1)
        if stopped:
            out[ABORTED] = 1 if ctl[STOP] != 2 else 2
            return
        if r <= -lo:
            out[MOVE] = col
            return
