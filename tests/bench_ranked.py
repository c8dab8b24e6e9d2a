"""`make bench SECTION=ranked`: morris games built by `tablebase build` (ranked tiers,
builder/ranked_table.py, stored by tier and index) beside the same games walked and stored by
their positions' text, in the same run: each build's wall seconds, the start's value and depth
from both, positions of random games answered by both (value and depth), each file's size and
its probe and moves p50; then the tiers of nine men's morris whole in
a folder kept between runs (--nine DIR): each finished tier's figures, and the build resumed
for --minutes more (0: only the figures). With --out-of-core TIER, only that tier of --nine,
solved in memory and out of core under --memory GiB (in the memory cgroup --cgroup DIR where
given).

Run: python tests/bench_ranked.py [--games SPEC ...] [--nine DIR] [--minutes M]
     [--out-of-core TIER [--memory GIB] [--cgroup DIR]]
(nine-mens-morris+stones4 as a game: its walk takes some ten minutes and 12 GiB)
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
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


def _walked(spec: str, db: str) -> float:
    """Seconds to build `spec` the other way, walked and stored by its positions' text (a
    class with no ranked tiers: builder/graph_build.py), in a child process as a user would."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", (
        "import sys; from tablebase.builder.games.morris.game import MorrisGame;"
        " from tablebase.builder.games.user.adapter import ClassGame;"
        " from tablebase.builder.graph_build import build_game\n"
        "class Walked(MorrisGame):\n    ranked = None\n"
        "build_game(ClassGame(Walked(sys.argv[1]), 'Walked', sys.argv[1]), sys.argv[2],"
        " memory_budget=20 << 30)"), spec, db], check=True)
    return time.perf_counter() - start


def _p50(answers: object, texts: list[str], what: str) -> float:
    ask = getattr(answers, what)
    times = []
    for text in texts:
        start = time.perf_counter()
        ask(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def _beside(spec: str, tmp: str) -> None:
    """`tablebase build SPEC` (ranked tiers, stored by tier and index) beside the same game
    walked and stored by its positions' text: build times, the start, random positions'
    answers compared, probe and moves p50 from each."""
    from tablebase import open_tablebase
    tiered, keyed = os.path.join(tmp, f"{spec}.tiered.db"), os.path.join(tmp, f"{spec}.keyed.db")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tablebase", "build", spec, "--db", tiered, "--quiet"],
                   check=True, capture_output=True)
    ranked = time.perf_counter() - start
    walked = _walked(spec, keyed)
    rng, text, differing, texts = random.Random(3), None, 0, []
    with open_tablebase(tiered) as a, open_tablebase(keyed) as b:
        ours, theirs = a.game(spec), b.game(spec)
        starts = [(p.value.word, p.depth) for p in (ours.probe(None), theirs.probe(None))]
        while len(texts) < SAMPLE:
            probe, moves = ours.moves(text)
            other = theirs.probe(probe.position)
            differing += (probe.value, probe.depth) != (other.value, other.depth)
            texts.append(probe.position)
            text = rng.choice(moves).position if moves and rng.random() > 0.02 else None
        rng.shuffle(texts)
        asked = texts[:2000]
        speeds = {name: (_p50(x, asked, "probe"), _p50(x, asked, "moves"))
                  for name, x in (("tiered", ours), ("keyed", theirs))}
    sizes = {name: os.path.getsize(db) for name, db in (("tiered", tiered), ("keyed", keyed))}
    print(f"  {spec}: tablebase build (ranked tiers) {ranked:.1f} s, walked {walked:.1f} s"
          f" ({walked / ranked:.1f}x); start {starts[0]} and {starts[1]}")
    print(f"    {len(texts):,} positions of random games answered by both: differing"
          f" {differing}")
    for name in ("tiered", "keyed"):
        print(f"    {name}: file {sizes[name]:,} bytes, probe p50 {speeds[name][0]:.0f} us,"
              f" moves p50 {speeds[name][1]:.0f} us")


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


