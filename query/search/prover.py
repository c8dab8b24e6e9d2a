"""The compiled AND/OR search that proves "the attacker cannot win" (depth-first proof-number
search, df-pn, Nagai 2002, with the 1 + epsilon thresholds of Pawlewicz and Lew 2007) on
compiled_search.py's arrays (normal rules, no gravity, not +exact): a proof table that lasts between
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
  D's reply r    leaving a pairing (tried for each reply on D's first visit): the pairs' cells
                 and r, the two rules above
  A's moves      the union of the zones of the moves searched; a move outside one of them is
                 refuted by that move's proof (so only moves inside all of them are searched)
  A blocks one   the block's zone, the threat's line, two empty cells of every line open for A
Disproofs (A wins) carry the mirror image, a win zone (A holds all A's cells and maybe more, D's
stones inside it some of D's there): A's made line or D facing two threats (the lines, and one or
two empty cells of every line open for D), A's winning move (its child's zone and the move), D's
replies all refuted (their zones joined; a reply outside one of them is refuted by that reply's
win, so only replies inside all of them are searched: the defender's irrelevant replies
pruned). Disproofs only steer the search: they never enter a proof file.
"""
from __future__ import annotations

import numpy as np

from tablebase.compiled import njit
from tablebase.query.search.masks import (
    all_like,
    array_like,
    bit,
    get,
    join,
    meet,
    none_like,
    put,
    same,
)
from tablebase.query.search.moves import order, place, remove
from tablebase.query.search.nodes import PINF, children, numbers
from tablebase.query.search.proofs import REPLY_STEPS, cannot_win, hit_lines, refuting_reply
from tablebase.query.search.prooftable import (
    ABORTED,
    DEEPEST,
    DISPROVED,
    FILLED,
    FOURS,
    LIMIT,
    NODES,
    PAIRINGS,
    PROVED,
    REPLIES,
    ROOM,
    STOP,
    VISITS,
    child_key,
    find,
    key_of,
)
from tablebase.query.search.prooftable import put as store
from tablebase.query.search.threats import vcf
from tablebase.query.search.transposition import turn_zone

# What a proved entry's proof is (tfl >> 3): inner, or a leaf of one of these kinds.
INNER, PAIRED, LINE, THREATS, REPLIED = 0, 1, 2, 3, 4
_INNER = np.int64(INNER)  # passed to a compiled callee: typed, not a literal
# The attacker's continuous fours looked for at a node: at most this many fours deep, and this
# many stones placed.
VCF_DEPTH, VCF_BUDGET = np.int64(12), np.int64(400)  # typed: numba compiles per literal
_CHECK = 1023
# Steps a pairing search may take at a node (proofs.py; typed: numba compiles per literal).
PAIRING_LIMIT = np.int64(512)
# How many threats `threats` is asked for (typed: numba compiles per literal).
_ONE, _TWO = np.int64(1), np.int64(2)


