"""The arrays one game's search runs on (query/search/compiled_search.py): the rules as lines and maps,
the board and its counts, the transposition table, and the stored tables used as leaves."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tablebase.builder.games.grid import Spec
from tablebase.builder.games.grid.geometry import line_ends, lines
from tablebase.builder.games.grid.symmetry import permutations
from tablebase.builder.games.registry import grid_game
from tablebase.query.errors import QueryError
from tablebase.query.search import compiled_search, control, masks, moves, transposition
from tablebase.query.search.control import PAIRINGS, ZONES, LeafTable
from tablebase.query.search.pairings import pairing_tables

# The board's two cell sets are the table's key (masks.py: one word each up to 64 cells, two
# up to 128, 11x11): a board of more cells would need wider sets.
MAX_SEARCH_CELLS = masks.MAX_CELLS
# Transposition table slots (31 bytes each; 55 on boards of more than 64 cells, whose keys and
# zones take two words): 2**22 is 130 MiB (wider boards get half as many slots, 115 MiB).
DEFAULT_SLOTS_LOG2 = 22


class SearchRefusedError(QueryError, ValueError):
    """A game the search cannot take (a board of more than 128 cells)."""


class Board:
    """The kernel's arrays for one game, with a board loaded into them (`load`)."""

    def __init__(self, spec: Spec, leaves: Sequence[LeafTable] = (),
                 slots_log2: int | None = None, proofs: int = ZONES,
                 words: int | None = None) -> None:
        if spec.cells > MAX_SEARCH_CELLS:
            raise SearchRefusedError(
                f"{spec.name} has {spec.cells} cells; the search takes boards of at most"
                f" {MAX_SEARCH_CELLS}")
        self.spec = spec
        n = spec.cells
        # One word a cell set, or two past 64 cells (`words` forces the kind: 2 runs a small
        # board on the wide kernels, for tests that hold them to the narrow ones).
        width = masks.words(n) if words is None else max(masks.words(n), words)
        self.words = width
        if slots_log2 is None:  # wider keys, fewer slots: about the same memory
            slots_log2 = DEFAULT_SLOTS_LOG2 - (width - 1)
        self.lines = np.ascontiguousarray(lines(spec), dtype=np.int64)
        self.ends = np.ascontiguousarray(line_ends(spec), dtype=np.int64)
        through: list[list[int]] = [[] for _ in range(n)]
        for i, line in enumerate(self.lines):
            for c in line:
                through[int(c)].append(i)
        self.cl_off = np.cumsum([0] + [len(t) for t in through]).astype(np.int64)
        self.cl_idx = np.array([i for t in through for i in t], dtype=np.int64)
        self.perms = np.ascontiguousarray(permutations(spec), dtype=np.int64)
        self.inv = np.argsort(self.perms, axis=1).astype(np.int64)
        slots = 1 << slots_log2
        if spec.exact:
            # Pairings and dead lines prove that no line of k can be completed, so no run of
            # exactly k either: still sound. Zones assume a proof holds whatever happens outside
            # the lines it needs; under +exact a stone beyond a line's end changes it: none.
            proofs = min(proofs, PAIRINGS)
        self.par = np.array([n, spec.width, spec.height, spec.k, grid_game(spec).drops, spec.misere,
                             len(self.perms), slots - 1, proofs], dtype=np.int64)
        self.board = np.zeros(n, dtype=np.uint8)
        self.cnt = np.zeros((2, max(1, len(self.lines))), dtype=np.int16)
        self.st = np.array([0, len(self.lines), len(self.lines)], dtype=np.int64)
        self.bx = masks.zeros(len(self.perms), width)
        self.bo = masks.zeros(len(self.perms), width)
        # np.zeros: the OS hands out zero pages lazily, so a small search touches little.
        self.tk1 = masks.zeros(slots, width)
        self.tk2 = masks.zeros(slots, width)
        self.tlo = np.zeros(slots, dtype=np.int16)
        self.thi = np.zeros(slots, dtype=np.int16)
        self.tmv = np.zeros(slots, dtype=np.int16)
        self.tfl = np.zeros(slots, dtype=np.uint8)
        self.tz = masks.zeros(slots, width)
        self.ctl = np.zeros(10, dtype=np.int64)
        self.mv = np.zeros((n + 1, n), dtype=np.int64)
        self.mh = np.zeros((n + 1, n), dtype=np.int64)
        self.tinfo, self.tdata, self.tcodes, self.tscores = _leaf_arrays(spec, leaves)
        self.pairing = pairing_tables(spec, self.lines, width)
        self.leaves = len(leaves)

    def reserve(self) -> None:
        """Touch every page of the transposition table now, so that a long-lived searcher (a
        server's) holds its whole memory from its first search instead of growing into it."""
        for table in (self.tk1, self.tk2, self.tlo, self.thi, self.tmv, self.tfl, self.tz):
            table.fill(0)

    def load(self, board: Sequence[int]) -> None:
        """Put `board` (cell values) on the arrays."""
        self.board[:] = 0
        self.cnt[:] = 0
        self.st[:] = (0, len(self.lines), len(self.lines))
        self.bx[:] = 0
        self.bo[:] = 0
        for cell, v in enumerate(board):
            if v:
                self.place(cell, int(v))

    def place(self, cell: int, player: int) -> bool:
        """Play `player` on `cell`; whether that completes a line of theirs."""
        return bool(moves.place(self.par, self.cl_off, self.cl_idx, self.ends, self.perms, self.board,
                                 self.cnt, self.st, self.bx, self.bo, cell, player))

    def remove(self, cell: int) -> None:
        """Take the stone off `cell`."""
        moves.remove(self.par, self.cl_off, self.cl_idx, self.perms, self.board, self.cnt,
                      self.st, self.bx, self.bo, cell)

    @property
    def placed(self) -> int:
        """Stones on the loaded board."""
        return int(self.st[0])

    @property
    def occupied(self) -> masks.Mask:
        """The cells of the loaded board's stones, as the kernel's proofs take them."""
        return masks.join(masks.get(self.bx, 0), masks.get(self.bo, 0))

    @property
    def root_zone(self) -> int | None:
        """The zone (bit c: cell c) of what the last search proved of its board, or None where
        it proved nothing with a zone (compiled_search.py)."""
        zone = int(self.ctl[control.ROOT_ZONE]) % (1 << 64) \
            | (int(self.ctl[control.ROOT_ZONE_HIGH]) % (1 << 64)) << 64
        width = self.words
        return None if zone == (1 << 64 * width) - 1 else zone

    def key(self, slot: int) -> tuple[int, int] | None:
        """The transposition table's key in `slot` (x's cells, o's cells, bit c: cell c, in
        the key's orientation), or None where the slot is unused."""
        if not self.tfl[slot]:
            return None
        return masks.as_int(self.tk1[slot]), masks.as_int(self.tk2[slot])

    def ordered_moves(self) -> list[int]:
        """The playable cells of the loaded board, the kernel's best guess first."""
        cells = np.zeros(self.spec.cells, dtype=np.int64)
        keys = np.zeros(self.spec.cells, dtype=np.int64)
        m = moves.candidates(self.par, self.board, cells)
        slot, kx, ko, g0 = transposition.slot_of(self.par, self.bx, self.bo)
        first = -1
        if self.tfl[slot] and masks.same(masks.get(self.tk1, slot), kx) \
                and masks.same(masks.get(self.tk2, slot), ko) and self.tmv[slot] >= 0:
            first = int(self.inv[g0, self.tmv[slot]])
        moves.order(self.par, self.cl_off, self.cl_idx, self.cnt, cells, keys, m, first,
                    self.placed % 2)
        return [int(c) for c in cells[:m]]

    def search(self, alpha: int, beta: int) -> int:
        """The kernel's search of the loaded board (not over) in the window (alpha, beta)."""
        return int(compiled_search.search(
            self.par, self.lines, self.ends, self.cl_off, self.cl_idx, self.perms, self.inv,
            self.board, self.cnt, self.st, self.bx, self.bo, self.tk1, self.tk2, self.tlo,
            self.thi, self.tmv, self.tfl, self.tz, self.ctl, self.tinfo, self.tdata, self.tcodes,
            self.tscores, self.mv, self.mh, self.pairing, alpha, beta))


    def scores_many(self, boards: np.ndarray) -> np.ndarray:
        """Exact scores (kernel scale) of many legal boards, by the kernel's full-window search."""
        boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, self.spec.cells)
        out = np.zeros(len(boards), dtype=np.int64)
        self.ctl[control.LIMIT] = 1 << 62
        compiled_search.scores_many(
            self.par, self.lines, self.ends, self.cl_off, self.cl_idx, self.perms, self.inv,
            self.board, self.cnt, self.st, self.bx, self.bo, self.tk1, self.tk2, self.tlo,
            self.thi, self.tmv, self.tfl, self.tz, self.ctl, self.tinfo, self.tdata, self.tcodes,
            self.tscores, self.mv, self.mh, self.pairing, boards, out)
        return out


