"""A built table checked against tests/reference.py's plain negamax on positions reached by
random play: value and depth of each, through the public probe. Independent of the builder
(the positions come from the plain rules, the answers from the plain search), so it can check
tables too large to compare whole, such as Connect Four 7x4 and 6x5:

    python tests/sample_check.py 7x4k4+gravity --db c4.db --positions 10000 --min-stones 14

A position has at least --min-stones stones (so that the plain search finishes), its ply drawn
uniformly from there to the full board; a random game that ends sooner gives its final
position, or is drawn again when that has too few stones. Prints one line per ply and a summary;
exit status 1 on any disagreement.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablebase import open_tablebase  # noqa: E402
from tests.reference import Game  # noqa: E402


def random_position(game: Game, stones: int, rng: random.Random) -> tuple[int, ...]:
    """The board after random legal moves from the empty board: `stones` of them, or fewer
    where the game ends first."""
    board = tuple([0] * game.n)
    for _ in range(stones):
        moves = game.moves(board)
        if not moves:
            break
        board = game.child(board, rng.choice(moves))
    return board


def check_sample(db: str, spec: str, positions: int, min_stones: int, seed: int = 0,
                 report: bool = False) -> tuple[Counter[int], list[str]]:
    """(positions checked by ply, a line for each disagreement) of a random sample; with
    `report`, a line on stderr every thousand positions."""
    game, rng = Game(spec), random.Random(seed)
    checked: Counter[int] = Counter()
    wrong: list[str] = []
    started, said = time.perf_counter(), 0
    with open_tablebase(db) as tb:
        while sum(checked.values()) < positions:
            done = sum(checked.values())
            if report and done >= said + 1000:
                said = done
                print(f"  {done:,} checked, {time.perf_counter() - started:,.0f} s",
                      file=sys.stderr, flush=True)
            board = random_position(game, rng.randint(min_stones, game.n), rng)
            if sum(1 for v in board if v) < min_stones:
                continue  # ended early: too few stones for the plain search, drawn again
            value, depth = game.solve(board)
            probe = tb.probe(spec, board)
            checked[probe.ply] += 1
            if (int(probe.value), probe.depth) != (value, depth):
                wrong.append(f"{board}: table {int(probe.value)} in {probe.depth},"
                             f" negamax {value} in {depth}")
            if game.solve.cache_info().currsize > 5_000_000:
                game.solve.cache_clear()  # bounded memory on long runs
    return checked, wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec")
    parser.add_argument("--db", required=True)
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--min-stones", type=int, default=14)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    checked, wrong = check_sample(args.db, args.spec, args.positions, args.min_stones, args.seed,
                                  report=True)
    for ply in sorted(checked):
        print(f"  {ply:>3} stones: {checked[ply]:>6,}")
    total = sum(checked.values())
    print(f"{args.spec}: {total:,} positions checked against the plain negamax in"
          f" {time.perf_counter() - started:,.0f} s: "
          + ("all agree (value and depth)" if not wrong else f"{len(wrong):,} DISAGREE"))
    for line in wrong[:20]:
        print("  " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
