"""db/ranking.py against counting by brute force: on a 3x3 board with gravity's support map and
with none, every class's ranks are the places of its codes among all codes in order, the plain
rank, the compiled ranks (codes in order, shuffled, out of range) and the codes of ranks agree."""
from __future__ import annotations

import bisect

import numpy as np
import pytest

from tablebase.db.ranking import Ranking

DIGITS = 9
GRAVITY = tuple(c + 3 if c + 3 < DIGITS else -1 for c in range(DIGITS))  # cell c rests on c + 3


def _members(supports: tuple[int, ...], x: int, o: int) -> list[int]:
    out = []
    for code in range(3 ** DIGITS):
        d = [code // 3 ** i % 3 for i in range(DIGITS)]
        if d.count(1) == x and d.count(2) == o and all(
                not d[i] or supports[i] < 0 or d[supports[i]] for i in range(DIGITS)):
            out.append(code)
    return out


@pytest.mark.parametrize("supports", [GRAVITY, (-1,) * DIGITS], ids=["gravity", "free"])
@pytest.mark.parametrize("x, o", [(0, 0), (1, 0), (2, 1), (3, 3), (4, 4), (5, 4)])
def test_ranks_are_places_among_the_class(supports: tuple[int, ...], x: int, o: int) -> None:
    members = _members(supports, x, o)
    ranking = Ranking(supports, x, o)
    assert ranking.size == len(members)
    held = set(members)
    for code in range(3 ** DIGITS + 1):
        assert ranking.below(code) == (bisect.bisect_left(members, code), code in held)
    codes = np.array(members, np.int64)
    assert np.array_equal(ranking.ranks(codes), np.arange(len(codes)))
    assert np.array_equal(ranking.codes(np.arange(len(codes))), codes)
    rng = np.random.default_rng(x * 10 + o)
    asked = np.concatenate([rng.integers(-5, 3 ** DIGITS + 5, 3000), np.arange(3 ** DIGITS)])
    expected = [bisect.bisect_left(members, c) if c in held else -1 for c in asked.tolist()]
    assert ranking.ranks(asked).tolist() == expected


def test_a_map_that_is_no_ranking_is_refused() -> None:
    with pytest.raises(ValueError):
        Ranking((-1, 0, -1), 1, 0)  # a digit's support must be higher than it
    with pytest.raises(ValueError):
        Ranking((2, 2, -1), 1, 0)  # each digit supports at most one other
    with pytest.raises(ValueError):
        Ranking((-1,) * 3, 2, 2)  # more stones than digits
