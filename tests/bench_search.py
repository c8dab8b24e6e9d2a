"""`make bench` search section: positions no table can hold, answered by search.

- 7x7 five in a row, 9 to 13 stones, a forced win within 9 plies (tests/search_positions/
  7x7k5.txt): each solved by a fresh search (its own transposition table), timed; the value and
  move checked by the plain AND/OR search of tests/reference.py (every defence tried).
- Connect Four 7x6, 16 to 20 stones (connect4.txt): each solved by search, then its endgame
  table built from the same position and compared (value, depth, and the move's value).
- Tables at the leaves: 16-stone positions searched alone and then with the endgame tables of
  every reply to the best move (18 stones) at the leaves, in the same run.
- The search's positions a second beside the table's probes a second.
- Budgets: `moves` by search on a 63-empty-cell 8x8 board, the search's wall time and the
  command's.
- Empty boards of five in a row (5x5, 6x6, 7x7), all draws: each solved by a fresh search
  within 60 s (dead lines, pairings and zones; plain alpha-beta could not within 60 s).
- Kernel speed (kernel-speed, tests/bench_wide.py): boards of up to 64 cells by processor
  time, each item by a fresh searcher, the fastest of three (steadier than wall time on a
  shared machine), with node counts: a change to the kernel is measured by it before and after.
- Boards past 64 cells (wide, tests/bench_wide.py): 9x9k5, 10x10k5 and 11x11k5 boards with 12 empty cells
  (tests/search_positions/wide.txt), value, depth and move against the plain negamax over
  those cells; 9x9k5 short wins from seeded self-play checked by the plain AND/OR search; the
  empty 9x9k5 board by `tablebase solve 9x9k5 --time 10` (unknown, never a claim).
- Pons (tests/bench_pons.py): Connect Four on Pascal Pons' six test sets beside his solver,
  made by hand outside this repository and taken by path (--pons-driver PATH and --pons-sets
  DIR, or TABLEBASE_PONS_DRIVER and TABLEBASE_PONS_SETS; skipped, saying which, where absent),
  same run (a sample timed in one batch a side: five times from the same state, each side's
  median); --empty adds the empty board (minutes for both). pons-moves: every move of every
  50th position of his middle sets by search within 2 s a position, checked against his solver.
  pons-sample (only when asked): end-easy's sample, the first set the pons part times, in
  --runs fresh processes: its ratio's spread (a cold batch of some 100 us a side).
  pons-files (tests/bench_pons_files.py): four of his files whole through what a user runs
  (search_positions, `solve --positions FILE --json`) beside his whole process (his c4solver,
  made by hand: --pons PATH or TABLEBASE_PONS); then one `search_position` call and one `solve`
  process.

    python tests/bench_search.py [--part gomoku|connect4|leaves|budgets|gomoku-empty|
                                  kernel-speed|wide|pons|pons-moves|pons-sample|pons-files]
                                 [--pons PATH] [--pons-driver PATH] [--pons-sets DIR]
                                 [--empty] [--runs N]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablebase.query.search.searcher import Budget  # noqa: E402
from tests.bench_pons import (  # noqa: E402
    MOVE_SECONDS,
    SAMPLE_RUNS,
    PonsPaths,
    bench_pons,
    bench_pons_moves,
    bench_pons_sample,
    pons_paths,
)
from tests.bench_pons_files import bench_pons_files  # noqa: E402
from tests.bench_wide import WIDE_SECONDS, bench_kernel_speed, bench_wide  # noqa: E402
from tests.search_sets import read_set  # noqa: E402

GOMOKU_SECONDS, CONNECT4_SECONDS, EMPTY_SECONDS = 1.0, 10.0, 60.0


def _fresh(spec, leaves=()):  # type: ignore[no-untyped-def]
    from tablebase.query.search.searcher import Searcher
    return Searcher(spec, leaves)


def bench_gomoku() -> tuple[int, int, int]:
    """(positions, solved within the time, agreeing with the plain search)."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.boards import play_moves
    from tablebase.builder.games.grid.notation import move_name
    from tests.reference import Game, wins_within
    spec, game = parse_spec("7x7k5"), Game("7x7k5")
    _fresh(spec).solve(play_moves(spec, "d4"), Budget(nodes=1000))  # compile (or load) first
    rows = read_set("7x7k5.txt")
    fast = agree = 0
    print(f"{'stones':>6} {'answer':<16} {'move':<5} {'nodes':>9} {'seconds':>8} {'plain search':<14}")
    for moves in rows:
        board = play_moves(spec, moves)
        searcher = _fresh(spec)
        s = searcher.solve(board, Budget(seconds=30))
        fast += s.seconds <= GOMOKU_SECONDS

        def choose(b):  # type: ignore[no-untyped-def]
            return searcher.solve(b).move
        ok = (s.value is not None and s.value.word == "win" and s.depth is not None
              and _move_wins(game, board, s.move, s.depth, choose))
        # Exactness of the depth by the plain search trying every move, where it is quick.
        exact = (not wins_within(game, board, s.depth - 2)) if ok and s.depth <= 7 else None
        ok = ok and exact is not False
        agree += ok
        print(f"{len(moves.split()):>6} {s.known:<16} {move_name(spec, s.move):<5}"
              f" {s.nodes:>9,} {s.seconds:>8.3f}"
              f" {('agrees' if ok else 'DISAGREES') + (' (depth too)' if exact else ''):<14}",
              flush=True)
    print(f"7x7k5 short wins: {fast} of {len(rows)} solved within {GOMOKU_SECONDS:g} s; {agree}"
          f" of {len(rows)} agree with the plain search (value and move)")
    return len(rows), fast, agree


