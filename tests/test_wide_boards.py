"""Boards past 64 cells (query/search/masks.py: cell sets of two words): the search's values,
depths and moves on 9x9k5, 10x10k5 and 11x11k5 boards with 12 empty cells against the plain
negamax over those cells (tests/reference.py's FewEmpty), every bound its transposition table
keeps against the same negamax, the cell sets' encoding across the words, the compiled key
against the reference's symmetry images, and the empty 9x9k5 board answered by the command
line, unknown within its budget, never a claim."""
from __future__ import annotations

import random

import pytest

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.builder.games.grid.position_text import read_position
from tablebase.query.cli import main
from tablebase.query.search import control, masks, transposition
from tablebase.query.search.board import Board
from tablebase.query.search.searcher import Searcher
from tests.reference import FewEmpty, Game
from tests.search_sets import read_set

WORDS = {1: Value.WIN, 0: Value.DRAW, -1: Value.LOSS}
# The first boards of each game in wide.txt (a win, a draw and a loss on 9x9k5, the cheapest
# for the plain negamax first); the bench takes them all.
TAKEN = {"9x9k5": 3, "10x10k5": 1, "11x11k5": 1}


def _positions(spec_text: str) -> list[tuple[int, ...]]:
    """The first boards of tests/search_positions/wide.txt of one game."""
    spec = parse_spec(spec_text)
    return [tuple(read_position(spec, text).board) for name, text in
            (line.split() for line in read_set("wide.txt")) if name == spec_text][:TAKEN[spec_text]]


def _check_table(searcher: Searcher, game: Game, root: tuple[int, ...], few: FewEmpty) -> int:
    """Every bound the transposition table holds on a board play reaches from `root` (in some
    orientation of its key) contains that board's exact score; how many were checked. The key
    is the whole board, so a wrong key would show here as a bound of another board."""
    a, checked = searcher.arrays, 0
    for slot in a.tfl.nonzero()[0]:
        key = a.key(int(slot))
        assert key is not None
        kx, ko = key
        assert kx & ko == 0  # no cell holds both
        board = tuple(1 if kx >> c & 1 else 2 if ko >> c & 1 else 0 for c in range(game.n))
        images = [b for b in game.images(board)
                  if all(b[c] == v for c, v in enumerate(root) if v)]
        assert images, "a key that is no board of this root's game"
        value, depth = few.solve(images[0])
        exact = value * (control.WS - depth)
        assert a.tlo[slot] <= exact <= a.thi[slot], (images[0], a.tlo[slot], a.thi[slot])
        checked += 1
    return checked


@pytest.mark.parametrize("spec_text", list(TAKEN))
def test_wide_boards_equal_the_plain_negamax(spec_text: str) -> None:
    """Value and depth of each board, and the move's child one ply shorter, as the plain
    negamax has them; the table's bounds all hold; on 9x9k5, proofs without search fired."""
    game, spec = Game(spec_text), parse_spec(spec_text)
    values, paired = set(), 0
    for board in _positions(spec_text):
        few = FewEmpty(game, board)
        value, depth = few.solve(board)
        searcher = Searcher(spec, slots_log2=14)
        s = searcher.solve(board)
        assert (s.value, s.depth) == (WORDS[value], depth), board
        assert s.move is not None and few.solve(game.child(board, s.move)) == (-value, depth - 1)
        assert _check_table(searcher, game, board, few) > 0
        values.add(value)
        paired += int(searcher.arrays.ctl[control.PAIRED])
    if spec_text == "9x9k5":
        assert values == {1, 0, -1} and paired > 0  # a win, a draw and a loss; proofs fired


def test_cell_sets_across_the_words() -> None:
    """masks.py's encoding: cell c in word c // 64, the words' order total, and a set's int
    the same through an array and back, on random sets of 121 cells."""
    rng = random.Random(5)
    assert masks.words(64) == 1 and masks.words(65) == 2 and masks.words(121) == 2
    with pytest.raises(ValueError):
        masks.words(129)
    sets = [rng.getrandbits(121) for _ in range(50)] + [1 << 63, 1 << 64, 0]
    packed = masks.pack(sets, 2)
    for i, s in enumerate(sets):
        got = masks.get(packed, i)
        assert masks.as_int(got) == s and masks.count(got) == bin(s).count("1")
        assert all(masks.has(got, c) == bool(s >> c & 1) for c in (0, 63, 64, 120))
        for j, t in enumerate(sets):
            other = masks.get(packed, j)
            assert masks.as_int(masks.join(got, other)) == s | t
            assert masks.disjoint(got, other) == (s & t == 0)
            assert masks.below(got, other) == (s < t)  # high word first: the ints' order
    assert masks.as_int(masks.bit((0, 0), 64)) == 1 << 64


def test_the_key_is_the_smallest_orientation_of_the_whole_board() -> None:
    """The compiled key of random 11x11 boards (stones placed one by one, as the search does)
    is the board itself in the orientation whose (x, o) cell sets, read as ints, come first:
    checked against the reference's own symmetry images, on both words."""
    game, arrays, rng = Game("11x11k5"), Board(parse_spec("11x11k5"), slots_log2=4), random.Random(9)
    for _ in range(30):
        board = tuple(rng.choice((0, 0, 1, 2)) for _ in range(game.n))
        arrays.load(board)
        _, kx, ko, _ = transposition.slot_of(arrays.par, arrays.bx, arrays.bo)
        images = [(sum(1 << c for c, v in enumerate(b) if v == 1),
                   sum(1 << c for c, v in enumerate(b) if v == 2)) for b in game.images(board)]
        assert (masks.as_int(kx), masks.as_int(ko)) == min(images)
        assert masks.as_int(arrays.occupied) == images[0][0] | images[0][1]


def test_the_empty_9x9_board_is_unknown_within_its_budget(capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    """Searched, not refused: out of its nodes, unknown, and no move claimed."""
    assert main(["solve", "9x9k5", "--nodes", "3000", "--no-tables"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("x to move: unknown (by search)") and "best move" not in out, out