@njit(cache=True, nogil=True)
def threats(cnt, board, lines, k, p, limit, kind):  # type: ignore[no-untyped-def]
    """(count, first cell, second cell, the lines' cells) of the empty cells where player
    index `p` completes a line, counting at most `limit` cells (`kind`: a cell set of the
    board's kind, masks.py, that the lines' cells are given as)."""
    count, c1, c2, zone = 0, -1, -1, none_like(kind)
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
                        zone = join(zone, bit(zone, d))
    return count, c1, c2, zone


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
    occupied = join(get(bx, 0), get(bo, 0))
    if me == attacker:
        c, t1, t2, zone = threats(cnt, board, lines, k, attacker, _ONE, occupied)
        if c > 0:
            # A completes a line: A wins. Its win zone (below) takes the line and one empty
            # cell of every line open for D, so that D has made no line in any Q' of it.
            zone = hit_lines(zone, np.int64(1), d, cnt, lines, occupied)
            return 1, 0, zone, INNER, t1, -1
        c, t1, t2, zone = threats(cnt, board, lines, k, d, _TWO, occupied)
        if c >= 2:
            # A faces two threats and makes no line at once: whatever A plays, D completes one.
            # In any Q' of the zone (two empty cells of Q in every line open for A, none of
            # them A's in Q') A still makes no line in one move, and D still holds both lines.
            zone = hit_lines(zone, np.int64(2), attacker, cnt, lines, occupied)
            return 0, PINF, zone, THREATS, t1, -1
        forced = t1 if c == 1 else -1
    else:
        c, t1, t2, zone = threats(cnt, board, lines, k, d, _ONE, occupied)
        if c > 0:
            # D completes a line at t1. In any Q' of the zone A has made no line (one empty
            # cell of Q in each line open for A is not A's in Q') and t1 is empty or D's.
            zone = hit_lines(zone, np.int64(1), attacker, cnt, lines, occupied)
            return 0, PINF, zone, LINE, t1, -1
        c, t1, t2, zone = threats(cnt, board, lines, k, attacker, _TWO, occupied)
        if c >= 2:
            # D blocks one, A completes the other (D makes no line at once, checked above;
            # in a Q' of the win zone neither, two empty cells of each of D's open lines).
            zone = hit_lines(zone, np.int64(2), d, cnt, lines, occupied)
            return PINF, 0, zone, INNER, -1, -1
        forced = t1 if c == 1 else -1
    if not first:
        return 1, 1, none_like(occupied), INNER, -1, forced
    ctl[PAIRINGS] += 1
    done, zone = cannot_win(attacker, st, cnt, occupied, pt, PAIRING_LIMIT)
    if done:  # proofs.py: a pairing holds whoever moves; its zone is the pairs' cells
        return 0, PINF, zone, PAIRED, -1, -1
    tried = REPLIES + 2 * st[0]
    if me != attacker:
        ctl[VISITS] += 1
    if me != attacker and (ctl[tried] < 256 or ctl[tried + 1] * 64 >= ctl[tried]
                           or ctl[VISITS] & 15 == 0):
        # Tried where it pays: while it finds a reply at 1 in 64 of the defender's positions
        # with as many stones, and at one position in 16 when not (a rate can rise again);
        # a pairing search for each reply costs some 10 nodes' time. Skipping a rule is
        # always sound: the node is then searched.
        ctl[tried] += 1
        # A reply of D's after which a pairing holds (proofs.py): the node is a D's reply whose
        # child is a pairing, so its zone is that rule's, the pairs' cells and the reply (the
        # reply's rule in prover's docstring; the child's, the pairing's). One node instead of
        # a child searched for each reply tried; D facing A's one threat tries the block only.
        cells = np.empty(par[0], dtype=np.int64)
        m = 0
        if forced >= 0:
            cells[0], m = forced, 1
        else:
            for c in range(par[0]):
                if board[c] == 0:
                    cells[m] = c
                    m += 1
        reply, zone = refuting_reply(me, cnt, st, cl_off, cl_idx, occupied, cells, m, pt,
                                     REPLY_STEPS)
        if reply >= 0:
            ctl[tried + 1] += 1
            return 0, PINF, zone, REPLIED, reply, -1
    if me == attacker and forced < 0 and vcf(par, lines, cl_off, cl_idx, ends, perms, board,
                                             cnt, st, bx, bo, attacker, VCF_DEPTH, VCF_BUDGET):
        ctl[FOURS] += 1
        # threats.py: a win by continuous fours (its win zone: every cell, nothing pruned)
        return PINF, 0, all_like(occupied), INNER, -1, -1
    return 1, 1, none_like(occupied), INNER, -1, forced


_ENTER, _NEXT, _RETURN = 0, 1, 2


