"""The morris family (builder/games/morris/): its boards, its rules on hand-made positions, its
notation and the one-line reasons a move is refused. Whole games against the plain solver are
in tests/test_morris_tables.py."""
from __future__ import annotations

import pytest

from tablebase.builder.games.errors import InvalidSpecError
from tablebase.builder.games.morris.boards import board
from tablebase.builder.games.morris.game import MorrisGame

# Nine men's morris, rows from the top:      a7 ------ d7 ------ g7
#   a7 d7 g7 / b6 d6 f6 / c5 d5 e5 /         |  b6 -- d6 -- f6  |
#   a4 b4 c4 e4 f4 g4 / c3 d3 e3 /           |  |  c5-d5-e5  |  |
#   b2 d2 f2 / a1 d1 g1                      a4-b4-c4    e4-f4-g4
#                                            |  |  c3-d3-e3  |  |
#                                            |  b2 -- d2 -- f2  |
#                                            a1 ------ d1 ------ g1
# o holds the mill a7 d7 g7 and b6; x holds a1 d1 (g1 closes the bottom mill), g4 and e3.
MILL_AND_ONE = "ooo/o../.../.....x/..x/.../xx. x"


def names(game: MorrisGame, text: str) -> set[str]:
    """The names of the moves at the position `text`."""
    return {name for name, _ in game.moves(game.read(text))}


@pytest.mark.parametrize(("name", "points", "joins", "mills", "symmetries"), [
    ("three-mens-morris", 9, 12, 6, 8),
    ("tapatan", 9, 16, 8, 8),  # the diagonals: 4 joins and 2 lines more
    ("six-mens-morris", 16, 20, 8, 16),  # 16 sides of squares and 4 joins between them
    ("nine-mens-morris", 24, 32, 16, 16),  # 24 sides and 8 joins; inner and outer swap
])
def test_the_boards_counted(name: str, points: int, joins: int, mills: int,
                            symmetries: int) -> None:
    b = board(name)
    assert (b.points, len(b.edges), len(b.mills), len(b.symmetries)) == \
        (points, joins, mills, symmetries)
    for perm in b.symmetries:  # each keeps the joins and the mills
        assert {tuple(sorted((perm[i], perm[j]))) for i, j in b.edges} == set(b.edges)


def test_tapatan_joins_the_diagonals_through_the_centre_only() -> None:
    game = MorrisGame("tapatan")
    # x: a1 b1 c3 with every stone placed, o: a3 c2 b3; x to move.
    steps = names(game, "oox/..o/xx. x")
    assert "a1-b2" in steps and "c3-b2" in steps  # along a diagonal
    assert "b1-b2" in steps and "b1-c1" in steps
    assert not any(s.startswith("b1-a2") for s in steps)  # a2 and b1 are not joined
    three = MorrisGame("three-mens-morris")
    assert "a1-b2" not in names(three, "oox/..o/xx. x")  # no diagonals on this board


def test_a_line_wins_at_once_on_the_small_boards_and_loses_in_misere() -> None:
    for spec, value in (("three-mens-morris", -1), ("three-mens-morris+misere", 1)):
        game = MorrisGame(spec)
        after = dict(game.moves(game.read("xx./oo./... x 1 1")))["c3"]
        assert game.text(after) == "xxx/oo./... o 0 1"
        assert game.outcome(after) == value and game.moves(after) == []


def test_a_mill_takes_a_stone_out_of_mills_while_there_is_one() -> None:
    game = MorrisGame("nine-mens-morris")
    moves = names(game, MILL_AND_ONE)
    assert {m for m in moves if m.startswith("g4-g1")} == {"g4-g1xb6"}
    # Once every o stone stands in a mill, any may be taken.
    moves = names(game, "ooo/.../.../.....x/..x/.../xx. x")
    assert {m for m in moves if m.startswith("g4-g1")} == {"g4-g1xa7", "g4-g1xd7", "g4-g1xg7"}


def test_two_mills_at_once_take_one_stone() -> None:
    game = MorrisGame("nine-mens-morris")
    # x on a4 a7 (a1 closes a1-a4-a7) and d1 g1 (a1 closes a1-d1-g1); o on d6 d2.
    moves = dict(game.moves(game.read("x../.o./.../x...../.../.o./.xx x 5 5")))
    closing = {m for m in moves if m.startswith("a1")}
    assert closing == {"a1xd6", "a1xd2"}  # one stone each, never two
    assert game.text(moves["a1xd6"]) == "x../.../.../x...../.../.o./xxx o 4 5"