def _move_wins(game, board, cell, depth, choose) -> bool:  # type: ignore[no-untyped-def]
    """The plain search's check of a move: after it, every defence loses within depth - 1."""
    from tests.reference import loses_within
    return loses_within(game, game.child(board, cell), depth - 1, choose)


def bench_connect4() -> None:
    """Search against endgame tables built from the same positions."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.boards import play_moves
    from tablebase.builder.pipeline import build
    from tablebase.query import open_tablebase
    spec = parse_spec("7x6k4+gravity")
    rows = read_set("connect4.txt")
    _fresh(spec).solve(play_moves(spec, "d1"), Budget(nodes=1000))
    fast = agree = 0
    print(f"{'stones':>6} {'search':<20} {'nodes':>11} {'search s':>9} {'table':<20}"
          f" {'table s':>8} {'positions':>11}")
    for moves in rows:
        board = play_moves(spec, moves)
        s = _fresh(spec).solve(board, Budget(seconds=120))
        fast += s.seconds <= CONNECT4_SECONDS
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "c4.db")
            start = time.perf_counter()
            report = build(spec, db, root=board)
            built = time.perf_counter() - start
            with open_tablebase(db) as tb:
                probe = tb.probe(spec, board)
                keeps = s.move is not None and any(m.cell == s.move and m.best
                                                   for m in tb.moves(spec, board))
        same = (s.value == probe.value and s.depth == probe.depth and keeps)
        agree += same
        print(f"{len(moves.split()):>6} {s.known:<20} {s.nodes:>11,} {s.seconds:>9.2f}"
              f" {str(probe.value.word) + ' in ' + str(probe.depth):<20} {built:>8.2f}"
              f" {report.canonical:>11,}{'' if same else '  DISAGREES'}")
    print(f"connect four 16-20 stones: {fast} of {len(rows)} solved within {CONNECT4_SECONDS:g} s;"
          f" {agree} of {len(rows)} agree with the endgame table (value, depth, best move)")


def bench_leaves(count: int = 4, least: int = 10_000) -> None:
    """16-stone positions searched alone, then with tables of every reply to the best move (the
    first `count` whose search alone takes at least `least` nodes)."""
    from tablebase.builder.games.grid import legal_moves, parse_spec
    from tablebase.builder.games.grid.boards import play_moves
    from tablebase.builder.pipeline import build
    from tablebase.query import open_tablebase
    from tablebase.query.search.solving import leaves
    spec = parse_spec("7x6k4+gravity")
    rows = [m for m in read_set("connect4.txt") if len(m.split()) == 16]
    print(f"{'position':<9} {'alone s':>8} {'nodes':>11} {'tables':>7} {'load s':>7} {'with s':>8}"
          f" {'nodes':>11} {'table hits':>11} {'speed-up':>9} {'probes/s':>10} {'search pos/s':>13}")
    ratios: list[float] = []
    _fresh(spec).solve(play_moves(spec, "d1"), Budget(nodes=1000))  # compile (or load) first
    for i, moves in enumerate(rows, 1):
        if len(ratios) == count:
            break
        board = list(play_moves(spec, moves))
        alone = _fresh(spec).solve(board)
        if alone.nodes < least:
            continue
        after = list(board)
        after[alone.move] = 1  # 16 stones: x to move
        if not legal_moves(spec, after):
            continue  # the best move ends the game: no reply to build a table from
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "leaves.db")
            for reply in legal_moves(spec, after):
                child = list(after)
                child[reply] = 2
                if not legal_moves(spec, child):
                    continue
                build(spec, db, root=tuple(child))
            with open_tablebase(db) as tb:
                start = time.perf_counter()
                tables = leaves(tb, spec)
                loaded = time.perf_counter() - start
                rate = _probe_rate(tb, spec, after)
        with_tables = _fresh(spec, tables).solve(board)
        assert (with_tables.value, with_tables.depth) == (alone.value, alone.depth)
        ratios.append(alone.seconds / with_tables.seconds)
        print(f"{i:<9} {alone.seconds:>8.3f} {alone.nodes:>11,} {len(tables):>7} {loaded:>7.2f}"
              f" {with_tables.seconds:>8.3f} {with_tables.nodes:>11,} {with_tables.table_hits:>11,}"
              f" {ratios[-1]:>8.1f}x {rate:>10,.0f} {alone.rate:>13,.0f}")
    print(f"tables at the leaves: {sum(r > 1 for r in ratios)} of {len(ratios)} positions faster"
          f" with them (same value and depth), searches of at least {least:,} nodes alone;"
          " load s: reading the tables into memory, once, not in the search's time")


def _probe_rate(tb, spec, board) -> float:  # type: ignore[no-untyped-def]
    """Probes a second of the table's answers, over the children of the children of `board`."""
    from tablebase.builder.games.grid import legal_moves
    boards = []
    for a in legal_moves(spec, board):
        b = list(board)
        b[a] = 2
        for c in legal_moves(spec, b):
            d = list(b)
            d[c] = 1
            boards.append(tuple(d))
    start, done = time.perf_counter(), 0
    for d in boards:
        done += tb.get(spec, d) is not None
    return len(boards) / (time.perf_counter() - start)


