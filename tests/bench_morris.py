"""`make bench SECTION=morris`: morris games (builder/games/morris/). Every position of the
larger small games against tests/reference_morris.py's plain solver (value and depth, each
through `probe`, the plain solver timed beside the build); six men's morris whole built as a
user builds it (`tablebase build six-mens-morris`, a child process: wall and CPU seconds, peak
memory, the file's size and bits a position), probe and moves p50 on its positions; nine
men's morris's bound, which the build refuses before it starts.

Run: python tests/bench_morris.py [--skip-exact] [--skip-whole] [--nine]
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EXACT = ("six-mens-morris+stones4",)
# The plain solver keys positions by their text and keeps every edge: nine men's morris with
# three stones (5.8 million positions, about 54 moves each: flying) outgrows it (more than 15
# minutes and gigabytes, unfinished); --nine asks for it all the same.
NINE = "nine-mens-morris+stones3"
WHOLE = "six-mens-morris"
PROBES = 2000
WORDS = {1: "win", 0: "draw", -1: "loss"}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablebase", *args], capture_output=True,
                          text=True, check=True)


def _exact(spec: str, db: str) -> None:
    """Every position of `spec`, value and depth, against the plain solver."""
    from tablebase import open_tablebase
    from tests.reference_morris import MorrisGame as PlainMorris
    start = time.perf_counter()
    _cli("build", spec, "--db", db, "--quiet")
    ours = time.perf_counter() - start
    start = time.perf_counter()
    truth = PlainMorris(spec).solve()
    plain = time.perf_counter() - start
    wrong = 0
    with open_tablebase(db) as tb:
        answers = tb.game(spec)
        for text, (value, depth) in truth.items():
            probe = answers.probe(text)
            wrong += (probe.value.word, probe.depth) != (WORDS[value], depth)
    print(f"  {spec:<26} {len(truth):>11,} positions  ours {ours:7.1f} s  plain {plain:7.1f} s"
          f"  differing: {wrong}")


def _nine_rules(db: str, sample: int = 20000) -> None:
    """Nine men's morris with three stones, where the plain solver cannot go: the table built,
    `verify` (every value and depth re-derived from its moves), and the moves of positions of
    random games against the plain solver's rules (tests/reference_morris.py), name by name."""
    from tablebase import open_tablebase
    from tests.reference_morris import MorrisGame as PlainMorris
    start = time.perf_counter()
    _cli("build", NINE, "--db", db, "--quiet")
    built = time.perf_counter() - start
    start = time.perf_counter()
    verified = _cli("verify", NINE, "--db", db).stdout.splitlines()[0]
    checked = time.perf_counter() - start
    plain, rng, differing = PlainMorris(NINE), random.Random(2), 0
    with open_tablebase(db) as tb:
        answers = tb.game(NINE)
        text = None
        for _ in range(sample):
            moves = answers.moves(text)[1]
            here = answers.probe(text).position
            if {(m.move, m.position) for m in moves} != set(plain.moves(here)):
                differing += 1
            text = rng.choice(moves).position if moves and rng.random() > 0.01 else None
    print(f"  {NINE}: built in {built:.1f} s; verify {checked:.1f} s: {verified}")
    print(f"  {NINE}: {sample:,} positions of random games, moves against the plain rules:"
          f" differing {differing}")


def _whole(db: str) -> None:
    """Six men's morris as a user builds it, then probe and moves p50 on its positions."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "tablebase",
                           "build", WHOLE, "--db", db, "--quiet"], capture_output=True,
                          text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    peak = int(done.stderr.strip().splitlines()[-1]) * 1024
    size = os.path.getsize(db)
    from tablebase import open_tablebase
    with open_tablebase(db) as tb:
        answers = tb.game(WHOLE)
        table = answers.tables()[0]
        start_probe = answers.probe(None)
        rng = random.Random(1)
        texts, text = [], None
        while len(texts) < PROBES:  # positions of random games from the start
            probe, moves = answers.moves(text)
            if not moves or rng.random() < 0.02:
                text = None
                continue
            text = rng.choice(moves).position
            texts.append(text)
        probe_times, move_times = [], []
        for t in texts:
            a = time.perf_counter()
            answers.probe(t)
            b = time.perf_counter()
            answers.moves(t)
            move_times.append(time.perf_counter() - b)
            probe_times.append(b - a)
    probe_times.sort()
    move_times.sort()
    print(f"  {WHOLE}: {table.canonical:,} stored, {table.reachable:,} in their orbits;"
          f" start {start_probe}")
    print(f"  build: {wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak / 2**30:.2f} GiB;"
          f" file {size / 2**20:.1f} MiB, {size * 8 / table.canonical:.2f} bits a stored position")
    print(f"  probe p50 {probe_times[PROBES // 2] * 1e6:.0f} us, moves p50"
          f" {move_times[PROBES // 2] * 1e3:.2f} ms ({PROBES:,} positions of random games)")


def bench_morris(skip_exact: bool = False, skip_whole: bool = False, nine: bool = False) -> None:
    """The morris section of `make bench`."""
    print("morris: the larger small games against the plain solver, six men's morris whole")
    with tempfile.TemporaryDirectory() as tmp:
        if not skip_exact:
            for spec in EXACT + ((NINE,) if nine else ()):
                _exact(spec, os.path.join(tmp, f"{spec}.db"))
            if not nine:
                _nine_rules(os.path.join(tmp, "nine3.db"))
        if not skip_whole:
            _whole(os.path.join(tmp, "six.db"))
    from tablebase.builder.games.registry import keyed_game
    game = keyed_game("nine-mens-morris")
    assert game is not None
    print(f"  nine-mens-morris: at most {game.positions_at_most():,} positions: refused before"
          " its walk on this machine")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-exact", action="store_true")
    parser.add_argument("--skip-whole", action="store_true")
    parser.add_argument("--nine", action="store_true", help=f"{NINE} against the plain solver too")
    options = parser.parse_args()
    bench_morris(options.skip_exact, options.skip_whole, options.nine)