@njit(cache=True, nogil=True)
def prove(par, lines, cl_off, cl_idx, ends, perms, inv, board, cnt, st, bx, bo, pt,  # type: ignore[no-untyped-def]
          tk1, tk2, tpn, tdn, tz, tmv, tfl, ctl, attacker, out, oz):
    """df-pn from the loaded board (not over) until it is proved (A cannot win: out[0] == 0)
    or disproved (out[1] == 0), or stopped (ctl[ABORTED]); set 0 of `oz` (an array of cell
    sets, masks.py) is the proof's zone. The table keeps every result, so a later call goes
    on where this one stopped. Cell sets are of the kind of bx's (one word or two)."""
    n = par[0]
    nothing = none_like(get(bx, 0))
    fc = np.zeros((n + 2, n), dtype=np.int64)      # a node's moves (best first)
    fpn = np.zeros((n + 2, n), dtype=np.int64)     # and their proof and disproof numbers
    fdn = np.zeros((n + 2, n), dtype=np.int64)
    fzc = array_like(nothing, (n + 2) * n)         # and the zones of the proved ones (d * n + i)
    keys = np.zeros(n, dtype=np.int64)
    fm = np.zeros(n + 2, dtype=np.int64)
    fsel = np.zeros(n + 2, dtype=np.int64)         # the move being searched
    fforced = np.zeros(n + 2, dtype=np.int64)      # the one move worth trying, or -1
    fthp = np.zeros(n + 2, dtype=np.int64)         # thresholds
    fthd = np.zeros(n + 2, dtype=np.int64)
    fkx = array_like(nothing, n + 2)
    fko = array_like(nothing, n + 2)
    fg0 = np.zeros(n + 2, dtype=np.int64)
    # D's node: a reply that refuted a sibling (the killer), tried first: a reply that refuted
    # one of A's moves often refutes the others (a far move of A's changes little). Set on
    # A's node from its first proved child's stored reply (searched proofs only: a leaf's move,
    # D's line or a reply leaving a pairing, is found without search anyway), then from each
    # D's node below it proved by search.
    fkill = np.full(n + 2, -1, dtype=np.int64)
    flive = array_like(nothing, n + 2)             # A's node: the moves no proof covers yet
    fzone = array_like(nothing, n + 2)             # A's node: the proved moves' zones, joined
    fthp[0], fthd[0] = PINF, PINF
    d, phase = 0, _ENTER
    rpn, rdn, rz = np.int64(1), np.int64(1), nothing
    root = np.int64(0)  # oz's one slot, as a typed index (a literal would compile put again)
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
                out[0], out[1] = 1, 1
                put(oz, root, nothing)
                return
            kx, ko, g0 = key_of(par, bx, bo)
            s = find(tk1, tk2, tfl, kx, ko)
            phase = _RETURN
            if s >= 0 and (tfl[s] & (PROVED | DISPROVED) or tpn[s] >= fthp[d]
                           or tdn[s] >= fthd[d]):
                rpn, rdn, rz = tpn[s], tdn[s], turn_zone(get(tz, s), inv, g0, n)
                continue
            pn, dn, zone, reason, move, forced = leaf(par, lines, cl_off, cl_idx, ends, perms,
                                                      board, cnt, st, bx, bo, pt, ctl, s < 0,
                                                      attacker)
            if pn == 0 or dn == 0:
                store(tk1, tk2, tpn, tdn, tz, tmv, tfl, ctl, kx, ko, pn, dn,
                      turn_zone(zone, perms, g0, n), perms[g0, move] if move >= 0 else -1, reason)
                rpn, rdn, rz = pn, dn, zone
                continue
            me = st[0] % 2
            m = children(par, bx, bo, perms, board, fc[d], forced)
            # The killer first: it orders only (it starts with the least proof number).
            first = fkill[d] if me != attacker and fkill[d] >= 0 and board[fkill[d]] == 0 else -1
            order(par, cl_off, cl_idx, cnt, fc[d], keys, m, first, me)
            fm[d], fforced[d], fg0[d] = m, forced, g0
            put(fkx, d, kx)
            put(fko, d, ko)
            put(flive, d, all_like(nothing))
            put(fzone, d, nothing)
            kill = -1
            for i in range(m):
                c = fc[d, i]
                ckx, cko, cg = child_key(par, perms, bx, bo, c, me)
                cs = find(tk1, tk2, tfl, ckx, cko)
                # Unknown children start with the numbers of a node of their many moves (the
                # attacker's must all be refuted, one defender's reply suffices), a reply's
                # times the square of one more than its rank in the order above: the search goes
                # deep with the likeliest replies before it widens to the others (the rank added
                # kept the numbers within a few per cent of each other, the search nearly
                # breadth-first; times the rank, d4 c5 e5 still searched all its 60 replies,
                # each to some 13,700, for the one that proved: squared, its nodes fell from
                # 968,296 to 301,577; cubed, 358,926). An
                # attacker's move's disproof number grows a quarter a rank: with equal numbers
                # the 1 + epsilon threshold let each move be searched a little in turn (the
                # probes' nodes halved; only the order of the search changes).
                if me == attacker:
                    fpn[d, i], fdn[d, i] = 1, max(1, n - st[0] - 1) * (4 + i) // 4
                else:
                    fpn[d, i], fdn[d, i] = max(1, n - st[0] - 1) * (1 + i) * (1 + i), 1
                put(fzc, d * n + i, nothing)
                if cs >= 0:
                    fpn[d, i], fdn[d, i] = tpn[cs], tdn[cs]
                    z = turn_zone(get(tz, cs), inv, cg, n)
                    put(fzc, d * n + i, z)
                    if (tpn[cs] == 0) if me == attacker else (tdn[cs] == 0):
                        put(flive, d, meet(get(flive, d), z))
                        put(fzone, d, join(get(fzone, d), z))
                        if me == attacker and kill < 0 and tmv[cs] >= 0 \
                                and tfl[cs] >> 3 == INNER:
                            kill = inv[cg, tmv[cs]]
            if me == attacker:
                fkill[d + 1] = kill
            phase = _NEXT
        elif phase == _NEXT:
            attack = st[0] % 2 == attacker
            pn, dn, best, other = numbers(fpn[d], fdn[d], fc[d], fm[d], get(flive, d), attack)
            if pn == 0 or dn == 0 or pn >= fthp[d] or dn >= fthd[d]:
                zone, move = nothing, -1
                if pn == 0 and attack:
                    zone = get(fzone, d)
                    if fforced[d] < 0:
                        # One move of each symmetric set was searched: a position of the zone
                        # need not keep the symmetry, so the zone takes every image of itself
                        # (then each move's image is a proved move's image, zone and all).
                        for g in range(1, par[6]):
                            if same(get(bx, g), get(bx, 0)) and same(get(bo, g), get(bo, 0)):
                                zone = join(zone, turn_zone(zone, perms, g, n))
                    else:
                        # A had to block D's one threat: every other move is answered there.
                        # In any Q' of the zone A makes no line in one move (two cells of Q,
                        # empty, in each line open for A) and D's line and its empty cell are
                        # as in Q; the block itself is covered by its own proof's zone.
                        _, _, _, line = threats(cnt, board, lines, par[3], 1 - attacker, _ONE,
                                                nothing)
                        zone = hit_lines(join(zone, line), np.int64(2), attacker, cnt, lines,
                                         join(get(bx, 0), get(bo, 0)))
                elif pn == 0:
                    move = fc[d, best]
                    fkill[d] = move
                    zone = join(get(fzc, d * n + best), bit(nothing, move))
                elif dn == 0:
                    zone = _win_zone(par, lines, board, cnt, bx, bo, perms, fc[d], fdn[d], fzc,
                                     d * n, fm[d], get(fzone, d), fforced[d], attack, attacker)
                store(tk1, tk2, tpn, tdn, tz, tmv, tfl, ctl, get(fkx, d), get(fko, d), pn, dn,
                      turn_zone(zone, perms, fg0[d], n),
                      perms[fg0[d], move] if move >= 0 else -1, _INNER)
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
                out[0], out[1] = rpn, rdn
                put(oz, root, rz)
                return
            d -= 1
            i = fsel[d]
            remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, fc[d, i])
            fpn[d, i], fdn[d, i] = rpn, rdn
            put(fzc, d * n + i, rz)
            if (rpn == 0) if st[0] % 2 == attacker else (rdn == 0):
                # a refuted move's zone: the moves outside it are refuted too
                put(flive, d, meet(get(flive, d), rz))
                put(fzone, d, join(get(fzone, d), rz))
            phase = _NEXT


