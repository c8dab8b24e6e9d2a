"""The compiled search of gravity boards (Connect Four and its kin, normal rules) on bitboards:
the rules by bit tricks, a transposition table of one 64-bit word a slot, and the whole solve
(null windows on the score, then a move keeping it) in one call that releases the GIL, so that
threads may share the table (numba, no recursion: see compiled_search.py's explicit stack).

The encoding and the line rule are the rules kernel's (builder/games/grid/bitboard_arrays.py).

Scores count stones (Pons' scale, for the side to move; bitboard_arrays.py converts them to depths):
a move's score is minus its child's. The arrays are drawn in query/search/bitboard_arrays.py.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from tablebase.builder.games.bits import popcount as _popcount
from tablebase.builder.games.grid.bitboard import G_H, G_K, G_STEPS, G_W, GEOMETRY, wins
from tablebase.compiled import njit

STOP, LIMIT = 0, 1
NODES, HITS = 8, 9  # + 8 * thread: each thread's counters on their own cache line
# par: the board's geometry row (the rules kernel's G_* fields), then C, bucket shift, busy,
# the small part's first slot and its bucket shift (the table's two parts: `_slot`)
_P_W, _P_H, _P_K, _P_STEPS = G_W, G_H, G_K, G_STEPS
_P_C, _P_SHIFT, _P_BUSY = GEOMETRY, GEOMETRY + 1, GEOMETRY + 2
_P_SMALL, _P_SMALL_SHIFT = GEOMETRY + 3, GEOMETRY + 4
_BUSY_EMPTY = 12  # nodes of at least this many empty squares are marked busy
_COL = 4  # bb[_COL + col]: the column's bits
# out[]: score, proved low, proved high, move column, aborted, stones, the move's cell, then
# this call's nodes and table hits (searcher.py's batch unpacks a row in this order)
SCORE, LOW, HIGH, MOVE, ABORTED, STONES, CELL, DONE = range(8)
OVER = -100  # the score of a board whose last move made a line
_CHECK = 1023  # nodes between looks at the stop flag and the node limit
# Nodes of at most _NEAR empty squares neither read nor write the table: their subtrees are
# small, and a look-up in a table that another process (or a long search) left cold costs more
# than searching them again. With the whole window up to _WHOLE, 8 is best: middle-easy's
# file 454,927 nodes and 30-31 us a position against 501,991 and 40-45 with 10 (9: 472,904,
# 30-31), end-easy's the same (docs/benchmarks.md). Sound: the table only saves work.
_NEAR = 8
# Boards of at most _WHOLE empty squares are solved by one search with the whole window, not by
# null windows (`_solve`). Pons' end-easy set (1,000 positions, one process, _NEAR 10): 55,753
# nodes and 4.43 us a position with 10, 50,259 and 4.20 with 12, 43,968 and 3.93 with 14 or
# 16; its every-50th sample 699 nodes against 443 (his solver: 719).
_WHOLE = 14
# Nodes of at most _SMALL empty squares keep their entries in the table's small part (1 MiB,
# bitboard_arrays.py), which stays in the core's cache, the others in its large part (64 MiB), where
# nearly every look-up waits for memory: 20-30% less time on Pons' sets, from end-easy to
# begin-hard, for up to 11% more nodes (12 to 20 did about as well: docs/benchmarks.md).
_SMALL = 16
_NONE = -999  # table_score: no stored table holds the board

_U0, _U1, _ALL = np.uint64(0), np.uint64(1), np.uint64(0xFFFFFFFFFFFFFFFF)
# A flag passed as a variable, not a literal: numba compiles a callee once per literal argument
# (True and False would make two copies of the whole search).
_NO = np.bool_(False)
# The bucket and the entry's tag: the key (B = W (H + 1) bits) times an odd number mod 2**B is a
# bijection of B-bit numbers; its top bits pick a bucket of two slots (2**(s-1) of them), its
# low B - s + 1 bits are the tag, so bucket and tag give back the key: a position is identified
# exactly, never by a hash alone (bitboard_arrays.py makes s >= B - 43 in each of the table's two
# parts, `_slot`). The entry: the tag (44 bits at most), the work (empty squares, 6 bits), the
# bounds + 64 (7 bits each, never 0: a used slot). A bucket's first slot keeps the entry of
# most work, its second the latest other (one cache line: both come with one load).
_MUL, _TAG_SHIFT, _WORK_SHIFT = np.uint64(0x9E3779B97F4A7C15), np.uint64(20), np.uint64(14)
_HI_SHIFT, _LO_SHIFT, _FIELD, _BIAS = np.uint64(7), np.uint64(0), np.uint64(0x7F), 64


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _slot(key, empty, parts):  # type: ignore[no-untyped-def]
    """(the bucket's first slot, tag) of a key of `empty` empty squares; parts: `_parts`."""
    km, shift, tm, small, small_shift, small_tm = parts
    h = (key * _MUL) & km
    if empty <= _SMALL:
        return small + (np.int64(h >> small_shift) << 1), h & small_tm
    return np.int64(h >> shift) << 1, h & tm


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _parts(par, bb):  # type: ignore[no-untyped-def]
    """The key mask, each part's bucket shift and tag mask, the small part's first slot: read
    once into locals, not again at each look-up from arrays the search's stores might alias."""
    shift, small_shift = np.uint64(par[_P_SHIFT]), np.uint64(par[_P_SMALL_SHIFT])
    return bb[2], shift, bb[3], par[_P_SMALL], small_shift, (_U1 << small_shift) - _U1


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _mark(key, parts, nbusy):  # type: ignore[no-untyped-def]
    """A key's busy mark (of nbusy past the table's parts): from its large part's bucket."""
    return (np.int64(((key * _MUL) & parts[0]) >> parts[1])) & (nbusy - 1)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _entry(tt, slot, tag):  # type: ignore[no-untyped-def]
    """The key's entry in its bucket, or 0."""
    for e in (tt[slot], tt[slot + 1]):
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
        tt[slot], tt[slot + 1] = e, first  # the entry it displaces stays, as the latest other
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
def table_score(lt_info, lt_bits, lt_data, lt_codes, lt_scores, xs, os, n):  # type: ignore[no-untyped-def]
    """The score a stored table gives the board (x's and o's bitboards, n stones), or _NONE.

    lt_info rows: root stones, free cells, stabiliser size, weights offset (lt_data), code
    offset, code count, orientation, bits offset (lt_bits: root x, root o, then each free
    cell's bit in this orientation); lt_scores on this kernel's scale."""
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
        lo, end = lt_info[t, 4], lt_info[t, 4] + lt_info[t, 5]
        a = lo + np.searchsorted(lt_codes[lo:end], best)
        if a < end and lt_codes[a] == best:
            return np.int64(lt_scores[a])
    return _NONE
# The stack: su (uint64, a row a ply: me, mask, the tag, then each move's child key by column)
# and si, a frame a ply below the node searched: the window, the node's proved bounds, the
# moves (columns, best first, then those put off) and their order keys.
_A, _B, _A0, _LO, _HI, _N, _I, _BEST, _BS, _CUR, _SLOT, _N0, _MARK, _MV = range(14)
FRAME = _MV  # si's row: these fields, then 3 W (moves, deferred moves, their order keys)


@njit(cache=True, nogil=True, error_model="numpy")
def _search(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes, lt_scores,  # type: ignore[no-untyped-def]
            su, si, n0, alpha, beta, moving):
    """(score, stopped) of the board in su[0] (me, mask; n0 stones; its side to move cannot
    win at once): exact inside (alpha, beta), else a bound beyond the window it fell out of
    (fail-soft); with `moving`, the root searches its moves whatever its entry says, so that
    si[0, _BEST] is a move that cut. Negamax over an explicit stack: enter, try moves, return."""
    w, c, parts = par[_P_W], par[_P_C], _parts(par, bb)
    # Threads mark the big nodes they are searching in `busy` slots past the table's end; a
    # thread puts off a move whose child another is searching (ABDADA): the threads split
    # the work instead of repeating it. It only orders moves: every move is still searched.
    nbusy, bottom, board, tables = par[_P_BUSY], bb[0], bb[1], lt_info.shape[0] > 0
    size, nodes, hits, d, r = tt.shape[0] - nbusy, ctl[NODES + 8 * t], 0, 0, 0
    si[0, _A], si[0, _B], si[0, _BEST] = alpha, beta, -1
    while True:
        # --- enter the node at depth d: r and done, or its frame made ready to try moves
        nodes += 1
        if (nodes & _CHECK) == 0:  # publish the nodes; stop for the flag or the node limit
            ctl[NODES + 8 * t] = nodes
            total = 0
            for j in range((ctl.shape[0] - 8) // 8):
                total += ctl[NODES + 8 * j]
            if ctl[STOP] != 0 or total >= ctl[LIMIT]:  # STOP: 1 the budget, 2 another finished
                ctl[HITS + 8 * t] += hits
                return 0, True
        n = n0 + d
        me, mk = su[d, 0], su[d, 1]
        empty = board & ~mk
        possible = (mk + bottom) & board
        threat = wins(me ^ mk, empty, par)  # where the opponent would complete a line
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
                a, b = si[d, _A], si[d, _B]
                key = me + mk
                slot, tag = _slot(key, c - n, parts)
                # Decided by the stones alone: no table load (Pons'; a weaker bound, as sound).
                open_ = lo < b and hi > a
                e = _entry(tt, slot, tag) if open_ and c - n > _NEAR else _U0
                if e and not (moving and d == 0):
                    lo = max(lo, np.int64((e >> _LO_SHIFT) & _FIELD) - _BIAS)
                    hi = min(hi, np.int64((e >> _HI_SHIFT) & _FIELD) - _BIAS)
                elif tables and open_:
                    xs, os = (me, me ^ mk) if n % 2 == 0 else (me ^ mk, me)
                    held = _NONE if moving and d == 0 else table_score(
                        lt_info, lt_bits, lt_data, lt_codes, lt_scores, xs, os, n)
                    if held != _NONE:
                        hits += 1
                        lo = hi = held
                        _store(tt, slot, tag, held, held, c - n)
                if lo >= b:
                    r = lo
                elif hi <= a or lo == hi:
                    r = hi
                else:
                    done = False
                    su[d, 2], si[d, _SLOT] = tag, slot if c - n > _NEAR else -1
                    a, b = max(a, lo), min(b, hi)
                    si[d, _A], si[d, _B], si[d, _A0], si[d, _LO], si[d, _HI] = a, b, a, lo, hi
                    si[d, _I], si[d, _BEST], si[d, _BS] = 0, -1, -1000
                    # Order: by the squares the move makes winning for us (Pons' order: it only
                    # orders, never prunes), centre first on ties.
                    m = 0
                    fetch = (n + 3 < c and c - n - 1 > _NEAR and -((c - 3 - n) // 2) < -a
                             and (c - 2 - n) // 2 > -b)
                    for i in range(w):
                        col = order[i]
                        mv = moves & bb[_COL + col]
                        if mv == 0:
                            continue
                        # The child's table slot, fetched now (unless the stones alone decide
                        # it): its entry comes from memory while this loop counts threats.
                        su[d, 3 + col] = ckey = (me ^ mk) + (mk | mv)
                        if fetch:
                            _prefetch(tt, _slot(ckey, c - n - 1, parts)[0])
                        score = np.int64(_popcount(wins(me | mv, empty & ~mv, par)))
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
                        si[d, _MARK] = size + _mark(key, parts, nbusy)
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
                    if slot >= 0:
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
                if slot >= 0:  # a node near the end keeps out of the table (_NEAR)
                    # Inside the window: exact; else every move at most r: an upper bound.
                    low = r if r > si[d, _A0] else si[d, _LO]
                    _store(tt, slot, tag, low, r, c - n0 - d)
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
            if tt[size + _mark(ckey, parts, nbusy)] != ckey + _U1:
                break
            si[d, _MV + si[d, _N]] = col  # another thread is in that child: try it last
            si[d, _N] += 1
        si[d, _CUR] = col
        su[d + 1, 0], su[d + 1, 1] = me ^ mk, mk | mv
        si[d + 1, _A], si[d + 1, _B] = -si[d, _B], -si[d, _A]
        d += 1


@njit(cache=True, nogil=True, error_model="numpy")
def solve(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes, lt_scores,  # type: ignore[no-untyped-def]
          su, si, cell_bits, boards, nodes, outs):
    """Solve each board (rows of cell values, uint8, row-major; cell_bits: each cell's bit) into
    its row of outs: `_solve`'s out[], its stones, the cell of the move (-1: none), its nodes
    and hits. With nodes > 0 (a batch, thread 0 alone), each within that many more nodes and no
    other limit (LIMIT is set for each board, then left at none): many small solves in one
    call, a board not solved within them left aborted."""
    limit = ctl[LIMIT] if nodes == 0 else np.int64(1 << 62)
    for b in range(boards.shape[0]):
        cells, out = boards[b], outs[b]
        out[:] = 0
        ctl[LIMIT] = min(limit, ctl[NODES::8].sum() + nodes) if nodes > 0 else limit
        x, mk, n, done, hits = _U0, _U0, np.int64(0), ctl[NODES + 8 * t], ctl[HITS + 8 * t]
        for i in range(cells.shape[0]):
            if cells[i]:
                bit = _U1 << np.uint64(cell_bits[i])
                n, mk, x = n + 1, mk | bit, x | bit if cells[i] == 1 else x
        _solve(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes, lt_scores, su,
               si, x if n % 2 == 0 else x ^ mk, mk, n, out)
        col = out[MOVE]  # the stone lands above the column's stones (row 0 on top)
        height = np.int64(_popcount(mk & bb[_COL + col])) if col >= 0 else 0
        out[STONES], out[CELL] = n, (par[_P_H] - 1 - height) * par[_P_W] + col if col >= 0 else -1
        out[DONE], out[DONE + 1] = ctl[NODES + 8 * t] - done, ctl[HITS + 8 * t] - hits
    ctl[LIMIT] = limit


@njit(cache=True, nogil=True, error_model="numpy")
def _solve(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes, lt_scores,  # type: ignore[no-untyped-def]
           su, si, me, mk, n, out):
    """Solve the board (me, mask; n stones) into out[]: its score, the proved low and high, a
    column keeping the score (-1: none or not found), and aborted (1: stopped by the budget
    with only low and high proved; 2: stopped because another thread finished). A finished
    game scores OVER (its last move made a line) or 0 (a full board), with no move."""
    c, bottom, board = par[_P_C], bb[0], bb[1]
    out[MOVE], out[ABORTED] = -1, 0
    if n > 0 and wins(me ^ mk, me ^ mk, par):  # a stone of the last mover's completes a line
        out[SCORE] = out[LOW] = out[HIGH] = OVER
        return
    if n == c:
        out[SCORE] = out[LOW] = out[HIGH] = 0
        return
    possible = (mk + bottom) & board
    win = wins(me, board & ~mk, par) & possible
    if win:
        out[MOVE] = _first_column(win, par)
        out[SCORE] = out[LOW] = out[HIGH] = (c + 1 - n) // 2
        return
    # The score lies in [loss at the opponent's next move, win with our next stone but one];
    # hi starts one stone higher, as Pons': its windows cost fewer nodes (begin-easy: 10%).
    lo, hi, move = -((c - n) // 2), (c + 1 - n) // 2, -1
    # Near the end one search with the whole window rather than null windows, each of which
    # searches the tree again (from nothing where nodes keep out of the table, _NEAR). Its root
    # searches every move whatever the table says of it (`moving`): its best move then scores
    # exactly the score, which a window the root's entry narrowed would not promise.
    whole = c - n <= _WHOLE
    while lo < hi:
        # Null windows, each halving [lo, hi], nearer zero first (most positions score near it).
        med, half_lo, half_hi = lo + (hi - lo) // 2, -((-lo) // 2), hi // 2  # towards zero
        if med <= 0 and half_lo < med:
            med = half_lo
        elif med >= 0 and half_hi > med:
            med = half_hi
        a, b = (lo - 1, hi + 1) if whole else (med, med + 1)
        su[0, 0], su[0, 1] = me, mk
        r, stopped = _search(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes,
                             lt_scores, su, si, n, a, b, whole)
        if stopped:
            out[LOW], out[HIGH], out[ABORTED] = lo, hi, 1 if ctl[STOP] != 2 else 2
            return
        if whole:  # the exact score, and the move that made it
            lo = hi = r
            move = si[0, _BEST]
        elif r <= med:
            hi = r
        else:  # the move that cut at the root (if the root searched one) scores at least r
            lo, move = r, si[0, _BEST]
    out[SCORE] = out[LOW] = out[HIGH] = lo
    if move >= 0:
        out[MOVE] = move
        return
    # Otherwise a move keeping it: one that cuts the root's search above lo - 1 (every move
    # scores at most lo); with no move searched (all lose at once, or the board fills with a
    # draw), any non-losing move, else any move.
    su[0, 0], su[0, 1] = me, mk
    r, stopped = _search(par, bb, order, tt, ctl, t, lt_info, lt_bits, lt_data, lt_codes,
                         lt_scores, su, si, n, lo - 1, lo, not _NO)
    if stopped:
        out[ABORTED] = 1 if ctl[STOP] != 2 else 2
        return
    out[MOVE] = si[0, _BEST]
    if out[MOVE] < 0:
        threat = wins(me ^ mk, board & ~mk, par)
        moves = ((possible & threat) if possible & threat else possible) & ~(threat >> _U1)
        out[MOVE] = _first_column(moves if moves else possible, par)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _first_column(squares, par):  # type: ignore[no-untyped-def]
    """The first column holding one of the squares (some): its lowest bit's."""
    return np.int64(_popcount((squares & (~squares + _U1)) - _U1)) // (par[_P_H] + 1)
