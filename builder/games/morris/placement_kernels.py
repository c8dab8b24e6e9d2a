"""The compiled rules of the morris games' placement phase over sectors: a position of sector
(a, b, A, B) is the side to move's `a` stones on the board with `A` still to place and the
other side's `b` with `B`, ranked as the movement phase's (sector_kernels.py: one index an
orbit). Every move places a stone, so it leaves the sector: for sector (b, a + 1, B, A - 1),
or (b - 1, a + 1, B, A - 1) where it closes a mill and takes a stone; the movement phase's
sector (b, a + 1) or (b - 1, a + 1) once both have placed every stone. Such a tier is loop-free:
each position's score is its exits' (builder/ranked.py settles it in one pass).

`sec` (int64): 0 a, 1 b, 2 where the plain child's sector starts in its tier's scores, 3 where
the capture's starts, 4 1 where a capture leaves the other side fewer than three stones (it
has lost).
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from tablebase.builder.games.morris.sector_kernels import (
    NO_WIN,
    can_take,
    closes,
    exit_state,
    fold,
    fresh,
    in_mills,
    index_in,
    index_of,
    orbit,
    walk,
)
from tablebase.builder.games.ranked_tiers import DRAW_EXIT, HOLE
from tablebase.builder.games.ranked_tiers import RANKED_WIN as WIN
from tablebase.compiled import njit


@njit(cache=True, nogil=True)
def place_first(lo, hi, sec, plain, taken, mills, mills_at, binom, points,  # type: ignore[no-untyped-def]
                rules, perm, sym_tab, rep_of, rank_off, reps, rep_off, counts, scores, exits):
    """For the tier's indices lo..hi-1 (outputs indexed from 0): counts 0 (no move stays);
    scores, a finished position's score (in the 3x3 games, a line the other side has just
    made), HOLE for a copy, else 0; exits, the exit state of its placements, read in `plain`
    (the scores of the sector a placement that takes nothing reaches) and `taken` (a capture's,
    unless `sec[4]`)."""
    captures, misere = rules[0], rules[2]
    a, b = sec[0], sec[1]
    full = (np.int64(1) << points) - 1
    state = fresh(points)
    for g in range(lo, hi):
        me, you = walk(g, a, b, points, binom, reps, rep_off, state)
        o = g - lo
        counts[o] = 0
        exits[o] = 0
        if state[-2] != 1 and index_of(me, you, a, b, points, binom, perm, sym_tab, rep_of,
                                       rank_off) != g:
            scores[o] = HOLE
            exits[o] = DRAW_EXIT
            continue
        scores[o] = 0
        if not captures and in_mills(you, mills) != 0:
            scores[o] = WIN if misere else -WIN  # the other side has just made a line
            continue
        empty = full & ~(me | you)
        if empty == 0:
            scores[o] = -WIN  # nowhere to place: lost
            continue
        takeable = -1  # found at the first mill closed
        # A placement that takes nothing reaches (you, after): the child's own stones are
        # `you` whatever the point, so their orbit is found once.
        c_at, c_gs, c_mine = orbit(you, b, binom, perm, sym_tab, rank_off)
        win_at = NO_WIN
        lose_at = 0
        drawn = False
        while empty:
            d = trailing_zeros(empty)
            empty &= empty - 1
            after = me | (np.int64(1) << d)
            if captures and you != 0 and closes(after, d, mills_at):
                if takeable < 0:
                    takeable = can_take(you, mills)
                victims = takeable
                while victims:
                    v = victims & -victims
                    victims ^= v
                    if sec[4]:
                        win_at = 1
                        continue
                    score = taken[sec[3] + index_of(you ^ v, after, b - 1, a + 1, points, binom,
                                                    perm, sym_tab, rep_of, rank_off)]
                    win_at, lose_at, drawn = fold(score, win_at, lose_at, drawn)
            else:
                score = plain[sec[2] + index_in(c_at, c_gs, c_mine, after, b, a + 1, points,
                                                binom, perm, rep_of)]
                win_at, lose_at, drawn = fold(score, win_at, lose_at, drawn)
        exits[o] = exit_state(win_at, lose_at, drawn)
