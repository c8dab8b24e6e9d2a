"""Bench (not a test): games given as Python classes (tests/class_games), our build against
GamesCrafters' GamesmanPy, whose solver, database and text interface work on any game class.

For each game: (a) GamesmanPy's solver as a whole process (its `Solver(game).solve`, which finds
every reachable position breadth first, counts children, propagates losses, wins, then ties,
and writes its SQLite table), CPU and wall seconds and peak memory; (b) the floor: one core
calling our class's `moves` and `outcome` once per reachable position (a breadth-first search
with a set, in a fresh process); (c) our `tablebase build SPEC --quiet --force` as a whole
process; (d) the start's value and depth, ours (`tablebase probe --json`) beside his, and the
ratios ours/his and ours/floor against the targets; (e) every position's value and depth, his
table against ours (`tablebase export`; where that cannot be read, against the plain solver of
tests/reference_games.py, which the report then names). His Tie is a finished draw or a draw
with a depth, his Draw (remoteness 255) endless play.

GamesmanPy is found by `--gamesmanpy PATH` (or TABLEBASE_GAMESMANPY), a checkout installed
editable in a Python 3.12 venv whose interpreter is `--python PATH` (or
TABLEBASE_GAMESMANPY_PYTHON; default PATH/.venv/bin/python, where `uv sync` puts it). Its
tables land in PATH/database/db/. Its `ttt-inf` game is written but not in its game list, so
the driver below adds it there before solving.

Run: python tests/bench_user_games.py [--games clobber-3x4 ttt-inf ...] [--no-peer-solve]
[--pairs N] (the floor and our build N times, one after the other: the median ratio)
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TABLEBASE = ROOT / ".venv" / "bin" / "tablebase"
PEER_TARGET = 0.25     # our build must take at most this fraction of GamesmanPy's time
FLOOR_TARGET = 1.5     # ... and at most this many times the floor
SHOWN = 5              # disagreements printed per game

# Run in GamesmanPy's venv: its solver on game argv[1], variant argv[2], into its own table.
DRIVER = """
import sys
import games.game_manager as manager
from games.ttt_inf import TTT_inf
manager.game_list.setdefault("ttt-inf", TTT_inf)
from solver import Solver
Solver(manager.game_list[sys.argv[1]]).solve(overwrite=True, variant=sys.argv[2])
"""
# His values (models.util.Value) as ours: Loss 0, Draw 1 (endless), Tie 2, Win 3.
HIS_VALUES = {0: "loss", 1: "draw", 2: "draw", 3: "win"}
OUR_VALUES = {1: "win", 0: "draw", -1: "loss"}


def clobber_text(width: int, height: int) -> Callable[[int], str]:
    """His clobber state (2 bits a cell, row-major, most significant first, then the side to
    move; 0 empty, 1 x, 2 o) as our board text."""
    def text(state: int) -> str:
        chars = []
        for _ in range(width * height + 1):
            chars.append(".xo"[state & 3])
            state >>= 2
        side, *cells = chars
        cells.reverse()
        return "/".join("".join(cells[r * width:(r + 1) * width]) for r in range(height)) + " " + side
    return text


def ttt_inf_text(state: int) -> str:
    """His ttt-inf state (4 bits a cell, cell j of the row-major board at bit 4 * (8 - j): bit 3
    the owner, 0 x; bits 0-2 the age, 0 empty) as our board text."""
    cells = []
    for j in range(9):
        nibble = state >> (4 * (8 - j)) & 15
        cells.append("." if nibble & 7 == 0 else ("o" if nibble & 8 else "x") + str(nibble & 7))
    return "/".join("".join(cells[r * 3:r * 3 + 3]) for r in range(3))


@dataclass(frozen=True)
class Case:
    name: str
    spec: str                       # ours: PATH.py:Class, relative to the checkout
    his_game: str                   # his game id and variant
    his_variant: str
    his_text: Callable[[int], str]


CASES = [
    Case("clobber-3x4", "tests/class_games/clobber.py:Clobber3x4", "clobber", "3x4", clobber_text(3, 4)),
    Case("clobber-5x3", "tests/class_games/clobber.py:Clobber5x3", "clobber", "5x3", clobber_text(5, 3)),
    Case("clobber-3x6", "tests/class_games/clobber.py:Clobber3x6", "clobber", "3x6", clobber_text(3, 6)),
    Case("ttt-inf", "tests/class_games/ttt_inf.py:TicTacToeInfinite", "ttt-inf", "regular",
         ttt_inf_text),
]


@dataclass
class Run:
    """A whole process: its exit status, CPU (user + system) and wall seconds, peak MiB, output."""
    status: int
    cpu: float
    wall: float
    mib: float
    out: str
    err: str


# Starts and measures one command (argv[2:]), writing [CPU s, wall s, peak MiB] to argv[1]. A
# process keeps its peak memory across exec, and a child forked from this bench starts out as
# big as the bench (his table and ours can be gigabytes): this small process forks instead.
MEASURE = """
import json, os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    json.dump([usage.ru_utime + usage.ru_stime, time.perf_counter() - start,
               usage.ru_maxrss / 1024], out)