def _nine_table(folder: Path, tmp: str) -> None:
    """The tiers of nine men's morris finished in `folder`, stored as the tiered table a
    build makes (a file here, for this bench alone: the game is not whole), and 2,000
    positions drawn at random from them probed and their moves listed through the public
    answers; the file's bits a position."""
    from tablebase import open_tablebase
    from tablebase.builder.games.morris.game import MorrisGame
    from tablebase.builder.ranked_build import read_manifest
    from tablebase.builder.ranked_table import TABLE_LAYOUT, tier_counts, write_tiers
    from tablebase.db.keyed_writer import open_keyed_build
    from tablebase.db.records import GameParams, GameSummary
    game = MorrisGame("nine-mens-morris")
    tiers = game.ranked()
    done = read_manifest(folder, tiers.name)
    # Movement tiers alone: a position's moves stay among them (placement tiers read these).
    figures = [f for f in done.values() if "+" not in f.name]
    db = os.path.join(tmp, "nine.db")
    start = time.perf_counter()
    with open_keyed_build(db, GameParams(game.name, 0, 0, 0, False, False, "", keyed=True),
                          force=True, layout=TABLE_LAYOUT) as build:
        checksum, lost = write_tiers(build, folder, figures)
        build.finish(GameSummary(sum(f.positions for f in figures), sum(f.size for f in figures),
                                 sum(lost), sum(lost), sum(f.wins for f in figures),
                                 sum(f.draws for f in figures), sum(f.losses for f in figures),
                                 0, -1, "bench", 0.0, {}, checksum), tier_counts(figures, lost))
    written = time.perf_counter() - start
    rng = random.Random(7)
    texts = []
    while len(texts) < 2000:
        f = rng.choice(figures)
        position = tiers.position(f.name, rng.randrange(f.size))
        if position is not None:
            texts.append(game.text(position))
    with open_tablebase(db) as tb:
        answers = tb.game(game.name)
        probe, moves = _p50(answers, texts, "probe"), _p50(answers, texts, "moves")
    indices = sum(f.size for f in figures)
    print(f"  nine-mens-morris: {len(figures)} movement tiers ({indices:,} indices) stored in"
          f" {written:.0f} s: file {os.path.getsize(db):,} bytes,"
          f" {8 * os.path.getsize(db) / indices:.2f} bits an index; random positions of them:"
          f" probe p50 {probe:.0f} us, moves p50 {moves:.0f} us")


def _out_of_core(folder: Path, name: str, memory: float, cgroup: str | None) -> None:
    """Tier `name` of nine men's morris solved by build_tiers, in a child process as a build
    runs it (a folder of hard links to `folder`'s tiers before it, so that it alone is left),
    in memory (a budget of 20 GiB) then out of core (`memory` GiB; the child in the memory
    cgroup `cgroup` where given, whose limit holds it to that): wall seconds, positions a
    second, the child's peak resident memory, and whether both wrote the same file."""
    from tablebase.builder import ranked_build
    from tablebase.builder.games.morris.game import MorrisGame
    tiers = MorrisGame("nine-mens-morris").ranked()
    done = ranked_build.read_manifest(folder, tiers.name)
    order = [t.name for t in tiers.ranked_tiers()]
    before = order[:order.index(name)]
    if any(n not in done for n in before):
        print(f"  out of core: tier {name} needs the tiers before it finished in {folder}")
        return
    digests = []
    for label, budget, join in (("in memory", 20 << 30, None),
                                (f"out of core, {memory:g} GiB", int(memory * 2**30), cgroup)):
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            for n in before:
                os.link(ranked_build.tier_path(folder, n), ranked_build.tier_path(Path(tmp), n))
            ranked_build._write_manifest(Path(tmp), tiers.name, {n: done[n] for n in before})
            start = time.perf_counter()
            child = subprocess.Popen([sys.executable, "-c", (
                "import sys; from pathlib import Path;"
                " from tablebase.builder.games.morris.game import MorrisGame;"
                " from tablebase.builder.ranked_build import build_tiers;"
                " build_tiers(MorrisGame('nine-mens-morris').ranked(), Path(sys.argv[1]),"
                " int(sys.argv[2]), until=sys.argv[3])"), tmp, str(budget), name],
                preexec_fn=None if join is None else (
                    lambda: Path(join, "cgroup.procs").write_text(str(os.getpid()))))
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - start
            if status != 0:
                print(f"  {name} {label}: the build failed ({status})")
                return
            f = ranked_build.read_manifest(Path(tmp), tiers.name)[name]
            digests.append(f.digest)
            print(f"  {name} {label}: {f.size:,} positions in {wall:.0f} s wall"
                  f" ({f.seconds:.0f} s solving and writing, {f.size / f.seconds:,.0f} a"
                  f" second), peak resident {usage.ru_maxrss / 2**20:.2f} GiB")
    print(f"  the same tier file both ways: {digests[0] == digests[1]}")


def bench_ranked(nine: str | None = None, minutes: float = 0,
                 games: tuple[str, ...] = GAMES, out_of_core: str | None = None,
                 memory: float = 4, cgroup: str | None = None) -> None:
    """The ranked section of `make bench`."""
    if nine is not None and out_of_core is not None:
        print("ranked: a tier of nine men's morris in memory and out of core")
        _out_of_core(Path(nine), out_of_core, memory, cgroup)
        return
    print("ranked: morris games as ranked tiers beside the same games walked")
    with tempfile.TemporaryDirectory() as tmp:
        for spec in games:
            _beside(spec, tmp)
    if nine is not None:
        _nine(Path(nine), minutes)
        with tempfile.TemporaryDirectory(dir=nine) as tmp:  # beside the tiers: room for them
            _nine_table(Path(nine), tmp)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--nine", metavar="DIR", help="nine men's morris's tiers, kept here")
    parser.add_argument("--minutes", type=float, default=0, help="resume its build this long")
    parser.add_argument("--out-of-core", metavar="TIER",
                        help="solve this tier of --nine in memory, then out of core")
    parser.add_argument("--memory", type=float, default=4, help="out of core: GiB of budget")
    parser.add_argument("--cgroup", metavar="DIR", help="out of core: a memory cgroup to join")
    options = parser.parse_args()
    bench_ranked(options.nine, options.minutes, tuple(options.games), options.out_of_core,
                 options.memory, options.cgroup)
