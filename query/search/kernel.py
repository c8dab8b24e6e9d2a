"""The compiled search: negamax with alpha-beta over exact scores, a transposition table keyed
by the canonical board, sound move pruning, and stored tables as leaves (numba, released GIL).

Scores are the tables' scores on a wider scale (WS instead of WIN_SCORE, so that boards of up
to 64 cells fit): a win in d plies is WS - d, a loss in d is d - WS, a draw 0, always for the
side to move, and a move's score is `backup` of its child's. Every bound below is proved, never
guessed:

  - a side that can complete a line now wins in 1 (normal rules);
  - a side facing two cells where the opponent completes a line, and no win of its own, loses
    in 2; facing one, only the block can do better than that;
  - a node with no win in 1 scores at most WS - 3 (WS - 2 in misere), and at least WS - 2
    below zero (WS - 1 in misere): the "mate distance" bounds, which also make a null window
    around WS - d a search for a win within d plies, cut off at that depth by itself.

The transposition table holds lower and upper bounds of a node's exact score (relative to the
node, so valid wherever it is reached) under the board's two bitmasks in the orientation that
makes them smallest: the key is the board itself, so two positions never share an entry.

Arrays (the `Board` of engine.py makes them):

    par      int64[8]       cells, width, height, k, gravity, misere, maps, table slots - 1
    lines    (L, k) int64   the winning lines;  cl_off/cl_idx: the lines through each cell
    perms, inv  (G, cells)  the board's symmetry maps and their inverses
    board    uint8[cells];  cnt (2, L) int16: stones of x / o on each line;  st[0]: stones
    bx, bo   uint64[G]      the board's x and o bitmasks in each orientation
    tk1/tk2/tlo/thi/tmv/tfl the transposition table: key, bounds, best move, used
    ctl      int64[8]       nodes, node limit, stop flag, table hits, TT hits, aborted
    tinfo, tdata, tcodes, tscores  the stored tables at the leaves (engine.py, _leaf_tables)
    mv, mh   (cells + 1, cells) int64  move lists and their order keys, one row a ply
"""
from __future__ import annotations

import numpy as np
from numba import njit

WS = 1024  # the kernel's win score: larger than any depth on a board of up to 64 cells
INF = 1 << 20
NODES, LIMIT, STOP, TABLE_HITS, TT_HITS, ABORTED = 0, 1, 2, 3, 4, 5
_CHECK = 1023  # nodes between looks at the stop flag and the node limit


@njit(cache=True, nogil=True, inline="always")
def backup(child: int) -> int:
    """A move's score from its child's: one more ply to the end, seen from the other side."""
    if child > 0:
        return -child + 1
    if child < 0:
        return -child - 1
    return 0


@njit(cache=True, nogil=True, inline="always")
def invert(score: int) -> int:
    """The child's score a move of `score` needs (the inverse of `backup`; a window bound)."""
    if score > 0:
        return -score - 1
    if score < 0:
        return -score + 1
    return 0


@njit(cache=True, nogil=True)
def place(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cell, player):  # type: ignore[no-untyped-def]
    """Put `player`'s stone on `cell`; whether it completes one of that player's lines."""
    board[cell] = player
    st[0] += 1
    p = player - 1
    made = False
    for j in range(cl_off[cell], cl_off[cell + 1]):
        line = cl_idx[j]
        cnt[p, line] += 1
        if cnt[p, line] == par[3]:
            made = True
    for g in range(par[6]):
        bit = np.uint64(1) << np.uint64(perms[g, cell])
        if player == 1:
            bx[g] |= bit
        else:
            bo[g] |= bit
    return made


@njit(cache=True, nogil=True)
def remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cell):  # type: ignore[no-untyped-def]
    """Take the stone off `cell` (the inverse of `place`)."""
    player = board[cell]
    board[cell] = 0
    st[0] -= 1
    p = player - 1
    for j in range(cl_off[cell], cl_off[cell + 1]):
        cnt[p, cl_idx[j]] -= 1
    for g in range(par[6]):
        bit = ~(np.uint64(1) << np.uint64(perms[g, cell]))
        if player == 1:
            bx[g] &= bit
        else:
            bo[g] &= bit


