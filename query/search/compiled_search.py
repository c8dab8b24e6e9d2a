"""The compiled search: negamax with alpha-beta over exact scores, a transposition table keyed
by the canonical board, sound move pruning, and stored tables as leaves (numba, released GIL).

Scores are the tables' scores on a wider scale (WS instead of WIN_SCORE, so that boards of up
to 128 cells fit): a win in d plies is WS - d, a loss in d is d - WS, a draw 0, always for the
side to move, and a move's score is `backup` of its child's. Every bound below is proved, never
guessed:

  - a side that can complete a line now wins in 1 (normal rules);
  - a side facing two cells where the opponent completes a line, and no win of its own, loses
    in 2; facing one, only the block can do better than that;
  - a node with no win in 1 scores at most WS - 3 (WS - 2 in misere), and at least WS - 2
    below zero (WS - 1 in misere): the "mate distance" bounds, which also make a null window
    around WS - d a search for a win within d plies, cut off at that depth by itself;
  - (no gravity) a side with no open line (every line holds a stone of the other side) never
    completes one: it cannot win (normal rules; cannot lose, misere), so the score is at most
    (at least) 0, and a draw, 0, when neither side has one: every game then fills the board;
  - (normal rules, no gravity) a pairing against a side (proofs.py) proves the same bound.

Zones (normal rules, no gravity; in windows asking for a sign, inside +-SIGN, and in null
windows about a depth, below). Each proof of a sign - a side cannot win; a side wins (so the
other loses) - comes with a zone Z of cells such that it stays true when the side it is against
(the one that cannot win; the loser) gets extra stones on any empty cells outside Z, the turn
unchanged: the pairs of a pairing; nothing for dead lines; the completing cell of a line made
now; the two threat cells a side faces; at a node where one move settled it, that move and its
child's zone; at a node where every move failed, the union of their zones. Lines still open for
the side the proof is against keep an empty cell in Z (two where that side is to move and its
moves were dismissed as losing to the other side's line), or extra stones could complete one:
`hit_lines` adds such cells.
The rule: where every move must fail and one move m has (its child's proof has zone Z_m), a
move m' outside Z_m fails too and needs no search: the mover with m' is no better off than
with m and the extra stone m' (an extra stone of one's own never hurts in this game: a
strategy for fewer stones plays on with a free move wherever it would play on the extra one;
and it never delays one's win), and outside Z_m that extra stone changes nothing. A node that
skipped moves returns what is proved of them, "no win" or "a loss" of unknown depth, never a
score it did not prove for every move. The table keeps a zone with such bounds (tz, in the
key's orientation, with flags for which proof it is); a bound without one has every cell.

In a null window about a depth (a win, or a loss, within d plies: outside +-SIGN) the same
rule prunes, each zone proving the very bound returned, depth included, not just its sign.
The domination above keeps depths: with an extra stone of its own a side's win comes no
later and its loss no sooner (the free move stands in for the extra stone; where the board
fills first, that side either had its line already or the game is a draw, no worse); so a
move outside Z_m scores at most what m's bound says, and a node where every move failed
scores at most its best bound, skipped moves included: it returns that best, no weaker. The
leaves' zones, each for the side the bound is against: a line made now and two threats, as
above, each proving its exact score on the side it lies (two threats asked "a loss within
1?" prove only "none": the next leaf's zone); "no win within 2" (the mate-distance bound of a
mover with no line to complete) holds while each line open for the mover keeps two empty
cells in Z, so no extra stones give it one to complete; "no loss within 1" while each line
open for the other side keeps one; a pairing's zone proves the bound 0. The table keeps a
zone of its upper bound (HI_AT) or lower bound (LO_AT), dropped as soon as that bound is
replaced by another; a sign's zone, where a cut-off needs no more than the sign, stands for
the bound 0. Pairings are looked for in such windows only where DEEP_PLIES plies or more are
left: in a search for a short win they cost more than they cut.

Arrays (the `Board` of board.py makes them). Cell sets (bitmasks of cells: keys, zones,
pairings) are masks.py's: a uint64 on boards of up to 64 cells, two words up to 128; numba
compiles this module once for each kind, so each board runs code of its own width:

    par      int64[9]       cells, width, height, k, gravity, misere, maps, table slots - 1,
                            proofs (control.py: PLAIN, PAIRINGS, ZONES)
    lines    (L, k) int64   the winning lines;  cl_off/cl_idx: the lines through each cell
    perms, inv  (G, cells)  the board's symmetry maps and their inverses
    board    uint8[cells];  cnt (2, L) int16: stones of x / o on each line
    st       int64[3]       stones, lines open for x, lines open for o
    bx, bo   G cell sets    the board's x and o stones in each orientation
    tk1/tk2/tlo/thi/tmv/tfl/tz  the transposition table: key (x's and o's cell sets, the whole
                            board: exact), bounds, best move, flags, zone (a cell set)
    ctl      int64[10]      the control words (control.py: nodes, limit, stop, counts, zone)
    tinfo, tdata, tcodes, tscores  the stored tables at the leaves (searcher.py, _leaf_tables)
    mv, mh   (cells + 1, cells) int64  move lists and their order keys, one row a ply
    pt       pairings.PairingTables     the runs of the board and their pairings
"""
from __future__ import annotations

