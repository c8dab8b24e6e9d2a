"""The search bench's Pons part: our search of Connect Four 7x6 beside Pascal Pons' solver on
his six test sets (Test_L3_R1 end-easy ... Test_L1_R3 begin-hard: lines "MOVES SCORE", moves as
1-based column digits), in the same run, on the same positions.

This part runs his solver and builds nothing: his parts are made by hand outside this
repository and taken by path (PonsPaths): `--pons-driver PATH` (or TABLEBASE_PONS_DRIVER) a
build of DRIVER below, ours, around his Solver (his main.cpp prints only the score), and
`--pons-sets DIR` (or TABLEBASE_PONS_SETS) the folder of his test files; where one is missing,
the part says which in one line and is skipped. The driver reads positions on stdin and prints
"score nodes nanoseconds", timing his `Solver::solve` alone (strong solve, no opening book),
the table kept from one position to the next as his main.cpp does. Ours (value, depth and a
move) in this process: `Searcher.solve_many` on each run of positions, its time over the run's
positions the mean time a position (a batch: `solve --positions FILE` works so), and on the
easy sets also `Searcher.solve` a position a call (a second searcher: its own table); after
both are set up, a warm-up on both sides, on the same 20 positions of our own set, and with
our tables' memory taken (`reserve`, as a server's searcher does). The two take turns (SETS:
by runs of positions), so that a shared machine's load falls on both; a sample timed in one
batch a side is timed REPEATS times, each from the same state (every table cleared, both
warmed again), and each side's median taken (one timing of some 100 us swings with the
machine's caches). After end-easy's sample, the whole end-easy file the same way (WHOLE).
`--part pons-sample`: end-easy's sample alone in --runs fresh processes, its ratio's spread.

    python tests/bench_search.py --part pons [--pons-driver PATH] [--pons-sets DIR] [--empty]
    python tests/bench_search.py --part pons-sample [--pons-driver PATH] [--pons-sets DIR]
                                 [--runs N]
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from tests.search_sets import read_set

# (file, name, stride, run, repeats): every 50th line, begin-hard every 100th; the two solvers
# take turns by runs of this many positions: the whole sample in the easy sets, where a solve
# takes microseconds and the first after a switch of process pays some 150 us of cold caches
# (ours: Python's), one position at a time elsewhere, so that a shared machine's load
# falls on both alike. A sample timed in one batch a side (some 100 us to 6 ms) is timed
# `repeats` times, each from the same state (both tables cleared, both solvers warmed
# again), and each side's median taken: one timing of it swings 0.4x-2x with the machine
# (docs/benchmarks.md); the others, seconds a side, once.
REPEATS = 5
SETS = [("Test_L3_R1", "end-easy", 50, 20, REPEATS), ("Test_L2_R1", "middle-easy", 50, 20, REPEATS),
        ("Test_L2_R2", "middle-medium", 50, 1, 1), ("Test_L1_R1", "begin-easy", 50, 20, REPEATS),
        ("Test_L1_R2", "begin-medium", 50, 1, 1), ("Test_L1_R3", "begin-hard", 100, 1, 1)]

# Beside the strided sets, the whole of end-easy (1,000 positions) in the same runs of 20, right
# after its sample: a sample of 20 such positions is some 150 us of either solver, of the order
# of what a switch of process costs the next run in cold caches (ours: Python, numba's
# dispatch, the kernel's code), so the whole file is the steadier figure. Beside, not instead.
WHOLE = ("Test_L3_R1", "end-easy, every line", 1, 20, 1)

# Positions of our own set (tests/search_positions/connect4_pons.txt) both solvers solve
# before the timing starts.
WARM_POSITIONS = 20

# What the --pons-driver binary is: ours, a driver around his Solver, kept here as text (this
# repository builds nothing): "score nodes nanoseconds" a stdin line, "reset" answered "ok".
DRIVER = r"""
// The bench's driver (ours) around Pons' Solver: "score nodes nanoseconds" per stdin line
// ("reset": his table cleared, "ok").
#include "Solver.hpp"
#include <chrono>
#include <iostream>
#include <string>
using namespace GameSolver::Connect4;
int main() {
  Solver solver;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "reset") { solver.reset(); std::cout << "ok" << std::endl; continue; }
    Position P;
    if (P.play(line) != line.size()) { std::cout << "invalid" << std::endl; continue; }
    unsigned long long before = solver.getNodeCount();
    auto start = std::chrono::steady_clock::now();
    int score = solver.solve(P, false);
    auto end = std::chrono::steady_clock::now();
    std::cout << score << " " << solver.getNodeCount() - before << " "
              << std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count()
              << std::endl;
  }
}
"""


class PonsPaths(NamedTuple):
    """His parts, each made by hand outside this repository; None where not given."""

    solver: Path | None  # his c4solver (his main.cpp): the pons-files part
    driver: Path | None  # a build of DRIVER: the pons, pons-moves and pons-sample parts
    sets: Path | None    # the folder of his test files (Test_L3_R1 ...): every part


# Each of PonsPaths' fields: its flag, its environment variable, what it names.
GIVEN = {"solver": ("--pons PATH", "TABLEBASE_PONS", "build of Pons' c4solver"),
         "driver": ("--pons-driver PATH", "TABLEBASE_PONS_DRIVER",
                    "build of the driver around Pons' solver"),
         "sets": ("--pons-sets DIR", "TABLEBASE_PONS_SETS", "folder of Pons' test sets")}


def pons_paths(solver: str | None = None, driver: str | None = None,
               sets: str | None = None) -> PonsPaths:
    """His parts: each from its flag's value, else its environment variable (GIVEN), else None."""
    flags = {"solver": solver, "driver": driver, "sets": sets}
    found = {field: flags[field] or os.environ.get(variable)
             for field, (_, variable, _) in GIVEN.items()}
    return PonsPaths(**{field: Path(path).expanduser() if path else None
                        for field, path in found.items()})


