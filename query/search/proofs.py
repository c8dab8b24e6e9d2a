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
pairs), one choice a run, cells disjoint, most constrained run first. It keeps, for each level
of its depth-first search, each run's choices still disjoint from those taken as bits of a word
(a run has at most 32; bit 63 marks a run with nothing to pick: no window open, or taken): a
choice taken clears, in the other runs through its cells, the choices holding those cells (one
table look-up a cell and run), and the most constrained run is the one whose bits count least.
Tried for each of a defender's replies in turn, its set-up is done once: a stone changes only
the runs through it. It tries the choices in the order, and counts the steps, of the search as
first written (tests/test_pairings.py keeps that one, plainly, to compare).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from tablebase.compiled import njit
from tablebase.query.search.masks import (
    all_like,
    bit,
    count,
    get,
    has,
    join,
    meet,
    none_like,
    put,
)

# Compiled without numba's reference counts (its runtime, NRT), for kernels that allocate
# nothing and keep no array past the call (the caller's arrays live as long): each array taken
# out of the pairing tables' tuple was counted in and out, atomically, at every call, some
# tenth of the prover's time.
NO_REFCOUNTS: dict[str, Any] = {"_nrt": False}
# Steps (choices tried) one pairing search may take before giving up (not found: no claim);
# fewer for each reply tried in turn (`refuting_reply`). Typed, not plain ints: numba compiles a
# callee once for each literal argument, and these are passed to compiled callees.
PAIRING_STEPS = np.int64(512)
REPLY_STEPS = np.int64(64)
_FIRST = np.int64(0)  # the first run a pairing search starts from


if TYPE_CHECKING:  # what a compiled caller sees (the intrinsics' own signatures are numba's)
    def _ones(x: Any) -> int:
        """The bits set in an unsigned integer."""

    def _lowest(x: Any) -> int:
        """The place of the lowest bit set in an integer (its width when none is)."""
else:
    @intrinsic
    def _ones(typingctx, x):  # type: ignore[no-untyped-def]
        """The bits set in an unsigned integer (one instruction)."""
        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            return builder.ctpop(args[0])
        return x(x), codegen

    @intrinsic
    def _lowest(typingctx, x):  # type: ignore[no-untyped-def]
        """The place of the lowest bit set in an integer (its width when none is), as int64."""
        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            place = builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))
            if place.type.width < 64:
                place = builder.zext(place, ir.IntType(64))
            return place
        return types.int64(x), codegen


_OUT = np.uint64(1) << np.uint64(63)  # live[l, r]'s mark: taken above level l, or none open
_ALL = np.int64(1) << np.int64(40)  # a key past every unmarked run's


@njit(cache=True, nogil=True, inline="always")
def _run_choices(ch_off, ch_num, ch_mask, hit, run_cells, r, windows, occupied):  # type: ignore[no-untyped-def]
    """The choices of run r for the open-window set `windows` that avoid `occupied` (bit j:
    choice j), and the number of cells of the first of them, the smallest (-1: none)."""
    left = (np.uint64(1) << np.uint64(ch_num[r, windows])) - np.uint64(1)
    cells, hits = run_cells[r], hit[r, windows]
    for i in range(np.uint64(cells.shape[0])):
        if cells[i] < 0:
            break
        left &= ~(np.uint64(hits[i]) * np.uint64(has(occupied, cells[i])))
    if left == 0:
        return left, np.int64(-1)
    return left, np.int64(count(get(ch_mask, ch_off[r, windows] + _lowest(left))))