import numpy as np

from tablebase.builder.games.grid.kernel import ends_clear
from tablebase.compiled import njit
from tablebase.query.search.control import (
    ABORTED,
    LIMIT,
    NODES,
    PAIR_SEARCHES,
    PAIRED,
    ROOT_ZONE,
    ROOT_ZONE_HIGH,
    STOP,
    TABLE_HITS,
    TT_HITS,
    WS,
)
from tablebase.query.search.masks import (
    all_like,
    array_like,
    bit,
    get,
    has,
    join,
    meet,
    none_like,
    put,
    same,
    words_of,
)
from tablebase.query.search.moves import backup, candidates, completes, invert, order, place, remove
from tablebase.query.search.proofs import (
    PAIRING_STEPS,
    REPLY_STEPS,
    cannot_win,
    hit_lines,
    refuting_reply,
)
from tablebase.query.search.transposition import (
    HI_AT,
    INF,
    LO_AT,
    LOSS,
    NO_LOSS,
    NO_WIN,
    WIN,
    bound_zone,
    leaf,
    slot_of,
    store,
    stored_zone,
)

# Windows inside (-SIGN, SIGN) ask only for the sign of a score (every win or loss is further
# out): there the proofs below that settle a sign alone may prune (the zones).
SIGN = 256
# Null windows about a depth leaving at least this many plies look for pairings too: on
# 9x4k4's steps to "no win within 21 plies", 2 took 26 s of CPU, 4 24 s, 6 29 s (8: the
# steps grew twice as fast, 2.0x against 1.4x a step of two plies).
DEEP_PLIES = 4
_CHECK = 1023  # nodes between looks at the stop flag and the node limit


# A search frame's fields (one row a ply below the node searched; no recursion: numba's cache
# cannot relink a cached recursive function into another compiled caller).
_A0, _B, _ACUR, _BEST, _BM, _I, _M, _LO, _HI, _SLOT, _G0, _LOWER, _UPPER, _CELL = range(14)
_MODE, _SKIPPED, _HIT2, _EXACT = 14, 15, 16, 17
_ENTER, _NEXT, _RETURN = 0, 1, 2
_ATTACK, _DEFEND = 1, 2  # a node whose window asks "does the side to move win?" / "not lose?"