def _leaf_arrays(spec: Spec, leaves: Sequence[LeafTable]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """tinfo, tdata, tcodes, tscores (transposition.leaf) of the tables at the leaves."""
    info: list[list[int]] = []
    data: list[int] = []
    codes: list[np.ndarray] = []
    scores: list[np.ndarray] = []
    offset = 0
    full = permutations(spec)
    for table in leaves:
        root = table.root
        stones = [(c, v) for c, v in enumerate(root.board) if v]
        row = [len(stones), len(data)]
        data += [x for pair in stones for x in pair]
        row += [root.cells, len(data)]
        data += root.free.tolist()
        stab = 3 ** root.symmetries.astype(np.int64)  # weight of free digit i under each map
        row += [len(stab), len(data)]
        data += stab.ravel().tolist()
        # One orientation per coset of the stabiliser: maps t∘g give the same canonical code.
        fixing = [full[s] for s in root.full_maps]
        seen: set[tuple[int, ...]] = set()
        reps = []
        for g in range(len(full)):
            if tuple(full[g]) in seen:
                continue
            reps.append(g)
            seen |= {tuple(t[full[g]]) for t in fixing}
        row += [len(reps), len(data)]
        data += reps
        row += [offset, len(table.codes)]
        offset += len(table.codes)
        info.append(row)
        codes.append(table.codes)
        scores.append(table.scores)
    tinfo = np.array(info, dtype=np.int64).reshape(len(info), 10)
    tcodes = np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64)
    tscores = np.concatenate(scores) if scores else np.zeros(0, dtype=np.int16)
    return tinfo, np.array(data, dtype=np.int64), tcodes, tscores
