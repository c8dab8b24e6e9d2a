"""The tables of the pairing search (proofs.py): the board's straight runs and, for each set of a
run's windows still open, its minimal choices of pairs; with the search's scratch arrays.

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

from tablebase.builder.games.grid import Spec
from tablebase.query.search import masks

# At most this many choices are kept for one run and one set of open windows (the smallest
# first): fewer choices only make the search miss pairings, never claim a false one.
MAX_CHOICES = 32
# A run's choices are listed for each of its 2**W sets of open windows: past this many windows
# (a row of 13 with k = 4, of 12 with k = 3) the lists take seconds to minutes and gigabytes
# (16x4k4: 55 s; 26x3k3: 9.6 GiB for one array), so a board with a longer run is searched
# without pairings (`listed` 0: dead lines and the rest of the search as before).
MAX_WINDOWS = 9
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class PairingTables(NamedTuple):
    """Runs and their choices as the compiled search reads them (R runs of at most L cells,
    at most W windows, N cells), with its scratch arrays."""

    run_off: np.ndarray    # int64[R + 1]: run r's windows are run_win[run_off[r]:run_off[r+1]]
    run_win: np.ndarray    # int64: line numbers (rows of geometry.lines) of each run's windows
    ch_off: np.ndarray     # int64[R, 2**W]: first choice of run r with open-window set s
    ch_num: np.ndarray     # int64[R, 2**W]: how many (at most MAX_CHOICES: bits of a uint32)
    ch_mask: np.ndarray    # the choices, as cell sets (masks.py: one or two words each)
    ch_pos: np.ndarray     # int64: the choices as places on their run (bit i: the run's cell i)
    ch_hit: np.ndarray     # uint32[R, 2**W, L]: bit j: (r, s)'s choice j holds r's cell i
    run_cells: np.ndarray  # int64[R, L]: each run's cells in order, -1 past its end
    cell_off: np.ndarray   # int64[N + 1]: the runs through cell c: cell_run[cell_off[c]:...]
    cell_run: np.ndarray   # int64: those runs (then R, for cross),
    cell_pos: np.ndarray   # int64: and c's place on each
    run_slot: np.ndarray   # int64[R, L]: where run r's cell i is in cell_run (and kill)
    cross: np.ndarray      # int64[R, L, 3]: where run r's cell i is in cell_run on the (at
                           # most three) other runs through it; past them, the last entry,
                           # which names run R, a column of live always marked
    run_mask: np.ndarray   # R cell sets: the cells of each run
    size: np.ndarray       # int64[3]: the board's cells, k and whether pairings are listed
                           # (0: a run past MAX_WINDOWS, or k < 2: none is ever claimed)
    win: np.ndarray        # scratch int64[R]: each run's open-window set (0: none open)
    live: np.ndarray       # scratch uint64[R + 1, R + 1]: row l: each run's choices left at
                           # level l (column R: a run marked taken, for cross's padding)
    kill: np.ndarray       # scratch uint32, like cell_run: the choices of run cell_run[y] (for
                           # its open windows) that hold cell c (ch_hit[r, win[r], i])
    level_run: np.ndarray  # scratch: the search's stack (int64[R + 1] twice, R + 1 sets)
    level_next: np.ndarray
    level_used: np.ndarray
    base_win: np.ndarray   # scratch: win, live[0] and each run's smallest choice's cells
    base_live: np.ndarray  # before a move (int64[R], uint64[R], int64[R])
    base_need: np.ndarray


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


@lru_cache(maxsize=None)
def _hits(length: int, k: int) -> np.ndarray:
    """uint32[2**W, length]: bit j of row s, column i: `_choices(length, k, s)`'s choice j holds
    place i (the choices a stone on place i rules out)."""
    out = np.zeros((1 << (length - k + 1), length), dtype=np.uint32)
    for windows in range(1, len(out)):
        for j, pos in enumerate(_choices(length, k, windows)):
            for i in range(length):
                if pos >> i & 1:
                    out[windows, i] |= np.uint32(1 << j)
    return out


def pairing_tables(spec: Spec, lines: np.ndarray, words: int | None = None) -> PairingTables:
    """The runs of `spec` (k >= 2, no gravity) and their minimal choices of pairs, cell sets
    of `words` words (None: masks.words of the board's cells)."""
    index = {tuple(int(c) for c in line): i for i, line in enumerate(lines)}
    runs = _runs(spec) if spec.k >= 2 else []
    listed = bool(runs) and max(len(r) for r in runs) - spec.k + 1 <= MAX_WINDOWS
    if not listed:
        runs = []
    n = max(len(runs), 1)
    assert n < 256 and MAX_CHOICES <= 32  # the search's keys and choice sets
    width = max((len(r) - spec.k + 1 for r in runs), default=1)
    longest = max((len(r) for r in runs), default=1)
    run_off, run_win = [0], []
    ch_off = np.zeros((n, 1 << width), dtype=np.int64)
    ch_num = np.zeros_like(ch_off)
    ch_hit = np.zeros((n, 1 << width, longest), dtype=np.uint32)
    run_cells = np.full((n, longest), -1, dtype=np.int64)
    through: list[list[tuple[int, int]]] = [[] for _ in range(spec.cells)]
    sets: list[int] = []
    places: list[int] = []
    for r, cells in enumerate(runs):
        count = len(cells) - spec.k + 1
        run_win += [index[tuple(cells[s:s + spec.k])] for s in range(count)]
        run_off.append(len(run_win))
        run_cells[r, :len(cells)] = cells
        ch_hit[r, :1 << count, :len(cells)] = _hits(len(cells), spec.k)
        for i, c in enumerate(cells):
            through[c].append((r, i))
        for windows in range(1, 1 << count):
            ch_off[r, windows] = len(sets)
            for pos in _choices(len(cells), spec.k, windows):
                sets.append(sum(1 << cells[i] for i in range(len(cells)) if pos >> i & 1))
                places.append(pos)
            ch_num[r, windows] = len(sets) - ch_off[r, windows]
    flat = [x for t in through for x in t]
    run_slot = np.zeros((n, longest), dtype=np.int64)
    cross = np.full((n, longest, 3), len(flat), dtype=np.int64)
    at = np.cumsum([0] + [len(t) for t in through])
    for y, (r, i) in enumerate(flat):
        run_slot[r, i] = y
    for r, cells in enumerate(runs):
        for i, c in enumerate(cells):
            others = [at[c] + t for t, (u, _) in enumerate(through[c]) if u != r]
            cross[r, i, :len(others)] = others
    words = masks.words(spec.cells) if words is None else words
    return PairingTables(
        np.array(run_off, dtype=np.int64), np.array(run_win + [0], dtype=np.int64), ch_off,
        ch_num, masks.pack(sets + [0], words), np.array(places + [0], dtype=np.int64), ch_hit,
        run_cells, at.astype(np.int64), np.array([r for r, _ in flat] + [len(runs)], dtype=np.int64),
        np.array([i for _, i in flat] + [0], dtype=np.int64), run_slot, cross,
        masks.pack([sum(1 << c for c in cells) for cells in runs] or [0], words),
        np.array([spec.cells, spec.k, int(listed)], np.int64), np.zeros(n, np.int64),
        np.zeros((n + 1, n + 1), np.uint64), np.zeros(len(flat) + 1, np.uint32),
        np.zeros(n + 1, np.int64), np.zeros(n + 1, np.int64), masks.zeros(n + 1, words),
        np.zeros(n, np.int64), np.zeros(n, np.uint64), np.zeros(n, np.int64))
