"""A morris game's placement phase as ranked tiers (builder/games/ranked_tiers.py): sector
(a, b, A, B) holds the positions where the side to move has `a` stones on the board and `A`
still to place, the other side `b` and `B` (x places first: A == B where x is to move, A == B +
1 where o is). Each placement leaves the sector for one with a stone fewer to place, so a tier
is one sector, loop-free, solved after the tiers it reaches: the fewest stones to place first,
the movement phase (sectors.py) before them all.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tablebase.builder.games.morris import placement_kernels as k
from tablebase.builder.games.morris import sector_kernels as sk
from tablebase.builder.games.morris.rules import Rules
from tablebase.builder.games.morris.sectors import Orbits, tier_name


def placement_name(a: int, b: int, to_place: int, theirs: int) -> str:
    """The tier of sector (a, b, A, B): `5-4+2-1`."""
    return f"{a}-{b}+{to_place}-{theirs}"


class PlacementTier:
    """The tier of placement sector (a, b, A, B), its kernels bound to the board and rules."""

    room = 0  # every move leaves the tier

    def __init__(self, rules: Rules, orbits: Orbits, a: int, b: int, to_place: int,
                 theirs: int) -> None:
        self.a, self.b, self.to_place, self.theirs = a, b, to_place, theirs
        self.orbits, self.points = orbits, rules.board.points
        self.name = placement_name(a, b, to_place, theirs)
        self.size = orbits.sector_size(a, b)
        self.pieces = orbits.representatives(b)  # settled by the other side's orbits
        self.captures = not rules.lines_win
        self.rules, self.mills, self.mills_at = orbits.rules, orbits.mills, orbits.mills_at
        # The child sectors: (b, a + 1) placing, (b - 1, a + 1) taking, with B and A - 1 left
        # (none where the board is full; a capture only where a placement can close a mill
        # and does not leave the other side fewer than three).
        self._plain = self._child(b, a + 1) if a + b < self.points else None
        mills = self.captures and a + 1 >= 3 and b > 0
        lost = mills and b - 1 + theirs < 3
        self._taken = self._child(b - 1, a + 1) if mills and not lost else None
        self.sec = np.array([a, b, 0 if self._plain is None else self._plain[1],
                             0 if self._taken is None else self._taken[1], int(lost)],
                            dtype=np.int64)
        self.reads = tuple(sorted({c[0] for c in (self._plain, self._taken) if c is not None}))

    def _child(self, a: int, b: int) -> tuple[str, int]:
        """(tier, first index there) of the sector where the other side, now to move, has `a`
        stones on the board and `theirs` to place, and this side `b` and one fewer."""
        if self.theirs == 0 and self.to_place == 1:  # both placed every stone: movement
            start = 0 if a >= b else self.orbits.sector_size(b, a)
            return tier_name(a, b), start
        return placement_name(a, b, self.theirs, self.to_place - 1), 0

    def settle(self, lo: int, hi: int, earlier: Mapping[str, np.ndarray],
               scores: np.ndarray) -> None:
        """Score the positions whose other side's stones are in orbits lo..hi-1
        (LoopFreeTier.settle)."""
        o = self.orbits.made()
        none = np.zeros(0, dtype=np.int16)
        plain = earlier[self._plain[0]] if self._plain is not None else none
        taken = earlier[self._taken[0]] if self._taken is not None else none
        k.place_settle(lo, hi, self.sec, plain, taken, self.mills, self.mills_at, o.binom,
                       self.points, self.rules, o.perm, o.sym_tab, o.rep_of, o.rank_off,
                       o.reps, o.rep_off, scores)

    def position(self, index: int) -> tuple[int, int]:
        """(the side to move's stones, the other's) at a tier index."""
        o = self.orbits.made((self.a,))
        me, you = sk.position_of(index, self.a, self.b, self.points, o.binom, o.reps, o.rep_off)
        return int(me), int(you)

    def index(self, me: int, you: int) -> int:
        """The tier index of the position where the side to move has `me`, the other `you`."""
        if (me.bit_count(), you.bit_count()) != (self.a, self.b) or me & you:
            raise ValueError(f"stones {me.bit_count()} and {you.bit_count()}: not in tier"
                             f" {self.name}")
        o = self.orbits.made((self.a,))
        return int(sk.index_of(me, you, self.a, self.b, self.points, o.binom, o.perm,
                              o.sym_tab, o.rep_of, o.rank_off))


def placement_sectors(rules: Rules) -> list[tuple[int, int, int, int]]:
    """Every placement sector (a, b, A, B) play can reach, the fewest stones to place first: a
    side has placed n - A stones and kept at least 3 with those to place, and has lost no
    more than the other could take (a capture needs a mill: at most one a placement of the
    other's from its third on). Without captures every placed stone stays."""
    n, p = rules.stones, rules.board.points
    out = []
    for theirs in range(n + 1):
        for mine in (theirs, theirs + 1):
            if not 1 <= mine <= n:
                continue
            placed, their_placed = n - mine, n - theirs
            for a in range(placed + 1):
                for b in range(their_placed + 1):
                    if a + b > p:
                        continue
                    if rules.lines_win:
                        if (a, b) == (placed, their_placed):
                            out.append((a, b, mine, theirs))
                        continue
                    if a + mine < 3 or b + theirs < 3:
                        continue
                    if placed - a > max(0, their_placed - 2) or their_placed - b > max(0,
                                                                                     placed - 2):
                        continue
                    out.append((a, b, mine, theirs))
    out.sort(key=lambda s: (s[2] + s[3], s))
    return out
