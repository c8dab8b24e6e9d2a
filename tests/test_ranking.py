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


def test_blocks_store_codes_where_no_ranking_fits() -> None:
    """A block whose map is too wide for a table of counts (13 chains of 3 digits), or that has
    no map, stores its codes' gaps (codec 1); a block under a map stores ranks (codec 2): each
    reads back the same, through db/ and through the plain decoder of tests/stored.py."""
    from tablebase.db.blocks import pack_block, positions, unpack_block
    from tests.stored import decode_block

    wide = tuple(c + 13 if c + 13 < 39 else -1 for c in range(39))  # 13x3 with gravity
    narrow = tuple(c + 3 if c + 3 < 12 else -1 for c in range(12))  # 3x4 with gravity
    bottom = sorted(sum(d * 3 ** (26 + i) for i, d in enumerate(row))
                    for row in ([1, 2, 1, 2, 1, 2], [2, 1, 1, 2, 2, 1]))  # 3 x's, 3 o's
    cases = [(wide, bottom, 39, 1),
             (narrow, [1 * 3 ** 9 + 2 * 3 ** 10, 1 * 3 ** 9 + 2 * 3 ** 11], 12, 2),
             (None, [5, 7], 12, 1)]
    for supports, codes, cells, codec in cases:
        row = pack_block(6 if codec == 1 and supports else 2, 0, np.array(codes, np.int64),
                         np.array([3, -60], np.int8), 3 ** cells, supports)
        assert row.data[4] == codec
        block = unpack_block(row, lambda: "test")
        assert block.codes.tolist() == codes and [block.find(c) for c in codes] == [0, 1]
        assert block.find(codes[0] + 1) == -1
        arrays = positions(block, cells)
        assert decode_block(row.data, cells) == {
            c: (block.ply, v, d) for c, v, d in zip(codes, arrays.value.tolist(), arrays.depth.tolist())}


def test_compiled_ranks_equal_the_plain_ones_on_a_big_map() -> None:
    # 25 digits (five chunks of the compiled walk, the last one digit long): codes of gravity
    # boards with 6 x's and 5 o's, sorted, shuffled, and mixed with codes of other classes,
    # codes breaking the map and codes out of range, each against the plain ranking.
    width, cells = 5, 25
    supports = tuple(c + width if c + width < cells else -1 for c in range(cells))
    ranking = Ranking(supports, 6, 5)
    rng = np.random.default_rng(7)
    codes = set()
    while len(codes) < 4000:
        heights, code = [0] * width, 0
        for stone in range(11):
            column = int(rng.choice([c for c in range(width) if heights[c] < 5]))
            cell = (4 - heights[column]) * width + column
            heights[column] += 1
            code += (1 if stone % 2 == 0 else 2) * 3 ** cell
        codes.add(code)
    held = np.array(sorted(codes), np.int64)
    others = rng.integers(-3, 3 ** cells + 3, 4000)
    for asked in (held, rng.permutation(held), np.sort(np.concatenate([held, others]))):
        expected = [r if inside else -1 for r, inside in map(ranking.below, asked.tolist())]
        assert ranking.ranks(asked).tolist() == expected
    assert (ranking.ranks(held) >= 0).all()
