"""A morris game as ranked tiers (builder/games/ranked_tiers.py), the whole game or its
movement phase alone: the movement phase's sectors first (sectors.py, the fewest stones
first), then the placement phase's (placement.py, the fewest stones to place first), the start
last; and where a position of the game (rules.py's int) is stored among them.
"""
from __future__ import annotations

from tablebase.builder.games.morris.placement import (
    PlacementTier,
    placement_name,
    placement_sectors,
)
from tablebase.builder.games.morris.rules import Rules
from tablebase.builder.games.morris.sectors import Orbits, SectorTier, tier_name


class MorrisTiers:
    """A morris game's tiers: every position play can reach (and some it cannot: each sector
    whole), one an orbit of the board's symmetries, the side to move's stones first."""

    def __init__(self, rules: Rules, name: str, placement: bool = True) -> None:
        self.rules = rules
        self.name = name if placement else f"{name} (movement)"
        n, p = rules.stones, rules.board.points
        if rules.lines_win:
            self.pairs = [(n, n)]
        else:
            self.pairs = [(a, b) for a in range(3, n + 1) for b in range(3, a + 1) if a + b <= p]
            self.pairs.sort(key=lambda ab: (ab[0] + ab[1], ab[0]))
        self.places = placement_sectors(rules) if placement else []
        self._orbits: Orbits | None = None
        self._tiers: dict[str, SectorTier | PlacementTier] | None = None

    @property
    def orbits(self) -> Orbits:
        """The board's orbit tables for every count of stones a sector has (made once)."""
        if self._orbits is None:
            sizes = {c for ab in self.pairs for c in ab}
            sizes |= {c for a, b, _, _ in self.places for c in (a, b)}
            self._orbits = Orbits(self.rules, sizes)
        return self._orbits

    def ranked_tiers(self) -> list[SectorTier | PlacementTier]:
        """Every tier, in an order where each reads only tiers before it."""
        if self._tiers is None:
            o = self.orbits
            tiers: list[SectorTier | PlacementTier] = [
                SectorTier(self.rules, o, a, b) for a, b in self.pairs]
            tiers += [PlacementTier(self.rules, o, *s) for s in self.places]
            self._tiers = {t.name: t for t in tiers}
        return list(self._tiers.values())

    def tier(self, name: str) -> SectorTier | PlacementTier:
        """The tier named `name`."""
        self.ranked_tiers()
        assert self._tiers is not None
        try:
            return self._tiers[name]
        except KeyError:
            raise ValueError(f"{self.name}: no tier {name!r}") from None

    def locate(self, position: int) -> tuple[str, int]:
        """(tier, index) where a position of the game (rules.py's int) is stored, its orbit's
        index; ValueError where the game is over there by a count of stones (a side with
        fewer than three: no tier holds it) or no tier holds it."""
        x, o, o_to_move, x_place, o_place = self.rules.unpack(position)
        me, you, mine, theirs = (o, x, o_place, x_place) if o_to_move else (x, o, x_place,
                                                                              o_place)
        if mine == 0 and theirs == 0:
            name = tier_name(me.bit_count(), you.bit_count())
        else:
            name = placement_name(me.bit_count(), you.bit_count(), mine, theirs)
        return name, self.tier(name).index(me, you)

    def position(self, name: str, index: int) -> int | None:
        """The position of the game (rules.py's int) at `index` of tier `name`, as `locate`
        places it: in the movement phase with x to move (the colours play alike there);
        while placing, o to move where it has one stone more to place than x. None where
        the side to move has a line in a game a line ends (the game ended before its move:
        a tier holds it, play never reaches it)."""
        tier = self.tier(name)
        me, you = tier.position(index)
        if self.rules.lines_win and self.rules.has_line(me):
            return None
        if isinstance(tier, SectorTier):
            return self.rules.pack(me, you, 0, 0, 0)
        mine, theirs = tier.to_place, tier.theirs
        if mine > theirs:
            return self.rules.pack(you, me, 1, theirs, mine)
        return self.rules.pack(me, you, 0, mine, theirs)
