"""`make bench`, levels section: each level 0..10 against level 10 over many games of
tic-tac-toe and 4x3k3, half of them as x and half as o; the score per level (win 1, draw 1/2).
Run alone: python tests/bench_levels.py [--games N]"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablebase.builder.games.grid.boards import place  # noqa: E402
from tablebase.builder.games.grid.notation import empty_board  # noqa: E402
from tablebase.query.play.levels import MAX_LEVEL, choose_move  # noqa: E402
from tablebase.query.tablebase import Tablebase, open_tablebase  # noqa: E402

LEVEL_SPECS = ["3x3k3", "4x3k3"]


def play_out(tb: Tablebase, spec: str, level: int, as_x: bool, rng: random.Random) -> float:
    """One game of a player of `level` against level 10 from the empty board; its score."""
    board = empty_board(tb.spec(spec))
    mine = 0 if as_x else 1  # the ply parity at which the level player moves
    ply = 0
    while True:
        probe = tb.probe(spec, board)
        if probe.terminal:
            if probe.value == 0:
                return 0.5
            # The side to move at the end won (misere) or lost; it is the level player's turn
            # exactly when the ply parity is its own.
            to_move_is_mine = ply % 2 == mine
            return 1.0 if (probe.value > 0) == to_move_is_mine else 0.0
        who = level if ply % 2 == mine else MAX_LEVEL
        board = place(board, choose_move(tb, spec, board, who, rng).cell)
        ply += 1


def level_scores(tb: Tablebase, spec: str, games: int, levels: Sequence[int] = range(11),
                 seed: int = 0) -> dict[int, float]:
    """Mean score of each level against level 10 over `games` games (alternating x and o)."""
    scores = {}
    for level in levels:
        rng = random.Random(f"{seed}/{spec}/{level}")
        total = sum(play_out(tb, spec, level, game % 2 == 0, rng) for game in range(games))
        scores[level] = total / games
    return scores


def bench_levels(games: int = 1000) -> None:
    """Print the score table of each level against level 10."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.pipeline import build

    print(f"levels: each level against level 10, {games:,} games per cell (half as x, half as o);"
          " mean score of the level (win 1, draw 0.5, loss 0)")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.db")
        for spec in LEVEL_SPECS:
            build(parse_spec(spec), path)
        start = time.perf_counter()
        with open_tablebase(path) as tb:
            table = {spec: level_scores(tb, spec, games) for spec in LEVEL_SPECS}
        seconds = time.perf_counter() - start
    print(f"  {'level':>5}" + "".join(f"{spec:>10}" for spec in LEVEL_SPECS))
    for level in range(MAX_LEVEL + 1):
        print(f"  {level:>5}" + "".join(f"{table[spec][level]:>10.3f}" for spec in LEVEL_SPECS))
    monotone = all(all(t[a] <= t[a + 1] for a in range(MAX_LEVEL)) for t in table.values())
    print(f"  monotone in the level: {'yes' if monotone else 'NO'};"
          f" {seconds:.1f} s for {games * 11 * len(LEVEL_SPECS):,} games")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    bench_levels(parser.parse_args().games)
