"""A morris game's movement phase as ranked tiers (builder/games/ranked_tiers.py): the sectors
of Gasser's databases, a sector being the stones the side to move has on the board and the
stones the other side has, nothing left to place; a tier one sector (a, a) or a pair (a, b),
(b, a) between which steps go back and forth. A capture goes to a tier of fewer stones,
solved first; a side left with two stones has lost. The 3x3 games (a line wins) have one tier.
Positions are ranked one an orbit of the board's symmetries (sector_kernels.py).
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from math import comb

import numpy as np

from tablebase.builder.games.morris import sector_kernels as k
from tablebase.builder.games.morris.boards import Board
from tablebase.builder.games.morris.rules import Rules
from tablebase.builder.games.morris.sector_kernels import image
from tablebase.builder.games.morris.set_ranks import BOARD_POINTS, colex_rank
from tablebase.compiled import njit


class Orbits:
    """A game's board and rules as the kernels read them, made once: the tables that rank
    its sets of points up to its symmetries (sector_kernels.py's sym_tab, rep_of, reps and
    perm) for sets of the sizes asked; `joins`, `mills`, `mills_at` (the mills through each
    point, padded with 0) as arrays; `rules`: captures, flying, misère (0/1 each)."""

    def __init__(self, rules: Rules, sizes: Iterable[int]) -> None:
        board = rules.board
        p = self.points = board.points
        self.rules = np.array([int(not rules.lines_win), int(rules.flying), int(rules.misere)],
                              dtype=np.int64)
        self.joins = np.array(board.joins, dtype=np.int64)
        self.mills = np.array(board.mills, dtype=np.int64)
        self.mills_at = np.zeros((p, max(len(m) for m in board.mills_at)), dtype=np.int64)
        for i, through in enumerate(board.mills_at):
            self.mills_at[i, :len(through)] = through
        assert p <= BOARD_POINTS, "a set's rank is read a byte of its mask at a time"
        self.binom = np.array([[comb(n, r) for r in range(p + 1)] for n in range(p + 1)],
                              dtype=np.int64)
        self.perm = np.zeros((len(board.symmetries), (p + 7) // 8, 256), dtype=np.int64)
        for g, symmetry in enumerate(board.symmetries):
            for byte in range(self.perm.shape[1]):
                for value in range(256):
                    self.perm[g, byte, value] = sum(
                        1 << symmetry[8 * byte + j] for j in range(8)
                        if value >> j & 1 and 8 * byte + j < p)
        # Each size's tables are made the first time something reads them (`made`): a probe
        # needs one size, where making all of nine men's morris's took a shell's probe some
        # 0.3 s. Their places are known beforehand: the orbits are counted by Burnside's lemma.
        self.wanted = frozenset(sizes)
        orbits = orbit_counts(board.symmetries)
        self.rank_off = np.zeros(p + 2, dtype=np.int64)
        self.rep_off = np.zeros(p + 2, dtype=np.int64)
        for a in range(p + 1):
            self.rank_off[a + 1] = self.rank_off[a] + (comb(p, a) if a in self.wanted else 0)
            self.rep_off[a + 1] = self.rep_off[a] + (orbits[a] if a in self.wanted else 0)
        # Zeroed by the allocator: a size's pages are touched only when it is made.
        self.sym_tab = np.zeros(int(self.rank_off[-1]), dtype=np.int32)
        self.rep_of = np.zeros(int(self.rank_off[-1]), dtype=np.int32)
        # Beside each representative, the symmetries that keep it (those that map it to itself).
        self.reps = np.zeros(int(self.rep_off[-1]), dtype=np.int64)
        self._made: set[int] = set()
        self._making = threading.Lock()  # a server's threads may ask at once

    def made(self, sizes: Iterable[int] | None = None) -> Orbits:
        """Itself, with the tables of `sizes` (every size asked for at the start: None) made;
        the kernels read only sizes made."""
        if self._made.issuperset(self.wanted if sizes is None else sizes):
            return self  # a probe's path: no lock once made
        with self._making:
            for a in sorted(self.wanted if sizes is None else set(sizes) & self.wanted):
                if a not in self._made:
                    self._make(a)
                    self._made.add(a)
        return self

    def _make(self, a: int) -> None:
        lo, hi = int(self.rank_off[a]), int(self.rank_off[a + 1])
        least = np.empty(hi - lo, dtype=np.int64)
        own = np.empty(hi - lo, dtype=np.bool_)
        sym_tab, rep_of = self.sym_tab[lo:hi], self.rep_of[lo:hi]
        orbit_tables(a, self.points, self.binom, self.perm, sym_tab, least, own, rep_of)
        # Colex order is the masks' order: the representatives, in rank order, are sorted.
        mine = least[own]
        if len(mine) != self.representatives(a):
            raise AssertionError(f"{len(mine)} orbits of {a} points found, Burnside's count"
                                 f" {self.representatives(a)}")
        self.reps[self.rep_off[a]:self.rep_off[a + 1]] = mine | sym_tab[own].astype(np.int64) << 32

    def representatives(self, a: int) -> int:
        """How many orbits the sets of `a` points form."""
        return int(self.rep_off[a + 1] - self.rep_off[a])

    def sector_size(self, a: int, b: int) -> int:
        """The indices of sector (a, b): an orbit of a points times the ways to set b."""
        return self.representatives(a) * comb(self.points - a, b)


def orbit_counts(symmetries: Sequence[Sequence[int]]) -> list[int]:
    """How many orbits the sets of each size (0 to the points) form under `symmetries` (a
    group of point permutations): Burnside's lemma, each permutation fixing the sets that are
    unions of its cycles."""
    points = len(symmetries[0])
    total = [0] * (points + 1)
    for g in symmetries:
        fixed, seen = [1] + [0] * points, [False] * points
        for start in range(points):
            length, i = 0, start
            while not seen[i]:
                seen[i], i, length = True, g[i], length + 1
            if length:  # a cycle: in the set whole or not at all
                fixed = [f + (fixed[n - length] if n >= length else 0)
                         for n, f in enumerate(fixed)]
        total = [t + f for t, f in zip(total, fixed)]
    return [t // len(symmetries) for t in total]


def tier_name(a: int, b: int) -> str:
    """The tier holding sector (a, b): `5-4` holds (5, 4) and (4, 5)."""
    return f"{max(a, b)}-{min(a, b)}"


class SectorTier:
    """The tier of sectors (a, b) and (b, a), a >= b (one sector where a == b), with its
    kernels bound to the board and the rules."""

    def __init__(self, rules: Rules, orbits: Orbits, a: int, b: int) -> None:
        board: Board = rules.board
        p = board.points
        self.a, self.b, self.points, self.orbits = a, b, p, orbits
        self.name = tier_name(a, b)
        self.size_ab = orbits.sector_size(a, b)
        self.size = self.size_ab + (0 if a == b else orbits.sector_size(b, a))
        self.sec = np.array([a, b, self.size_ab, 0 if a == b else self.size_ab],
                            dtype=np.int64)
        self.captures = not rules.lines_win
        self.rules = orbits.rules
        self.joins, self.mills, self.mills_at = orbits.joins, orbits.mills, orbits.mills_at
        self.binom = orbits.binom
        degree = max(j.bit_count() for j in board.joins)
        self.room = max(max(a, b) * (p if rules.flying else degree), 1)
        # Where each sector's captures go: (b - 1, a) from (a, b), (a - 1, b) from (b, a); none
        # (the side left with two stones has lost) below three stones.
        self._exits = [self._exit(b - 1, a), self._exit(a - 1, b)]
        self.reads = tuple(sorted({e[0] for e in self._exits if e is not None}))

    def _exit(self, a: int, b: int) -> tuple[str, int, int] | None:
        """(tier, first index, size) of sector (a, b) where a capture goes, or None."""
        if not self.captures or a < 3:
            return None
        return (tier_name(a, b), 0 if a >= b else self.orbits.sector_size(b, a),
                self.orbits.sector_size(a, b))

    def _exit_scores(self, earlier: Mapping[str, np.ndarray], which: int) -> np.ndarray:
        where = self._exits[which]
        if where is None:
            return np.zeros(0, dtype=np.int16)
        name, start, size = where
        return earlier[name][start:start + size]

    def first(self, lo: int, hi: int, earlier: Mapping[str, np.ndarray], counts: np.ndarray,
              scores: np.ndarray, exits: np.ndarray) -> None:
        """Counts, finished scores and exit states of indices lo..hi-1 (RankedTier.first)."""
        o = self.orbits.made()
        k.first(lo, hi, self.sec, self._exit_scores(earlier, 0), self._exit_scores(earlier, 1),
                self.joins, self.mills, self.mills_at, self.binom, self.points, self.rules,
                o.perm, o.sym_tab, o.rep_of, o.rank_off, o.reps, o.rep_off, counts, scores, exits)

    def parents(self, level: np.ndarray, out: np.ndarray) -> int:
        """Parents in the tier of each index of `level` (RankedTier.parents)."""
        o = self.orbits.made()
        return int(k.parents(level, self.sec, self.joins, self.mills, self.mills_at,
                             self.binom, self.points, self.rules, o.perm, o.sym_tab, o.rep_of,
                             o.rank_off, o.reps, o.rep_off, out))

    def position(self, index: int) -> tuple[int, int]:
        """(the side to move's stones, the other's) at a tier index."""
        second = index >= self.size_ab
        a, b = (self.b, self.a) if second else (self.a, self.b)
        o = self.orbits.made((a,))
        me, you = k.position_of(index - self.size_ab * second, a, b, self.points, o.binom,
                                o.reps, o.rep_off)
        return int(me), int(you)

    def index(self, me: int, you: int) -> int:
        """The tier index of the position where the side to move has `me`, the other `you`
        (of its orbit's, the one stored)."""
        a, b = me.bit_count(), you.bit_count()
        if {a, b} != {self.a, self.b} or me & you:
            raise ValueError(f"stones {a} and {b}: not in tier {self.name}")
        offset = self.size_ab if (a, b) != (self.a, self.b) else 0
        o = self.orbits.made((a,))
        return offset + int(k.index_of(me, you, a, b, self.points, o.binom, o.perm, o.sym_tab,
                                       o.rep_of, o.rank_off))


@njit(cache=True, nogil=True)
def orbit_tables(a, points, binom, perm, sym_tab, least, own, rep_of):  # type: ignore[no-untyped-def]
    """For every set of `a` points, by colex rank: least[r], the least mask of its orbit;
    sym_tab[r], the symmetries (bits) that map it there; own[r], whether it is that least
    (its orbit's representative); rep_of[r], that representative's place among them all,
    in rank order. The sets go in colex order, which is their masks' order: a least mask
    below a set's own comes before it, its place known by then."""
    count = 0
    n = binom[points, a]
    mask = (np.int64(1) << a) - 1  # the set of colex rank 0
    for r in range(n):
        low = np.int64(1) << 62
        gs = 0
        for g in range(perm.shape[0]):
            m = image(perm, g, mask)
            if m < low:
                low = m
                gs = 0
            if m == low:
                gs |= 1 << g
        least[r] = low
        sym_tab[r] = gs
        own[r] = low == mask
        if low == mask:
            rep_of[r] = count
            count += 1
        else:
            rep_of[r] = rep_of[colex_rank(low, binom)]
        if r + 1 < n:  # the next set in colex order: the next larger mask of `a` points
            low_bit = mask & -mask
            carried = mask + low_bit
            mask = ((carried ^ mask) >> 2) // low_bit | carried