# The 63-empty-cell 8x8 board of tests/test_search_budgets.py: no move decided within seconds.
OPEN_GAME, OPEN = "8x8k5", "d4"


def bench_budgets(seconds: float = 2.0) -> None:
    """`moves` by search on a 63-empty-cell 8x8 board: the search's own wall time in this
    process, and the whole command's (start-up included) as a user runs it."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.boards import play_moves
    from tablebase.builder.games.grid.notation import empty_board
    from tablebase.query.search.fallback import moves_or_search, probe_or_search

    spec = parse_spec(OPEN_GAME)
    board = play_moves(spec, OPEN, empty_board(spec))
    probe_or_search(None, spec, board, 0.1)  # the compiled search loaded: start-up, not search
    start = time.perf_counter()
    _, moves, _ = moves_or_search(None, spec, board, seconds)
    searched = time.perf_counter() - start
    proved = sum(m.value is not None for m in moves)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "t.db")
        subprocess.run([sys.executable, "-m", "tablebase", "build", "3x3k3", "--db", db,
                        "--quiet"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        times = []
        for command in ("moves", "probe"):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "tablebase", command, OPEN_GAME, "--moves",
                            OPEN, "--search", f"{seconds:g}", "--db", db], check=True, cwd=ROOT,
                           stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
    print(f"  budgets, {OPEN_GAME} with 63 empty cells, --search {seconds:g}: moves' search"
          f" {searched:.2f} s ({len(moves)} moves, {proved} proved; target <= {seconds + 0.3:g}"
          f" s); the commands' wall time, start-up included: moves {times[0]:.2f} s, probe"
          f" {times[1]:.2f} s")


def bench_empty(specs: tuple[str, ...] = ("5x5k5", "6x6k5", "7x7k5")) -> None:
    """The empty boards of five in a row, each solved by a fresh search within EMPTY_SECONDS."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.notation import move_name
    from tablebase.query.search import control
    _fresh(parse_spec("5x5k5")).solve((0,) * 25, Budget(nodes=1000))  # compile (or load) first
    print(f"{'board':<6} {'answer':<20} {'value':<6} {'depth':>5} {'move':<5} {'seconds':>8}"
          f" {'nodes':>11} {'pairings':>10} {'proved':>9}")
    proved = 0
    for text in specs:
        spec = parse_spec(text)
        searcher = _fresh(spec)
        s = searcher.solve((0,) * spec.cells, Budget(seconds=EMPTY_SECONDS))
        proved += s.value is not None and s.depth is not None
        ctl = searcher.arrays.ctl
        print(f"{text:<6} {s.known:<20} {s.value.word if s.value is not None else '-':<6}"
              f" {s.depth if s.depth is not None else '-':>5}"
              f" {move_name(spec, s.move) if s.move is not None else '-':<5} {s.seconds:>8.2f}"
              f" {s.nodes:>11,} {int(ctl[control.PAIR_SEARCHES]):>10,} {int(ctl[control.PAIRED]):>9,}",
              flush=True)
    print(f"empty boards: {proved} of {len(specs)} proved within {EMPTY_SECONDS:g} s each"
          " (pairings: tried; proved: nodes settled by a proof without search)")


