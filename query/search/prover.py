"""The compiled AND/OR search that proves "the attacker cannot win" (depth-first proof-number
search, df-pn, Nagai 2002, with the 1 + epsilon thresholds of Pawlewicz and Lew 2007) on
kernel.py's arrays (normal rules, no gravity, not +exact): a proof table that lasts between
calls, pairings and dead lines as leaves (proofs.py), threats answered at once, and relevance
zones that settle the attacker's moves outside them (numba; an explicit stack, no recursion).

Proof numbers count the nodes still to prove "the attacker (A) cannot win", disproof numbers
those to show A wins. A's nodes are AND nodes (every move of A refuted), the defender's (D)
OR nodes (one reply suffices).

The zone of a proof (the one soundness argument every rule below leans on). A proof of "A
cannot win" at position Q has zone Z when A cannot win from every Q' with the same side to move
and the same number of stones in which D holds every cell D holds in Q (and maybe more) and A's
stones inside Z are some of A's stones of Q inside Z (outside Z, A's stones are anything). The
zone of each kind of node (each case proved in the comment at its code):
  pairing        the cells of the pairs (dead lines: none)
  D makes a line the line, and one empty cell of every line still open for A
  A faces two    both lines, and two empty cells of every line open for A
  D's reply r    the child's zone and r
  A's moves      the union of the zones of the moves searched; a move outside one of them is
                 refuted by that move's proof (so only moves inside all of them are searched)
  A blocks one   the block's zone, the threat's line, two empty cells of every line open for A
Disproofs (A wins) carry no zone: they only steer the search, never enter a proof.
"""
from __future__ import annotations

import numpy as np

from tablebase.builder.game.compiled import njit
from tablebase.query.search.lookup import turn_zone
from tablebase.query.search.moves import order, place, remove
from tablebase.query.search.proofs import cannot_win, hit_lines
from tablebase.query.search.threats import vcf

PINF = np.int64(1) << np.int64(40)  # "infinite" proof and disproof numbers
USED, PROVED, DISPROVED = 1, 2, 4
# What a proved entry's proof is (tfl >> 3): inner, or a leaf of one of these kinds.
INNER, PAIRED, LINE, THREATS = 0, 1, 2, 3
NODES, LIMIT, STOP, ABORTED, FULL, PAIRINGS, DEEPEST, FOURS, FILLED, ROOM = range(10)
# The attacker's continuous fours looked for at a node: at most this many fours deep, and this
# many stones placed.
VCF_DEPTH, VCF_BUDGET = 12, 400
_CHECK = 1023
_WAYS = 4  # slots a key may sit in (a bucket): proved entries are never overwritten
# Steps a pairing search may take at a node (proofs.py; typed: numba compiles per literal).
PAIRING_LIMIT = np.int64(512)


@njit(cache=True, nogil=True, inline="always")
def _bit(cell):  # type: ignore[no-untyped-def]
    return np.uint64(1) << np.uint64(cell)


@njit(cache=True, nogil=True)
def key_of(par, bx, bo):  # type: ignore[no-untyped-def]
    """(key x, key o, orientation): the board in its smallest orientation."""
    g0 = 0
    for g in range(1, par[6]):
        if bx[g] < bx[g0] or (bx[g] == bx[g0] and bo[g] < bo[g0]):
            g0 = g
    return bx[g0], bo[g0], g0


@njit(cache=True, nogil=True, inline="always")
def _child_key(par, perms, bx, bo, cell, me):  # type: ignore[no-untyped-def]
    """key_of the board after player index `me` plays `cell` (without playing it)."""
    kx, ko, g0 = ~np.uint64(0), ~np.uint64(0), 0
    for g in range(par[6]):
        bit = np.uint64(1) << np.uint64(perms[g, cell])
        x, o = (bx[g] | bit, bo[g]) if me == 0 else (bx[g], bo[g] | bit)
        if g == 0 or x < kx or (x == kx and o < ko):
            kx, ko, g0 = x, o, g
    return kx, ko, g0


