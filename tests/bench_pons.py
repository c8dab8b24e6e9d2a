"""The search bench's Pons part: our search of Connect Four 7x6 beside Pascal Pons' solver on
his six test sets (Test_L3_R1 end-easy ... Test_L1_R3 begin-hard: lines "MOVES SCORE", moves as
1-based column digits), in the same run, on the same positions.

His checkout is found by `--pons DIR` or the TABLEBASE_PONS environment variable (the sets in
DIR, DIR/resources or DIR/data); absent, the part is skipped with the reason. His solver is
built from DIR's Solver.cpp with his Makefile's flags, behind a small driver of ours (his
main.cpp prints only the score): it reads positions on stdin and prints "score nodes
nanoseconds", timing his `Solver::solve` alone (strong solve, no opening book), the table
kept from one position to the next as his main.cpp does. Ours: `Searcher.solve` (value,
depth and a move) timed per position in this process, after one warm-up call loads the
compiled search and the table's memory is taken (`reserve`, as a server's searcher does).
The two take turns (SETS: by runs of positions), so that a shared machine's load falls on
both.

    python tests/bench_search.py --part pons [--pons DIR] [--empty]
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.search_sets import read_set

# (file, name, stride, run): every 50th line, begin-hard every 100th; the two solvers take
# turns by runs of this many positions: the whole sample in the easy sets, where a solve
# takes microseconds and the first after a switch of process pays some 150 us of cold caches
# (ours: Python's), one position at a time elsewhere, so that a shared machine's load
# falls on both alike.
SETS = [("Test_L3_R1", "end-easy", 50, 20), ("Test_L2_R1", "middle-easy", 50, 20),
        ("Test_L2_R2", "middle-medium", 50, 1), ("Test_L1_R1", "begin-easy", 50, 20),
        ("Test_L1_R2", "begin-medium", 50, 1), ("Test_L1_R3", "begin-hard", 100, 1)]

_DRIVER = r"""
// The bench's driver (ours) around Pons' Solver: "score nodes nanoseconds" per stdin line.
#include "Solver.hpp"
#include <chrono>
#include <iostream>
#include <string>
using namespace GameSolver::Connect4;
int main() {
  Solver solver;
  std::string line;
  while (std::getline(std::cin, line)) {
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


def pons_dir(given: str | None) -> Path | None:
    """His checkout: --pons, else TABLEBASE_PONS, else None."""
    found = given or os.environ.get("TABLEBASE_PONS")
    return Path(found) if found else None


def _set_file(root: Path, name: str) -> Path | None:
    for where in (root, root / "resources", root / "data"):
        if (where / name).is_file():
            return where / name
    return None


class Pons:
    """His solver behind our driver, built in a temp dir: one position at a time."""

    def __init__(self, root: Path, tmp: str) -> None:
        for name in ("Solver.cpp", "Solver.hpp", "Position.hpp", "TranspositionTable.hpp",
                     "MoveSorter.hpp", "OpeningBook.hpp"):
            if (root / name).exists():
                shutil.copy(root / name, tmp)
        Path(tmp, "driver.cpp").write_text(_DRIVER)
        exe = str(Path(tmp) / "pons")
        subprocess.run(["g++", "--std=c++11", "-W", "-Wall", "-O3", "-DNDEBUG", "-o", exe,
                        "driver.cpp", "Solver.cpp"], cwd=tmp, check=True,
                       stderr=subprocess.DEVNULL)
        self.proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)

    def solve(self, moves: str) -> tuple[int, int, float]:
        """(score, nodes, seconds) of his solve."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(moves + "\n")
        self.proc.stdin.flush()
        score, nodes, nanos = self.proc.stdout.readline().split()
        return int(score), int(nodes), int(nanos) / 1e9

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


def bench_pons(given: str | None = None, empty: bool = False) -> None:
    """Print per set: positions, our mean, his mean, their ratio, disagreements."""
    from tablebase.builder.game import parse_spec
    from tablebase.query.search.engine import Searcher
    root = pons_dir(given)
    if root is None or not (root / "Solver.cpp").is_file():
        print(f"  pons: skipped: no checkout of Pons' connect4 (--pons DIR or TABLEBASE_PONS;"
              f" {'none given' if root is None else f'no Solver.cpp in {root}'})")
        return
    if shutil.which("g++") is None:
        print("  pons: skipped: no g++ to build his solver")
        return
    searcher = Searcher(parse_spec("7x6k4+gravity"))
    # The compiled search loaded and run once (a position of our own set, not of his), and
    # the table's memory held, as a server's searcher holds it (his table is cleared, so
    # touched, when his solver starts).
    searcher.solve(board_of(read_set("connect4_pons.txt")[0].split()[0]))
    searcher.arrays.reserve()
    with tempfile.TemporaryDirectory() as tmp:
        pons = Pons(root, tmp)
        try:
            print(f"  {'set':<22} {'positions':>9} {'ours ms':>10} {'his ms':>10} {'ours/his':>9}"
                  f" {'disagree':>8}")
            for name, label, stride, run in SETS:
                path = _set_file(root, name)
                if path is None:
                    print(f"  {name}: skipped: not in {root}")
                    continue
                rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
                _one_set(searcher, pons, f"{label} ({name[5:]})", rows[::stride], run)
            if empty:
                _one_set(searcher, pons, "empty board", [["", "1"]])
        finally:
            pons.close()


def _one_set(searcher, pons: Pons, label: str, rows: list[list[str]], run: int = 1) -> None:  # type: ignore[no-untyped-def]
    ours = his = 0.0
    disagree = 0
    for first in range(0, len(rows), run):
        chunk = rows[first:first + run]
        boards = [board_of(moves) for moves, _ in chunk]
        found, theirs = [], []
        for turn in ((0, 1) if (first // run) % 2 == 0 else (1, 0)):
            if turn == 0:
                for board in boards:
                    start = time.perf_counter()
                    found.append(searcher.solve(board))
                    ours += time.perf_counter() - start
            else:
                for moves, _ in chunk:
                    theirs.append(pons.solve(moves))
                    his += theirs[-1][2]
        for (moves, score), board, s, (his_score, _, _) in zip(chunk, boards, found, theirs):
            want = his_outcome(len(moves), his_score)
            disagree += ((int(s.value), s.depth) != want or his_score != int(score)
                         or s.move is None or board[s.move] != 0)
    n = len(rows)
    print(f"  {label:<22} {n:>9} {1000 * ours / n:>10.3f} {1000 * his / n:>10.3f}"
          f" {ours / his if his else float('inf'):>8.2f}x {disagree:>8}", flush=True)
