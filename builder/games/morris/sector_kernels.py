"""The compiled rules of the morris games' movement phase over sectors (sectors.py): a position
of sector (a, b) is the side to move's `a` stones and the other side's `b`, nothing left to
place, one an orbit of the board's symmetries, ranked: the index of its own stones' orbit
among the orbits of `a` points, times the ways to set `b` stones on the points left, plus the
colex rank (the combinatorial number system) of the other side's stones among those points.

A position's index is that of its image whose own stones are their orbit's representative
(the least mask) and, where several symmetries give it, whose other stones rank least. Every
index is a position; where the representative's own symmetries map it to a lower index, it is
a copy (scored HOLE, read by no one).

A tier is one sector (a, a) or a pair (a, b) and (b, a): a step goes from (a, b) to (b, a), a
capture leaves it for sector (b - 1, a), solved before. Scores and exit states are
ranked_tiers.py's.

`sec` (int64) says which sectors a tier holds:
    0 a    1 b    2 size of (a, b)    3 where (b, a) starts (0: the tier is (a, a))
The symmetry tables (sectors.py's Orbits), by the colex rank r of a set of `a` points at
`at = rank_off[a] + r`: sym_tab[at] the symmetries (bits) that map it to its orbit's
representative, rep_of[at] that representative's index; reps[rep_off[a] + i] the i-th
representative's mask (and above it the symmetries that keep it: REP_MASK); perm[g, k,
byte] the image under symmetry g of byte k's points.
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from tablebase.builder.games.bits import popcount
from tablebase.builder.games.morris.set_ranks import colex_rank, colex_unrank, packed_rank
from tablebase.builder.games.ranked_tiers import DRAW_EXIT, HOLE
from tablebase.builder.games.ranked_tiers import RANKED_WIN as WIN
from tablebase.compiled import njit

NO_WIN = 1 << 20
# A representative in `reps`: its mask in the low 32 bits, the symmetries that keep it (bits)
# above them, so that a position whose own stones nothing but the identity keeps is known
# to be no copy without ranking it.
REP_MASK = (1 << 32) - 1
KIDS = 1024  # room for one position's moves (at most 3 stones x 21 flights x 9 captures)

@njit(cache=True, nogil=True, inline="always")
def image(perm, g, mask):  # type: ignore[no-untyped-def]
    """The points of `mask` under symmetry g."""
    out = 0
    k = 0
    while mask:
        out |= perm[g, k, mask & 255]
        mask >>= 8
        k += 1
    return out


@njit(cache=True, nogil=True, inline="always")
def orbit(me, a, binom, perm, sym_tab, rank_off):  # type: ignore[no-untyped-def]
    """(where `me`, a set of `a` points, is in the tables; the symmetries that map it to its
    orbit's representative, as bits; that representative)."""
    at = rank_off[a] + colex_rank(me, binom)
    gs = np.int64(sym_tab[at])
    return at, gs, image(perm, trailing_zeros(gs), me)


@njit(cache=True, nogil=True, inline="always")
def index_in(at, gs, mine, you, a, b, points, binom, perm, rep_of):  # type: ignore[no-untyped-def]
    """The index in sector (a, b) of the position whose own stones' orbit is `at`, `gs`,
    `mine` (`orbit`) and whose other stones are `you`: of the images that map its own stones
    to the representative, the one whose other stones rank least."""
    best = np.int64(1) << 62
    while gs:
        r = packed_rank(image(perm, trailing_zeros(gs), you), mine, binom)
        best = min(best, r)
        gs &= gs - 1
    return rep_of[at] * binom[points - a, b] + best


@njit(cache=True, nogil=True, inline="always")
def index_of(me, you, a, b, points, binom, perm, sym_tab, rep_of, rank_off):  # type: ignore[no-untyped-def]
    """The index in sector (a, b) of the position (me, you)."""
    at, gs, mine = orbit(me, a, binom, perm, sym_tab, rank_off)
    return index_in(at, gs, mine, you, a, b, points, binom, perm, rep_of)


@njit(cache=True, nogil=True, inline="always")
def position_of(index, a, b, points, binom, reps, rep_off):  # type: ignore[no-untyped-def]
    """(me, you) of the index in sector (a, b)."""
    radix = binom[points - a, b]
    me = reps[rep_off[a] + index // radix] & REP_MASK
    packed = colex_unrank(index % radix, b, points - a, binom)
    you = 0
    q = 0
    for p in range(points):
        if me >> p & 1:
            continue
        if packed >> q & 1:
            you |= 1 << p
        q += 1
    return me, you


@njit(cache=True, nogil=True, inline="always")
def next_set(x):  # type: ignore[no-untyped-def]
    """The set after x, of as many points, in colex order, which is the masks' order
    (Gosper's step)."""
    low = x & -x
    up = x + low
    return (((up ^ x) >> 2) >> trailing_zeros(low)) | up


@njit(cache=True, nogil=True, inline="always")
def fresh(points):  # type: ignore[no-untyped-def]
    """The state of a walk (`walk`) not yet begun."""
    state = np.full(points + 5, -2, dtype=np.int64)
    state[-3] = -1
    return state


@njit(cache=True, nogil=True, inline="always")
def walk(index, a, b, points, binom, reps, rep_off, state):  # type: ignore[no-untyped-def]
    """(me, you) of the index in sector (a, b), where a kernel visits the indices of a
    sector in order: from the index before (state[0] its packed other stones, state[1] its
    own, state[2:] the points they leave free, state[-3] the index where its own change,
    state[-2] the symmetries that keep its own (REP_MASK), state[-1] the index: `fresh`
    makes one) the next set of the other's (`next_set`); from scratch where the own stones
    change or the walk jumps."""
    if index >= state[-3] or state[-1] != index - 1:
        radix = binom[points - a, b]
        me, you = position_of(index, a, b, points, binom, reps, rep_off)
        state[0] = colex_unrank(index % radix, b, points - a, binom)
        state[1] = me
        state[-2] = reps[rep_off[a] + index // radix] >> 32
        state[-3] = (index // radix + 1) * radix
        free_points(me, points, state, 2)
        state[-1] = index
        return me, you
    state[0] = next_set(state[0])
    state[-1] = index
    return state[1], spread(state[0], state, 2)


@njit(cache=True, nogil=True, inline="always")
def free_points(mask, points, out, at):  # type: ignore[no-untyped-def]
    """The points not in `mask`, lowest first, into out[at:]."""
    q = at
    for p in range(points):
        if not mask >> p & 1:
            out[q] = p
            q += 1


@njit(cache=True, nogil=True, inline="always")
def spread(packed, free, at):  # type: ignore[no-untyped-def]
    """The points free[at + i] for each bit i of `packed`: a set of the free points from
    its rank among them."""
    out = 0
    while packed:
        out |= np.int64(1) << free[at + trailing_zeros(packed)]
        packed &= packed - 1
    return out


@njit(cache=True, nogil=True, inline="always")
def closes(stones, to, mills_at):  # type: ignore[no-untyped-def]
    """Whether a mill through point `to` is full of `stones`."""
    for j in range(mills_at.shape[1]):
        m = mills_at[to, j]
        if m != 0 and stones & m == m:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def in_mills(stones, mills):  # type: ignore[no-untyped-def]
    """The points of `stones` standing in a mill of theirs."""
    covered = 0
    for j in range(mills.shape[0]):
        if stones & mills[j] == mills[j]:
            covered |= mills[j]
    return covered


@njit(cache=True, nogil=True, inline="always")
def can_take(you, mills):  # type: ignore[no-untyped-def]
    """The stones of `you` a mill takes: those in no mill of theirs, or any where all are."""
    free = you & ~in_mills(you, mills)
    return free if free != 0 else you


@njit(cache=True, nogil=True, inline="always")
def add_new(kids, n, x):  # type: ignore[no-untyped-def]
    """Append x to kids[:n] unless it is there; return the new length."""
    for j in range(n):
        if kids[j] == x:
            return n
    kids[n] = x
    return n + 1


@njit(cache=True, nogil=True, inline="always")
def fold(score, win_at, lose_at, drawn):  # type: ignore[no-untyped-def]
    """A child's score outside the tier folded into its parent's exit: a lost child wins at
    its depth + 1 (the least such), a won one loses at its depth + 1 at the latest (the
    greatest), a drawn one draws."""
    if score < 0:
        win_at = min(win_at, WIN + score + 1)
    elif score > 0:
        lose_at = max(lose_at, WIN - score + 1)
    else:
        drawn = True
    return win_at, lose_at, drawn


@njit(cache=True, nogil=True, inline="always")
def fold_captures(victims, you, after, lost, scores, start, a, b, points, binom, perm,  # type: ignore[no-untyped-def]
                  sym_tab, rep_of, rank_off, win_at, lose_at, drawn):
    """`fold` over a mill's captures, one of `victims` each: the child (you less it, after)
    of sector (a, b), whose scores start at scores[start]; `lost`: a capture leaves the other
    side fewer than three stones (its child lost at once)."""
    if lost:
        return 1, lose_at, drawn
    while victims:
        v = victims & -victims
        victims ^= v
        score = scores[start + index_of(you ^ v, after, a, b, points, binom, perm, sym_tab,
                                        rep_of, rank_off)]
        win_at, lose_at, drawn = fold(score, win_at, lose_at, drawn)
    return win_at, lose_at, drawn


@njit(cache=True, nogil=True, inline="always")
def exit_state(win_at, lose_at, drawn):  # type: ignore[no-untyped-def]
    """The exit state (ranked_tiers.py) of what `fold` gathered: a win, else a draw, else
    the deepest loss (0: no move left the tier)."""
    if win_at < NO_WIN:
        return win_at
    if drawn:
        return DRAW_EXIT
    return -lose_at


@njit(cache=True, nogil=True)
def first(lo, hi, sec, exit_a, exit_b, joins, mills, mills_at, binom, points,  # type: ignore[no-untyped-def]
          rules, perm, sym_tab, rep_of, rank_off, reps, rep_off, counts, scores, exits):
    """For the tier's indices lo..hi-1 (outputs indexed from 0): counts, the distinct
    positions the moves that stay in the tier reach; scores, a finished position's score, HOLE
    for a copy, else 0; exits, the exit state of the moves that leave it. `exit_a` holds the
    scores of sector (b - 1, a), where (a, b)'s captures go, `exit_b` those of (a - 1, b);
    empty where that side would be left with two stones (lost at once). `rules`: captures,
    flying, misère (0/1 each)."""
    captures, flying, misere = rules[0], rules[1], rules[2]
    full = (np.int64(1) << points) - 1
    kids = np.empty(KIDS, dtype=np.int64)
    state = fresh(points)
    for g in range(lo, hi):
        if g < sec[2]:
            a, b, index, exit_scores, offset = sec[0], sec[1], g, exit_a, sec[3]
        else:
            a, b, index, exit_scores, offset = sec[1], sec[0], g - sec[3], exit_b, 0
        me, you = walk(index, a, b, points, binom, reps, rep_off, state)
        o = g - lo
        counts[o] = 0
        exits[o] = 0
        if state[-2] != 1 and index_of(me, you, a, b, points, binom, perm, sym_tab, rep_of,
                                       rank_off) != index:  # a copy
            scores[o] = HOLE
            exits[o] = DRAW_EXIT
            continue
        if not captures and in_mills(you, mills) != 0:
            scores[o] = WIN if misere else -WIN  # the other side has just made a line
            continue
        empty = full & ~(me | you)
        fly = flying and a == 3
        takeable = -1  # found at the first mill closed (most positions close none)
        # Each step reaches (you, after): distinct moves reach distinct positions, and two of
        # them are one orbit only by a symmetry that keeps `you`, the child's own stones. Where
        # none but the identity does, the steps are counted, not ranked.
        c_at, c_gs, c_mine = orbit(you, b, binom, perm, sym_tab, rank_off)
        plain = popcount(c_gs) == 1
        inside = 0
        win_at = NO_WIN
        lose_at = 0
        drawn = False
        moved = False
        mine = me
        while mine:
            s = trailing_zeros(mine)
            mine &= mine - 1
            targets = empty if fly else joins[s] & empty
            while targets:
                d = trailing_zeros(targets)
                targets &= targets - 1
                moved = True
                after = (me ^ (np.int64(1) << s)) | (np.int64(1) << d)
                if not (captures and closes(after, d, mills_at)):
                    if plain:
                        inside += 1
                    else:
                        inside = add_new(kids, inside, offset + index_in(
                            c_at, c_gs, c_mine, after, b, a, points, binom, perm, rep_of))
                    continue
                if takeable < 0:
                    takeable = can_take(you, mills)
                win_at, lose_at, drawn = fold_captures(
                    takeable, you, after, b - 1 < 3, exit_scores, 0, b - 1, a, points, binom,
                    perm, sym_tab, rep_of, rank_off, win_at, lose_at, drawn)
        counts[o] = inside
        if not moved:
            scores[o] = -WIN  # no move: lost
            continue
        scores[o] = 0
        exits[o] = exit_state(win_at, lose_at, drawn)


@njit(cache=True, nogil=True)
def parents(level, sec, joins, mills, mills_at, binom, points, rules,  # type: ignore[no-untyped-def]
            perm, sym_tab, rep_of, rank_off, reps, rep_off, out):
    """For each tier index level[i], the distinct tier indices of its parents in the tier
    (positions one step or flight before it that captured nothing) into out[0], i into out[1];
    return how many. Where the other side has just closed a mill it would have captured: no
    parent in the tier; in the 3x3 games, a parent where the side to move had a line was over
    already."""
    captures, flying = rules[0], rules[1]
    full = (np.int64(1) << points) - 1
    kids = np.empty(KIDS, dtype=np.int64)
    n = 0
    for i in range(level.shape[0]):
        g = level[i]
        if g < sec[2]:
            a, b, index, offset = sec[0], sec[1], g, sec[3]
        else:
            a, b, index, offset = sec[1], sec[0], g - sec[3], 0
        me, you = position_of(index, a, b, points, binom, reps, rep_off)
        if not captures and in_mills(me, mills) != 0:
            continue
        empty = full & ~(me | you)
        fly = flying and b == 3
        # Parents (before, me): two are one orbit only by a symmetry that keeps `me`.
        plain = popcount(np.int64(sym_tab[rank_off[a] + colex_rank(me, binom)])) == 1
        k = 0
        theirs = you
        while theirs:
            d = trailing_zeros(theirs)
            theirs &= theirs - 1
            if captures and closes(you, d, mills_at):
                continue
            sources = empty if fly else joins[d] & empty
            while sources:
                s = sources & -sources
                sources ^= s
                before = (you ^ (np.int64(1) << d)) | s
                at = offset + index_of(before, me, b, a, points, binom, perm, sym_tab, rep_of,
                                       rank_off)
                if plain:
                    out[0, n] = at
                    out[1, n] = i
                    n += 1
                else:
                    k = add_new(kids, k, at)
        for j in range(k):
            out[0, n] = kids[j]
            out[1, n] = i
            n += 1
    return n
