"""Proofs without search that a side cannot complete a line (normal rules, no gravity): lines
already dead, and pairing strategies, found by a small compiled search over the board's
straight runs; and the cell sets ("zones") such proofs depend on (numba).

A pairing for the attacker is a set of disjoint pairs of empty cells such that every line still
open for the attacker (no defender stone on it) holds a whole pair. Soundness: whenever the
attacker takes a cell of a pair, the defender takes the other (if the attacker takes a cell in
no pair, the defender plays anywhere; a defender stone on a pair only kills the lines through
it). So no pair ever holds two attacker stones, and no open line can be completed: the
attacker cannot win, whoever moves first, and extra attacker stones on cells outside the pairs
change nothing (they open no line: only defender stones close lines). In the real game the
answers are always possible: an open line keeps two empty cells of its pair, so the attacker
never threatens to complete one and the defender is never forced elsewhere; a line of the
defender's own only ends the game sooner.

The pairing search runs on the tables of pairings.py (the board's runs and their choices of
pairs), one choice a run, cells disjoint, most constrained run first.
"""
from __future__ import annotations

import numpy as np

from tablebase.builder.game.compiled import njit
from tablebase.query.search.masks import (
    all_like,
    bit,
    count,
    disjoint,
    get,
    has,
    join,
    meet,
    none_like,
    put,
)
from tablebase.query.search.pairings import MAX_CHOICES

# Steps (choices tried) one pairing search may take before giving up (not found: no claim);
# fewer for each reply tried in turn (`refuting_reply`). Typed, not plain ints: numba compiles a
# callee once for each literal argument, and these are passed to compiled callees.
PAIRING_STEPS = np.int64(512)
REPLY_STEPS = np.int64(64)


@njit(cache=True, nogil=True)
def find_pairing(p, cnt, occupied, n_cells, run_off, run_win, ch_off, ch_num, ch_mask,  # type: ignore[no-untyped-def]
                 opts, nopt, taken, level_run, level_next, level_used, limit):
    """A pairing against player index `p`'s open lines: (True, the cells it uses) or (False,
    no cells) when none was found within `limit` steps. `occupied`: the board's stones (a cell
    set, masks.py)."""
    nothing = none_like(occupied)
    runs, need = 0, 0
    for r in range(run_off.shape[0] - 1):
        windows = 0
        for j in range(run_off[r], run_off[r + 1]):
            if cnt[1 - p, run_win[j]] == 0:
                windows |= 1 << (j - run_off[r])
        if windows == 0:
            continue
        c, row = 0, runs * MAX_CHOICES
        for o in range(ch_off[r, windows], ch_off[r, windows] + ch_num[r, windows]):
            choice = get(ch_mask, o)
            if disjoint(choice, occupied):
                put(opts, row + c, choice)
                c += 1
        if c == 0:
            return False, nothing
        need += count(get(opts, row))  # the smallest choice left: they are sorted by size
        nopt[runs] = c
        taken[runs] = 0
        runs += 1
    if need > n_cells - count(occupied):
        return False, nothing  # more cells needed than are empty, runs being disjoint
    used = nothing
    level, steps = 0, 0
    while True:
        # Most constrained run first: the one with the fewest choices still disjoint from
        # `used`; with none left for some run, this branch fails.
        pick, fewest = -1, 1 << 30
        for v in range(runs):
            if taken[v]:
                continue
            c, row = 0, v * MAX_CHOICES
            for i in range(nopt[v]):
                if disjoint(get(opts, row + i), used):
                    c += 1
            if c < fewest:
                pick, fewest = v, c
                if c == 0:
                    break
        if pick < 0:
            return True, used
        if fewest > 0:
            level_run[level], level_next[level] = pick, 0
            put(level_used, level, used)
            taken[pick] = 1
            level += 1
        # Take the next choice at the deepest level that has one left; undo levels without.
        while level > 0:
            steps += 1
            if steps > limit:
                return False, nothing
            v, base = level_run[level - 1], get(level_used, level - 1)
            i, row = level_next[level - 1], v * MAX_CHOICES
            while i < nopt[v] and not disjoint(get(opts, row + i), base):
                i += 1
            if i < nopt[v]:
                level_next[level - 1] = i + 1
                used = join(base, get(opts, row + i))
                break
            taken[v] = 0
            level -= 1
        if level == 0:
            return False, nothing


@njit(cache=True, nogil=True)
def hit_lines(zone, need, p, cnt, lines, occupied):  # type: ignore[no-untyped-def]
    """`zone` grown until every line open for player index `p` has `need` of its empty cells in
    it (or all of them, when fewer are empty)."""
    for line in range(lines.shape[0]):
        if cnt[1 - p, line] != 0:
            continue
        have = 0
        for c in lines[line]:
            if not has(occupied, c) and has(zone, c):
                have += 1
        for c in lines[line]:
            if have >= need:
                break
            if not has(occupied, c) and not has(zone, c):
                zone = join(zone, bit(zone, c))
                have += 1
    return zone


@njit(cache=True, nogil=True)
def cannot_win(p, st, cnt, occupied, pt, limit):  # type: ignore[no-untyped-def]
    """Whether player index `p` provably cannot complete a line, and the cells the proof uses:
    no line open for p at all (none), or a pairing against p's open lines."""
    if st[1 + p] == 0:
        return True, none_like(occupied)
    return find_pairing(p, cnt, occupied, pt[11][0], pt[0], pt[1], pt[2], pt[3], pt[4],
                        pt[5], pt[6], pt[7], pt[8], pt[9], pt[10], limit)


@njit(cache=True, nogil=True)
def refuting_reply(me, cnt, st, cl_off, cl_idx, occupied, moves, m, pt, limit):  # type: ignore[no-untyped-def]
    """A move of player index `me` after which the other side cannot complete a line (by
    `cannot_win`), and its proof's cells with the move's; (-1, 0) when none is found."""
    # A run with windows open for the other side but no choice of pairs left gets one only
    # from a stone on it (closing some of its windows): the move must lie on every such run.
    run_off, run_win, ch_off, ch_num, ch_mask, run_mask = pt[0], pt[1], pt[2], pt[3], pt[4], pt[12]
    allowed = all_like(occupied)
    for r in range(run_off.shape[0] - 1):
        windows = 0
        for j in range(run_off[r], run_off[r + 1]):
            if cnt[me, run_win[j]] == 0:
                windows |= 1 << (j - run_off[r])
        if windows == 0:
            continue
        for o in range(ch_off[r, windows], ch_off[r, windows] + ch_num[r, windows]):
            if disjoint(get(ch_mask, o), occupied):
                break
        else:
            allowed = meet(allowed, get(run_mask, r))
    for i in range(m):
        c = moves[i]
        if not has(allowed, c):
            continue
        for j in range(cl_off[c], cl_off[c + 1]):
            line = cl_idx[j]
            if cnt[me, line] == 0:
                st[2 - me] -= 1
            cnt[me, line] += 1
        done, zone = cannot_win(1 - me, st, cnt, join(occupied, bit(occupied, c)), pt, limit)
        for j in range(cl_off[c], cl_off[c + 1]):
            line = cl_idx[j]
            cnt[me, line] -= 1
            if cnt[me, line] == 0:
                st[2 - me] += 1
        if done:
            return c, join(zone, bit(zone, c))
    return -1, none_like(occupied)