@njit(cache=True, nogil=True, inline="always")
def _completes(cnt, cl_off, cl_idx, k, cell, me):  # type: ignore[no-untyped-def]
    """Whether a stone of player index `me` on empty `cell` completes a line of theirs."""
    for j in range(cl_off[cell], cl_off[cell + 1]):
        line = cl_idx[j]
        if cnt[me, line] == k - 1 and cnt[1 - me, line] == 0:
            return True
    return False


@njit(cache=True, nogil=True)
def candidates(par, board, out):  # type: ignore[no-untyped-def]
    """The playable cells into `out`, in cell order; their number."""
    n, w, h = par[0], par[1], par[2]
    m = 0
    if par[4]:
        for col in range(w):
            for row in range(h - 1, -1, -1):
                if board[row * w + col] == 0:
                    out[m] = row * w + col
                    m += 1
                    break
    else:
        for c in range(n):
            if board[c] == 0:
                out[m] = c
                m += 1
    return m


@njit(cache=True, nogil=True)
def order(par, cl_off, cl_idx, cnt, moves, keys, m, first, me):  # type: ignore[no-untyped-def]
    """Sort moves[:m] best first: `first` (the table's best move) leads, then by the lines the
    move builds and blocks (a heuristic: it only orders, never prunes)."""
    k = par[3]
    for i in range(m):
        c = moves[i]
        key = 0
        for j in range(cl_off[c], cl_off[c + 1]):
            line = cl_idx[j]
            a, b = cnt[me, line], cnt[1 - me, line]
            if b == 0:
                key += 1 << min(2 * a + 1, 40)
            if a == 0:
                key += 1 << min(2 * b, 40)
        if par[5]:
            key = -key  # misere: the quiet cells first
        if c == first:
            key = 1 << 50
        keys[i] = key
        j = i
        while j > 0 and keys[j - 1] < key:  # insertion sort, descending
            keys[j] = keys[j - 1]
            moves[j] = moves[j - 1]
            j -= 1
        keys[j] = key
        moves[j] = c


@njit(cache=True, nogil=True)
def slot_of(par, bx, bo):  # type: ignore[no-untyped-def]
    """(slot, key x, key o, orientation) of the board in the transposition table."""
    g0 = 0
    for g in range(1, par[6]):
        if bx[g] < bx[g0] or (bx[g] == bx[g0] and bo[g] < bo[g0]):
            g0 = g
    kx, ko = bx[g0], bo[g0]
    mixed = kx * np.uint64(0x9E3779B97F4A7C15) ^ (ko + np.uint64(0x632BE59BD9B4E019)) \
        * np.uint64(0xC2B2AE3D27D4EB4F)
    return np.int64((mixed >> np.uint64(20)) & np.uint64(par[7])), kx, ko, g0


@njit(cache=True, nogil=True)
def leaf(tinfo, tdata, tcodes, tscores, inv, board, stones):  # type: ignore[no-untyped-def]
    """The score a stored table gives the board, or INF when none holds it.

    tinfo rows: root stones, stone offset, free cells, free offset, stabiliser size, stabiliser
    offset, orientation count, orientation offset, code offset, code count (tdata holds the
    root's stone cells and values, free cells, stabiliser maps and orientations)."""
    for t in range(tinfo.shape[0]):
        if stones < tinfo[t, 0]:
            continue
        so, nf, fo, ns, sto, ng, go = (tinfo[t, 1], tinfo[t, 2], tinfo[t, 3], tinfo[t, 4],
                                       tinfo[t, 5], tinfo[t, 6], tinfo[t, 7])
        lo, count = tinfo[t, 8], tinfo[t, 9]
        for gi in range(ng):
            g = tdata[go + gi]
            holds = True
            for i in range(tinfo[t, 0]):
                if board[inv[g, tdata[so + 2 * i]]] != tdata[so + 2 * i + 1]:
                    holds = False
                    break
            if not holds:
                continue
            best = -1
            for s in range(ns):
                code = 0
                weight_row = sto + s * nf
                for i in range(nf):
                    d = board[inv[g, tdata[fo + i]]]
                    if d:
                        code += d * tdata[weight_row + i]
                if best < 0 or code < best:
                    best = code
            a, b = lo, lo + count
            while a < b:
                mid = (a + b) >> 1
                if tcodes[mid] < best:
                    a = mid + 1
                else:
                    b = mid
            if a < lo + count and tcodes[a] == best:
                return np.int64(tscores[a])
    return INF