def missing(paths: PonsPaths, *needed: str) -> str | None:
    """One line naming each of `needed` (PonsPaths' fields) that is not there, with its flag and
    environment variable; None when all are."""
    why = []
    for field in needed:
        flag, variable, name = GIVEN[field]
        path = getattr(paths, field)
        there = path is not None and (path.is_dir() if field == "sets" else
                                      path.is_file() and os.access(path, os.X_OK))
        if not there:
            why.append(f"no {name}{'' if path is None else f' at {path}'} ({flag} or {variable})")
    return "; ".join(why) if why else None


def _set_file(root: Path, name: str) -> Path | None:
    return root / name if (root / name).is_file() else None


class Pons:
    """His solver behind the driver, a process of its own: one position at a time."""

    def __init__(self, driver: Path) -> None:
        self.proc = subprocess.Popen([str(driver)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)

    def solve(self, moves: str) -> tuple[int, int, float]:
        """(score, nodes, seconds) of his solve."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(moves + "\n")
        self.proc.stdin.flush()
        score, nodes, nanos = self.proc.stdout.readline().split()
        return int(score), int(nodes), int(nanos) / 1e9

    def reset(self) -> None:
        """His table cleared (Solver::reset)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("reset\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "ok"

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def board_of(moves: str) -> tuple[int, ...]:
    """Our 7x6 board (row-major, row 0 on top) after his moves."""
    board = [0] * 42
    for i, ch in enumerate(moves):
        col = int(ch) - 1
        row = max(r for r in range(6) if board[r * 7 + col] == 0)
        board[row * 7 + col] = 1 if i % 2 == 0 else 2
    return tuple(board)


def his_outcome(stones: int, score: int) -> tuple[int, int]:
    """(value, depth) of his score: a win whose move is made after m stones scores
    (43 - m) // 2; of the two m that do, the one of the winner's parity."""
    if score == 0:
        return 0, 42 - stones
    for m in range(stones, 42):
        if (43 - m) // 2 == abs(score) and ((m - stones) % 2 == 0) == (score > 0):
            return (1 if score > 0 else -1), m - stones + 1
    raise ValueError(f"score {score} after {stones} stones")


def bench_pons(paths: PonsPaths, empty: bool = False, sets: int | None = None) -> None:
    """Print per set: positions, our mean, his mean, their ratio, disagreements (`sets`: the
    first so many of SETS alone, without the whole end-easy file)."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.query.search.searcher import Searcher
    why = missing(paths, "driver", "sets")
    if why is not None or paths.driver is None or paths.sets is None:
        print(f"  pons: skipped: {why}")
        return
    root = paths.sets
    searcher, single = Searcher(parse_spec("7x6k4+gravity")), Searcher(parse_spec("7x6k4+gravity"))
    # Both solvers set up (his process started), then both warmed on the same positions of our
    # own set, not of his, each by the call that is timed, before any time is taken: ours
    # loads the compiled search and fills its small caches (a first batch pays some 300 us in
    # Python), his process starts; our tables' memory held, as a server's searcher holds it.
    # Warmed before his set-up instead (then a compile of his solver), our first batch paid the
    # caches it emptied: 23-29 us a position against 8-10 warmed after it (end-easy, his 7-8).
    warm = [line.split()[0] for line in read_set("connect4_pons.txt")[:WARM_POSITIONS]]
    for ours in (searcher, single):
        ours.arrays.reserve()
    pons = Pons(paths.driver)
    _warm(searcher, single, pons, warm)
    try:
        print("  ours: the mean time a position of a batch (Searcher.solve_many: the easy"
              " sets' 20 positions in one call, the others one a call) = the batch's time"
              " / its positions; one call: Searcher.solve on each (a table of its own)")
        print(f"  a sample in one batch a side: timed {REPEATS} times, each after both tables"
              " are cleared and both warmed; each side's median, and the range of the ratios")
        print(f"  {'set':<22} {'positions':>9} {'ours ms':>10} {'one call':>10} {'his ms':>10}"
              f" {'ours/his':>9} {'range':>10} {'disagree':>8}")
        for name, label, stride, run, repeats in (SETS[:1] + [WHOLE] + SETS[1:]
                                                  if sets is None else SETS[:sets]):
            path = _set_file(root, name)
            if path is None:
                print(f"  {name}: skipped: not in {root}")
                continue
            rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
            shown = f"{label} ({name[5:]})" if stride > 1 else label
            _one_set(searcher, pons, shown, rows[::stride], run, single if run > 1 else None,
                     repeats, warm)
        if empty:
            _one_set(searcher, pons, "empty board", [["", "1"]])
    finally:
        pons.close()


def _warm(searcher, single, pons: Pons, warm: Sequence[str]) -> None:  # type: ignore[no-untyped-def]
    """Both solvers warmed on the same positions (moves), each by the call that is timed."""
    searcher.solve_many([board_of(moves) for moves in warm])
    for moves in warm:
        single.solve(board_of(moves))
        pons.solve(moves)


def _one_set(searcher, pons: Pons, label: str, rows: list[list[str]], run: int = 1,  # type: ignore[no-untyped-def]
             single=None, repeats: int = 1, warm: Sequence[str] = ()) -> None:
    """One set: ours by `Searcher.solve_many` on each run of positions (a batch: its time over
    its positions is the mean time a position), his position by position; with `single` (a
    second searcher, a table of its own) ours also by one `solve` call a position. With
    `repeats` > 1 (and `single`) the set is timed so many times, each from the same state
    (every table cleared, then both solvers warmed on `warm`): each side's median time and
    the range of the ratios."""
    times: list[tuple[float, float, float]] = []  # (ours, one call, his) of each timing
    disagree = 0
    for rep in range(repeats):
        if repeats > 1:  # cleared (every page written: the memory still held), warmed again
            searcher.arrays.reserve()
            single.arrays.reserve()
            pons.reset()
            _warm(searcher, single, pons, warm)
        ours = his = alone = 0.0
        for first in range(0, len(rows), run):
            chunk = rows[first:first + run]
            boards = [board_of(moves) for moves, _ in chunk]
            found, theirs = [], []
            for turn in ((0, 1) if (first // run + rep) % 2 == 0 else (1, 0)):
                if turn == 0:
                    start = time.perf_counter()
                    found = searcher.solve_many(boards)
                    ours += time.perf_counter() - start
                    for board in boards if single is not None else ():
                        start = time.perf_counter()
                        found.append(single.solve(board))
                        alone += time.perf_counter() - start
                else:
                    for moves, _ in chunk:
                        theirs.append(pons.solve(moves))
                        his += theirs[-1][2]
            for i, ((moves, score), board, (his_score, _, _)) in enumerate(
                    zip(chunk, boards, theirs)):
                want = his_outcome(len(moves), his_score)
                for s in found[i::len(chunk)]:  # the batch's answer, and the single call's
                    disagree += ((int(s.value), s.depth) != want or his_score != int(score)
                                 or s.move is None or board[s.move] != 0)
        times.append((ours, alone, his))
    n = len(rows)
    ours, alone, his = (statistics.median(t[k] for t in times) for k in range(3))
    one = f"{1000 * alone / n:>10.3f}" if single is not None else f"{'-':>10}"
    ratios = sorted(o / h for o, _, h in times if h)
    spread = f"{ratios[0]:.2f}-{ratios[-1]:.2f}" if repeats > 1 and ratios else "-"
    print(f"  {label:<22} {n:>9} {1000 * ours / n:>10.3f} {one} {1000 * his / n:>10.3f}"
          f" {ours / his if his else float('inf'):>8.2f}x {spread:>10} {disagree:>8}", flush=True)


# End-easy's sample in fresh processes (`--part pons-sample`): a batch of some 100 us a side,
# the first set timed after both are set up; each process reports its median of REPEATS.
SAMPLE_RUNS = 20


def bench_pons_sample(paths: PonsPaths, runs: int = SAMPLE_RUNS) -> None:
    """End-easy's sample timed as the Pons part times it (set up, warmed, then the sample), in
    `runs` fresh processes one after another: each run's ratio, their median and maximum, and
    the runs over 1.0x."""
    why = missing(paths, "driver", "sets")
    if why is not None or paths.driver is None or paths.sets is None:
        print(f"  pons sample: skipped: {why}")
        return
    code = "from tests.bench_pons import bench_pons, pons_paths; bench_pons(pons_paths(), sets=1)"
    env = {**os.environ, "TABLEBASE_PONS_DRIVER": str(paths.driver),
           "TABLEBASE_PONS_SETS": str(paths.sets)}
    ratios = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parents[1], env=env)
        rows = [line for line in done.stdout.splitlines() if "end-easy" in line and "x " in line]
        if done.returncode != 0 or not rows:
            print(f"  pons sample: a run gave no ratio: {(done.stderr or done.stdout).strip()[-300:]}")
            return
        ratios.append(float(next(t for t in rows[0].split() if t.endswith("x"))[:-1]))
    ratios.sort()
    print(f"  end-easy ({SETS[0][0][5:]}), {runs} fresh runs: ours/his " +
          " ".join(f"{r:.2f}" for r in ratios))
    print(f"  median {statistics.median(ratios):.2f}x, max {ratios[-1]:.2f}x,"
          f" over 1.0x in {sum(r > 1 for r in ratios)} of {runs}")


# Every move of a middle-set position by search (`tablebase moves --search 2`): its sets, the
# stride, and the budget in seconds of one position's moves.
MOVE_SETS, MOVE_SECONDS = [("Test_L2_R1", "middle-easy"), ("Test_L2_R2", "middle-medium")], 2.0


def bench_pons_moves(paths: PonsPaths) -> None:
    """Every move of every 50th position of Pons' middle sets by `answers.search_moves` (what
    `tablebase moves 7x6k4+gravity POSITION --search 2` answers, a fresh searcher each), its
    value and depth after checked against his solver's score of the child; print per set the
    positions, the moves, those exact (a value and a depth, his), the slowest and mean time."""
    from tablebase.builder.games.grid import outcome, parse_spec
    from tablebase.query.search.fallback import search_moves
    from tablebase.query.search.solving import load_search
    why = missing(paths, "driver", "sets")
    if why is not None or paths.driver is None or paths.sets is None:
        print(f"  pons moves: skipped: {why}")
        return
    root = paths.sets
    spec = parse_spec("7x6k4+gravity")
    load_search()  # the compiled search loaded once, as a server does before it answers
    print(f"  {'set':<22} {'positions':>9} {'moves':>6} {'exact':>6} {'slowest s':>10}"
          f" {'mean s':>7}   (budget {MOVE_SECONDS:g} s a position)")
    pons = Pons(paths.driver)
    try:
        for name, label in MOVE_SETS:
            path = _set_file(root, name)
            if path is None:
                print(f"  {name}: skipped: not in {root}")
                continue
            rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
            moves = exact = 0
            times = []
            for played, _ in rows[::50]:
                board = board_of(played)
                start = time.perf_counter()
                _, found, _ = search_moves(None, spec, board, MOVE_SECONDS)
                times.append(time.perf_counter() - start)
                for m in found:
                    child = list(board)
                    child[m.cell] = 1 if len(played) % 2 == 0 else 2
                    over = outcome(spec, child)
                    if over is not None:  # his solver takes no finished game
                        want = (-int(over), 0)
                    else:
                        col = m.cell % 7 + 1
                        value, depth = his_outcome(len(played) + 1,
                                                   pons.solve(played + str(col))[0])
                        want = (-value, depth)
                    moves += 1
                    exact += (m.value is not None and m.depth is not None
                              and (int(m.value), m.depth) == want)
            print(f"  {label + ' (' + name[5:] + ')':<22} {len(times):>9} {moves:>6}"
                  f" {exact:>6} {max(times):>10.2f} {sum(times) / len(times):>7.2f}",
                  flush=True)
    finally:
        pons.close()
