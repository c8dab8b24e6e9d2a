"""`make bench SECTION=ranked`: morris games solved as ranked tiers (builder/ranked_build.py
over builder/games/morris/tiers.py) beside the keyed tables a user builds today, in the same
run: each build's wall seconds, the start's value and depth from both, and positions of
random games answered by both (value and depth); then the tiers of nine men's morris whole in
a folder kept between runs (--nine DIR): each finished tier's figures, and the build resumed
for --minutes more (0: only the figures).

Run: python tests/bench_ranked.py [--games SPEC ...] [--nine DIR] [--minutes M]
(nine-mens-morris+stones4 as a game: its keyed build takes some ten minutes and 12 GiB)
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GAMES = ("six-mens-morris", "nine-mens-morris+stones3")
SAMPLE = 20_000


def _outcome(score: int) -> tuple[str, int | None]:
    from tablebase.builder.games.ranked_tiers import RANKED_WIN
    if score == 0:
        return "draw", None
    return ("win", RANKED_WIN - score) if score > 0 else ("loss", RANKED_WIN + score)


def _beside(spec: str, tmp: str) -> None:
    """`spec` built both ways one after the other; their answers compared."""
    from tablebase import open_tablebase
    from tablebase.builder.games.morris.game import MorrisGame
    from tablebase.builder.ranked_build import build_tiers, load_tier
    db = os.path.join(tmp, f"{spec}.db")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tablebase", "build", spec, "--db", db, "--quiet",
                    "--memory", "20"], check=True, capture_output=True)
    keyed = time.perf_counter() - start
    game = MorrisGame(spec)
    tiers = game.ranked()
    start = time.perf_counter()
    done = build_tiers(tiers, Path(tmp, spec), 20 << 30)
    ranked = time.perf_counter() - start
    scores = {name: load_tier(Path(tmp, spec), figures) for name, figures in done.items()}

    def ours(position: int) -> tuple[str, int | None]:
        name, index = tiers.locate(position)
        return _outcome(int(scores[name][index]))

    rng, text, differing, compared, over = random.Random(3), None, 0, 0, 0
    with open_tablebase(db) as tb:
        answers = tb.game(spec)
        first = answers.probe(None)
        both_starts = f"start: keyed {first.value.word} {first.depth}, ranked" \
                      f" {' '.join(map(str, ours(game.start())))}"
        while compared + over < SAMPLE:
            probe, moves = answers.moves(text)
            try:
                mine = ours(game.read(probe.position))
                compared += 1
                differing += mine != (probe.value.word, probe.depth)
            except ValueError:
                over += 1  # a side left with two stones: the game is over, stored nowhere
            text = rng.choice(moves).position if moves and rng.random() > 0.02 else None
    positions = sum(f.positions for f in done.values())
    print(f"  {spec}: keyed build {keyed:.1f} s, ranked {ranked:.1f} s ({keyed / ranked:.1f}x);"
          f" {positions:,} positions in {len(done)} tiers; {both_starts}")
    print(f"    {compared:,} positions of random games answered by both: differing {differing}"
          f" ({over:,} over by the count of stones)")


def _nine(folder: Path, minutes: float) -> None:
    """Nine men's morris whole: resume its tiers for `minutes`, then each tier's figures."""
    from tablebase.builder.games.morris.game import MorrisGame
    from tablebase.builder.ranked_build import read_manifest
    tiers = MorrisGame("nine-mens-morris").ranked()
    if minutes > 0:
        # The build runs in a child process, stopped when the time is up: a tier cut short is
        # not listed, and the next run solves it again.
        child = subprocess.Popen([sys.executable, "-c", (
            "import sys; from pathlib import Path;"
            " from tablebase.builder.games.morris.game import MorrisGame;"
            " from tablebase.builder.ranked_build import build_tiers;"
            " build_tiers(MorrisGame('nine-mens-morris').ranked(), Path(sys.argv[1]), 20 << 30)"),
            str(folder)])
        timer = threading.Timer(minutes * 60, child.terminate)
        timer.start()
        child.wait()
        timer.cancel()
    done = read_manifest(folder, tiers.name)
    all_tiers = tiers.ranked_tiers()
    print(f"  nine-mens-morris: {len(done)} of {len(all_tiers)} tiers finished in {folder}")
    print(f"    {'tier':<12} {'positions':>14} {'seconds':>8} {'pos/s':>10} {'won':>14}"
          f" {'drawn':>14} {'lost':>14}  deepest win/loss")
    for f in done.values():
        print(f"    {f.name:<12} {f.positions:>14,} {f.seconds:>8.1f} {f.size / f.seconds:>10,.0f}"
              f" {f.wins:>14,} {f.draws:>14,} {f.losses:>14,}  {f.deepest_win}/{f.deepest_loss}")
    total = sum(f.seconds for f in done.values())
    print(f"    total {sum(f.positions for f in done.values()):,} positions in {total:,.0f} s")


def bench_ranked(nine: str | None = None, minutes: float = 0,
                 games: tuple[str, ...] = GAMES) -> None:
    """The ranked section of `make bench`."""
    print("ranked: morris games as ranked tiers beside their keyed tables")
    with tempfile.TemporaryDirectory() as tmp:
        for spec in games:
            _beside(spec, tmp)
    if nine is not None:
        _nine(Path(nine), minutes)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--nine", metavar="DIR", help="nine men's morris's tiers, kept here")
    parser.add_argument("--minutes", type=float, default=0, help="resume its build this long")
    options = parser.parse_args()
    bench_ranked(options.nine, options.minutes, tuple(options.games))
