"""builder/games/grid/root.py: a table's root, its free cells, open lines, stabiliser and the order
its stones can be played in, checked against the rules kernel's whole-board functions and
against tests/reference.py."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from tablebase.builder.games.grid import EMPTY, InvalidPositionError, parse_spec, play
from tablebase.builder.games.grid.boards import parse_board, play_moves
from tablebase.builder.games.grid.codec import digits, weighted_sum
from tablebase.builder.games.grid.orders import FOUND, move_orders, order_status, stone_order
from tablebase.builder.games.grid.root import Root
from tablebase.builder.games.grid.root_check import check_root
from tablebase.builder.games.grid.symmetry import canonical_many, permutations
from tests.reference import Game, parse, reachable_from
from tests.reference import play as reference_play

ROOTS = [("4x4k4", ""), ("3x3k3", ""), ("4x4k3", "b2 c3 c2 b3"), ("5x4k4+gravity", ""),
         ("7x7k5", "d4 d5 c4 a1 b1 c1 e1 f1 g1 a2 b2 c2 e2 f2 g2 a3"),
         ("7x6k4+gravity", "d1 d2 c1 e1 c2 c3")]


@pytest.mark.parametrize("spec_text, moves", ROOTS)
def test_images_by_lookup_equal_digits_times_weights(spec_text: str, moves: str) -> None:
    spec = parse_spec(spec_text)
    root = Root(spec, play_moves(spec, moves)) if moves else Root.whole(spec)
    codes = np.random.default_rng(7).integers(0, 3 ** root.cells, 20_000)
    expected = weighted_sum(digits(codes, root.cells), root.image_weights)
    assert np.array_equal(root.images_many(codes), expected)
    assert np.array_equal(root.canonical_many(codes), expected.min(axis=1))
    if not moves:  # the whole board's root is the whole board's symmetry group
        assert np.array_equal(root.canonical_many(codes), canonical_many(spec, codes))


def test_the_stabiliser_is_the_maps_that_fix_the_root() -> None:
    spec = parse_spec("4x4k3")
    game = Game("4x4k3")
    for text in ("..../.xo./.ox./....", "x.../..../..../....", "x..x/..../..../o..o"):
        board = parse(game, text)
        root = check_root(spec, board)
        fixed = sum(1 for image in game.images(board) if image == board)
        assert len(root.symmetries) == fixed == len(root.full_maps)
        # Every map keeps the free cells' digits a permutation of themselves.
        assert all(sorted(p.tolist()) == list(range(root.cells)) for p in root.symmetries)


def test_lines_with_a_stone_of_the_other_player_are_dead() -> None:
    #   x . .
    #   . o .      x can still make the top row, the left column; o the middle row and
    #   . . .      column and the anti-diagonal; the main diagonal is nobody's
    spec = parse_spec("3x3k3")
    root = check_root(spec, parse_board(spec, "x../.o./..."))
    assert len(root.line_rules(1)[0]) == 4  # top row, left column, bottom row, right column
    assert len(root.line_rules(2)[0]) == 5  # middle row, middle column, anti-diagonal, bottom, right
    assert (root.free.tolist(), root.cells, root.ply) == ([1, 2, 3, 5, 6, 7, 8], 7, 2)


def test_stone_order_plays_the_root_and_refuses_what_gravity_cannot_stack() -> None:
    spec = parse_spec("7x6k4+gravity")
    board = play_moves(spec, "d1 d2 c1 e1 c2 c3 e2 b1")
    order = stone_order(spec, board)
    assert order is not None and len(order) == 8
    current = (EMPTY,) * spec.cells
    for cell in order:
        current = play(spec, current, cell)
    assert current == board
    small = parse_spec("4x4k4+gravity")
    assert stone_order(small, parse_board(small, "..../..../x.../o...")) is None
    with pytest.raises(InvalidPositionError, match="cannot be reached"):
        check_root(small, parse_board(small, "..../..../x.../o..."))


def test_a_whole_root_codes_every_cell_with_the_whole_group() -> None:
    spec = parse_spec("4x3k3")
    root = Root.whole(spec)
    assert root.is_whole and root.key == "" and root.cells == 12
    assert np.array_equal(root.symmetries, permutations(spec))
    assert Root.from_key(spec, check_root(spec, parse_board(spec, "x.../..../....")).key).ply == 1


@pytest.mark.parametrize("spec_text, moves", [
    ("3x3k3", ""), ("3x3k3+misere", "b2 a1"), ("4x3k3", "b2 c2 a1"),
    ("4x3k3+gravity", "b1 b2 c1"), ("4x4k3+gravity", "a1 b1 a2 b2 c1")])
def test_an_order_from_the_root_exists_exactly_for_what_play_reaches(spec_text: str,
                                                                      moves: str) -> None:
    """Every board that holds the root, against a breadth-first search of play from it: the
    orders found are orders of legal moves from the root, and only boards play reaches get
    one (never "gave up" on boards this small)."""
    spec, game = parse_spec(spec_text), Game(spec_text)
    root = reference_play(game, moves) if moves else (0,) * game.n
    free = [c for c, v in enumerate(root) if v == 0]
    boards = np.tile(np.array(root, dtype=np.uint8), (3 ** len(free), 1))
    boards[:, free] = list(itertools.product((0, 1, 2), repeat=len(free)))
    status = order_status(spec, boards, root)
    found = {tuple(int(v) for v in b) for b in boards[status == FOUND]}
    reached = reachable_from(game, root)
    assert found == reached and set(status.tolist()) <= {0, 1}
    ordered = sorted(reached)
    for board, order in zip(ordered, move_orders(spec, np.array(ordered, np.uint8), root)):
        current = root
        for cell in order[order >= 0].tolist():
            assert cell in game.moves(current), (board, order)
            current = game.child(current, cell)
        assert current == board


@pytest.mark.parametrize("spec_text, moves", [("4x3k3+gravity", "b1"), ("3x3k3+exact", "")])
def test_a_first_search_that_gives_up_is_searched_again(spec_text: str, moves: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A first search of each board is bounded small (orders.FIRST_STATES); with a bound of one
    state every board that needs a search gives up there, and the second search, bounded by
    STATES, still finds exactly what play reaches, with orders of legal moves."""
    from tablebase.builder.games.grid import orders

    monkeypatch.setattr(orders, "FIRST_STATES", 1)
    test_an_order_from_the_root_exists_exactly_for_what_play_reaches(spec_text, moves)
