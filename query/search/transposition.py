"""What the compiled search looks up: a board's slot and key in the transposition table (the
board itself in its smallest orientation: its two cell sets, masks.py, so that a key is never
shared by two boards), and the score a stored table gives it (numba)."""
from __future__ import annotations

import numpy as np

from tablebase.builder.games.tier_lookup import lower_bound
from tablebase.compiled import njit
from tablebase.query.search.masks import (
    all_like,
    below,
    bit,
    get,
    has,
    join,
    mix,
    none_like,
    put,
    same,
)

INF = 1 << 20
NO_BOUND = 30000  # a bound no score reaches, as the table's int16 bounds hold it


@njit(cache=True, nogil=True)
def slot_of(par, bx, bo):  # type: ignore[no-untyped-def]
    """(slot, key x, key o, orientation) of the board in the transposition table: the key is
    the board's x and o cell sets in its orientation that comes first in the sets' order."""
    g0, kx, ko = 0, get(bx, 0), get(bo, 0)
    for g in range(1, par[6]):
        x = get(bx, g)
        if below(x, kx) or (same(x, kx) and below(get(bo, g), ko)):
            g0, kx, ko = g, x, get(bo, g)
    return np.int64((mix(kx, ko) >> np.uint64(20)) & np.uint64(par[7])), kx, ko, g0


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


# Flags of a table entry (tfl): used, and what its zone (tz) is the zone of (compiled_search.py): the
# proof that the side to move cannot win (hi <= 0), that it loses (hi < 0), that the other side
# cannot win (lo >= 0), that the side to move wins (lo > 0); and, from the searches for a win
# or a loss within d plies, the proof of the entry's own upper bound (score <= thi) or lower
# bound (score >= tlo), kept only while that bound is the one stored.
USED, NO_WIN, LOSS, NO_LOSS, WIN, HI_AT, LO_AT = 1, 2, 4, 8, 16, 32, 64
_AT = HI_AT | LO_AT
# A zone of every cell (masks.all_like) is "nothing known": no proof's zone.


@njit(cache=True, nogil=True)
def turn_zone(zone, maps, g, n):  # type: ignore[no-untyped-def]
    """`zone` (a cell set) with each cell c moved to maps[g, c]."""
    if same(zone, all_like(zone)):
        return zone
    out = none_like(zone)
    for c in range(n):
        if has(zone, c):
            out = join(out, bit(out, maps[g, c]))
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
    keep = tfl[slot] & USED and same(get(tk1, slot), kx) and same(get(tk2, slot), ko)
    kept = tfl[slot] & ~USED if keep else 0
    if keep and tlo[slot] != lo:
        kept &= ~LO_AT  # its zone proved the old bound, not this one
    if keep and thi[slot] != hi:
        kept &= ~HI_AT
    if flag and not same(zone, all_like(zone)):
        turned = turn_zone(zone, perms, g0, n)
        if flag & _AT and kept & _AT:  # the other bound's proof still holds: both, joined
            put(tz, slot, join(get(tz, slot), turned))
            kept = (kept & _AT) | flag
        else:
            put(tz, slot, turned)
            kept = flag
    put(tk1, slot, kx)
    put(tk2, slot, ko)
    tfl[slot] = USED | kept
    tlo[slot], thi[slot], tmv[slot] = lo, hi, move


@njit(cache=True, nogil=True)
def stored_zone(tfl, tz, slot, flag, inv, g0, n):  # type: ignore[no-untyped-def]
    """The entry's zone in board orientation if it is the zone of one of the proofs `flag`
    (every cell: none kept)."""
    zone = get(tz, slot)
    if tfl[slot] & flag:
        return turn_zone(zone, inv, g0, n)
    return all_like(zone)


@njit(cache=True, nogil=True)
def bound_zone(tfl, tz, tlo, thi, slot, low, a, b, inv, g0, n):  # type: ignore[no-untyped-def]
    """A cut-off by the entry (score <= a when `low`, else score >= b) in a window about a
    depth: (the bound a kept zone proves, that zone in board orientation), or (the stored
    bound, every cell) when none is kept. A sign's zone proves the bound 0, a cut-off still."""
    f = tfl[slot]
    zone = get(tz, slot)
    if low:
        if f & HI_AT:
            return np.int64(thi[slot]), turn_zone(zone, inv, g0, n)
        if f & NO_WIN and a >= 0:
            return np.int64(0), turn_zone(zone, inv, g0, n)
        return np.int64(thi[slot]), all_like(zone)
    if f & LO_AT:
        return np.int64(tlo[slot]), turn_zone(zone, inv, g0, n)
    if f & NO_LOSS and b <= 0:
        return np.int64(0), turn_zone(zone, inv, g0, n)
    return np.int64(tlo[slot]), all_like(zone)
