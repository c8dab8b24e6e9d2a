"""`make bench SECTION=moving`: games whose stones move. Every position of
4x4k4+stones4+square against tests/reference_moving.py's plain solver; Teeko built as a user
builds it (`tablebase build teeko`, a child process: its wall time, its peak memory, the whole
file's size and bits a position), probe and moves p50 on its positions; and, given the binary
of GamesCrafters' GamesmanOne, made by hand outside this repository (`--gamesman PATH` or
TABLEBASE_GAMESMAN; tests/bench_teeko_peer.py runs it), his `gamesman solve teeko 0` in the
same run, beside ours.

Run: python tests/bench_moving.py [--gamesman PATH] [--skip-exact]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EXACT_SPEC = "4x4k4+stones4+square"
PROBES = 2000
COLD = 100


def _exact() -> None:
    """Every position of EXACT_SPEC, value and depth, against the plain solver."""
    from tablebase import build, open_tablebase
    from tests.reference import Game
    from tests.reference_moving import DRAW, MovingGame
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "t.db")
        start = time.perf_counter()
        report = build(EXACT_SPEC, db)
        ours = time.perf_counter() - start
        with open_tablebase(db) as tb:
            stored = tb.table(EXACT_SPEC).load()
    table = dict(zip(stored.codes.tolist(), zip(stored.value.tolist(), stored.depth.tolist())))
    start = time.perf_counter()
    reference = MovingGame(EXACT_SPEC)
    solved = reference.solve_all()
    theirs = time.perf_counter() - start
    plain = Game(f"{reference.w}x{reference.h}k{reference.k}")
    wrong = missing = 0
    seen = set()
    for (board, side), (value, depth) in solved.items():
        moving = sum(1 for v in board if v) == 2 * reference.stones
        code = min(plain.code(image) for image in plain.images(board)) \
            + (3 ** plain.n if moving and side == 2 else 0)
        seen.add(code)
        got = table.get(code)
        if got is None:
            missing += 1
        elif got[0] != value or (value != DRAW and got[1] != depth):
            wrong += 1
    extra = len(set(table) - seen)
    print(f"  {EXACT_SPEC}: {len(solved):,} positions ({report.canonical:,} stored), built in"
          f" {ours:.1f} s; the plain solver {theirs:.0f} s; wrong {wrong}, missing {missing},"
          f" stored but not reached {extra}", flush=True)


def _build_teeko(db: str) -> tuple[float, float, int]:
    """Build Teeko with the command a user runs, in a child process measured as his is
    (tests/bench_teeko_peer.py): (wall seconds, CPU seconds, peak bytes)."""
    from tests.bench_teeko_peer import _measured
    command = [sys.executable, "-m", "tablebase", "build", "teeko", "--db", db, "--yes",
               "--quiet"]
    log = Path(db).with_suffix(".log")
    status, wall, cpu, peak = _measured(command, Path(db).parent, dict(os.environ), log, None)
    if status != 0:
        raise SystemExit(f"tablebase build teeko failed: {log.read_text()[-500:]}")
    return wall, cpu, peak


class Answers(NamedTuple):
    """Teeko's answer times (microseconds, p50) and what its table holds."""

    probe: float
    moves: float
    probe_cold: float  # the first COLD answers after opening: most decode their blocks
    moves_cold: float
    stored: int
    reachable: int
    start: str
    kept: int  # bytes of decoded blocks kept at the end