sys.exit(min(255, abs(os.waitstatus_to_exitcode(status))))
"""


def run(command: list[str], cwd: Path | None = None) -> Run:
    """Run `command` to its end, measured by wait4 (the process and the children it waited for)."""
    with tempfile.TemporaryDirectory() as tmp:
        out, err, measured = (Path(tmp) / name for name in ("out", "err", "measured"))
        with out.open("wb") as out_file, err.open("wb") as err_file:
            status = subprocess.run([sys.executable, "-c", MEASURE, str(measured), *command], cwd=cwd,
                                    stdout=out_file, stderr=err_file).returncode
        cpu, wall, mib = json.loads(measured.read_text()) if measured.exists() else (0, 0, 0)
        return Run(status, cpu, wall, mib, out.read_text(errors="replace"),
                   err.read_text(errors="replace"))


def load(spec: str) -> Any:
    """An instance of the class `PATH.py:Class` names (PATH relative to the checkout)."""
    path, _, name = spec.rpartition(":")
    module_spec = importlib.util.spec_from_file_location(Path(path).stem, ROOT / path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return getattr(module, name)()


def floor(spec: str) -> None:
    """The floor, printed as JSON: one core calling `moves` and `outcome` once per reachable
    position, breadth first with a set (what any solver of the class must at least do)."""
    game = load(spec)
    start_cpu = time.process_time()
    start = game.start()
    seen = {start}
    queue = [start]
    outcome, moves, add, append = game.outcome, game.moves, seen.add, queue.append
    for p in queue:
        outcome(p)
        for _, child in moves(p):
            if child not in seen:
                add(child)
                append(child)
    print(json.dumps({"positions": len(queue), "seconds": time.process_time() - start_cpu}))


def his_table(checkout: Path, case: Case, game: Any) -> dict[Any, tuple[str, int | None]]:
    """His stored table as our positions -> (value, depth); depth None for endless play."""
    path = checkout / "database" / "db" / f"{case.his_game}_{case.his_variant}.db"
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT state, remoteness, value FROM gamedb").fetchall()
    return {game.read(case.his_text(state)): (HIS_VALUES[value], None if value == 1 else remoteness)
            for state, remoteness, value in rows}


def our_table(case: Case, game: Any,
              db: Path | None) -> tuple[dict[Any, tuple[str, int | None]], str]:
    """Our table (None: our build failed), from `tablebase export` where it runs and its rows
    read with the class, else from the plain solver; with where it came from."""
    if db is None:
        return plain_table(game), "the plain solver (tests/reference_games.py): our build failed"
    done = subprocess.run([str(TABLEBASE), "export", case.spec, "--db", str(db), "--format",
                           "jsonl", "--quiet"], cwd=ROOT, capture_output=True, text=True)
    why = [last_line(done.stderr)]
    if done.returncode == 0:
        table = {}
        try:
            for line in done.stdout.splitlines():
                row = json.loads(line)
                text = next(row[key] for key in ("position", "text", "board") if key in row)
                table[game.read(text)] = (row["value"], row["depth"])
            return table, "tablebase export"
        except (ValueError, KeyError, StopIteration) as error:
            why = [f"its rows could not be read ({error!r})"]
    return (plain_table(game),
            f"the plain solver (tests/reference_games.py), since export failed: {why[0][:120]}")


def plain_table(game: Any) -> dict[Any, tuple[str, int | None]]:
    sys.path.insert(0, str(ROOT))
    from tests.reference_games import solve
    return {p: (OUR_VALUES[value], depth) for p, (value, depth) in solve(game).items()}


def compare(game: Any, his: dict[Any, tuple[str, int | None]],
            ours: dict[Any, tuple[str, int | None]]) -> None:
    """Print how many positions agree, and the first disagreements with their texts."""
    only_his = [p for p in his if p not in ours]
    only_ours = [p for p in ours if p not in his]
    values = [p for p in his if p in ours and his[p][0] != ours[p][0]]
    depths = [p for p in his if p in ours and his[p][0] == ours[p][0] and his[p][1] != ours[p][1]]
    agree = len(his) - len(only_his) - len(values) - len(depths)
    print(f"    {agree:,} of his {len(his):,} positions agree in value and depth; "
          f"{len(values):,} differ in value, {len(depths):,} in depth only; "
          f"{len(only_his):,} only his, {len(only_ours):,} only ours")
    for p in (values + depths)[:SHOWN]:
        print(f"      {game.text(p)}: his {his[p]}, ours {ours[p]}")
    for p in only_his[:SHOWN]:
        print(f"      only his: {game.text(p)}")
    for p in only_ours[:SHOWN]:
        print(f"      only ours: {game.text(p)}")


def shown(value: str | None, depth: int | None) -> str:
    if value is None:
        return "-"
    return f"{value}" if depth is None else f"{value} {depth}"


def ratio(ours: float | None, theirs: float | None) -> str:
    return f"{ours / theirs:.2f}" if ours and theirs else "-"


def last_line(text: str) -> str:
    return (text.strip().splitlines() or ["no message"])[-1][:160]


def solve_his(case: Case, checkout: Path, python: str) -> Run | None:
    """(a): his solver on the game as a whole process, its table written; None if it failed."""
    his = run([python, "-c", DRIVER, case.his_game, case.his_variant], cwd=checkout)
    if his.status:
        print(f"  (a) GamesmanPy's solver FAILED (exit {his.status}): {last_line(his.err)}")
        return None
    found = re.search(r"(\d+) positions written", his.out)
    print(f"  (a) GamesmanPy: {int(found.group(1)) if found else 0:,} positions, {his.cpu:.2f} s CPU, "
          f"{his.wall:.2f} s wall, {his.mib:.0f} MiB peak")
    return his


def _stage_peak(printed: str) -> float | None:
    """The largest stage peak (MiB) of a build's summary table: a build resets the kernel's
    high-water mark as each stage starts, so the process's maxrss is its last stage's."""
    peaks = [float(size) * (1024 if unit == "GiB" else 1) for size, unit in
             re.findall(r"^\s+\w+\s+[\d.]+\s+([\d.]+) (MiB|GiB)\s*$", printed, re.MULTILINE)]
    return max(peaks) if peaks else None


def bench(case: Case, checkout: Path | None, python: str | None, solve: bool,
          pairs: int = 1) -> list[str]:
    """Bench one game, printing as it goes; its row of the summary (with `pairs` > 1, its
    ours/floor the median of that many floors and builds run one after the other)."""
    print(f"{case.name} ({case.spec})")
    game = load(case.spec)
    start = game.start()
    his_run = solve_his(case, checkout, python) if checkout and python and solve else None
    floor_run = run([sys.executable, __file__, "--floor", case.spec])
    floor_s = floor_n = None
    if floor_run.status:
        print(f"  (b) floor FAILED: {last_line(floor_run.err)}")
    else:
        found = json.loads(floor_run.out)
        floor_n, floor_s = found["positions"], found["seconds"]
        print(f"  (b) floor: {floor_n:,} positions, moves and outcome once each: {floor_s:.2f} s CPU")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "user.db"
        ours_run: Run | None = run([str(TABLEBASE), "build", case.spec, "--db", str(db), "--quiet",
                                    "--force"], cwd=ROOT)
        our_start: tuple[str | None, int | None] = (None, None)
        if ours_run is not None and ours_run.status:
            print(f"  (c) our build FAILED (exit {ours_run.status}): {last_line(ours_run.err)}")
            ours_run = None
        elif ours_run is not None:
            print(f"  (c) ours: {ours_run.cpu:.2f} s CPU, {ours_run.wall:.2f} s wall, "
                  f"{_stage_peak(ours_run.out) or ours_run.mib:.0f} MiB peak")
            probe = run([str(TABLEBASE), "probe", case.spec, game.text(start), "--db", str(db),
                         "--json"], cwd=ROOT)
            if probe.status:
                print(f"      our probe FAILED: {last_line(probe.err)}")
            else:
                answer = json.loads(probe.out)
                our_start = (answer["value"], answer.get("depth"))
        his = None
        if checkout is not None:
            try:
                his = his_table(checkout, case, game)
            except sqlite3.Error as error:
                print(f"  his table cannot be read ({error}): run his solver (drop --no-peer-solve)")
        his_start = his.get(start, (None, None)) if his else (None, None)
        print(f"  (d) start {game.text(start)}: ours {shown(*our_start)}, his {shown(*his_start)}")
        o_cpu, o_wall = (ours_run.cpu, ours_run.wall) if ours_run else (None, None)
        h_cpu, h_wall = (his_run.cpu, his_run.wall) if his_run else (None, None)
        print(f"      ours/his (target {PEER_TARGET}): {ratio(o_cpu, h_cpu)} CPU, "
              f"{ratio(o_wall, h_wall)} wall; ours/floor (target {FLOOR_TARGET}): "
              f"{ratio(o_cpu, floor_s)} CPU, {ratio(o_wall, floor_s)} wall")
        if his is not None:
            ours, source = our_table(case, game, db if ours_run else None)
            print(f"  (e) his table against ours, ours from {source}:")
            compare(game, his, ours)
            if source.startswith("the plain"):
                print(f"      (the plain solver's start: {shown(*ours[start])})")
        floor_ratio = ratio(o_cpu, floor_s)
        if pairs > 1 and floor_s and o_cpu and o_wall:
            floor_ratio = _pairs(case, db, pairs, [(floor_s, o_cpu, o_wall)])
    return [case.name, f"{floor_n:,}" if floor_n else "-",
            f"{h_cpu:.1f}/{h_wall:.1f}" if his_run else "-", f"{floor_s:.2f}" if floor_s else "-",
            f"{o_cpu:.1f}/{o_wall:.1f}" if ours_run else "failed",
            ratio(o_cpu, h_cpu), floor_ratio, shown(*our_start), shown(*his_start)]


def _pairs(case: Case, db: Path, pairs: int, runs: list[tuple[float, float, float]]) -> str:
    """Run the floor and our build again until there are `pairs` of them, one after the other
    (this machine's speed drifts by a fifth or more within minutes: a single pair's ratio says
    little); print each pair's ratios and their medians and ranges; the CPU ratio's median."""
    while len(runs) < pairs:
        floor_run = run([sys.executable, __file__, "--floor", case.spec])
        ours_run = run([str(TABLEBASE), "build", case.spec, "--db", str(db), "--quiet", "--force"],
                       cwd=ROOT)
        if floor_run.status or ours_run.status:
            print("  (f) a pair FAILED: " + last_line(floor_run.err or ours_run.err))
            break
        runs.append((json.loads(floor_run.out)["seconds"], ours_run.cpu, ours_run.wall))
    cpu = sorted(c / f for f, c, _ in runs)
    wall = sorted(w / f for f, _, w in runs)
    print(f"  (f) ours/floor over {len(runs)} pairs (floor {min(f for f, _, _ in runs):.2f}-"
          f"{max(f for f, _, _ in runs):.2f} s): CPU median {statistics.median(cpu):.2f} "
          f"({cpu[0]:.2f}-{cpu[-1]:.2f}), wall median {statistics.median(wall):.2f} "
          f"({wall[0]:.2f}-{wall[-1]:.2f})")
    return f"{statistics.median(cpu):.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", choices=[c.name for c in CASES],
                        default=[c.name for c in CASES])
    parser.add_argument("--gamesmanpy", help="GamesmanPy's checkout (or TABLEBASE_GAMESMANPY)")
    parser.add_argument("--python", help="its venv's interpreter (or TABLEBASE_GAMESMANPY_PYTHON)")
    parser.add_argument("--no-peer-solve", action="store_true",
                        help="read his tables as they are, without running his solver again")
    parser.add_argument("--pairs", type=int, default=1,
                        help="run the floor and our build this many times, one after the other,"
                             " and give the median of ours/floor (default 1)")
    parser.add_argument("--floor", help=argparse.SUPPRESS)     # the floor's own process
    args = parser.parse_args(argv)
    if args.floor:
        floor(args.floor)
        return 0
    given = args.gamesmanpy or os.environ.get("TABLEBASE_GAMESMANPY")
    checkout = Path(given).resolve() if given else None
    python = args.python or os.environ.get("TABLEBASE_GAMESMANPY_PYTHON")
    if checkout is not None and python is None:
        python = str(checkout / ".venv" / "bin" / "python")
    if checkout is None:
        print("GamesmanPy: missing, its parts skipped (give --gamesmanpy PATH or TABLEBASE_GAMESMANPY,"
              " and --python PATH or TABLEBASE_GAMESMANPY_PYTHON for its venv's interpreter)")
    elif python is None or not Path(python).exists():
        print(f"GamesmanPy: no interpreter at {python}, his solver not run (give --python PATH or "
              "TABLEBASE_GAMESMANPY_PYTHON); his tables are read as they are")
        python = None
    rows = [bench(case, checkout, python, not args.no_peer_solve, args.pairs)
            for case in CASES if case.name in args.games]
    header = ["game", "positions", "his s cpu/wall", "floor s cpu", "ours s cpu/wall",
              "ours/his cpu", "ours/floor cpu", "start ours", "start his"]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    print()
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