def bench_search(part: str | None = None, pons: PonsPaths | None = None, empty: bool = False,
                 runs: int = SAMPLE_RUNS) -> None:
    """Print the search section (`pons`: Pons' parts, by default from the environment)."""
    pons = pons if pons is not None else pons_paths()
    print("search: positions past the tables (7x7 five in a row, Connect Four 7x6)")
    if part in (None, "gomoku"):
        bench_gomoku()
    if part in (None, "connect4"):
        bench_connect4()
    if part in (None, "leaves"):
        bench_leaves()
    if part in (None, "budgets"):
        bench_budgets()
    if part in (None, "gomoku-empty"):
        bench_empty()
    if part in (None, "kernel-speed"):
        print("The m,n,k kernel's speed, processor time (the fastest of three):")
        bench_kernel_speed()
    if part in (None, "wide"):
        print("Boards past 64 cells (9x9k5 to 11x11k5):")
        bench_wide()
    if part in (None, "pons"):
        print("Connect Four 7x6 on Pons' test sets, our search beside his solver (same run):")
        bench_pons(pons, empty)
    if part in (None, "pons-moves"):
        print("Connect Four 7x6: every move of Pons' middle-set positions by search"
              " (`tablebase moves --search 2`), checked against his solver:")
        bench_pons_moves(pons)
    if part in (None, "pons-files"):
        print("Connect Four 7x6: Pons' files whole through the Python API and the command line,"
              " beside his whole process (same run):")
        bench_pons_files(pons)
    if part == "pons-sample":  # not in the whole section: 20 processes, each starting his solver
        print(f"Connect Four 7x6: end-easy's sample as the pons part times it, in {runs} fresh"
              " processes:")
        bench_pons_sample(pons, runs)
    print(f"targets: 7x7k5 short wins each within {GOMOKU_SECONDS:g} s and agreeing with the plain"
          f" search; Connect Four 16-20 stones each within {CONNECT4_SECONDS:g} s and agreeing with"
          " the table on at least 20; tables at the leaves faster on 16 stones; the empty 5x5k5,"
          f" 6x6k5 and 7x7k5 boards proved draws, each within {EMPTY_SECONDS:g} s; boards past 64"
          " cells agreeing with the plain negamax, the empty 9x9k5 unknown within"
          f" {WIDE_SECONDS:g} s; on Pons' sets"
          " every answer his and our mean time a position at most his; every move of his"
          f" middle-set positions exact within {MOVE_SECONDS:g} s")


def main() -> None:
    """Run the section (or one part of it)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--part", choices=("gomoku", "connect4", "leaves", "budgets",
                                           "gomoku-empty", "kernel-speed", "wide", "pons",
                                           "pons-moves", "pons-sample", "pons-files"))
    parser.add_argument("--pons", metavar="PATH",
                        help="Pons' c4solver, built by hand (default: $TABLEBASE_PONS)")
    parser.add_argument("--pons-driver", metavar="PATH", help="the driver around Pons' solver"
                        " (tests/bench_pons.py), built by hand (default: $TABLEBASE_PONS_DRIVER)")
    parser.add_argument("--pons-sets", metavar="DIR", help="the folder of Pons' test sets"
                        " (default: $TABLEBASE_PONS_SETS)")
    parser.add_argument("--empty", action="store_true",
                        help="also the empty 7x6 board (minutes for both solvers)")
    parser.add_argument("--runs", type=int, default=SAMPLE_RUNS,
                        help="pons-sample: fresh processes (default %(default)s)")
    args = parser.parse_args()
    bench_search(args.part, pons_paths(args.pons, args.pons_driver, args.pons_sets), args.empty,
                 args.runs)


if __name__ == "__main__":
    main()