@njit(cache=True, nogil=True)
def search(par, lines, ends, cl_off, cl_idx, perms, inv, board, cnt, st, bx, bo,  # type: ignore[no-untyped-def]
           tk1, tk2, tlo, thi, tmv, tfl, tz, ctl, tinfo, tdata, tcodes, tscores, mv, mh, pt,
           alpha, beta):
    """The score of the board (not over) if it lies inside (alpha, beta), else a bound on it
    beyond the window it fell out of (fail-soft); 0 with ctl[ABORTED] set when stopped.
    Negamax over an explicit stack of frames: enter a node, try its moves in turn, return."""
    n, k, misere = par[0], par[3], par[5]
    proofs = par[8] if par[4] == 0 else 0  # 1: dead lines and pairings, 2: zones too; no gravity
    # Cell sets (masks.py) of the board's kind: one word up to 64 cells, two up to 128.
    nothing = none_like(get(bx, 0))
    every = all_like(nothing)
    fr = np.zeros((n + 2, 18), dtype=np.int64)
    fkx = array_like(nothing, n + 2)
    fko = array_like(nothing, n + 2)
    fzone = array_like(nothing, n + 2)  # attack: the children's zones, joined; defence: the cut's
    fneed = array_like(nothing, n + 2)  # attack: the moves no child's proof covers
    d, a, b, r, rz, phase = 0, alpha, beta, 0, every, _ENTER
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
            # Proofs that settle a sign are sought in windows about a sign, and in a null
            # window about a depth only where it leaves many plies (DEEP_PLIES or more): in a
            # search for a short win they cost more than they cut.
            near = proofs > 0 and -SIGN < a and b < SIGN
            mode = 0  # 0: no zones; else the window asks "a win?" (a >= 0) or "no loss?" (b <= 0)
            exact = False  # zones prove the bound itself (a window about a depth), not its sign
            if near and proofs > 1 and not misere:
                mode = _ATTACK if a >= 0 else (_DEFEND if b <= 0 else 0)
            elif proofs > 1 and not misere and b == a + 1:
                mode, exact = (_ATTACK if a >= 0 else _DEFEND), True
                near = (WS - b if a >= 0 else WS + a) >= DEEP_PLIES
            occupied = join(get(bx, 0), get(bo, 0))
            forced, phase, rz = -1, _RETURN, every
            if not misere:
                for i in range(m):
                    if completes(cnt, board, cl_off, cl_idx, ends, k, moves[i], me):
                        r = WS - 1
                        if mode:
                            rz = hit_lines(bit(nothing, moves[i]), np.int64(1), 1 - me, cnt, lines,
                                           occupied)
                        break
                else:
                    threats, threat_cells = 0, nothing
                    for i in range(m):
                        if completes(cnt, board, cl_off, cl_idx, ends, k, moves[i], 1 - me):
                            threats += 1
                            forced = moves[i]
                            threat_cells = join(threat_cells, bit(nothing, forced))
                    if threats >= 2:
                        r = -(WS - 2)
                        if mode and r >= b:  # asked "a loss within 1?": none, as `lower` below
                            rz = hit_lines(nothing, np.int64(1), 1 - me, cnt, lines, occupied)
                        elif mode:
                            rz = hit_lines(threat_cells, np.int64(2), me, cnt, lines, occupied)
                    else:
                        phase = _ENTER
            else:
                phase = _ENTER
            if phase == _RETURN:
                continue
            slot, kx, ko, g0 = slot_of(par, bx, bo)
            first, lo, hi = -1, -INF, INF
            if tfl[slot] and same(get(tk1, slot), kx) and same(get(tk2, slot), ko):
                ctl[TT_HITS] += 1
                lo, hi = np.int64(tlo[slot]), np.int64(thi[slot])
                if lo >= b or hi <= a or lo == hi:
                    r, phase = (lo if lo >= b else hi), _RETURN
                    if exact:
                        r, rz = bound_zone(tfl, tz, tlo, thi, slot, r <= a, a, b, inv, g0, n)
                    elif mode:
                        rz = stored_zone(tfl, tz, slot, _wanted(r <= a, a, b), inv, g0, n)
                    continue
                a, b = max(a, lo), min(b, hi)
                if tmv[slot] >= 0:
                    first = inv[g0, tmv[slot]]
            if tinfo.shape[0]:
                held = leaf(tinfo, tdata, tcodes, tscores, inv, board, stones)
                if held != INF:
                    ctl[TABLE_HITS] += 1
                    store(tk1, tk2, tlo, thi, tmv, tfl, tz, slot, kx, ko, held, held, np.int64(-1),
                          every, np.int64(0), perms, g0, n)
                    r, phase = held, _RETURN
                    continue
            if forced >= 0:
                moves[0] = forced
                m = 1
            else:  # ordered before the proofs: a refuting reply is looked for best first
                order(par, cl_off, cl_idx, cnt, moves, keys, m, first, me)
            if near:
                zlo, zhi, reply = every, every, -1
                if misere:  # a side with no open line never completes one: it cannot lose
                    if st[1 + me] == 0:
                        lo = max(lo, 0)
                    if st[2 - me] == 0:
                        hi = min(hi, 0)
                else:
                    if hi > 0 and b > 0:  # worth knowing: the side to move cannot win
                        ctl[PAIR_SEARCHES] += 1
                        done, zone = cannot_win(me, st, cnt, occupied, pt, PAIRING_STEPS)
                        if done:
                            hi, zhi = 0, zone
                    if lo < 0 and a < 0:  # the other side cannot win
                        ctl[PAIR_SEARCHES] += 1
                        done, zone = cannot_win(1 - me, st, cnt, occupied, pt, PAIRING_STEPS)
                        if not done and mode == _DEFEND:
                            reply, zone = refuting_reply(me, cnt, st, cl_off, cl_idx, occupied,
                                                         moves, m, pt, REPLY_STEPS)
                            done = reply >= 0
                        if done:
                            lo, zlo = 0, zone
                if ctl[STOP] != 0:  # pairing searches cost up to milliseconds: look now
                    ctl[ABORTED] = 1
                if lo >= b or hi <= a or lo == hi:
                    ctl[PAIRED] += 1
                    flag = (0 if same(zhi, every) else NO_WIN) | (0 if same(zlo, every) else NO_LOSS)
                    move = perms[g0, reply] if reply >= 0 else (tmv[slot] if first >= 0 else -1)
                    zone = join(zhi, zlo) if flag == NO_WIN | NO_LOSS else \
                        (zlo if same(zhi, every) else zhi)
                    store(tk1, tk2, tlo, thi, tmv, tfl, tz, slot, kx, ko, lo, hi, move, zone,
                          flag, perms, g0, n)
                    r, phase = (lo if lo >= b else hi), _RETURN
                    rz = zhi if r <= a else zlo
                    continue
                a, b = max(a, lo), min(b, hi)
            upper = WS - 2 if misere else WS - 3
            lower = -(WS - 1) if misere else -(WS - 2)
            if upper <= a:  # no win in 1: while each open line of the mover keeps two empty cells
                r, phase = upper, _RETURN
                if mode:
                    rz = hit_lines(nothing, np.int64(2), me, cnt, lines, occupied)
                continue
            if lower >= b:  # no loss in 1, while no line of the other side is complete
                r, phase = lower, _RETURN
                if mode:
                    rz = hit_lines(nothing, np.int64(1), 1 - me, cnt, lines, occupied)
                continue
            f = fr[d]
            f[_A0], f[_B], f[_ACUR], f[_BEST], f[_BM], f[_I], f[_M] = a, b, a, -INF, -1, 0, m
            f[_LO], f[_HI], f[_SLOT], f[_G0], f[_LOWER], f[_UPPER] = lo, hi, slot, g0, lower, upper
            f[_MODE], f[_SKIPPED], f[_HIT2], f[_EXACT] = mode, 0, forced >= 0 and mode != 0, exact
            put(fkx, d, kx)
            put(fko, d, ko)
            put(fzone, d, bit(nothing, forced) if f[_HIT2] else nothing)
            put(fneed, d, every)
            phase = _NEXT
        elif phase == _NEXT:
            f = fr[d]
            stones = st[0]
            if f[_I] >= f[_M] or f[_ACUR] >= f[_B]:
                best, lo, hi, flag, rz = f[_BEST], f[_LO], f[_HI], 0, every
                if f[_MODE] and best <= f[_A0]:  # every move failed: their zones, joined
                    if f[_SKIPPED] and not f[_EXACT]:  # proved no wins (losses), no more
                        best = max(best, 0 if f[_A0] >= 0 else n - stones - WS)
                    rz, flag = get(fzone, d), HI_AT if f[_EXACT] else _proved(True, f[_A0], f[_B])
                    if f[_HIT2]:
                        rz = hit_lines(rz, np.int64(2), stones % 2, cnt, lines,
                                       join(get(bx, 0), get(bo, 0)))
                elif f[_MODE]:  # a move reached the window's top: its zone
                    rz, flag = get(fzone, d), LO_AT if f[_EXACT] else _proved(False, f[_A0], f[_B])
                if best <= f[_A0]:
                    lo, hi = (lo if lo > -INF else f[_LOWER]), min(hi, best)
                elif best >= f[_B]:
                    lo, hi = max(lo, best), (hi if hi < INF else f[_UPPER])
                else:
                    lo, hi = best, best
                lo, hi = max(lo, f[_LOWER]), min(hi, f[_UPPER])
                if f[_EXACT] and (hi if flag == HI_AT else lo) != best:
                    flag = 0  # the zone proves `best`, and a bound kept from before is stored
                if lo <= hi:  # always, unless a bound was wrong; then keep the table as it was
                    store(tk1, tk2, tlo, thi, tmv, tfl, tz, f[_SLOT], get(fkx, d), get(fko, d),
                          lo, hi, perms[f[_G0], f[_BM]], rz, flag, perms, f[_G0], n)
                r, phase = best, _RETURN
                continue
            cell = mv[stones, f[_I]]
            f[_I] += 1
            if f[_MODE] and not has(get(fneed, d), cell):
                f[_SKIPPED] = 1  # a child's proof covers this move too (the zone rule, above)
                continue
            if place(par, cl_off, cl_idx, ends, perms, board, cnt, st, bx, bo, cell, 1 + stones % 2):
                child, zone = (WS if misere else -WS), every  # the line ends the game
            elif st[0] == n:
                child, zone = 0, nothing
            else:
                f[_CELL] = cell
                a, b = invert(f[_B]), invert(f[_ACUR])
                d += 1
                phase = _ENTER
                continue
            remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cell)
            _take(f, fzone, fneed, d, cell, backup(child), zone)
        else:  # _RETURN: r is the node's result, rz the zone of its proof
            if d == 0:
                ctl[ROOT_ZONE], ctl[ROOT_ZONE_HIGH] = words_of(rz)  # the root's zone (tests read it)
                return r
            d -= 1
            f = fr[d]
            remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, f[_CELL])
            _take(f, fzone, fneed, d, f[_CELL], backup(r), rz)
            phase = _NEXT