def test_a_mill_captures_nothing_where_the_other_side_has_no_stone() -> None:
    game = MorrisGame("nine-mens-morris")
    assert "d7" in names(game, "x.x/.../.../....../.../.../... x 6 6")


def test_flying_at_three_stones_only_and_none_on_six_mens() -> None:
    nine = MorrisGame("nine-mens-morris")
    moves = names(nine, "ooo/o../.../....../..x/.../xx. x")
    # x has a1 d1 e3: 3 stones, each flies to any of 17 empty points; e3-g1 closes a mill.
    assert "e3-g1xb6" in moves and "e3-a4" in moves and "e3-g1" not in moves
    assert len(moves) == 3 * 17
    four = names(nine, MILL_AND_ONE)  # 4 stones: steps along lines only
    assert "e3-a4" not in four and "e3-e4" in four
    six = MorrisGame("six-mens-morris")
    # Six men's: x with a1 c1 and d3, o with a5 c5 e5 b4; x never flies.
    assert names(six, "ooo/o../..x./.../xx. x") == {"a1-a3", "c1-c2", "c1-e1", "d3-d4",
                                                    "d3-d2", "d3-e3"}


def test_a_side_left_with_two_stones_or_no_move_has_lost() -> None:
    game = MorrisGame("nine-mens-morris")
    assert game.outcome(game.read("oo./.../.../....../.../.../xxx o")) == -1
    assert game.outcome(game.read("ooo/.../.../....../.../.../xxx o")) is None
    # Still to place counts: 2 on the board and 1 to place is three.
    assert game.outcome(game.read("xx./.../.../....../.../.../.oo x 1 1")) is None
    # x's four stones a7 d7 g7 d6 are shut in by o (o has more stones than three).
    blocked = game.read("xxx/oxo/.o./o....o/.../.../... x")
    assert game.outcome(blocked) is None and game.moves(blocked) == []


def test_symmetries_form_orbits_of_equal_texts() -> None:
    game = MorrisGame("nine-mens-morris")
    position = game.read(MILL_AND_ONE)
    images = game.symmetries(position)
    assert len(set(images)) == 31  # 16 of the board, each with the colours swapped, less itself
    texts = {game.text(p) for p in images}
    assert "xxx/x../.../.....o/..o/.../oo. o" in texts  # the colours and the mover swapped
    placing = game.read("x../.../.../....../.../.../... o 8 9")
    # While placing, no swap of colours: a7's images are the 8 corners of two squares.
    assert len(game.symmetries(placing)) == 15 and len(set(game.symmetries(placing))) == 8


@pytest.mark.parametrize(("name", "sizes"), [
    ("three-mens-morris", [*range(10)]), ("tapatan", [*range(10)]),
    ("six-mens-morris", [*range(6), *range(11, 17)]), ("nine-mens-morris", [0, 1, 2, 22, 23, 24]),
])
def test_the_orbit_tables_agree_with_the_symmetries_applied_plainly(name: str,
                                                                    sizes: list[int]) -> None:
    """sectors.Orbits, against every set of each size's images under the board's symmetries:
    the symmetries that map a set to its least image, and that image's place among the
    orbits' least sets, in colex (masks') order."""
    from itertools import combinations

    from tablebase.builder.games.morris.sectors import Orbits

    symmetries = board(name).symmetries
    points = len(symmetries[0])
    tables = Orbits(MorrisGame(name).ranked().rules, sizes)
    assert not tables.sym_tab.any()  # nothing made before it is asked for
    end = int(tables.rank_off[sizes[0] + 1])
    tables.made(sizes[:1])  # that size's tables alone (a set's own symmetries are never none)
    assert tables.sym_tab[:end].all() and not tables.sym_tab[end:].any()
    tables.made()
    for a in sizes:
        masks = sorted(sum(1 << i for i in c) for c in combinations(range(points), a))
        images = [[sum(1 << g[i] for i in range(points) if m >> i & 1) for g in symmetries]
                  for m in masks]
        least = [min(found) for found in images]
        reps = sorted(set(least))
        assert tables.representatives(a) == len(reps)
        at, first = int(tables.rank_off[a]), int(tables.rep_off[a])
        for r, found in enumerate(images):
            keep = sum(1 << g for g, m in enumerate(found) if m == least[r])
            assert int(tables.sym_tab[at + r]) == keep, (a, r)
            assert int(tables.rep_of[at + r]) == reps.index(least[r]), (a, r)
        assert [int(x) & 0xFFFFFFFF for x in tables.reps[first:first + len(reps)]] == reps


