"""The arrays a gravity board's bitboard search runs on (query/search/gravity.py): its geometry,
its transposition table and counters, the stored tables at its leaves in bitboard form; boards
and scores converted between the package's cells and depths and the kernel's bits and stones."""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numba
import numpy as np

from tablebase.builder.games.grid import Spec, Value
from tablebase.builder.games.grid.bitboard import bit_of, bits_of, geometry
from tablebase.builder.games.grid.codec import stone_counts
from tablebase.builder.games.grid.symmetry import permutations
from tablebase.builder.games.registry import grid_game
from tablebase.query.search import gravity
from tablebase.query.search.control import WS, LeafTable

# Table slots (8 bytes each): 2**23 is 64 MiB; then a small part for the nodes near the end
# (gravity._SMALL), 2**17 slots (1 MiB), kept in a core's cache.
DEFAULT_SLOTS_LOG2 = 23
SMALL_SLOTS_LOG2 = 17
# Searching threads sharing one table (lazy SMP), and their marks of the nodes they are in.
DEFAULT_THREADS = 2
BUSY = 1 << 12


def fits(spec: Spec) -> bool:
    """Whether the bitboard search takes `spec`: gravity, normal rules, a column of H + 1 bits
    each within 64 bits (misere, +exact and wider boards keep compiled_search.py's search)."""
    return grid_game(spec).drops and not spec.misere and not spec.exact and bits_of(spec) <= 64


def score_outcome(spec: Spec, stones: int, score: int) -> tuple[Value, int]:
    """(value, depth) of a kernel score (stones) on a board of `stones` stones: the winner's last
    move leaves m stones, one of the two m with (C + 2 - m) // 2 == |score| of the parity of
    the winner's moves (odd depth for a win of the side to move, even for a loss)."""
    if score == 0:
        return Value.DRAW, spec.cells - stones
    depth = spec.cells + 1 - 2 * abs(score) - stones
    if depth % 2 != (1 if score > 0 else 0):
        depth += 1
    return (Value.WIN if score > 0 else Value.LOSS), depth


@functools.lru_cache(maxsize=None)
def score_outcomes(spec: Spec) -> tuple[tuple[tuple[Value, int] | None, ...], ...]:
    """`score_outcome` of every stones and score, at [stones][score + cells] (None: no board
    of those stones scores so): made once a process, as a batch of easy solves looks one up a
    board (a Python call each, on caches another process has just used, cost some 15 us in
    a batch of 20)."""
    c = spec.cells
    return tuple(tuple(score_outcome(spec, n, s) if abs(s) <= (c + 1 - n) // 2 else None
                       for s in range(-c, c + 1)) for n in range(c + 1))