@njit(cache=True, nogil=True)
def find(tk1, tk2, tfl, kx, ko):  # type: ignore[no-untyped-def]
    """The slot holding key (kx, ko), or -1."""
    mask = np.uint64(tk1.shape[0] // _WAYS - 1)
    h = (kx * np.uint64(0x9E3779B97F4A7C15)) ^ ((ko + np.uint64(0x632BE59BD9B4E019))
                                                 * np.uint64(0xC2B2AE3D27D4EB4F))
    base = np.int64((h >> np.uint64(17)) & mask) * _WAYS
    for s in range(base, base + _WAYS):
        if tfl[s] & USED and tk1[s] == kx and tk2[s] == ko:
            return s
    return -1


@njit(cache=True, nogil=True)
def _put(tk1, tk2, tpn, tdn, tz, tmv, tfl, ctl, kx, ko, pn, dn, zone, move, reason):  # type: ignore[no-untyped-def]
    """Store pn/dn (and, proved, the zone in key orientation, the reply and the reason) under
    (kx, ko): its own slot, else a free one, else an unresolved one; a proof with nowhere to go
    sets ctl[FULL] (the proof could not be written out whole). ctl[FILLED] counts the slots
    in use."""
    mask = np.uint64(tk1.shape[0] // _WAYS - 1)
    h = (kx * np.uint64(0x9E3779B97F4A7C15)) ^ ((ko + np.uint64(0x632BE59BD9B4E019))
                                                 * np.uint64(0xC2B2AE3D27D4EB4F))
    base = np.int64((h >> np.uint64(17)) & mask) * _WAYS
    slot, spare = -1, -1
    for s in range(base, base + _WAYS):
        if tfl[s] & USED and tk1[s] == kx and tk2[s] == ko:
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
    tk1[slot], tk2[slot], tpn[slot], tdn[slot] = kx, ko, pn, dn
    flag = USED | (PROVED if pn == 0 else 0) | (DISPROVED if dn == 0 else 0)
    tfl[slot] = flag | (reason << 3)
    tz[slot], tmv[slot] = zone, move


@njit(cache=True, nogil=True)
def threats(cnt, board, lines, k, p, limit):  # type: ignore[no-untyped-def]
    """(count, first cell, second cell, the lines' cells) of the empty cells where player
    index `p` completes a line, counting at most `limit` cells."""
    count, c1, c2, zone = 0, -1, -1, np.uint64(0)
    for line in range(lines.shape[0]):
        if cnt[p, line] != k - 1 or cnt[1 - p, line] != 0:
            continue
        for c in lines[line]:
            if board[c] == 0:
                if c != c1 and c != c2 and count < limit:
                    if count == 0:
                        c1 = c
                    else:
                        c2 = c
                    count += 1
                if c == c1 or c == c2:
                    for d in lines[line]:
                        zone |= _bit(d)
    return count, c1, c2, zone


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
            if bx[g] == bx[0] and bo[g] == bo[0] and perms[g, c] < c:
                keep = False
                break
        if keep:
            out[m] = c
            m += 1
    return m


@njit(cache=True, nogil=True)
def leaf(par, lines, cl_off, cl_idx, ends, perms, board, cnt, st, bx, bo, pt, ctl, first,  # type: ignore[no-untyped-def]
         attacker):
    """What a node is without searching it: (pn, dn, zone, reason, move, forced), where
    pn == 0 is proved, dn == 0 disproved, else forced >= 0 is the only move worth trying
    (a pairing, and the attacker's continuous fours, are looked for on the `first` visit
    only: the search would be the same)."""
    k = par[3]
    me = st[0] % 2
    d = 1 - attacker
    occupied = bx[0] | bo[0]
    if me == attacker:
        c, t1, t2, zone = threats(cnt, board, lines, k, attacker, 1)
        if c > 0:
            return 0 + 1, 0, zone, INNER, t1, -1  # A completes a line: A wins
        c, t1, t2, zone = threats(cnt, board, lines, k, d, 2)
        if c >= 2:
            # A faces two threats and makes no line at once: whatever A plays, D completes one.
            # In any Q' of the zone (two empty cells of Q in every line open for A, none of
            # them A's in Q') A still makes no line in one move, and D still holds both lines.
            zone = hit_lines(zone, np.int64(2), attacker, cnt, lines, occupied)
            return 0, PINF, zone, THREATS, t1, -1
        forced = t1 if c == 1 else -1
    else:
        c, t1, t2, zone = threats(cnt, board, lines, k, d, 1)
        if c > 0:
            # D completes a line at t1. In any Q' of the zone A has made no line (one empty
            # cell of Q in each line open for A is not A's in Q') and t1 is empty or D's.
            zone = hit_lines(zone, np.int64(1), attacker, cnt, lines, occupied)
            return 0, PINF, zone, LINE, t1, -1
        c, t1, t2, zone = threats(cnt, board, lines, k, attacker, 2)
        if c >= 2:
            return PINF, 0, zone, INNER, -1, -1  # D blocks one, A completes the other
        forced = t1 if c == 1 else -1
    if not first:
        return 1, 1, np.uint64(0), INNER, -1, forced
    ctl[PAIRINGS] += 1
    done, zone = cannot_win(attacker, st, cnt, occupied, pt, PAIRING_LIMIT)
    if done:  # proofs.py: a pairing holds whoever moves; its zone is the pairs' cells
        return 0, PINF, zone, PAIRED, -1, -1
    if me == attacker and forced < 0 and vcf(par, lines, cl_off, cl_idx, ends, perms, board,
                                             cnt, st, bx, bo, attacker, VCF_DEPTH, VCF_BUDGET):
        ctl[FOURS] += 1
        return PINF, 0, np.uint64(0), INNER, -1, -1  # threats.py: a win by continuous fours
    return 1, 1, np.uint64(0), INNER, -1, forced


_ENTER, _NEXT, _RETURN = 0, 1, 2


@njit(cache=True, nogil=True)
def rehash(tk1, tk2, tpn, tdn, tz, tmv, tfl, nk1, nk2, npn, ndn, nz, nmv, nfl, ctl):  # type: ignore[no-untyped-def]
    """Every entry of the table into a larger one (the n* arrays), proofs first so that no
    proof is lost to an unresolved entry; ctl[FILLED] counts the new table's slots."""
    ctl[FILLED] = 0
    for proofs in (True, False):
        for s in range(tk1.shape[0]):
            f = tfl[s]
            if f & USED and (f & PROVED != 0) == proofs:
                _put(nk1, nk2, npn, ndn, nz, nmv, nfl, ctl, tk1[s], tk2[s], tpn[s], tdn[s],
                     tz[s], tmv[s], f >> 3)


@njit(cache=True, nogil=True)
def prove(par, lines, cl_off, cl_idx, ends, perms, inv, board, cnt, st, bx, bo, pt,  # type: ignore[no-untyped-def]
          tk1, tk2, tpn, tdn, tz, tmv, tfl, ctl, attacker, out):
    """df-pn from the loaded board (not over) until it is proved (A cannot win: out[0] == 0)
    or disproved (out[1] == 0), or stopped (ctl[ABORTED]); out[2] is the proof's zone. The
    table keeps every result, so a later call goes on where this one stopped."""
    n = par[0]
    fc = np.zeros((n + 2, n), dtype=np.int64)      # a node's moves (best first)
    fpn = np.zeros((n + 2, n), dtype=np.int64)     # and their proof and disproof numbers
    fdn = np.zeros((n + 2, n), dtype=np.int64)
    fzc = np.zeros((n + 2, n), dtype=np.uint64)    # and the zones of the proved ones
    keys = np.zeros(n, dtype=np.int64)
    fm = np.zeros(n + 2, dtype=np.int64)
    fsel = np.zeros(n + 2, dtype=np.int64)         # the move being searched
    fforced = np.zeros(n + 2, dtype=np.int64)      # the one move worth trying, or -1
    fthp = np.zeros(n + 2, dtype=np.int64)         # thresholds
    fthd = np.zeros(n + 2, dtype=np.int64)
    fkx = np.zeros(n + 2, dtype=np.uint64)
    fko = np.zeros(n + 2, dtype=np.uint64)
    fg0 = np.zeros(n + 2, dtype=np.int64)
    flive = np.zeros(n + 2, dtype=np.uint64)       # A's node: the moves no proof covers yet
    fzone = np.zeros(n + 2, dtype=np.uint64)       # A's node: the proved moves' zones, joined
    fthp[0], fthd[0] = PINF, PINF
    d, phase = 0, _ENTER
    rpn, rdn, rz = np.int64(1), np.int64(1), np.uint64(0)
    while True:
        if phase == _ENTER:
            ctl[NODES] += 1
            if d > ctl[DEEPEST]:
                ctl[DEEPEST] = d
            if (ctl[NODES] & _CHECK) == 0 and (ctl[STOP] != 0 or ctl[NODES] >= ctl[LIMIT]
                                               or ctl[FILLED] >= ctl[ROOM]):
                ctl[ABORTED] = 1  # stopped, out of nodes, or the table is to grow
            if ctl[ABORTED]:
                for j in range(d - 1, -1, -1):
                    remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, fc[j, fsel[j]])
                out[0], out[1], out[2] = 1, 1, 0
                return
            kx, ko, g0 = key_of(par, bx, bo)
            s = find(tk1, tk2, tfl, kx, ko)
            phase = _RETURN
            if s >= 0 and (tfl[s] & (PROVED | DISPROVED) or tpn[s] >= fthp[d]
                           or tdn[s] >= fthd[d]):
                rpn, rdn, rz = tpn[s], tdn[s], turn_zone(tz[s], inv, g0, n)
                continue
            pn, dn, zone, reason, move, forced = leaf(par, lines, cl_off, cl_idx, ends, perms,
                                                      board, cnt, st, bx, bo, pt, ctl, s < 0,
                                                      attacker)
            if pn == 0 or dn == 0:
                _put(tk1, tk2, tpn, tdn, tz, tmv, tfl, ctl, kx, ko, pn, dn,
                     turn_zone(zone, perms, g0, n), perms[g0, move] if move >= 0 else -1, reason)
                rpn, rdn, rz = pn, dn, zone
                continue
            me = st[0] % 2
            m = children(par, bx, bo, perms, board, fc[d], forced)
            order(par, cl_off, cl_idx, cnt, fc[d], keys, m, -1, me)
            fm[d], fforced[d], fkx[d], fko[d], fg0[d] = m, forced, kx, ko, g0
            flive[d], fzone[d] = ~np.uint64(0), np.uint64(0)
            for i in range(m):
                c = fc[d, i]
                ckx, cko, cg = _child_key(par, perms, bx, bo, c, me)
                cs = find(tk1, tk2, tfl, ckx, cko)
                # Unknown children start with the numbers of a node of their many moves (the
                # attacker's must all be refuted, one defender's reply suffices), a reply's
                # growing with its rank in the order above: the search proves with the
                # likeliest replies before it widens to the others.
                if me == attacker:
                    fpn[d, i], fdn[d, i] = 1, max(1, n - st[0] - 1)
                else:
                    fpn[d, i], fdn[d, i] = max(1, n - st[0] - 1) + i, 1
                fzc[d, i] = np.uint64(0)
                if cs >= 0:
                    fpn[d, i], fdn[d, i] = tpn[cs], tdn[cs]
                    fzc[d, i] = turn_zone(tz[cs], inv, cg, n)
                    if me == attacker and tpn[cs] == 0:
                        flive[d] &= fzc[d, i]
                        fzone[d] |= fzc[d, i]
            phase = _NEXT
        elif phase == _NEXT:
            attack = st[0] % 2 == attacker
            pn, dn, best, other = _numbers(fpn[d], fdn[d], fc[d], fm[d], flive[d], attack)
            if pn == 0 or dn == 0 or pn >= fthp[d] or dn >= fthd[d]:
                zone, move = np.uint64(0), -1
                if pn == 0 and attack:
                    zone = fzone[d]
                    if fforced[d] < 0:
                        # One move of each symmetric set was searched: a position of the zone
                        # need not keep the symmetry, so the zone takes every image of itself
                        # (then each move's image is a proved move's image, zone and all).
                        for g in range(1, par[6]):
                            if bx[g] == bx[0] and bo[g] == bo[0]:
                                zone |= turn_zone(zone, perms, g, n)
                    else:
                        # A had to block D's one threat: every other move is answered there.
                        # In any Q' of the zone A makes no line in one move (two cells of Q,
                        # empty, in each line open for A) and D's line and its empty cell are
                        # as in Q; the block itself is covered by its own proof's zone.
                        _, _, _, line = threats(cnt, board, lines, par[3], 1 - attacker, 1)
                        zone = hit_lines(zone | line, np.int64(2), attacker, cnt, lines,
                                         bx[0] | bo[0])
                elif pn == 0:
                    move = fc[d, best]
                    zone = fzc[d, best] | _bit(move)
                _put(tk1, tk2, tpn, tdn, tz, tmv, tfl, ctl, fkx[d], fko[d], pn, dn,
                     turn_zone(zone, perms, fg0[d], n),
                     perms[fg0[d], move] if move >= 0 else -1, INNER)
                rpn, rdn, rz = pn, dn, zone
                phase = _RETURN
                continue
            # Deeper, into the most proving child (A's node: least disproof; D's: least proof),
            # with the thresholds of df-pn+ (the next sibling's number times 1 + epsilon).
            fsel[d] = best
            if attack:
                thd = min(fthd[d], other + other // 4 + 1)
                thp = min(PINF, fthp[d] - pn + fpn[d, best])
            else:
                thp = min(fthp[d], other + other // 4 + 1)
                thd = min(PINF, fthd[d] - dn + fdn[d, best])
            place(par, cl_off, cl_idx, ends, perms, board, cnt, st, bx, bo, fc[d, best],
                  st[0] % 2 + 1)
            d += 1
            fthp[d], fthd[d] = thp, thd
            phase = _ENTER
        else:  # _RETURN: (rpn, rdn, rz) of the node at depth d, to its parent
            if d == 0:
                out[0], out[1], out[2] = rpn, rdn, rz
                return
            d -= 1
            i = fsel[d]
            remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, fc[d, i])
            fpn[d, i], fdn[d, i], fzc[d, i] = rpn, rdn, rz
            if rpn == 0 and st[0] % 2 == attacker:
                flive[d] &= rz
                fzone[d] |= rz
            phase = _NEXT


@njit(cache=True, nogil=True)
def _numbers(fpn, fdn, fc, m, live, attack):  # type: ignore[no-untyped-def]
    """(pn, dn, best child, the next best child's number) of a node from its children's: A's
    node sums proof numbers and takes the least disproof number, D's the other way round.
    A's moves outside `live` are refuted already (by a proved move's zone) and not counted."""
    pn, dn = (np.int64(0), PINF) if attack else (PINF, np.int64(0))
    best, other = -1, PINF
    for i in range(m):
        cp, cd = fpn[i], fdn[i]
        if attack:
            if cp != 0 and live & _bit(fc[i]) == 0:
                continue
            pn = min(PINF, pn + cp)
            if cp == 0:
                continue
            if best < 0 or cd < dn:
                other, dn, best = (dn if best >= 0 else PINF), cd, i
            elif cd < other:
                other = cd
        else:
            dn = min(PINF, dn + cd)
            if best < 0 or cp < pn:
                other, pn, best = (pn if best >= 0 else PINF), cp, i
            elif cp < other:
                other = cp
    if attack and best < 0:
        dn = PINF  # every move refuted: proved (pn == 0)
    return pn, dn, best, other
