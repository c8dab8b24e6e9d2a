"""The proof table of prover.py's df-pn: each entry a position (the board in its smallest
orientation as the key), its proof and disproof numbers, and once resolved the zone of its
proof (key orientation), the defender's proved reply and what kind of proof it is; buckets of
_WAYS slots in which a proof is never overwritten by anything else (numba). Keys and zones are
cell sets of masks.py's kinds: tk1, tk2 and tz are arrays of one word a set up to 64 cells, of
two past them (to 128), and each kernel here compiles for the kind its arrays are of."""
from __future__ import annotations

import numpy as np

from tablebase.compiled import njit
from tablebase.query.search.masks import (
    MAX_CELLS,
    array_like,
    below,
    bit,
    fold,
    get,
    join,
    none_like,
    same,
)
from tablebase.query.search.masks import put as put_set

USED, PROVED, DISPROVED = 1, 2, 4
NODES, LIMIT, STOP, ABORTED, FULL, PAIRINGS, DEEPEST, FOURS, FILLED, ROOM = range(10)
# From REPLIES on, two counters a number of stones (prover.leaf): the defender's positions with
# that many stones where replies were tried for a pairing after them, and where one was found;
# then VISITS, the defender's positions visited first (tried or not).
REPLIES = 10
VISITS = REPLIES + 2 * (MAX_CELLS + 1)
CONTROLS = VISITS + 1
_WAYS = 4  # slots a key may sit in (a bucket): proved entries are never overwritten


@njit(cache=True, nogil=True)
def key_of(par, bx, bo):  # type: ignore[no-untyped-def]
    """(key x, key o, orientation): the board in its smallest orientation."""
    g0, kx, ko = 0, get(bx, 0), get(bo, 0)
    for g in range(1, par[6]):
        x = get(bx, g)
        if below(x, kx) or (same(x, kx) and below(get(bo, g), ko)):
            g0, kx, ko = g, x, get(bo, g)
    return kx, ko, g0


@njit(cache=True, nogil=True)
def child_key(par, perms, bx, bo, cell, me):  # type: ignore[no-untyped-def]
    """key_of the board after player index `me` plays `cell` (without playing it)."""
    kx, ko, g0 = get(bx, 0), get(bo, 0), 0
    for g in range(par[6]):
        x, o = get(bx, g), get(bo, g)
        if me == 0:
            x = join(x, bit(x, perms[g, cell]))
        else:
            o = join(o, bit(o, perms[g, cell]))
        if g == 0 or below(x, kx) or (same(x, kx) and below(o, ko)):
            kx, ko, g0 = x, o, g
    return kx, ko, g0


@njit(cache=True, nogil=True, inline="always")
def _bucket(kx, ko, mask):  # type: ignore[no-untyped-def]
    """The bucket of key (kx, ko): a product's bits 17 and up depend only on the factors' low
    bits, so the high cells (the 8x8 board's cells 39 to 63) once never reached the bucket and
    most positions of a search shared a few buckets; the shifts fold the high bits down. A
    wide key is folded to a word first (masks.fold: a key of cells below 64 folds to its low
    word, so it lands where the same key one word wide does). The keys are cast: from Python
    they come as int64, whose shifts and products differ."""
    kx, ko = np.uint64(fold(kx)), np.uint64(fold(ko))
    h = (kx * np.uint64(0x9E3779B97F4A7C15)) ^ ((ko + np.uint64(0x632BE59BD9B4E019))
                                                 * np.uint64(0xC2B2AE3D27D4EB4F))
    h ^= h >> np.uint64(31)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(29)
    return np.int64(h & mask)  # so that doubled, a key's bucket is this or it + buckets


