"""`make bench` search section, two of its parts (tests/bench_search.py runs them): the m,n,k
kernel's speed on boards of up to 64 cells by processor time (kernel-speed: a change to the
kernel is measured by it before and after), and boards past 64 cells (wide): the boards of
tests/search_positions/wide.txt against the plain negamax over their empty cells, 9x9k5
short wins from self-play against the plain AND/OR search, and the empty 9x9k5 board as a
user asks it (`tablebase solve 9x9k5 --time 10`: unknown, never a claim)."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tablebase.query.search.searcher import Budget, Searcher
from tests.search_sets import read_set

ROOT = Path(__file__).resolve().parents[1]
FAST_SECONDS = 1.0  # a short win is counted fast within this


def bench_kernel_speed(runs: int = 3) -> None:
    """Processor seconds of fixed searches on boards of up to 64 cells, the fastest of `runs`,
    each by a fresh searcher (no worker thread: a node budget or none)."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.boards import play_moves
    gomoku = parse_spec("7x7k5")
    Searcher(gomoku).solve(play_moves(gomoku, "d4"), Budget(nodes=1000))  # compile (or load) first
    boards = [play_moves(gomoku, moves) for moves in read_set("7x7k5.txt")]
    items = [
        ("8x8k5, 300,000 nodes", lambda: Searcher(parse_spec("8x8k5")).solve(
            (0,) * 64, Budget(nodes=300_000)).nodes),
        ("7x7k5 empty (draw)", lambda: Searcher(gomoku).solve((0,) * 49).nodes),
        ("6x5k4 empty (win)", lambda: Searcher(parse_spec("6x5k4")).solve((0,) * 30).nodes),
        (f"7x7k5 set, {len(boards)} wins", lambda: sum(Searcher(gomoku).solve(b).nodes
                                                        for b in boards)),
    ]
    for label, work in items:
        best, nodes = float("inf"), 0
        for _ in range(runs):
            start = time.process_time()
            nodes = work()
            best = min(best, time.process_time() - start)
        print(f"  {label:<22} {best:8.3f} cpu-s {nodes:>11,} nodes", flush=True)


WIDE_SECONDS = 10.0  # the empty 9x9k5 board's budget
# A self-play position is kept as a short win where a search of this many nodes proves one (a
# node budget, not seconds: the same positions on a busy machine as on an idle one).
WIDE_NODES = 100_000


def bench_wide(short_wins: int = 12) -> None:
    """Boards past 64 cells: the positions of wide.txt against the plain negamax, short wins on
    9x9k5 against the plain AND/OR search, and the empty 9x9k5 board within WIDE_SECONDS."""
    import random

    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.notation import move_name
    from tablebase.builder.games.grid.position_text import read_position
    from tests.reference import FewEmpty, Game, loses_within, wins_within
    from tests.search_sets import self_play
    Searcher(parse_spec("9x9k5")).solve((0,) * 81, Budget(nodes=1000))  # compile (or load) first
    print(f"{'board':<8} {'answer':<18} {'move':<5} {'nodes':>8} {'seconds':>8} {'plain':>7}"
          f" {'negamax':<10}")
    agree = total = 0
    for line in read_set("wide.txt"):
        name, text = line.split()
        spec, game = parse_spec(name), Game(name)
        board = tuple(read_position(spec, text).board)
        s = Searcher(spec).solve(board)
        start = time.perf_counter()
        few = FewEmpty(game, board)
        value, depth = few.solve(board)
        plain = time.perf_counter() - start
        ok = (s.value is not None and int(s.value) == value and s.depth == depth
              and s.move is not None and few.solve(game.child(board, s.move)) == (-value, depth - 1))
        agree += ok
        total += 1
        print(f"{name:<8} {s.known:<18} {move_name(spec, s.move) if s.move is not None else '-':<5}"
              f" {s.nodes:>8,} {s.seconds:>8.3f} {plain:>7.2f} {'agrees' if ok else 'DISAGREES':<10}",
              flush=True)
    print(f"boards past 64 cells with 12 empty cells: {agree} of {total} agree with the plain"
          " negamax (value, depth, and the move's child)")
    spec, game = parse_spec("9x9k5"), Game("9x9k5")
    searcher, rng, found, fast, right = Searcher(spec), random.Random(81), 0, 0, 0  # one to pick
    print(f"{'stones':>6} {'answer':<16} {'move':<5} {'nodes':>9} {'seconds':>8} {'plain search':<14}")
    tries = 0
    while found < short_wins and tries < 400:
        tries += 1
        cells = self_play(spec, rng, rng.randint(9, 13))
        if cells is None:
            continue
        board = [0] * spec.cells
        for i, c in enumerate(cells):
            board[c] = 1 if i % 2 == 0 else 2
        if searcher.solve(board, Budget(nodes=WIDE_NODES)).value is None:
            continue
        s = Searcher(spec).solve(board, Budget(seconds=30))  # timed alone, a table of its own
        if not (s.value is not None and s.value.word == "win" and s.depth is not None
                and 3 <= s.depth <= 9):
            continue
        found += 1
        fast += s.seconds <= FAST_SECONDS
        b = tuple(board)

        def choose(x):  # type: ignore[no-untyped-def]
            return searcher.solve(x).move  # the winner's moves, as the search picks them
        # After the move, every defence loses within depth - 1 (the winner's moves as chosen).
        ok = loses_within(game, game.child(b, s.move), s.depth - 1, choose)
        exact = (not wins_within(game, b, s.depth - 2)) if ok and s.depth <= 5 else None
        ok = ok and exact is not False
        right += ok
        verdict = ("agrees" if ok else "DISAGREES") + (" (depth too)" if exact else "")
        print(f"{len(cells):>6} {s.known:<16} {move_name(spec, s.move):<5} {s.nodes:>9,}"
              f" {s.seconds:>8.3f} {verdict:<14}", flush=True)
    print(f"9x9k5 short wins (self-play, 9-13 stones, {tries} tried): {fast} of {found} within"
          f" {FAST_SECONDS:g} s;"
          f" {right} of {found} agree with the plain search (value and move)")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tablebase", "solve", "9x9k5", "--time",
                           f"{WIDE_SECONDS:g}"], capture_output=True, text=True, cwd=ROOT)
    print(f"  $ tablebase solve 9x9k5 --time {WIDE_SECONDS:g}   ({time.perf_counter() - start:.2f} s"
          f" wall, exit {done.returncode})")
    for out in done.stdout.splitlines():
        print(f"  {out}")
