"""The compiled rules of the morris games' placement phase over sectors: a position of sector
(a, b, A, B) is the side to move's `a` stones on the board with `A` still to place and the
other side's `b` with `B`, ranked as the movement phase's (sector_kernels.py: one index an
orbit). Every move places a stone, so it leaves the sector: for sector (b, a + 1, B, A - 1),
or (b - 1, a + 1, B, A - 1) where it closes a mill and takes a stone; the movement phase's
sector (b, a + 1) or (b - 1, a + 1) once both have placed every stone. Such a tier is loop-free:
each position's score is its children's, scored in pieces of the other side's orbits
(builder/ranked.py runs them on both cores), so that the children are read from cache.

`sec` (int64): 0 a, 1 b, 2 where the plain child's sector starts in its tier's scores, 3 where
the capture's starts, 4 1 where a capture leaves the other side fewer than three stones (it
has lost).
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from tablebase.builder.games.morris.sector_kernels import (
    NO_WIN,
    REP_MASK,
    can_take,
    closes,
    colex_rank,
    exit_state,
    fold,
    free_points,
    image,
    in_mills,
    index_in,
    index_of,
    next_set,
    orbit,
    packed_rank,
    spread,
)
from tablebase.builder.games.ranked_tiers import DRAW_EXIT
from tablebase.builder.games.ranked_tiers import RANKED_WIN as WIN
from tablebase.compiled import njit


@njit(cache=True, nogil=True, inline="always")
def insertion_sums(packed, a, binom, low, high):  # type: ignore[no-untyped-def]
    """For the `a` points of `packed` (s_1 < ... < s_a), the colex rank of `packed` with a
    point x inserted after its k lowest, less x's own term binom[x, k + 1]: low[k] + high[k],
    low[k] the sum of binom[s_j, j] for j <= k (ranks unmoved), high[k] of binom[s_j, j + 1]
    for j > k (each one place higher). A child's rank by one lookup a placement, not a loop."""
    rest = packed
    j = 0
    low[0] = 0
    while rest:
        s = trailing_zeros(rest)
        rest &= rest - 1
        j += 1
        low[j] = low[j - 1] + binom[s, j]
    high[a] = 0
    j = a
    rest = packed
    while j > 0:  # the points from the highest down
        s = 63 - leading_zeros(rest)
        rest ^= np.int64(1) << s
        high[j - 1] = high[j] + binom[s, j + 1]
        j -= 1


@njit(cache=True, nogil=True, inline="always")
def victims_of(you, b, mills, binom, perm, sym_tab, rank_off, at, gs, mine):  # type: ignore[no-untyped-def]
    """For each stone of `you` (b stones) a mill may take: the orbit (`orbit`) of what is
    left, into at[i], gs[i], mine[i]; return how many. Found once for every position that
    shares `you`, not once a capture."""
    n = 0
    left = can_take(you, mills)
    while left:
        v = left & -left
        left ^= v
        at[n], gs[n], mine[n] = orbit(you ^ v, b - 1, binom, perm, sym_tab, rank_off)
        n += 1
    return n


@njit(cache=True, nogil=True)
def place_settle(lo, hi, sec, plain, taken, mills, mills_at, binom, points,  # type: ignore[no-untyped-def]
                 rules, perm, sym_tab, rep_of, rank_off, reps, rep_off, scores):
    """Score every position of the tier whose other side's stones are the representatives
    lo..hi-1 of their orbits (every orbit of positions has one: its other side's stones
    mapped to their representative), each at its own index in `scores`, from its placements'
    children: in `plain` (the sector a placement that takes nothing reaches) and `taken` (a
    capture's, unless `sec[4]`). Visited so, a position's plain children have the same own
    stones, the representative, and fall in one block of `plain`, read from cache. A
    position met twice (its other side's stones kept by a symmetry) is scored twice alike;
    an index no visit scores is a copy (HOLE, as the caller fills it first)."""
    captures, misere = rules[0], rules[2]
    a, b = sec[0], sec[1]
    full = (np.int64(1) << points) - 1
    free = np.empty(points, dtype=np.int64)
    low = np.empty(a + 1, dtype=np.int64)
    high = np.empty(a + 1, dtype=np.int64)
    c_radix = binom[points - b, a + 1]  # the plain children's sector (b, a + 1)
    v_at = np.empty(points, dtype=np.int64)  # `victims_of`: the captures' own stones
    v_gs = np.empty(points, dtype=np.int64)
    v_mine = np.empty(points, dtype=np.int64)
    for y in range(lo, hi):
        entry = reps[rep_off[b] + y]
        you = entry & REP_MASK
        stab = entry >> 32  # the symmetries that keep `you`: the child's orbit is itself
        c_at = rank_off[b] + colex_rank(you, binom)
        block = rep_of[c_at] * c_radix
        free_points(you, points, free, 0)
        over = not captures and in_mills(you, mills) != 0  # the other side has made a line
        # A capture's child has the other side's stones less one as its own: the same few
        # orbits for every position of this y, found here rather than once a capture (nine
        # men's morris's tiers of one stone to place in 0.57-0.72 of the time).
        victims = 0
        if captures and you != 0 and sec[4] == 0:
            victims = victims_of(you, b, mills, binom, perm, sym_tab, rank_off, v_at, v_gs,
                                 v_mine)
        packed = 0
        for r in range(binom[points - b, a]):
            packed = (np.int64(1) << a) - 1 if r == 0 else next_set(packed)
            me = spread(packed, free, 0)
            at = index_of(me, you, a, b, points, binom, perm, sym_tab, rep_of, rank_off)
            if over:
                scores[at] = WIN if misere else -WIN
                continue
            empty = full & ~(me | you)
            if empty == 0:
                scores[at] = -WIN  # nowhere to place: lost
                continue
            if stab == 1:
                insertion_sums(packed, a, binom, low, high)
            win_at = NO_WIN
            lose_at = 0
            drawn = False
            k = 0  # the stones of `me` below the point placed on
            for x in range(points - b):  # the points `you` leaves free, in order
                if packed >> x & 1:
                    k += 1
                    continue
                d = free[x]
                after = me | (np.int64(1) << d)
                if captures and you != 0 and closes(after, d, mills_at):
                    if sec[4] != 0:  # the other side left with two stones: lost at once
                        win_at = 1
                    for j in range(victims):
                        score = taken[sec[3] + index_in(v_at[j], v_gs[j], v_mine[j], after,
                                                        b - 1, a + 1, points, binom, perm,
                                                        rep_of)]
                        win_at, lose_at, drawn = fold(score, win_at, lose_at, drawn)
                    continue
                if stab == 1:  # packed_rank(after, you): `packed` with x inserted
                    least = low[k] + binom[x, k + 1] + high[k]
                else:
                    least = np.int64(1) << 62
                    gs = stab
                    while gs:
                        least = min(least, packed_rank(image(perm, trailing_zeros(gs), after),
                                                       you, binom))
                        gs &= gs - 1
                score = plain[sec[2] + block + least]
                win_at, lose_at, drawn = fold(score, win_at, lose_at, drawn)
            e = exit_state(win_at, lose_at, drawn)
            scores[at] = 0 if e == DRAW_EXIT else (WIN - e if e > 0 else -e - WIN)
