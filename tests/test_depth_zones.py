"""Zones in null windows about a depth (query/search/compiled_search.py, transposition.py): a
search for a win, or a loss, within d plies returns with its bound the zone of its proof, which
must hold that very bound (the depth too) when the side it is against gets extra stones on
cells outside it. Checked against a plain negamax written here, which takes the side to move
as given (extra stones change the counts), on every position of small boards it is asked
about."""
from __future__ import annotations

import random

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.query.search import control
from tablebase.query.search.board import Board
from tablebase.query.search.control import PLAIN, WS
from tablebase.query.search.searcher import Searcher
from tests.reference import Game, random_positions

Memo = dict[tuple[tuple[int, ...], int], int]


def _score(game: Game, board: tuple[int, ...], mover: int, memo: Memo) -> int:
    """The exact score (the kernel's scale: WS - d a win in d plies, d - WS a loss, 0 a draw)
    of `board` for `mover` (1 or 2) moving next, whatever the counts of stones."""
    key = (board, mover)
    if key not in memo:
        if game.wins(board, 3 - mover):
            memo[key] = -WS
        elif 0 not in board:
            memo[key] = 0
        else:
            best = -WS - 1
            for c in (c for c, v in enumerate(board) if v == 0):
                child = _score(game, board[:c] + (mover,) + board[c + 1:], 3 - mover, memo)
                best = max(best, -child + 1 if child > 0 else -child - 1 if child < 0 else 0)
            memo[key] = best
    return memo[key]


@pytest.mark.parametrize("spec_text, stones", [("4x4k4", range(8, 12)), ("5x4k3", range(11, 15)),
                                               ("6x3k3", range(8, 12))])
def test_every_depth_zone_holds_in_the_plain_negamax(spec_text: str, stones: range) -> None:
    """Each null window at a win within d, and at a loss within d, for d about the position's
    exact depth: the bound returned holds, and holds again with extra stones of the side the
    proof is against on random cells outside its zone (none, all, some)."""
    game, spec = Game(spec_text), parse_spec(spec_text)
    arrays, rng, memo = Board(spec, slots_log2=14), random.Random(3), {}
    arrays.ctl[control.LIMIT] = 1 << 60
    zones = checked = 0
    for board in random_positions(game, stones, 12, seed=9):
        me = 1 if game.stones(board) % 2 == 0 else 2
        exact = _score(game, board, me, memo)
        depth = WS - abs(exact) if exact else game.n - game.stones(board)
        for d in range(max(1, depth - 3), depth + 3):
            for a, b in ((WS - d - 1, WS - d), (-(WS - d), -(WS - d) + 1)):
                arrays.load(board)
                r = arrays.search(a, b)
                assert (exact <= r) if r <= a else (exact >= r), (board, a, r, exact)
                zone = arrays.root_zone
                if zone is None:
                    continue
                zones += 1
                loser = me if r <= a else 3 - me
                free = [c for c, v in enumerate(board) if v == 0 and not zone >> c & 1]
                for size in {0, len(free), rng.randint(0, len(free))}:
                    extra = list(board)
                    for c in rng.sample(free, size):
                        extra[c] = loser
                    held = _score(game, tuple(extra), me, memo)
                    assert (held <= r) if r <= a else (held >= r), (board, zone, extra, r)
                    checked += 1
    assert zones >= 30 and checked >= 60, (zones, checked)


@pytest.mark.parametrize("spec_text, stones, count", [("6x4k4", range(13, 16), 6),
                                                      ("7x4k4", range(18, 20), 3)])
def test_strip_depths_equal_the_plain_search(spec_text: str, stones: range, count: int) -> None:
    """Whole solves of four-in-a-row strips (value and depth) with zones, as without any proof
    without search (PLAIN) and as the plain negamax, one searcher each for all positions."""
    game, spec = Game(spec_text), parse_spec(spec_text)
    zoned, plain, memo = Searcher(spec, slots_log2=16), Searcher(spec, slots_log2=16,
                                                                 proofs=PLAIN), {}
    for board in random_positions(game, stones, count, seed=4):
        exact = _score(game, board, 1 if game.stones(board) % 2 == 0 else 2, memo)
        want = (1 if exact > 0 else -1 if exact < 0 else 0,
                WS - abs(exact) if exact else game.n - game.stones(board))
        for searcher in (zoned, plain):
            s = searcher.solve(board)
            assert s.value is not None and (int(s.value), s.depth) == want, board