@njit(cache=True, nogil=True, inline="always")
def _wanted(low, a, b):  # type: ignore[no-untyped-def]
    """The table's zone flag of a proof of "score <= a" (`low`) or of "score >= b", in a
    window about a sign: no win (a >= 0) or a loss; no loss (b <= 0) or a win."""
    if low:
        return NO_WIN if a >= 0 else LOSS
    return NO_LOSS if b <= 0 else WIN


@njit(cache=True, nogil=True, inline="always")
def _proved(low, a, b):  # type: ignore[no-untyped-def]
    """The zone flags a proof of "score <= a" (`low`) or "score >= b" earns: a loss's zone is
    also one of "no win", a win's of "no loss"."""
    flag = _wanted(low, a, b)
    return flag | (NO_WIN if flag == LOSS else 0) | (NO_LOSS if flag == WIN else 0)


@njit(cache=True, nogil=True, inline="always")
def _take(f, fzone, fneed, d, cell, score, zone):  # type: ignore[no-untyped-def]
    """A move's score (and its child's zone) into its node's frame: a move that fails joins
    its zone to the node's (and the moves left to search shrink to the zones' common cells);
    one that reaches the window's top (in a window about a sign, the cut) gives its own."""
    if f[_MODE] and score <= f[_A0]:
        put(fzone, d, join(get(fzone, d), zone))
        put(fneed, d, meet(get(fneed, d), zone))
    elif f[_MODE] and score >= f[_B]:
        put(fzone, d, join(zone, bit(zone, cell)))
    if score > f[_BEST]:
        f[_BEST], f[_BM] = score, cell
    if f[_BEST] > f[_ACUR]:
        f[_ACUR] = f[_BEST]


