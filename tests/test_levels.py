"""Graded play: level 10 only plays best moves (checked against tests/reference.py's negamax on
every tic-tac-toe position), level 0 loses to it, and strength rises with the level, in
expectation (a plain recursion over the documented mixture) and in the bench's games."""
from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import lru_cache

import pytest

from tablebase.builder.games.errors import IllegalMoveError
from tablebase.query import Tablebase, open_tablebase
from tablebase.query.cli import main
from tablebase.query.play.levels import LevelError, choose_move, move_odds, pick
from tablebase.query.play.terminal import play_game
from tests.bench_levels import level_scores, play_out
from tests.reference import DRAW, Game, better, shared_game


@pytest.fixture(scope="module")
def tb(table_db: Callable[[str], str]) -> Iterator[Tablebase]:
    table_db("3x3k3")
    with open_tablebase(table_db("4x3k3")) as opened:
        yield opened


@lru_cache(maxsize=None)
def best_cells(game: Game, board: tuple[int, ...]) -> frozenset[int]:
    """The moves keeping the reference negamax's value and depth (fastest win, slowest loss)."""
    outcomes = {m: (-game.solve(game.child(board, m))[0], game.solve(game.child(board, m))[1] + 1)
                for m in game.moves(board)}
    top = next(iter(outcomes.values()))
    for o in outcomes.values():
        if better(o, top):
            top = o
    return frozenset(m for m, o in outcomes.items() if o == top)


def test_level_10_only_plays_best_moves_on_every_tictactoe_position(tb: Tablebase) -> None:
    game = shared_game("3x3k3")
    rng = random.Random(5)
    boards = [b for b in game.reachable() if game.moves(b)]
    assert len(boards) == 5478 - 958
    for board in boards:
        best = best_cells(game, board)
        assert choose_move(tb, "3x3k3", board, 10, rng).cell in best
        assert choose_move(tb, "3x3k3", board, 10).cell == min(best)  # no rng: the first
    # Random among equals: from the empty board every move draws, and several get played.
    empty = (0,) * 9
    assert len({choose_move(tb, "3x3k3", empty, 10, rng).cell for _ in range(60)}) > 3


def test_level_0_loses_to_level_10_in_most_games(tb: Tablebase) -> None:
    rng = random.Random(11)
    for spec in ("3x3k3", "4x3k3"):
        results = [play_out(tb, spec, 0, game % 2 == 0, rng) for game in range(200)]
        assert results.count(0.0) > 100, spec
        if spec == "3x3k3":
            assert 1.0 not in results  # a draw: level 10 never loses it


def test_odds_are_the_documented_mixture(tb: Tablebase) -> None:
    game = shared_game("3x3k3")
    board = (1, 2, 0, 0, 0, 0, 0, 0, 0)  # x a3, o b3: x wins, with some of its 7 moves
    moves = tb.moves("3x3k3", board)
    best = best_cells(game, board)
    assert 0 < len(best) < len(moves)
    for level in range(11):
        odds = move_odds(moves, level)
        assert sum(odds.values()) == 1
        for cell, p in odds.items():
            assert p == (Fraction(10 - level, 10) / len(moves)
                         + (Fraction(level, 10) / len(best) if cell in best else 0))
    # Drawn frequencies agree with the odds (within five standard errors).
    rng = random.Random(2)
    draws = 6000
    for level in (0, 3, 7):
        counts = dict.fromkeys(odds, 0)
        for _ in range(draws):
            counts[pick(moves, level, rng).cell] += 1
        for cell, p in move_odds(moves, level).items():
            spread = 5 * (float(p) * (1 - float(p)) / draws) ** 0.5
            assert abs(counts[cell] / draws - float(p)) < spread, (level, cell)


@lru_cache(maxsize=None)
def _graph(game: Game) -> dict[tuple[int, ...], tuple[int, list[tuple[tuple[int, ...], bool]]]]:
    """board -> (mover, [(child, whether the move is best)]) for every unfinished position."""
    return {b: (1 if game.stones(b) % 2 == 0 else 2,
                [(game.child(b, m), m in best_cells(game, b)) for m in game.moves(b)])
            for b in game.reachable() if game.moves(b)}


def expected_score(game: Game, level: int, side: int) -> float:
    """The expected score of a player of `level` playing `side` against level 10 from the
    empty board, by plain recursion over the documented mixture and the reference negamax
    (in floats: the steps between levels are thousands of times their rounding errors)."""
    graph = _graph(game)

    @lru_cache(maxsize=None)
    def score(board: tuple[int, ...]) -> float:
        if board not in graph:
            end = game.terminal_value(board)
            mover = 1 if game.stones(board) % 2 == 0 else 2
            if end == DRAW:
                return 0.5
            return 1.0 if (end == 1) == (mover == side) else 0.0
        mover, children = graph[board]
        p = (level if mover == side else 10) / 10
        best = sum(1 for _, is_best in children if is_best)
        return sum(((1 - p) / len(children) + (p / best if is_best else 0)) * score(child)
                   for child, is_best in children)
    return score(tuple([0] * game.n))


def test_expected_score_rises_strictly_with_the_level() -> None:
    game = shared_game("3x3k3")
    for side in (1, 2):
        curve = [expected_score(game, level, side) for level in range(11)]
        assert curve[10] == pytest.approx(0.5)  # perfect against perfect: a draw
        assert all(a + 1e-9 < b for a, b in zip(curve, curve[1:])), curve


def test_the_bench_curve_is_monotone(tb: Tablebase) -> None:
    for spec in ("3x3k3", "4x3k3"):
        scores = level_scores(tb, spec, 150, levels=(0, 4, 7, 10), seed=1)
        curve = [scores[level] for level in (0, 4, 7, 10)]
        assert curve == sorted(curve) and curve[0] < curve[-1] == 0.5, (spec, curve)


def test_bad_levels_and_finished_games(tb: Tablebase) -> None:
    for level in (-1, 11, 2.5, True):
        with pytest.raises(LevelError):
            choose_move(tb, "3x3k3", "...../...", level)  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="the game is over"):
        choose_move(tb, "3x3k3", "xxx/oo./...", 5, random.Random(1))


def test_genmove_and_play_level_on_the_command_line(
        tb: Tablebase, capsys: pytest.CaptureFixture[str]) -> None:
    db = tb.db
    game = shared_game("3x3k3")
    board = (1, 0, 0, 0, 2, 0, 0, 0, 0)
    names = {c: f"{'abc'[c % 3]}{3 - c // 3}" for c in range(9)}
    for seed in range(5):
        assert main(["genmove", "3x3k3", "x../.o./...", "--level", "10", "--seed", str(seed),
                     "--db", db, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["best"] is True and data["level"] == 10 and data["to_move"] == "x"
        assert data["move"] in {names[c] for c in best_cells(game, board)}
    assert main(["genmove", "3x3k3", "--level", "0", "--seed", "1", "--db", db]) == 0
    assert capsys.readouterr().out.strip() in names.values()
    assert main(["genmove", "3x3k3", "--level", "12", "--db", db]) == 2
    assert main(["genmove", "3x3k3", "xxx/oo./...", "--db", db]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "0 (random) to 10 (perfect)" in err[0] and "over" in err[1]

    out: list[str] = []
    record = play_game(tb, "3x3k3", "o", read=lambda _: "quit", write=out.append,
                       rng=random.Random(4), level=0)
    assert "the computer plays at level 0 of 10" in out[0] and record.result == "quit"
    assert len(record.moves) == 1
