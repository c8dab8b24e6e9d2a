"""The search's proofs without search (query/search/proofs.py) and the zones they prune with
(query/search/compiled_search.py), each against tests/reference.py's plain searches: dead lines, pairing
strategies, the zone of every proof that a side cannot win, and whole solves on positions
where they trigger; the empty 5x5k5 and 6x6k5 boards proved draws."""
from __future__ import annotations

import random

import numpy as np
import pytest

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.query.search import control
from tablebase.query.search.board import Board
from tablebase.query.search.masks import as_int
from tablebase.query.search.proofs import PAIRING_STEPS, cannot_win
from tablebase.query.search.searcher import Searcher
from tests.reference import FewEmpty, Game, can_force_line, parse, shared_game

WORDS = {1: Value.WIN, 0: Value.DRAW, -1: Value.LOSS}
def _positions(spec_text: str, stones: range, count: int, seed: int) -> list[tuple[int, ...]]:
    """`count` distinct positions of random games, not over, with a number of stones in
    `stones` (seeded)."""
    game, rng, found = shared_game(spec_text), random.Random(seed), set()
    while len(found) < count:
        board, target = tuple([0] * game.n), rng.choice(stones)
        for _ in range(target):
            moves = game.moves(board)
            if not moves:
                break
            board = game.child(board, rng.choice(moves))
        if game.stones(board) == target and game.terminal_value(board) is None:
            found.add(board)
    return sorted(found)


def _claim(arrays: Board, board: tuple[int, ...], player: int) -> tuple[bool, int]:
    """cannot_win for `player` (1 or 2) on `board`, through the search's arrays."""
    arrays.load(board)
    done, zone = cannot_win(player - 1, arrays.st, arrays.cnt, arrays.occupied, arrays.pairing,
                            PAIRING_STEPS)
    return bool(done), as_int(zone)


def test_pairings_of_the_empty_boards() -> None:
    """5x5k5: twelve disjoint pairs, one in each line (one cell left over); 7x7k5: none."""
    for text, paired in (("5x5k5", True), ("6x6k5", False), ("7x7k5", False), ("4x4k4", False)):
        spec = parse_spec(text)
        arrays = Board(spec, slots_log2=8)
        done, zone = _claim(arrays, (0,) * spec.cells, 1)
        assert done == paired, text
        if paired:
            assert bin(zone).count("1") == 24


@pytest.mark.parametrize("spec_text, stones", [("4x4k4", range(5, 13)), ("5x4k4", range(8, 16)),
                                               ("5x5k5", range(15, 22))])
def test_every_pairing_claim_holds_in_the_plain_search(spec_text: str, stones: range) -> None:
    """Where the search claims a side cannot complete a line, with either side to move, the
    plain search agrees: no forced line, even with extra stones on cells outside the pairs."""
    game, spec = shared_game(spec_text), parse_spec(spec_text)
    arrays, rng, memo = Board(spec, slots_log2=8), random.Random(5), {}
    claims = 0
    for board in _positions(spec_text, stones, 100, seed=len(spec_text) + stones.start):
        for player in (1, 2):
            done, zone = _claim(arrays, board, player)
            if not done:
                continue
            claims += 1
            free = [c for c, v in enumerate(board) if v == 0 and not zone >> c & 1]
            extra = list(board)
            for c in rng.sample(free, rng.randint(0, len(free))):
                extra[c] = player
            for to_move in (1, 2):
                assert not can_force_line(game, tuple(extra), player, to_move, memo), board
    assert claims >= 40


def test_dead_lines_are_a_draw_at_once() -> None:
    """No line open for either side: a draw, its depth the empty cells, with no search."""
    game = Game("4x4k4")
    #   x o . x
    #   o x . .     every row, column and diagonal holds an x and an o
    #   . . o x
    #   o . x o
    board = parse(game, "xo.x/ox../..ox/o.xo")
    assert game.solve(board) == (0, 6)
    s = Searcher(parse_spec("4x4k4"), slots_log2=10).solve(board)
    assert (s.value, s.depth, s.move is not None) == (Value.DRAW, 6, True)
    assert s.nodes < 20  # the root, once a null window, and the move's child: no search


def test_a_side_without_open_lines_cannot_win() -> None:
    """x to move has no open line left (o can still win): the search proves at most a draw at
    once, and the value and depth equal the plain negamax's."""
    game, spec = Game("4x4k4"), parse_spec("4x4k4")
    #   o x . .
    #   x . o .     x to move: every line holds an o
    #   . . x o
    #   . o . x
    board = parse(game, "ox../x.o./..xo/.o.x")
    arrays = Board(spec, slots_log2=10)
    assert _claim(arrays, board, 1) == (True, 0)
    value, depth = game.solve(board)
    s = Searcher(spec, slots_log2=10).solve(board)
    assert (s.value, s.depth) == (WORDS[value], depth)