@njit(cache=True, nogil=True)
def _win_zone(par, lines, board, cnt, bx, bo, perms, fc, fdn, fzc, at, m, joined, forced,  # type: ignore[no-untyped-def]
              attack, attacker):
    """The zone of a win of A's (a disproof; the mirror of a proof's zone, D's stones and A's
    swapped: A wins from every Q' in which A holds all A's cells and D's stones inside the zone
    are some of D's there): on A's node the winning move's zone and the move; on D's, the
    refuted replies' zones joined, with every image under the board's own symmetries (one
    reply of each symmetric set was searched), or where D had to block A's one threat, the
    block's zone, the threat's line and two empty cells of every line open for D (so D makes
    no line in one move in any Q'). The children's zones are fzc's sets from `at` on."""
    if attack:
        for i in range(m):
            if fdn[i] == 0:
                return join(get(fzc, at + i), bit(joined, fc[i]))
        return all_like(joined)
    zone = joined
    if forced >= 0:
        _, _, _, line = threats(cnt, board, lines, par[3], attacker, _ONE, joined)
        return hit_lines(join(zone, line), np.int64(2), 1 - attacker, cnt, lines,
                         join(get(bx, 0), get(bo, 0)))
    for g in range(1, par[6]):
        if same(get(bx, g), get(bx, 0)) and same(get(bo, g), get(bo, 0)):
            zone = join(zone, turn_zone(zone, perms, g, par[0]))
    return zone
