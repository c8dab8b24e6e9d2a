"""The user's game classes of tests/class_games (Clobber, infinite tic-tac-toe) and the plain
solver the bench checks the builder with: text round trips, starts, hand-checked positions, and
golden counts and start values that GamesmanPy's solver gives for the same games."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from tests.class_games.clobber import Clobber, Clobber3x4, Clobber3x6, Clobber5x3
from tests.class_games.ttt_inf import TicTacToeInfinite
from tests.reference_games import reachable, solve

WIN, DRAW, LOSS = 1, 0, -1


def move_names(game: Any, text: str) -> list[str]:
    return sorted(name for name, _ in game.moves(game.read(text)))


# Clobber ------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls, text", [
    (Clobber3x4, "oxo/xox/oxo/xox o"),
    (Clobber5x3, "oxoxo/xoxox/oxoxo o"),
    (Clobber3x6, "oxo/xox/oxo/xox/oxo/xox o"),
])
def test_clobber_starts_full_on_a_checkerboard_o_to_move(cls: type[Clobber], text: str) -> None:
    game = cls()
    assert game.text(game.start()) == text
    assert game.read(text) == game.start()
    assert game.outcome(game.start()) is None
    assert cls.name == game.name


def test_clobber_3x4_every_reachable_position_reads_back_from_its_text() -> None:
    game = Clobber3x4()
    positions = reachable(game)
    assert len(positions) == 13_343          # as many as GamesmanPy's clobber_3x4 table holds
    for p in positions:
        assert game.read(game.text(p)) == p


def test_clobber_3x4_start_is_lost_in_8_as_gamesmanpy_finds() -> None:
    table = solve(Clobber3x4())
    assert table[Clobber3x4().start()] == (LOSS, 8)
    assert all(value != DRAW for value, _ in table.values())     # no draws: every move clobbers


def test_clobber_a_capture_takes_the_stone_and_empties_its_cell() -> None:
    #   4 | o x . |   o to move: a4 takes b4; x has no stone left and no move.
    #   3 | . . . |
    #   2 | . . . |
    #   1 | . . . |
    game = Clobber3x4()
    [(name, child)] = game.moves(game.read("ox./.../.../... o"))
    assert (name, game.text(child)) == ("a4-b4", ".o./.../.../... x")
    assert game.outcome(child) == LOSS and list(game.moves(child)) == []
    table = solve(_FromText(game, "ox./.../.../... o"))
    assert table[game.read("ox./.../.../... o")] == (WIN, 1)


def test_clobber_the_side_with_no_capture_has_lost() -> None:
    #   4 | o . x |   o to move; no o stone is next to an x stone: o has lost.
    #   3 | . . . |
    #   2 | . . o |
    #   1 | x . . |
    game = Clobber3x4()
    p = game.read("o.x/.../..o/x.. o")
    assert (game.outcome(p), list(game.moves(p))) == (LOSS, [])


def test_clobber_a_column_hand_solved() -> None:
    #   4 | o . . |   o to move: a2xa3 leaves x (a1) nothing to take: o wins in 1.
    #   3 | x . . |   (a4xa3 wins in 3: x a1xa2, o a3xa2. a2xa1 loses: x a3xa4.)
    #   2 | o . . |
    #   1 | x . . |
    game = Clobber3x4()
    text = "o../x../o../x.. o"
    assert move_names(game, text) == ["a2-a1", "a2-a3", "a4-a3"]
    table = solve(_FromText(game, text))
    assert table[game.read(text)] == (WIN, 1)
    children = {name: table[child] for name, child in game.moves(game.read(text))}
    assert children == {"a2-a3": (LOSS, 0), "a4-a3": (LOSS, 2), "a2-a1": (WIN, 1)}


@pytest.mark.parametrize("text", ["oxo/xox/oxo/xox", "oxo/xox/oxo/xox z", "oxo/xox/oxo o",
                                  "oxo/xox/oxo/xoxx o", "oxo/xox/oxo/x#x o"])
def test_clobber_refuses_text_it_cannot_read(text: str) -> None:
    with pytest.raises(ValueError):
        Clobber3x4().read(text)


# Infinite tic-tac-toe -----------------------------------------------------------------------

def test_ttt_inf_starts_empty_x_to_move() -> None:
    game = TicTacToeInfinite()
    assert game.text(game.start()) == ".../.../..."
    assert move_names(game, ".../.../...") == sorted(f"{c}{r}" for c in "abc" for r in "123")
    [child] = [child for name, child in game.moves(game.start()) if name == "b2"]
    assert game.text(child) == ".../.x1./..."


@pytest.mark.slow
def test_ttt_inf_every_reachable_position_reads_back_and_x_wins_in_13() -> None:
    game = TicTacToeInfinite()
    table = solve(game)
    assert len(table) == 128_170             # as many as GamesmanPy's ttt-inf table holds
    for p in table:
        assert game.read(game.text(p)) == p
    assert table[game.start()] == (WIN, 13)
    # No finished draws, so every draw is endless play.
    assert {depth for value, depth in table.values() if value == DRAW} == {None}


def test_ttt_inf_three_in_a_row_wins() -> None:
    #   3 | x4 x2 .  |   x to move (o placed the age-1 stone). x plays c3: its oldest stone
    #   2 | o5 o3 .  |   (c1, x6) goes and a3 b3 c3 is a line: x wins in 1.
    #   1 | o1 .  x6 |
    game = TicTacToeInfinite()
    p = game.read("x4x2./o5o3./o1.x6")
    assert move_names(game, "x4x2./o5o3./o1.x6") == ["b1", "c2", "c3"]
    [child] = [child for name, child in game.moves(p) if name == "c3"]
    assert game.text(child) == "x5x3x1/o6o4./o2.."
    assert game.outcome(child) == LOSS and list(game.moves(child)) == []


def test_ttt_inf_the_oldest_stone_leaves_as_the_new_one_lands() -> None:
    #   3 | x6 x4 .  |   x to move. Its oldest stone (a3) still stands, so a3 is no move;
    #   2 | o5 o3 .  |   c3 makes no line, for a3 leaves as c3 lands.
    #   1 | .  o1 x2 |
    game = TicTacToeInfinite()
    text = "x6x4./o5o3./.o1x2"
    assert move_names(game, text) == ["a1", "c2", "c3"]
    [child] = [child for name, child in game.moves(game.read(text)) if name == "c3"]
    assert game.text(child) == ".x5x1/o6o4./.o2x3"
    assert game.outcome(child) is None and len(list(game.moves(child))) == 3


@pytest.mark.parametrize("text", [".../...", "x1x2./.../...", "x1o3./.../...", "o1.../.../...",
                                  "x1x3./.../...", "o1../.../...", "x1.q/.../...",
                                  # o, to move, already has a line (a2 b2 c2):
                                  "x1.x3/o2o4o6/x5.."])
def test_ttt_inf_refuses_text_it_cannot_read(text: str) -> None:
    with pytest.raises(ValueError):
        TicTacToeInfinite().read(text)


# The plain solver ---------------------------------------------------------------------------

class _FromText:
    """A game as `game` plays it, but starting from the position `text` writes."""

    def __init__(self, game: Clobber, text: str) -> None:
        self.game, self.root = game, game.read(text)

    def start(self) -> int:
        return self.root

    def moves(self, p: int) -> Iterable[tuple[str, int]]:
        return self.game.moves(p)

    def outcome(self, p: int) -> int | None:
        return self.game.outcome(p)


class _Graph:
    """A toy game given by its graph: position -> children; a finished draw is 'draw'.

        start -> a, w, m      a -> draw, c      c -> a, e      e <-> f (endless)
        w -> dead (no moves: lost)      m -> l      l -> w, w3      w3 -> l3 -> w, w
    """

    CHILDREN = {"start": ["a", "w", "m"], "a": ["draw", "c"], "c": ["a", "e"], "e": ["f"],
                "f": ["e"], "w": ["dead"], "dead": [], "draw": [], "m": ["l"], "l": ["w", "w3"],
                "w3": ["l3"], "l3": ["w", "w"]}

    def start(self) -> str:
        return "start"

    def moves(self, p: str) -> Iterable[tuple[str, str]]:
        return [(str(i), child) for i, child in enumerate(self.CHILDREN[p])]

    def outcome(self, p: str) -> int | None:
        return DRAW if p == "draw" else None


def test_plain_solver_follows_the_depth_convention() -> None:
    table = solve(_Graph())
    assert table == {
        "dead": (LOSS, 0), "w": (WIN, 1),            # the loser has no move
        "l3": (LOSS, 2), "w3": (WIN, 3),
        "l": (LOSS, 4), "m": (WIN, 5),                # the loser delays: w3 over w
        "draw": (DRAW, 0), "a": (DRAW, 1), "c": (DRAW, 2),   # plies to the nearest finished draw
        "start": (DRAW, 2),                           # through a; w and m win for the opponent
        "e": (DRAW, None), "f": (DRAW, None),         # endless play
    }


def test_keys_are_ranked_in_pythons_order_trailing_nuls_included() -> None:
    """A class's text may end in NUL characters, which numpy's byte strings drop: the ranking
    (the order a table's keys are stored and searched in) is Python's all the same."""
    from tablebase.builder.graph import rank_keys

    for keys in (["a\x00", "a", "b"], ["b", "a\x00\x00", "a\x00", "a"], ["c", "a", "b"],
                 ["é", "a", "e"], ["x", "x"]):
        expected = sorted(range(len(keys)), key=keys.__getitem__)
        assert rank_keys(keys).tolist() == expected, keys


def test_numbers_are_ranked_as_their_reprs() -> None:
    """Positions that are small non-negative ints are ranked as numbers (padded digits, the
    shorter first where two pad alike), never as texts: the order must be that of their reprs,
    which is the order a table's keys are stored and searched in."""
    import numpy as np

    from tablebase.builder.games.protocol import NUMBER_KEYS_BELOW
    from tablebase.builder.graph import rank_numbers

    rng = np.random.default_rng(7)
    edge = [0, 1, 9, 10, 11, 12, 120, 1200, 99, 100, 101, 10 ** 16, 10 ** 16 - 1,
            NUMBER_KEYS_BELOW - 1, 2 * 10 ** 15, 2, 20, 19, 199]
    spread = [int(x) for x in rng.integers(0, NUMBER_KEYS_BELOW, 3000)]
    small = [int(x) for x in rng.integers(0, 5000, 3000)]
    for found in (edge, sorted(set(spread + edge)), sorted(set(small)), [5], []):
        numbers = list(dict.fromkeys(found))
        rng.shuffle(numbers)
        expected = sorted(range(len(numbers)), key=lambda i: repr(numbers[i]))
        assert rank_numbers(np.array(numbers, dtype=np.int64)).tolist() == expected


def test_only_small_non_negative_ints_are_numbers() -> None:
    from tablebase.builder.games.protocol import NUMBER_KEYS_BELOW
    from tablebase.builder.games.user.adapter import load_class_game

    game = load_class_game("tests/class_games/clobber.py", "Clobber3x4")
    assert game.plain_numbers([3, 0, NUMBER_KEYS_BELOW - 1]).tolist() == [3, 0, NUMBER_KEYS_BELOW - 1]
    for other in ([3, -1], [NUMBER_KEYS_BELOW], [2 ** 70], [3, "3"], [3, True], [(1,)]):
        assert game.plain_numbers(other) is None, other