@njit(cache=True, nogil=True)
def find(tk1, tk2, tfl, kx, ko):  # type: ignore[no-untyped-def]
    """The slot holding key (kx, ko), or -1."""
    mask = np.uint64(tk1.shape[0] // _WAYS - 1)
    base = _bucket(kx, ko, mask) * _WAYS
    for s in range(base, base + _WAYS):
        if tfl[s] & USED and same(get(tk1, s), kx) and same(get(tk2, s), ko):
            return s
    return -1


@njit(cache=True, nogil=True)
def put(tk1, tk2, tpn, tdn, tz, tmv, tfl, ctl, kx, ko, pn, dn, zone, move, reason):  # type: ignore[no-untyped-def]
    """Store pn/dn (and, proved, the zone in key orientation, the reply and the reason) under
    (kx, ko): its own slot, else a free one, else an unresolved one; a proof with nowhere to go
    sets ctl[FULL] (the proof could not be written out whole). ctl[FILLED] counts the slots
    in use."""
    mask = np.uint64(tk1.shape[0] // _WAYS - 1)
    base = _bucket(kx, ko, mask) * _WAYS
    slot, spare = -1, -1
    for s in range(base, base + _WAYS):
        if tfl[s] & USED and same(get(tk1, s), kx) and same(get(tk2, s), ko):
            slot = s
            break
        if tfl[s] == 0 and (spare < 0 or tfl[spare] != 0):
            spare = s  # a free slot first
        elif spare < 0 and tfl[s] & PROVED == 0:
            spare = s  # else an unresolved or disproved entry: it may be replaced
    if slot < 0:
        slot = spare
        if slot >= 0 and tfl[slot] == 0:
            ctl[FILLED] += 1
    if slot < 0:
        if pn == 0:
            ctl[FULL] = 1
            if ctl[ROOM] < (np.int64(1) << np.int64(62)):
                ctl[FILLED] = ctl[ROOM]  # a table that may grow grows now: no proof is lost
        return
    if tfl[slot] & PROVED and pn != 0:
        return  # a proof stays
    put_set(tk1, slot, kx)
    put_set(tk2, slot, ko)
    tpn[slot], tdn[slot] = pn, dn
    flag = USED | (PROVED if pn == 0 else 0) | (DISPROVED if dn == 0 else 0)
    tfl[slot] = flag | (reason << 3)
    put_set(tz, slot, zone)
    tmv[slot] = move


@njit(cache=True, nogil=True)
def double(tk1, tk2, tpn, tdn, tz, tmv, tfl, ctl):  # type: ignore[no-untyped-def]
    """The table in the first half of the arrays, made a table of all of them in place (the
    second half empty): each bucket's entries split between it and its twin a half further
    on (`_bucket`), in each the proofs first, then the rest, each in their order, as
    inserting every entry anew (proofs first, in slot order) into an empty table would place
    them; ctl[FILLED] counts the slots in use."""
    half = tk1.shape[0] // 2
    ctl[FILLED] = 0
    nothing = none_like(get(tk1, 0))
    k1, k2, zn = array_like(nothing, _WAYS), array_like(nothing, _WAYS), array_like(nothing, _WAYS)
    pn, dn = np.zeros(_WAYS, tpn.dtype), np.zeros(_WAYS, tdn.dtype)
    mv, fl = np.zeros(_WAYS, tmv.dtype), np.zeros(_WAYS, tfl.dtype)
    for base in range(0, half, _WAYS):
        m = 0  # the bucket's entries, proofs first, read before any is written
        for proofs in (True, False):
            for s in range(base, base + _WAYS):
                if tfl[s] & USED and (tfl[s] & PROVED != 0) == proofs:
                    put_set(k1, m, get(tk1, s))
                    put_set(k2, m, get(tk2, s))
                    put_set(zn, m, get(tz, s))
                    pn[m], dn[m], mv[m], fl[m] = tpn[s], tdn[s], tmv[s], tfl[s]
                    m += 1
        if m == 0:
            continue
        for s in range(base, base + _WAYS):
            put_set(tk1, s, nothing)
            put_set(tk2, s, nothing)
            put_set(tz, s, nothing)
            tpn[s], tdn[s], tmv[s], tfl[s] = 0, 0, 0, 0
        low, high = base, base + half
        for i in range(m):
            if _bucket(get(k1, i), get(k2, i), np.uint64(2 * half // _WAYS - 1)) * _WAYS == base:
                t, low = low, low + 1
            else:
                t, high = high, high + 1
            put_set(tk1, t, get(k1, i))
            put_set(tk2, t, get(k2, i))
            put_set(tz, t, get(zn, i))
            tpn[t], tdn[t], tmv[t], tfl[t] = pn[i], dn[i], mv[i], fl[i]
        ctl[FILLED] += m