@njit(cache=True, nogil=True)
def search(par, lines, cl_off, cl_idx, perms, inv, board, cnt, st, bx, bo,  # type: ignore[no-untyped-def]
           tk1, tk2, tlo, thi, tmv, tfl, ctl, tinfo, tdata, tcodes, tscores, mv, mh,
           alpha, beta):
    """The score of the board (not over) if it lies inside (alpha, beta), else a bound on it
    beyond the window it fell out of (fail-soft); 0 with ctl[ABORTED] set when stopped."""
    ctl[NODES] += 1
    if (ctl[NODES] & _CHECK) == 0 and (ctl[STOP] != 0 or ctl[NODES] >= ctl[LIMIT]):
        ctl[ABORTED] = 1
    if ctl[ABORTED]:
        return 0
    n, k, misere = par[0], par[3], par[5]
    stones = st[0]
    player = 1 if stones % 2 == 0 else 2
    me = player - 1
    moves, keys = mv[stones], mh[stones]
    m = candidates(par, board, moves)
    forced = -1
    if not misere:
        for i in range(m):
            if _completes(cnt, cl_off, cl_idx, k, moves[i], me):
                return WS - 1
        threats = 0
        for i in range(m):
            if _completes(cnt, cl_off, cl_idx, k, moves[i], 1 - me):
                threats += 1
                forced = moves[i]
        if threats >= 2:
            return -(WS - 2)
    slot, kx, ko, g0 = slot_of(par, bx, bo)
    first = -1
    lo, hi = -INF, INF
    if tfl[slot] and tk1[slot] == kx and tk2[slot] == ko:
        ctl[TT_HITS] += 1
        lo, hi = np.int64(tlo[slot]), np.int64(thi[slot])
        if lo >= beta:
            return lo
        if hi <= alpha or lo == hi:
            return hi
        alpha, beta = max(alpha, lo), min(beta, hi)
        if tmv[slot] >= 0:
            first = inv[g0, tmv[slot]]
    if tinfo.shape[0]:
        held = leaf(tinfo, tdata, tcodes, tscores, inv, board, stones)
        if held != INF:
            ctl[TABLE_HITS] += 1
            tk1[slot], tk2[slot], tfl[slot] = kx, ko, 1
            tlo[slot], thi[slot], tmv[slot] = held, held, -1
            return held
    upper = WS - 2 if misere else WS - 3
    lower = -(WS - 1) if misere else -(WS - 2)
    if upper <= alpha:
        return upper
    if lower >= beta:
        return lower
    if forced >= 0:
        moves[0] = forced
        m = 1
    else:
        order(par, cl_off, cl_idx, cnt, moves, keys, m, first, me)
    best, best_move, a = -INF, -1, alpha
    for i in range(m):
        cell = moves[i]
        if place(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cell, player):
            child = WS if misere else -WS  # the line ends the game: for the side now to move
        elif st[0] == n:
            child = 0
        else:
            child = search(par, lines, cl_off, cl_idx, perms, inv, board, cnt, st, bx, bo,
                           tk1, tk2, tlo, thi, tmv, tfl, ctl, tinfo, tdata, tcodes, tscores,
                           mv, mh, invert(beta), invert(a))
        remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cell)
        if ctl[ABORTED]:
            return 0
        score = backup(child)
        if score > best:
            best, best_move = score, cell
        if best > a:
            a = best
        if a >= beta:
            break
    if best <= alpha:
        lo, hi = (lo if lo > -INF else lower), min(hi, best)
    elif best >= beta:
        lo, hi = max(lo, best), (hi if hi < INF else upper)
    else:
        lo, hi = best, best
    if lo <= hi:  # always, unless a bound was wrong; then keep the table as it was
        tk1[slot], tk2[slot], tfl[slot] = kx, ko, 1
        tlo[slot], thi[slot] = max(lo, lower), min(hi, upper)
        tmv[slot] = perms[g0, best_move]
    return best
