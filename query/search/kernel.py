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

from tablebase.query.search.lookup import INF, leaf, slot_of
from tablebase.query.search.moves import backup, candidates, completes, invert, order, place, remove

WS = 1024  # the kernel's win score: larger than any depth on a board of up to 64 cells
NODES, LIMIT, STOP, TABLE_HITS, TT_HITS, ABORTED = 0, 1, 2, 3, 4, 5
_CHECK = 1023  # nodes between looks at the stop flag and the node limit


# A search frame's fields (one row a ply below the node searched; no recursion: numba's cache
# cannot relink a cached recursive function into another compiled caller).
_A0, _B, _ACUR, _BEST, _BM, _I, _M, _LO, _HI, _SLOT, _G0, _LOWER, _UPPER, _CELL = range(14)
_ENTER, _NEXT, _RETURN = 0, 1, 2


@njit(cache=True, nogil=True)
def search(par, lines, cl_off, cl_idx, perms, inv, board, cnt, st, bx, bo,  # type: ignore[no-untyped-def]
           tk1, tk2, tlo, thi, tmv, tfl, ctl, tinfo, tdata, tcodes, tscores, mv, mh,
           alpha, beta):
    """The score of the board (not over) if it lies inside (alpha, beta), else a bound on it
    beyond the window it fell out of (fail-soft); 0 with ctl[ABORTED] set when stopped.
    Negamax over an explicit stack of frames: enter a node, try its moves in turn, return."""
    n, k, misere = par[0], par[3], par[5]
    fr = np.zeros((n + 2, 14), dtype=np.int64)
    fkx = np.zeros(n + 2, dtype=np.uint64)
    fko = np.zeros(n + 2, dtype=np.uint64)
    d, a, b, r, phase = 0, alpha, beta, 0, _ENTER
    while True:
        if phase == _ENTER:
            ctl[NODES] += 1
            if (ctl[NODES] & _CHECK) == 0 and (ctl[STOP] != 0 or ctl[NODES] >= ctl[LIMIT]):
                ctl[ABORTED] = 1
            if ctl[ABORTED]:
                for j in range(d - 1, -1, -1):
                    remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, fr[j, _CELL])
                return 0
            stones = st[0]
            me = stones % 2  # the index (0: x, 1: o) of the side to move
            moves, keys = mv[stones], mh[stones]
            m = candidates(par, board, moves)
            forced, phase = -1, _RETURN
            if not misere:
                for i in range(m):
                    if completes(cnt, cl_off, cl_idx, k, moves[i], me):
                        r = WS - 1
                        break
                else:
                    threats = 0
                    for i in range(m):
                        if completes(cnt, cl_off, cl_idx, k, moves[i], 1 - me):
                            threats += 1
                            forced = moves[i]
                    if threats >= 2:
                        r = -(WS - 2)
                    else:
                        phase = _ENTER
            else:
                phase = _ENTER
            if phase == _RETURN:
                continue
            slot, kx, ko, g0 = slot_of(par, bx, bo)
            first, lo, hi = -1, -INF, INF
            if tfl[slot] and tk1[slot] == kx and tk2[slot] == ko:
                ctl[TT_HITS] += 1
                lo, hi = np.int64(tlo[slot]), np.int64(thi[slot])
                if lo >= b:
                    r, phase = lo, _RETURN
                    continue
                if hi <= a or lo == hi:
                    r, phase = hi, _RETURN
                    continue
                a, b = max(a, lo), min(b, hi)
                if tmv[slot] >= 0:
                    first = inv[g0, tmv[slot]]
            if tinfo.shape[0]:
                held = leaf(tinfo, tdata, tcodes, tscores, inv, board, stones)
                if held != INF:
                    ctl[TABLE_HITS] += 1
                    tk1[slot], tk2[slot], tfl[slot] = kx, ko, 1
                    tlo[slot], thi[slot], tmv[slot] = held, held, -1
                    r, phase = held, _RETURN
                    continue
            upper = WS - 2 if misere else WS - 3
            lower = -(WS - 1) if misere else -(WS - 2)
            if upper <= a:
                r, phase = upper, _RETURN
                continue
            if lower >= b:
                r, phase = lower, _RETURN
                continue
            if forced >= 0:
                moves[0] = forced
                m = 1
            else:
                order(par, cl_off, cl_idx, cnt, moves, keys, m, first, me)
            f = fr[d]
            f[_A0], f[_B], f[_ACUR], f[_BEST], f[_BM], f[_I], f[_M] = a, b, a, -INF, -1, 0, m
            f[_LO], f[_HI], f[_SLOT], f[_G0], f[_LOWER], f[_UPPER] = lo, hi, slot, g0, lower, upper
            fkx[d], fko[d] = kx, ko
            phase = _NEXT
        elif phase == _NEXT:
            f = fr[d]
            stones = st[0]
            if f[_I] >= f[_M] or f[_ACUR] >= f[_B]:
                best, lo, hi = f[_BEST], f[_LO], f[_HI]
                if best <= f[_A0]:
                    lo, hi = (lo if lo > -INF else f[_LOWER]), min(hi, best)
                elif best >= f[_B]:
                    lo, hi = max(lo, best), (hi if hi < INF else f[_UPPER])
                else:
                    lo, hi = best, best
                if lo <= hi:  # always, unless a bound was wrong; then keep the table as it was
                    slot = f[_SLOT]
                    tk1[slot], tk2[slot], tfl[slot] = fkx[d], fko[d], 1
                    tlo[slot], thi[slot] = max(lo, f[_LOWER]), min(hi, f[_UPPER])
                    tmv[slot] = perms[f[_G0], f[_BM]]
                r, phase = best, _RETURN
                continue
            cell = mv[stones, f[_I]]
            f[_I] += 1
            if place(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cell, 1 + stones % 2):
                child = WS if misere else -WS  # the line ends the game: for the side now to move
            elif st[0] == n:
                child = 0
            else:
                f[_CELL] = cell
                a, b = invert(f[_B]), invert(f[_ACUR])
                d += 1
                phase = _ENTER
                continue
            remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cell)
            score = backup(child)
            if score > f[_BEST]:
                f[_BEST], f[_BM] = score, cell
            if f[_BEST] > f[_ACUR]:
                f[_ACUR] = f[_BEST]
        else:  # _RETURN: r is the node's result
            if d == 0:
                return r
            d -= 1
            f = fr[d]
            remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, f[_CELL])
            score = backup(r)
            if score > f[_BEST]:
                f[_BEST], f[_BM] = score, f[_CELL]
            if f[_BEST] > f[_ACUR]:
                f[_ACUR] = f[_BEST]
            phase = _NEXT