@pytest.mark.parametrize("spec_text, stones, kinds_seen", [
    ("4x4k4", range(4, 11), 3), ("5x4k4", range(9, 14), 3),  # drawish: no loss with a zone
    ("5x4k3", range(8, 12), 4)])
def test_every_zone_holds_in_the_plain_search(spec_text: str, stones: range,
                                              kinds_seen: int) -> None:
    """The search's null windows (0, 1) and (-1, 0) return with what they prove (the side to
    move cannot win, or wins; the other side cannot win, or the side to move loses) the zone of
    that proof: extra stones, on any cells outside it, of the side the proof is against must
    leave the proof true (the rule the search prunes by). Checked with the plain search on
    random extra stones."""
    game, spec = shared_game(spec_text), parse_spec(spec_text)
    arrays, rng, memo = Board(spec, slots_log2=16), random.Random(11), {}
    arrays.ctl[control.LIMIT] = 1 << 60
    kinds: set[tuple[tuple[int, int], bool]] = set()
    zones = 0
    for board in _positions(spec_text, stones, 40, seed=3):
        me = 1 if game.stones(board) % 2 == 0 else 2
        for window in ((0, 1), (-1, 0)):
            arrays.load(board)
            score = arrays.search(*window)
            zone = arrays.root_zone
            # (0, 1): a win of the side to move, or none; (-1, 0): a loss, or none.
            winner = me if window == (0, 1) else 3 - me
            wins = score >= 1 if window == (0, 1) else score <= -1
            assert wins == can_force_line(game, board, winner, me, memo), board
            if zone is None:
                continue
            zones += 1
            kinds.add((window, wins))
            extra_side = 3 - winner if wins else winner  # the stones that must not matter
            free = [c for c, v in enumerate(board) if v == 0 and not zone >> c & 1]
            for size in {0, len(free), rng.randint(0, len(free))}:
                extra = list(board)
                for c in rng.sample(free, size):
                    extra[c] = extra_side
                assert can_force_line(game, tuple(extra), winner, me, memo) == wins, (board, zone)
    assert zones >= 30 and len(kinds) == kinds_seen


@pytest.mark.parametrize("spec_text, stones, count", [("4x4k4", range(6, 11), 20),
                                                      ("5x4k4", range(9, 14), 8),
                                                      ("5x5k5", range(14, 19), 6)])
def test_solve_equals_plain_negamax_where_the_proofs_trigger(spec_text: str, stones: range,
                                                             count: int) -> None:
    """Whole solves (value, depth, a move keeping them) against the plain negamax, one
    searcher for all (its table shared between positions), on positions where pairings and
    zones trigger. The negamax is tests/reference.py's over the empty cells (FewEmpty: the
    same plain negamax, keyed by those cells alone, in half its time or less)."""
    game, spec = shared_game(spec_text), parse_spec(spec_text)
    searcher = Searcher(spec, slots_log2=18)
    for board in _positions(spec_text, stones, count, seed=7):
        few = FewEmpty(game, board)
        value, depth = few.solve(board)
        s = searcher.solve(board)
        assert (s.value, s.depth) == (WORDS[value], depth), board
        if s.move is not None:
            child_value, child_depth = few.solve(game.child(board, s.move))
            assert (-child_value, child_depth + 1) == (value, depth), board
    assert searcher.arrays.ctl[control.PAIRED] > 0
    # Every bound the transposition table holds (a board in its key's orientation) contains
    # the board's exact score: a seeded sample of 90 entries (each a plain negamax).
    a, held = searcher.arrays, 0
    used = np.nonzero(a.tfl)[0]
    for slot in np.random.default_rng(7).permutation(used)[:90]:
        key = a.key(slot)
        assert key is not None
        kx, ko = key
        board = tuple(1 if kx >> c & 1 else 2 if ko >> c & 1 else 0 for c in range(game.n))
        if game.terminal_value(board) is None and game.stones(board) >= stones.start:
            value, depth = FewEmpty(game, board).solve(board)
            exact = value * (control.WS - depth)
            assert a.tlo[slot] <= exact <= a.thi[slot], (board, a.tlo[slot], a.thi[slot])
            held += 1
    assert held > min(count, 30)


@pytest.mark.parametrize("spec_text, cells", [("5x5k5", 25), ("6x6k5", 36)])
def test_empty_boards_proved_draws(spec_text: str, cells: int) -> None:
    """5x5k5 by pairings alone; 6x6k5 by one reply of o's (then pairings) to each x move."""
    s = Searcher(parse_spec(spec_text)).solve((0,) * cells)
    assert (s.value, s.depth) == (Value.DRAW, cells) and s.move is not None
    assert s.nodes < 10_000
