"""The morris boards: points joined by lines. Each board is listed once as its points (named
by a grid's coordinates, a column letter and a row number, 1 the bottom row), the lines a stone
steps along and the mills (three points in a row on a drawn line); its symmetries are found,
not listed: every permutation of the points that keeps both the joins and the mills.

    three men's morris      tapatan, achi           six men's morris      nine men's morris
    a3 - b3 - c3            a3 - b3 - c3            a5 ---- c5 ---- e5    a7 ------ d7 ------ g7
    |    |    |             |  \\  |  /  |            |  b4 - c4 - d4  |    |  b6 -- d6 -- f6  |
    a2 - b2 - c2            a2 - b2 - c2            a3-b3        d3-e3    |  |  c5-d5-e5  |  |
    |    |    |             |  /  |  \\  |            |  b2 - c2 - d2  |    a4-b4-c4    e4-f4-g4
    a1 - b1 - c1            a1 - b1 - c1            a1 ---- c1 ---- e1    |  |  c3-d3-e3  |  |
                                                                          |  b2 -- d2 -- f2  |
                                                                          a1 ------ d1 ------ g1
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Board:
    """A board of points and lines. Points are indexed in reading order (rows from the top,
    each left to right), as position text lists them; `joins[i]` is the bitmask of the points
    a stone on point i steps to; `mills` the bitmasks of three points in a row;
    `mills_at[i]` those through point i; `symmetries` the point permutations that keep joins
    and mills (the identity first)."""

    name: str
    names: tuple[str, ...]
    places: tuple[tuple[int, int], ...]  # (column, row) of each point, row 1 at the bottom
    rows: tuple[int, ...]  # how many points each text row holds, from the top
    edges: tuple[tuple[int, int], ...]  # the joins, each once
    joins: tuple[int, ...]
    mills: tuple[int, ...]
    mills_at: tuple[tuple[int, ...], ...]
    symmetries: tuple[tuple[int, ...], ...]

    @property
    def points(self) -> int:
        """How many points the board has."""
        return len(self.names)


def _point(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("a"), int(name[1:])


def _make(name: str, points: str, edges: str, mills: str) -> Board:
    """A board from its points (space-separated names), joins (`a1-b1` pairs) and mills
    (`a1-b1-c1` triples), the points put in reading order."""
    places = sorted((_point(p) for p in points.split()), key=lambda cr: (-cr[1], cr[0]))
    names = tuple(f"{chr(ord('a') + c)}{r}" for c, r in places)
    index = {n: i for i, n in enumerate(names)}
    rows: list[int] = []
    for i, (_, r) in enumerate(places):
        if i == 0 or places[i - 1][1] != r:
            rows.append(0)
        rows[-1] += 1
    pairs: tuple[tuple[int, int], ...] = tuple(sorted(
        (min(index[a], index[b]), max(index[a], index[b]))
        for a, b in (e.split("-") for e in edges.split())))
    joins = [0] * len(names)
    for a, b in pairs:
        joins[a] |= 1 << b
        joins[b] |= 1 << a
    mill_masks = tuple(sum(1 << index[p] for p in m.split("-")) for m in mills.split())
    mills_at = tuple(tuple(m for m in mill_masks if m >> i & 1) for i in range(len(names)))
    found = _symmetries(len(names), set(pairs), set(mill_masks))
    return Board(name, names, tuple(places), tuple(rows), pairs, tuple(joins), mill_masks,
                 mills_at, found)


def _symmetries(n: int, edges: set[tuple[int, int]], mills: set[int]
                ) -> tuple[tuple[int, ...], ...]:
    """Every permutation of n points mapping joins to joins and mills to mills, by a plain
    backtracking search (boards have at most 24 points and few symmetries: it is instant)."""
    neighbours = [{b for a, b in edges if a == i} | {a for a, b in edges if b == i}
                  for i in range(n)]
    found: list[tuple[int, ...]] = []

    def extend(image: list[int], used: set[int]) -> None:
        i = len(image)
        if i == n:
            mapped = {sum(1 << image[p] for p in range(n) if m >> p & 1) for m in mills}
            if mapped == mills:
                found.append(tuple(image))
            return
        for j in range(n):
            if j in used or len(neighbours[j]) != len(neighbours[i]):
                continue
            # Joins among the points placed so far must map to joins.
            if all((image[q] in neighbours[j]) == (q in neighbours[i]) for q in range(i)):
                image.append(j)
                used.add(j)
                extend(image, used)
                used.discard(j)
                image.pop()

    extend([], set())
    found.sort(key=lambda s: s != tuple(range(n)))  # the identity first
    return tuple(found)


_SQUARE_3 = "a1 b1 c1 a2 b2 c2 a3 b3 c3"
_ROWS_3 = "a1-b1-c1 a2-b2-c2 a3-b3-c3 a1-a2-a3 b1-b2-b3 c1-c2-c3"
_JOINS_3 = "a1-b1 b1-c1 a2-b2 b2-c2 a3-b3 b3-c3 a1-a2 a2-a3 b1-b2 b2-b3 c1-c2 c2-c3"

_SIX = "a5 c5 e5 b4 c4 d4 a3 b3 d3 e3 b2 c2 d2 a1 c1 e1"
_SIX_MILLS = "a5-c5-e5 a1-c1-e1 a1-a3-a5 e1-e3-e5 b4-c4-d4 b2-c2-d2 b2-b3-b4 d2-d3-d4"

_NINE = "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1"
_NINE_MILLS = ("a7-d7-g7 a1-d1-g1 a1-a4-a7 g1-g4-g7 b6-d6-f6 b2-d2-f2 b2-b4-b6 f2-f4-f6"
               " c5-d5-e5 c3-d3-e3 c3-c4-c5 e3-e4-e5 d7-d6-d5 d3-d2-d1 a4-b4-c4 e4-f4-g4")


def _joins_of(mills: str) -> str:
    """The joins a board of mills draws: each mill's two neighbouring pairs."""
    out = []
    for m in mills.split():
        a, b, c = m.split("-")
        out += [f"{a}-{b}", f"{b}-{c}"]
    return " ".join(out)


@lru_cache(maxsize=None)
def board(name: str) -> Board:
    """The board named `name`: `three-mens-morris`, `tapatan` (also achi's), `six-mens-morris`
    or `nine-mens-morris`. Made once a process."""
    if name == "three-mens-morris":
        return _make(name, _SQUARE_3, _JOINS_3, _ROWS_3)
    if name == "tapatan":
        diagonals = "a1-b2-c3 a3-b2-c1"
        return _make(name, _SQUARE_3, _JOINS_3 + " " + _joins_of(diagonals),
                     _ROWS_3 + " " + diagonals)
    if name == "six-mens-morris":
        return _make(name, _SIX, _joins_of(_SIX_MILLS) + " c5-c4 c2-c1 a3-b3 d3-e3", _SIX_MILLS)
    if name == "nine-mens-morris":
        return _make(name, _NINE, _joins_of(_NINE_MILLS), _NINE_MILLS)
    raise KeyError(name)
