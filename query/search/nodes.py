"""The df-pn nodes of prover.py: the moves a node tries (one of each symmetric set) and its
proof and disproof numbers from its children's (numba)."""
from __future__ import annotations

import numpy as np

from tablebase.compiled import njit
from tablebase.query.search.masks import get, has, same

PINF = np.int64(1) << np.int64(40)  # "infinite" proof and disproof numbers


@njit(cache=True, nogil=True)
def children(par, bx, bo, perms, board, out, only):  # type: ignore[no-untyped-def]
    """The moves to try into `out` (only `only` if >= 0), one of each set the board's own
    symmetries make equal (a move is kept if it is the smallest cell of its orbit); their
    number."""
    if only >= 0:
        out[0] = only
        return 1
    n = par[0]
    m = 0
    for c in range(n):
        if board[c] != 0:
            continue
        keep = True
        for g in range(1, par[6]):  # maps that leave the board as it is map c to an equal move
            if perms[g, c] < c and same(get(bx, g), get(bx, 0)) and same(get(bo, g), get(bo, 0)):
                keep = False
                break
        if keep:
            out[m] = c
            m += 1
    return m


@njit(cache=True, nogil=True)
def numbers(fpn, fdn, fc, m, live, attack):  # type: ignore[no-untyped-def]
    """(pn, dn, best child, the next best child's number) of a node from its children's: A's
    node sums proof numbers and takes the least disproof number, D's the other way round.
    Moves outside `live` are refuted already (by a refuted move's zone) and not counted."""
    pn, dn = (np.int64(0), PINF) if attack else (PINF, np.int64(0))
    best, other = -1, PINF
    for i in range(m):
        cp, cd = fpn[i], fdn[i]
        if attack:
            if cp != 0 and not has(live, fc[i]):
                continue
            pn = min(PINF, pn + cp)
            if cp == 0:
                continue
            if best < 0 or cd < dn:
                other, dn, best = (dn if best >= 0 else PINF), cd, i
            elif cd < other:
                other = cd
        else:
            if cd != 0 and not has(live, fc[i]):
                continue
            dn = min(PINF, dn + cd)
            if best < 0 or cp < pn:
                other, pn, best = (pn if best >= 0 else PINF), cp, i
            elif cp < other:
                other = cp
    if attack and best < 0:
        dn = PINF  # every move refuted: proved (pn == 0)
    return pn, dn, best, other
