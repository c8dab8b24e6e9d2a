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

from tablebase.builder.game import Spec
from tablebase.query.search import masks

# At most this many choices are kept for one run and one set of open windows (the smallest
# first): fewer choices only make the search miss pairings, never claim a false one.
MAX_CHOICES = 32
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