class Bitboards:
    """The bitboard search's arrays for one game (a spec that `fits`):

    par     int64   the geometry row (builder/games/grid/bitboard_arrays.py), C, bucket shift, busy, the
                    small part's first slot and bucket shift (gravity._P_*)
    bb      uint64  bottom row, board, key mask, tag mask, then each column's bits
    order   int64   the columns, centre first
    tt      uint64  the table (gravity.py's entries): its large part, its small part, then
                    the busy marks of the threads
    ctl     int64   STOP, LIMIT, then per thread (at 8 + 8 t) nodes and table hits
    lt              the stored tables at the leaves (`leaf_arrays`)
    """

    def __init__(self, spec: Spec, leaves: Sequence[LeafTable] = (),
                 slots_log2: int = DEFAULT_SLOTS_LOG2, threads: int = DEFAULT_THREADS) -> None:
        assert fits(spec), spec
        self.spec = spec
        w, h = spec.width, spec.height
        bits = bits_of(spec)
        # Bucket and tag identify the key only if the tag (B - s + 1 bits) fits its 44 (gravity.py).
        # A part holds one bucket (two slots) at least.
        log2, small = (min(max(s, bits - 43, 1), bits + 1) for s in (slots_log2, SMALL_SLOTS_LOG2))
        busy = BUSY if threads > 1 else 0
        self.par = np.array(geometry(spec) + [spec.cells, bits - log2 + 1, busy, 1 << log2,
                                              bits - small + 1], dtype=np.int64)
        column = (1 << h) - 1
        bottom = sum(1 << (c * (h + 1)) for c in range(w))
        self.bb = np.array([bottom, column * bottom, (1 << bits) - 1, (1 << (bits - log2 + 1)) - 1]
                           + [column << (c * (h + 1)) for c in range(w)], dtype=np.uint64)
        self.order = np.array([w // 2 + (1 - 2 * (i % 2)) * (i + 1) // 2 for i in range(w)],
                              dtype=np.int64)
        # np.zeros: the OS hands out zero pages lazily, so a small search touches little.
        self.tt = np.zeros((1 << log2) + (1 << small) + busy, dtype=np.uint64)
        self.threads = max(1, threads)
        self.ctl = np.zeros(8 + 8 * self.threads, dtype=np.int64)
        self.ctl[gravity.LIMIT] = 1 << 62
        self.lt = leaf_arrays(spec, leaves)
        self.leaves = len(leaves)
        self.outs = np.zeros((self.threads, gravity.DONE + 2), dtype=np.int64)
        self.total = 0  # the nodes of all threads so far, as the kernels count them in ctl
        self.cell_bits = np.array([bit_of(spec, cell) for cell in range(spec.cells)], dtype=np.int64)
        # A thread's stack (gravity.py's su and si), a row a ply.
        self.stacks = [(np.zeros((spec.cells + 2, 3 + w), dtype=np.uint64),
                        np.zeros((spec.cells + 2, gravity.FRAME + 3 * w), dtype=np.int64))
                       for _ in range(self.threads)]
        # gravity.solve's arguments before the boards, for each thread; each thread's out[] as
        # a batch of one.
        self._head = [(self.par, self.bb, self.order, self.tt, self.ctl, t, *self.lt, su, si,
                       self.cell_bits) for t, (su, si) in enumerate(self.stacks)]
        self._rows = [self.outs[t:t + 1] for t in range(self.threads)]
        # Thread 0 searching alone (a first bounded run, a batch) marks no busy nodes: none
        # other reads them (par's busy 0; the table's end is never reached by a slot).
        alone = self.par.copy()
        alone[gravity._P_BUSY] = 0
        self._alone = (alone, *self._head[0][1:])
        self._batch: tuple[memoryview, np.ndarray, np.ndarray] | None = None  # solve_many's
        self._entry: Callable[..., None] | None = None  # and its kernel's, `_entry_point`

    def reserve(self) -> None:
        """Touch every page of the table now (a long-lived searcher's memory, held at once)."""
        self.tt.fill(0)

    @property
    def nodes(self) -> int:
        """Nodes searched by all threads since this searcher was made."""
        return sum(self.ctl[gravity.NODES::8].tolist())

    @property
    def hits(self) -> int:
        """Stored-table answers at the leaves, all threads."""
        return sum(self.ctl[gravity.HITS::8].tolist())

    def solve(self, cells: np.ndarray, thread: int, alone: bool = False) -> np.ndarray:
        """The kernel's solve of a board (cell values, uint8) on one thread (gravity.solve, which
        releases the GIL; `alone`: thread 0, no other searching): its out[] (the thread's row
        of `outs`)."""
        rows = cells.reshape(1, -1)
        args = (*(self._alone if alone else self._head[thread]), rows, 0, self._rows[thread])
        if rows.dtype == np.uint8 and rows.flags.c_contiguous and rows.flags.writeable:
            self._call(args)  # a batch's types
        else:
            gravity.solve(*args)
        return self.outs[thread]

    def solve_many(self, boards: Sequence[Sequence[int] | np.ndarray] | np.ndarray, nodes: int
                   ) -> list[list[int]]:
        """The kernel's solve of each board (cell values; or an (n, cells) array of them) on
        thread 0, each within `nodes` nodes, in one call: their out[] rows (aborted: not
        solved within them).

        The boards' cells and the rows go through arrays kept from one batch to the next of
        as many boards: in a batch of easy positions, each numpy call made afresh (an array,
        a view of bytes) costs as much as a solve once another process has had the core."""
        if self._batch is None or len(self._batch[1]) != len(boards):
            cells = np.zeros((len(boards), self.spec.cells), dtype=np.uint8)
            outs = np.zeros((len(boards), gravity.DONE + 2), dtype=np.int64)
            self._batch = (cells.data.cast("B"), cells, outs)
        view, cells, outs = self._batch
        if isinstance(boards, np.ndarray):  # rows of cells, as a batch's reading gives them
            cells[:] = boards
        else:
            try:  # a tuple's or list's cells as bytes; an array's bytes, if uint8 (else too long)
                view[:] = b"".join(map(bytes, boards))
            except (TypeError, ValueError):
                view[:] = b"".join(np.asarray(b, dtype=np.uint8).tobytes() for b in boards)
        self._call((*self._alone, cells, nodes, outs))
        return outs.tolist()

    def _call(self, args: tuple[Any, ...]) -> None:
        """gravity.solve on a batch's types of arguments (boards: a C-contiguous, writable
        uint8 array), by its compiled entry once the first call has found it."""
        if self._entry is None:
            gravity.solve(*args)  # compiled (or loaded) for these types on the first call
            self._entry = _entry_point(gravity.solve, args) or gravity.solve
        else:
            self._entry(*args)


def _entry_point(kernel: Any, args: tuple[Any, ...]) -> Callable[..., None] | None:
    """The compiled `kernel` for the types of `args`, to be called without numba's dispatcher,
    which looks the types of every argument up again at each call: in a batch of easy
    positions, on caches another process has just used, some 8 us of a 70 us call (the
    kernel's 17 arguments); 0.5 us of a 5.3 us solve of one easy board, warm. None where numba
    keeps no such entry."""
    compiled = kernel.overloads.get(tuple(numba.typeof(a) for a in args))
    return getattr(compiled, "entry_point", None)


def leaf_arrays(spec: Spec, leaves: Sequence[LeafTable]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """lt_info, lt_bits, lt_data, lt_codes, lt_scores (gravity.table_score) of the tables: a row
    for each table and each orientation of the board that can put its root's stones in place
    (one per coset of the root's stabiliser: the others give the same canonical code)."""
    full = permutations(spec)
    inv = np.argsort(full, axis=1)
    info: list[list[int]] = []
    bits: list[int] = []
    data: list[int] = []
    codes, scores = [], []
    offset = 0
    for table in leaves:
        root = table.root
        weights = len(data)
        data += (3 ** root.symmetries.astype(np.int64)).ravel().tolist()
        fixing = [full[s] for s in root.full_maps]
        seen: set[tuple[int, ...]] = set()
        for g in range(len(full)):
            if tuple(full[g]) in seen:
                continue
            seen |= {tuple(t[full[g]]) for t in fixing}
            # The board holds the root in orientation g when cell inv[g, c] holds root cell c.
            rx = sum(1 << bit_of(spec, int(inv[g, c])) for c, v in enumerate(root.board) if v == 1)
            ro = sum(1 << bit_of(spec, int(inv[g, c])) for c, v in enumerate(root.board) if v == 2)
            info.append([root.ply, root.cells, len(root.symmetries), weights, offset,
                         len(table.codes), g, len(bits)])
            bits += [rx, ro] + [1 << bit_of(spec, int(inv[g, c])) for c in root.free]
        offset += len(table.codes)
        codes.append(np.asarray(table.codes, dtype=np.int64))
        # compiled_search.py's scale (WS - depth) to stones: the last move leaves m stones.
        s = np.asarray(table.scores, dtype=np.int64)
        m = root.ply + stone_counts(table.codes).astype(np.int64) + WS - np.abs(s)
        scores.append((np.sign(s) * ((spec.cells + 2 - m) // 2)).astype(np.int16))
    return (np.array(info, dtype=np.int64).reshape(len(info), 8),
            np.array(bits, dtype=np.uint64),
            np.array(data, dtype=np.int64),
            np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64),
            np.concatenate(scores) if scores else np.zeros(0, dtype=np.int16))