@njit(cache=True, nogil=True, inline="always")
def _set_kill(kill, hit, run_cells, run_slot, r, windows):  # type: ignore[no-untyped-def]
    """kill for the cells of run r, its open windows `windows`."""
    cells, slots, hits = run_cells[r], run_slot[r], hit[r, windows]
    for i in range(np.uint64(cells.shape[0])):
        if cells[i] < 0:
            break
        kill[np.uint64(slots[i])] = hits[i]


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def find_pairing(p, cnt, occupied, pt, limit):  # type: ignore[no-untyped-def]
    """A pairing against player index `p`'s open lines: (True, the cells it uses) or (False,
    no cells) when none was found within `limit` steps. `occupied`: the board's stones (a cell
    set, masks.py). Found, run level_run[l] took its choice level_next[l] - 1 (pt's arrays)."""
    found, zone = _pairing_after(p, cnt, occupied, pt.run_off, _FIRST, pt, limit)
    return found == 0, zone


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _pairing_after(p, cnt, occupied, moves, m, pt, limit):  # type: ignore[no-untyped-def]
    """The first i such that after a stone of the other side on moves[i] a pairing holds
    against player index p's open lines (found within `limit` steps), and its cells; (-1, no
    cells) when there is none. m == 0: the board as it is (i = 0 when a pairing holds).

    The set-up is done once: each run's open windows and choices that avoid the stones; a
    stone changes only the runs through it (it closes their windows through it, and rules out
    their choices that hold it). Then for each move, a depth-first search takes one choice for
    each run with windows open, cells disjoint."""
    run_off, run_win, ch_off, ch_num, ch_mask, ch_pos, hit, run_cells = pt.run_off, \
        pt.run_win, pt.ch_off, pt.ch_num, pt.ch_mask, pt.ch_pos, pt.ch_hit, pt.run_cells
    cell_off, cell_run, cell_pos, run_slot, cross, run_mask = pt.cell_off, pt.cell_run, \
        pt.cell_pos, pt.run_slot, pt.cross, pt.run_mask
    cells, k = pt.size[0], pt.size[1]
    win, live, level_run, level_next, level_used = pt.win, pt.live, pt.level_run, \
        pt.level_next, pt.level_used
    base_win, base_live, base_need, kill = pt.base_win, pt.base_live, pt.base_need, pt.kill
    runs = run_off.shape[0] - 1
    nothing = none_like(occupied)
    if pt.size[2] == 0:  # no pairings listed for this board (pairings.py): none claimed
        return -1, nothing
    # A run with windows open but no choice gets one only from a stone on it (closing some of
    # its windows): a move must lie on every such run.
    allowed = all_like(occupied)
    need = 0  # the smallest choice of each run (they are sorted by size), runs disjoint
    used = nothing
    live[0, runs] = _OUT  # the padding of `cross`: a run taken
    for r in range(runs):
        windows = 0
        for j in range(run_off[r], run_off[r + 1]):
            if cnt[1 - p, run_win[j]] == 0:
                windows |= 1 << (j - run_off[r])
        left, size = np.uint64(0), np.int64(0)
        if windows != 0:
            left, size = _run_choices(ch_off, ch_num, ch_mask, hit, run_cells, r, windows,
                                      occupied)
            if size < 0:
                if m == 0:
                    return -1, nothing
                allowed = meet(allowed, get(run_mask, r))
                size = 0
        if windows == 0:
            left = _OUT
        base_win[r], base_live[r], base_need[r] = windows, left, size
        win[r], live[0, r] = windows, left
        _set_kill(kill, hit, run_cells, run_slot, r, windows)
        need += size
    for i in range(max(m, 1)):
        c = moves[i] if m > 0 else -1
        if c >= 0 and not has(allowed, c):
            continue
        after, more, dead = occupied, need, False
        if c >= 0:
            after = join(occupied, bit(occupied, c))
            for x in range(cell_off[c], cell_off[c + 1]):
                u, q = cell_run[x], cell_pos[x]
                if base_win[u] == 0:
                    continue
                more -= base_need[u]
                # the stone at place q closes u's windows s with s <= q < s + k
                w = base_win[u] & ~(((1 << (q + 1)) - 1) & ~((1 << max(0, q - k + 1)) - 1))
                win[u], live[0, u] = w, _OUT
                _set_kill(kill, hit, run_cells, run_slot, u, w)
                if w != 0:
                    left, size = _run_choices(ch_off, ch_num, ch_mask, hit, run_cells, u, w,
                                              after)
                    if size < 0:
                        dead = True  # no choice for run u: no pairing
                        break
                    live[0, u] = left
                    more += size
        # More cells needed than are empty: no pairing. Else the search.
        done = not dead and more <= cells - count(after)
        if done:
            used = nothing
            level, steps, empty = 0, 0, False
            while True:
                # Most constrained run first: the one with the fewest choices still disjoint
                # from `used` (row `level` of `live`), the first of them on a tie (the least
                # key count * 256 + run; a marked run's is past _ALL); with none left, this
                # branch fails. A run left with none is known at once (`empty`): only the runs
                # through the last choice's cells lost any, and every other had some.
                best = np.int64(0)
                if not empty:
                    best = _ALL
                    for r in range(runs):
                        x = live[level, r]
                        best = min(best, np.int64(_ones(x)) << 8 | r
                                   | np.int64(x >> np.uint64(63)) << 41)
                if best >= _ALL:
                    break  # every run has its choice: a pairing
                if best >= 256:
                    pick = best & 255
                    level_run[level], level_next[level] = pick, 0
                    put(level_used, level, used)
                    level += 1
                # Take the next choice at the deepest level that has one left; undo levels
                # without.
                while level > 0:
                    steps += 1
                    if steps > limit:
                        level = 0
                        break
                    v, j = level_run[level - 1], level_next[level - 1]
                    rest = np.uint64(live[level - 1, v]) >> np.uint64(j)
                    if rest != 0:
                        j += _lowest(rest)
                        level_next[level - 1] = j + 1
                        o = ch_off[v, win[v]] + j
                        used = join(get(level_used, level - 1), get(ch_mask, o))
                        # The choices left a level down: those that hold none of this
                        # choice's cells; run v is taken there. (Unsigned indices: numba
                        # checks a signed one for a negative value, a cost in this loop.)
                        row, above = live[level], live[level - 1]
                        for t in range(runs + 1):
                            row[t] = above[t]
                        row[v] |= _OUT
                        places, empty = ch_pos[o], False
                        while places != 0:
                            at = _lowest(places)
                            places &= places - 1
                            for t in range(3):  # the other runs through the cell
                                y = np.uint64(cross[v, at, t])
                                u = np.uint64(cell_run[y])
                                left = row[u] & ~np.uint64(kill[y])
                                row[u] = left
                                empty |= left == 0
                        break
                    level -= 1
                if level == 0:
                    done = False
                    break
        if c >= 0:
            for x in range(cell_off[c], cell_off[c + 1]):
                u = cell_run[x]
                win[u], live[0, u] = base_win[u], base_live[u]
                _set_kill(kill, hit, run_cells, run_slot, u, base_win[u])
        if done:
            return i, (join(used, bit(used, c)) if c >= 0 else used)
    return -1, nothing


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
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


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def cannot_win(p, st, cnt, occupied, pt, limit):  # type: ignore[no-untyped-def]
    """Whether player index `p` provably cannot complete a line, and the cells the proof uses:
    no line open for p at all (none), or a pairing against p's open lines."""
    if st[1 + p] == 0:
        return True, none_like(occupied)
    return find_pairing(p, cnt, occupied, pt, limit)


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def refuting_reply(me, cnt, st, cl_off, cl_idx, occupied, moves, m, pt, limit):  # type: ignore[no-untyped-def]
    """A move of player index `me` after which the other side cannot complete a line (by
    `cannot_win`), and its proof's cells with the move's; (-1, 0) when none is found."""
    if m == 0:
        return -1, none_like(occupied)
    i, zone = _pairing_after(1 - me, cnt, occupied, moves, m, pt, limit)
    return (moves[i] if i >= 0 else -1), zone