@njit(cache=True, nogil=True)
def scores_many(par, lines, cl_off, cl_idx, perms, inv, board, cnt, st, bx, bo,  # type: ignore[no-untyped-def]
                tk1, tk2, tlo, thi, tmv, tfl, ctl, tinfo, tdata, tcodes, tscores, mv, mh,
                boards, out):
    """The exact score of each legal board (rows of cell values) into `out`, by a full-window
    search: the kernel alone, without the driver's null windows (for checks of many boards)."""
    n, k = par[0], par[3]
    for r in range(boards.shape[0]):
        for c in range(n):
            if board[c] != 0:
                remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, c)
        for c in range(n):
            if boards[r, c] != 0:
                place(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, c, boards[r, c])
        last = 0 if st[0] % 2 == 1 else 1  # the index of the player who moved last
        over = False
        for line in range(cnt.shape[1]):
            if st[0] > 0 and cnt[last, line] == k:
                over = True
        if over:
            out[r] = WS if par[5] else -WS
        elif st[0] == n:
            out[r] = 0
        else:
            out[r] = search(par, lines, cl_off, cl_idx, perms, inv, board, cnt, st, bx, bo,
                            tk1, tk2, tlo, thi, tmv, tfl, ctl, tinfo, tdata, tcodes, tscores,
                            mv, mh, -INF, INF)
