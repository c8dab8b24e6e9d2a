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

Two cells lie in a common line only along one straight run of the board (a row, column or
diagonal of at least k cells), so a pairing splits into one choice per run: a set of pairs on
that run covering its open windows. Each run's minimal choices for each set of open windows are
listed once per game (`pairing_tables`); the compiled search picks one per run, cells disjoint,
most constrained run first.

    run of 7 cells, k = 5:   a b c d e f g    windows a-e, b-f, c-g
    one pair inside c-e covers all three windows; a pair in a-b covers a-e alone.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from tablebase.builder.game import Spec
from tablebase.builder.game.compiled import njit
from tablebase.query.search import masks
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

# At most this many choices are kept for one run and one set of open windows (the smallest
# first): fewer choices only make the search miss pairings, never claim a false one.
MAX_CHOICES = 32
# Steps (choices tried) one pairing search may take before giving up (not found: no claim);
# fewer for each reply tried in turn (`refuting_reply`). Typed, not plain ints: numba compiles a
# callee once for each literal argument, and these are passed to compiled callees.
PAIRING_STEPS = np.int64(512)
REPLY_STEPS = np.int64(64)
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class PairingTables(NamedTuple):
    """Runs and their choices as the compiled search reads them, with its scratch arrays."""

    run_off: np.ndarray   # int64[R + 1]: run r's windows are run_win[run_off[r]:run_off[r+1]]
    run_win: np.ndarray   # int64: line numbers (rows of geometry.lines) of each run's windows
    ch_off: np.ndarray    # int64[R, 2**W]: first choice of run r with open-window set s
    ch_num: np.ndarray    # int64[R, 2**W]: how many
    ch_mask: np.ndarray   # the choices, as cell sets (masks.py: one or two words each)
    opts: np.ndarray      # scratch: R * MAX_CHOICES cell sets, run r's from r * MAX_CHOICES
    nopt: np.ndarray      # scratch int64[R] and the search's stack (three int64[R], R sets)
    taken: np.ndarray
    level_run: np.ndarray
    level_next: np.ndarray
    level_used: np.ndarray
    cells: np.ndarray     # int64[1]: the board's cells
    run_mask: np.ndarray  # R cell sets: the cells of each run


@lru_cache(maxsize=None)
def _choices(length: int, k: int, windows: int) -> tuple[int, ...]:
    """Minimal sets of disjoint pairs (as bitmasks of positions 0..length-1 on a run) that put
    a whole pair inside every window of the set `windows` (bit s: the window starting at s)."""
    found: set[int] = set()

    def extend(used: int, pairs: tuple[tuple[int, int], ...]) -> None:
        for s in range(length - k + 1):
            if windows >> s & 1 and not any(s <= i and j < s + k for i, j in pairs):
                for i in range(s, s + k):  # the first window without a pair: every pair in it
                    for j in range(i + 1, s + k):
                        if not (used >> i & 1 or used >> j & 1):
                            extend(used | 1 << i | 1 << j, pairs + ((i, j),))
                return
        found.add(used)

    extend(0, ())
    minimal: list[int] = []
    for mask in sorted(found, key=lambda m: (bin(m).count("1"), m)):
        if not any(m & mask == m for m in minimal):
            minimal.append(mask)
    return tuple(minimal[:MAX_CHOICES])


def _runs(spec: Spec) -> list[list[int]]:
    """The board's straight runs of at least k cells, each as its cells in order."""
    w, h, out = spec.width, spec.height, []
    for dr, dc in _DIRECTIONS:
        for r in range(h):
            for c in range(w):
                if 0 <= r - dr < h and 0 <= c - dc < w:
                    continue  # not the first cell of its run
                cells, rr, cc = [], r, c
                while 0 <= rr < h and 0 <= cc < w:
                    cells.append(rr * w + cc)
                    rr, cc = rr + dr, cc + dc
                if len(cells) >= spec.k:
                    out.append(cells)
    return out


def pairing_tables(spec: Spec, lines: np.ndarray) -> PairingTables:
    """The runs of `spec` (k >= 2, no gravity) and their minimal choices of pairs."""
    index = {tuple(int(c) for c in line): i for i, line in enumerate(lines)}
    runs = _runs(spec) if spec.k >= 2 else []
    width = max((len(r) - spec.k + 1 for r in runs), default=1)
    run_off, run_win = [0], []
    ch_off = np.zeros((max(len(runs), 1), 1 << width), dtype=np.int64)
    ch_num = np.zeros_like(ch_off)
    sets: list[int] = []
    for r, cells in enumerate(runs):
        count = len(cells) - spec.k + 1
        run_win += [index[tuple(cells[s:s + spec.k])] for s in range(count)]
        run_off.append(len(run_win))
        for windows in range(1, 1 << count):
            ch_off[r, windows] = len(sets)
            for pos in _choices(len(cells), spec.k, windows):
                sets.append(sum(1 << cells[i] for i in range(len(cells)) if pos >> i & 1))
            ch_num[r, windows] = len(sets) - ch_off[r, windows]
    n, width = max(len(runs), 1), masks.words(spec.cells)
    return PairingTables(
        np.array(run_off, dtype=np.int64), np.array(run_win + [0], dtype=np.int64), ch_off,
        ch_num, masks.pack(sets + [0], width), masks.zeros(n * MAX_CHOICES, width),
        np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
        np.zeros(n, np.int64), masks.zeros(n, width), np.array([spec.cells], np.int64),
        masks.pack([sum(1 << c for c in cells) for cells in runs] or [0], width))


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