@pytest.mark.parametrize(("text", "error"), [
    (".../.../... x 3 3 1", "a position is"),
    ("..../.../... x 3 3", "3 rows of 3, 3, 3 points"),
    (".../.../... y 3 3", "x or o"),
    (".../.../... o 3 3", "place in turn"),
    ("x../.../... x 3 3", "has 4 stones"),
    ("xxx/oo./o.. x", "the side to move has a line"),
])
def test_position_text_errors(text: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        MorrisGame("three-mens-morris").read(text)


@pytest.mark.parametrize(("move", "reason"), [
    ("zz", "'zz' is not a move"),
    ("z9", "z9 is not a point of the board"),
    ("h1", "h1 is not a point of the board"),
    ("a1-c1", "c1 is not a point"),
    ("e3-d5", "e3-d5 is along no line, and only a side with 3 stones flies (this one has 4)"),
    ("g4-g1", "closes a mill: name the stone it takes"),
    ("e3-e4xb6", "closes no mill: it takes nothing"),
    ("g4-g1xa7", "a7 stands in a mill and other stones can be taken (b6)"),
    ("g4-g1xd2", "d2 holds no stone of the other side"),
    ("a7-a4", "a7 holds no stone of the side to move"),
    ("a1-d1", "d1 is not empty"),
    ("d2", "every stone is placed"),
])
def test_why_a_move_is_refused(move: str, reason: str) -> None:
    game = MorrisGame("nine-mens-morris")
    position = game.read(MILL_AND_ONE)
    assert move not in names(game, MILL_AND_ONE)
    assert reason in game.why_not(position, move)


def test_a_step_while_placing_is_refused() -> None:
    game = MorrisGame("six-mens-morris")
    position = game.start()
    assert "still to place" in game.why_not(position, "a1-a3")


@pytest.mark.parametrize(("spec", "error"), [
    ("six-mens-morris+misere", "misere is for the 3x3 boards"),
    ("achi+stones5", "3 to 4 stones a side"),
    ("nine-mens-morris+jump", "not a morris flag"),
])
def test_spec_errors(spec: str, error: str) -> None:
    with pytest.raises(InvalidSpecError, match=error):
        MorrisGame(spec)


def test_names_are_one_per_game() -> None:
    assert MorrisGame("tapatan+stones4").name == "achi"
    assert MorrisGame("achi+stones3").name == "tapatan"
    assert MorrisGame("nine-mens-morris+stones3").name == "nine-mens-morris+stones3"
    assert MorrisGame("nine-mens-morris+stones9").name == "nine-mens-morris"


def test_sets_are_ranked_a_byte_at_a_time_as_point_by_point() -> None:
    """set_ranks' tables and kernels against the combinatorial number system written plainly:
    every entry of both tables, and the ranks of random sets of the largest board's points."""
    import random
    from math import comb

    import numpy as np

    from tablebase.builder.games.morris import set_ranks as r

    for j in range(3):
        for c in range(r.BOARD_POINTS + 1):
            for v in range(256):
                points = [8 * j + q for q in range(8) if v >> q & 1]
                assert r.RANK_BYTES[j, c, v] == sum(comb(p, c + t) for t, p in
                                                    enumerate(points, 1)), (j, c, v)
    for f in range(256):
        free = [q for q in range(8) if f >> q & 1]
        for v in range(256):
            assert r.PRESS[f, v] == sum(1 << k for k, q in enumerate(free) if v >> q & 1)
    binom = np.array([[comb(n, k) for k in range(r.BOARD_POINTS + 2)]
                      for n in range(r.BOARD_POINTS + 1)], dtype=np.int64)
    rng = random.Random(5)
    for _ in range(2000):
        cells = rng.sample(range(r.BOARD_POINTS), rng.randrange(0, 13))
        me = sum(1 << p for p in cells[:len(cells) // 2])
        you = sum(1 << p for p in cells[len(cells) // 2:])
        points = sorted(cells[len(cells) // 2:])
        assert r.colex_rank(you, binom) == sum(comb(p, i) for i, p in enumerate(points, 1))
        free = [p for p in range(r.BOARD_POINTS) if not me >> p & 1]
        assert r.packed_rank(you, me, binom) == sum(comb(free.index(p), i)
                                                    for i, p in enumerate(points, 1))
        assert r.colex_unrank(r.colex_rank(you, binom), len(points), r.BOARD_POINTS,
                              binom) == you