@njit(cache=True, nogil=True)
def scores_many(par, lines, ends, cl_off, cl_idx, perms, inv, board, cnt, st, bx, bo,  # type: ignore[no-untyped-def]
                tk1, tk2, tlo, thi, tmv, tfl, tz, ctl, tinfo, tdata, tcodes, tscores, mv, mh,
                pt, boards, out):
    """The exact score of each legal board (rows of cell values) into `out`, by a full-window
    search: the kernel alone, without the driver's null windows (for checks of many boards)."""
    n, k = par[0], par[3]
    for r in range(boards.shape[0]):
        for c in range(n):
            if board[c] != 0:
                remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, c)
        for c in range(n):
            if boards[r, c] != 0:
                place(par, cl_off, cl_idx, ends, perms, board, cnt, st, bx, bo, c,
                      np.int64(boards[r, c]))
        last = 0 if st[0] % 2 == 1 else 1  # the index of the player who moved last
        over = False
        for line in range(cnt.shape[1]):
            if st[0] > 0 and cnt[last, line] == k and ends_clear(board, ends, line, last + 1):
                over = True
        if over:
            out[r] = WS if par[5] else -WS
        elif st[0] == n:
            out[r] = 0
        else:
            out[r] = search(par, lines, ends, cl_off, cl_idx, perms, inv, board, cnt, st, bx, bo,
                            tk1, tk2, tlo, thi, tmv, tfl, tz, ctl, tinfo, tdata, tcodes,
                            tscores, mv, mh, pt, np.int64(-INF), np.int64(INF))
