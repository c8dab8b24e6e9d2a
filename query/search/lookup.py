"""What the compiled search looks up: a board's slot and key in the transposition table (the
board itself in its smallest orientation), and the score a stored table gives it (numba)."""
from __future__ import annotations

import numpy as np
from numba import njit

INF = 1 << 20


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