def _answers(db: str) -> Answers:
    """probe and moves p50 (microseconds) on stored Teeko positions, each read from its text
    with the side to move, over all PROBES and over the first COLD (the process's cache of
    decoded blocks empty at first: db/block_cache.py); the table's positions (stored, all
    images), the start's answer."""
    from tablebase import open_tablebase
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.notation import board_text
    from tablebase.builder.games.stones import rules as moving
    from tablebase.db.block_cache import blocks
    spec = parse_spec("teeko")
    with open_tablebase(db) as tb:
        record = tb.record("teeko")
        stored = tb.table("teeko").load()
        rng = random.Random(1)
        picks = [int(stored.codes[rng.randrange(len(stored.codes))]) for _ in range(PROBES)]
        texts = [board_text(spec, moving.position_of(spec, code)) for code in picks]
    del stored
    with open_tablebase(db) as tb:  # opened again: nothing decoded yet
        start_answer = str(tb.probe("teeko", ""))
        times: dict[str, list[float]] = {"probe": [], "moves": []}
        for text in texts:
            for name, ask in (("probe", tb.probe), ("moves", tb.moves)):
                t = time.perf_counter()
                ask("teeko", text)
                times[name].append(time.perf_counter() - t)
        kept = blocks.bytes

    def p50(values: list[float]) -> float:
        return sorted(values)[len(values) // 2] * 1e6
    return Answers(p50(times["probe"]), p50(times["moves"]), p50(times["probe"][:COLD]),
                   p50(times["moves"][:COLD]), record.canonical or 0, record.reachable or 0,
                   start_answer, kept)


def _print_answers(answers: Answers) -> None:
    from tablebase.db.block_cache import blocks
    print(f"  Teeko probe p50 {answers.probe:.0f} us, moves p50 {answers.moves:.0f} us"
          f" ({PROBES:,} stored positions at random, each read from its text, probe then"
          f" moves, one process; its first {COLD}, blocks decoded as first met: probe"
          f" {answers.probe_cold:.0f} us, moves {answers.moves_cold:.0f} us; decoded blocks"
          f" kept: {answers.kept / 2**20:.0f} MiB of {blocks.budget / 2**20:.0f})", flush=True)


def bench_moving(gamesman: str | None = None, exact: bool = True) -> None:
    """The section: exactness, Teeko ours, his beside it where given."""
    print("\n== games whose stones move ==", flush=True)
    if exact:
        _exact()
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "teeko.db")
        wall, cpu, peak = _build_teeko(db)
        size = sum(os.path.getsize(db + s) for s in ("", "-wal") if os.path.exists(db + s))
        answers = _answers(db)
    bits = 8 * size / answers.stored
    print(f"  Teeko (5x5k4+stones4+square), ours: {wall:.1f} s wall, {cpu:.0f} s CPU"
          " (`tablebase build teeko`),"
          f" peak {peak / 2**20:,.0f} MiB, {size / 1e6:.2f} MB whole file, {bits:.2f} bits a"
          f" position; {answers.stored:,} positions stored (one per orbit of 8 symmetries),"
          f" {answers.reachable:,} with every image, both sides to move counted; the start:"
          f" {answers.start}", flush=True)
    _print_answers(answers)
    from tests.bench_teeko_peer import gamesman_binary, missing_line, solve_teeko
    binary = gamesman_binary(gamesman)
    if binary is None:
        print(f"  GamesmanOne: not run: {missing_line(gamesman)}", flush=True)
        return
    with tempfile.TemporaryDirectory() as tmp:
        his = solve_teeko(binary, Path(tmp) / "gamesman")
    print(f"  Teeko, GamesmanOne ({his.threads} threads): {his.wall_seconds:.1f} s wall, "
          f"{his.cpu_seconds:.0f} s CPU ({his.solve_seconds} s solving by his count), peak"
          f" {his.peak_rss_bytes / 2**20:,.0f} MiB,"
          f" {his.database_bytes / 1e6:.2f} MB; {his.total_positions:,} positions in his tiers"
          f" (every placement of each tier's stones, both sides to move; he solves the canonical"
          f" ones); the start: {his.start_value}", flush=True)
    print(f"  ours / his: wall {wall / his.wall_seconds:.2f}x, CPU {cpu / his.cpu_seconds:.2f}x,"
          f" peak memory"
          f" {peak / his.peak_rss_bytes:.2f}x, file {size / his.database_bytes:.2f}x", flush=True)


def main() -> None:
    """Run the section alone."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gamesman", metavar="PATH", help="GamesmanOne's binary, built by hand"
                        " (default: $TABLEBASE_GAMESMAN)")
    parser.add_argument("--skip-exact", action="store_true",
                        help=f"skip {EXACT_SPEC} against the plain solver (minutes)")
    parser.add_argument("--answers", metavar="DB",
                        help="only time the answers, on a Teeko table already built in DB")
    args = parser.parse_args()
    if args.answers:
        _print_answers(_answers(args.answers))
        return
    bench_moving(args.gamesman, not args.skip_exact)


if __name__ == "__main__":
    main()
