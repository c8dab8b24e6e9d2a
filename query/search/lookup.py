"""What the compiled search looks up: a board's slot and key in the transposition table (the
board itself in its smallest orientation), and the score a stored table gives it (numba)."""
from __future__ import annotations

import numpy as np

from tablebase.builder.game.compiled import njit
from tablebase.builder.game.kernel import lower_bound

INF = 1 << 20
NO_BOUND = 30000  # a bound no score reaches, as the table's int16 bounds hold it


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
            a = lower_bound(tcodes, lo, lo + count, best)
            if a < lo + count and tcodes[a] == best:
                return np.int64(tscores[a])
    return INF


# Flags of a table entry (tfl): used, and what its zone (tz) is the zone of (kernel.py): the
# proof that the side to move cannot win (hi <= 0), that it loses (hi < 0), that the other side
# cannot win (lo >= 0), that the side to move wins (lo > 0); and, from the searches for a win
# or a loss within d plies, the proof of the entry's own upper bound (score <= thi) or lower
# bound (score >= tlo), kept only while that bound is the one stored.
USED, NO_WIN, LOSS, NO_LOSS, WIN, HI_AT, LO_AT = 1, 2, 4, 8, 16, 32, 64
_AT = HI_AT | LO_AT
ALL_CELLS = np.uint64(0xFFFFFFFFFFFFFFFF)  # the zone "every cell": nothing known


@njit(cache=True, nogil=True)
def turn_zone(zone, maps, g, n):  # type: ignore[no-untyped-def]
    """`zone` (a cell bitmask) with each cell c moved to maps[g, c]."""
    if zone == ALL_CELLS:
        return zone
    out = np.uint64(0)
    for c in range(n):
        if (zone >> np.uint64(c)) & np.uint64(1):
            out |= np.uint64(1) << np.uint64(maps[g, c])
    return out


@njit(cache=True, nogil=True)
def store(tk1, tk2, tlo, thi, tmv, tfl, tz, slot, kx, ko, lo, hi, move, zone, flag,  # type: ignore[no-untyped-def]
          perms, g0, n):
    """Write bounds [lo, hi] and a best move (key orientation; -1: none) under key (kx, ko);
    with `flag` (NO_WIN, LOSS, NO_LOSS, WIN or several) the zone (board orientation) of those
    proofs replaces the entry's, else a zone the same key already holds is kept (a proof stays
    a proof)."""
    # The bounds are int16: "none" (+-INF) is kept as a bound beyond any score.
    lo, hi = max(lo, -NO_BOUND), min(hi, NO_BOUND)
    keep = tfl[slot] & USED and tk1[slot] == kx and tk2[slot] == ko
    kept = tfl[slot] & ~USED if keep else 0
    if keep and tlo[slot] != lo:
        kept &= ~LO_AT  # its zone proved the old bound, not this one
    if keep and thi[slot] != hi:
        kept &= ~HI_AT
    if flag and zone != ALL_CELLS:
        turned = turn_zone(zone, perms, g0, n)
        if flag & _AT and kept & _AT:  # the other bound's proof still holds: both, joined
            tz[slot] |= turned
            kept = (kept & _AT) | flag
        else:
            tz[slot] = turned
            kept = flag
    tk1[slot], tk2[slot], tfl[slot] = kx, ko, USED | kept
    tlo[slot], thi[slot], tmv[slot] = lo, hi, move


@njit(cache=True, nogil=True)
def stored_zone(tfl, tz, slot, flag, inv, g0, n):  # type: ignore[no-untyped-def]
    """The entry's zone in board orientation if it is the zone of one of the proofs `flag`
    (ALL_CELLS: none kept)."""
    if tfl[slot] & flag:
        return turn_zone(tz[slot], inv, g0, n)
    return ALL_CELLS


@njit(cache=True, nogil=True)
def bound_zone(tfl, tz, tlo, thi, slot, low, a, b, inv, g0, n):  # type: ignore[no-untyped-def]
    """A cut-off by the entry (score <= a when `low`, else score >= b) in a window about a
    depth: (the bound a kept zone proves, that zone in board orientation), or (the stored
    bound, ALL_CELLS) when none is kept. A sign's zone proves the bound 0, a cut-off still."""
    f = tfl[slot]
    if low:
        if f & HI_AT:
            return np.int64(thi[slot]), turn_zone(tz[slot], inv, g0, n)
        if f & NO_WIN and a >= 0:
            return np.int64(0), turn_zone(tz[slot], inv, g0, n)
        return np.int64(thi[slot]), ALL_CELLS
    if f & LO_AT:
        return np.int64(tlo[slot]), turn_zone(tz[slot], inv, g0, n)
    if f & NO_LOSS and b <= 0:
        return np.int64(0), turn_zone(tz[slot], inv, g0, n)
    return np.int64(tlo[slot]), ALL_CELLS
