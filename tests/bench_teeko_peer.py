"""The Teeko bench's peer part: GamesCrafters' GamesmanOne solving its standard Teeko
(`gamesman solve teeko 0`: 5x5, four stones a side dropped then moved to an adjacent cell, four
in a line or a 2x2 square wins), run from this process so that our build of the same game can
be timed beside it in the same bench run. This module runs his build; it holds none of his code.

His binary (his bin/gamesman), made by hand outside this repository, is taken by path:
`--gamesman PATH` or the TABLEBASE_GAMESMAN environment variable; where it is missing, the
bench says so in one line and is skipped (exit 0). His solver runs in a fresh temporary
folder, with his default data path (the relative `data`: his `-d` takes no argument, and
`--data-path=PATH` takes only a relative PATH: with an absolute one he fails to make the
folder, then crashes), with OMP_NUM_THREADS threads, and its figures are read back:

- solve seconds: his "Finished solving all tiers in N second(s)", the sum over tiers of whole
  seconds (`time()`), without start-up; his "Time Elapsed: N seconds" is start to end;
- wall seconds: ours, from start of his process to its exit; and his CPU seconds (user and
  system, all threads), the steadier figure where the machine is shared;
- peak memory: his process's peak resident set: his VmHWM in /proc, read while he runs, or
  `os.wait4`'s `ru_maxrss` where that is above this process's own peak (Linux counts in a
  child's ru_maxrss, as in `getrusage(RUSAGE_CHILDREN)`, the memory of the process that
  started it, so a bench process holding our tables would otherwise be reported as his);
- database bytes: the files his solve leaves under data/ (XZ-compressed arrays of 16-bit
  records: value in the top 4 bits, remoteness in the low 12; `du -sb` adds the folders' own
  sizes, 20 KiB);
- positions: his "total size" and each tier's size, which are his hash spaces: every placement
  of the tier's stones (the moving phase with either side to move, 151,420,500), of which he
  solves only the canonical ones under the board's 8 symmetries (the others stay "undecided"
  in his arrays, found by canonicalising on a probe);
- the start position's value and remoteness, by `gamesman query teeko 0 1_-------------------------`
  over the database just written ("draw", remoteness 0: Steele's result, 1999).

His query takes a position as side to move ("1": X, who drops first; "2": O), '_', and the 25
cells row by row ('X', 'O', '-'), and prints one line of JSON: "positionValue" ("win", "lose",
"draw", for the side to move; a draw by endless play has remoteness 0), "remoteness" (plies to
the end), and under "moves" each move ("cell", or "from to" in the moving phase, cells 0-24)
with its child's position, value and remoteness.

`--analyze` adds his `gamesman analyze teeko 0` over that database (positions reached from the
start, by value, and the longest win and loss in plies), as its own line, not in the solve's time.
It is slow: on the shared machine the drop tiers took 33 min, and the moving phase had not
ended some 80 min later (the run was stopped). His database answers the depth question without
it: no decided position's remoteness is over 39 (a win; a loss: 38), in either phase, and both
are reached in the drop phase, whose positions his analysis found all reachable (six stones,
a win in 39; five, a loss in 38); a draw is stored with remoteness 0.

    python tests/bench_teeko_peer.py [--gamesman PATH] [--threads 2]

His solve of Teeko with 2 threads (GamesmanOne 1.3.0, 2 cores): 2,190 s of solving (36.5 min
wall, 1,236 s CPU) where the machine was shared with other work (load 6-9; an earlier run on
a quieter machine, reported to us, gave 834 s); 9.9 million KiB (9.4 GiB) at its peak, most of
it the moving phase's reverse graph (Teeko gives him no parent generator, so he holds every
child's parents), and 5.56 MB of database. His analysis over it takes longer than the solve.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

# His command line for standard Teeko (variant 0: "winning rule: Standard") and his name of the
# start position: side to move ("1": X, who drops first), '_', the 25 cells row by row.
GAME, VARIANT = "teeko", "0"
START = "1_" + "-" * 25
THREADS = 2


class PeerError(RuntimeError):
    """His solve or query failed: the command, its exit status and the tail of its output."""


class PeerSolve(NamedTuple):
    """One run of `gamesman solve teeko 0` in a fresh folder (units in the names)."""

    solve_seconds: int          # his "Finished solving all tiers in N second(s)"
    elapsed_seconds: int        # his "Time Elapsed: N seconds" (start to end of his solve)
    wall_seconds: float         # ours: his process, start to exit
    cpu_seconds: float          # his process's user + system time, all threads (less swayed by
                                # a shared machine's load than wall time)
    peak_rss_bytes: int         # his process's peak resident set
    database_bytes: int         # the files under his data/ folder
    total_positions: int        # his "total size N (positions)": the tiers' hash spaces
    tiers: tuple[tuple[str, int], ...]  # (his name, size) of each tier, in his solving order
    threads: int                # OMP_NUM_THREADS he ran with
    start_value: str            # his value of the start position: "draw" for Teeko
    start_remoteness: int       # his remoteness of it (plies)


class PeerAnalysis(NamedTuple):
    """His `gamesman analyze teeko 0` over a solved database: positions reached from the start
    (all of them, not only canonical ones), by value, and the longest win and loss (plies)."""

    reached: int                # his "Hash size" of the whole game: positions reached
    wins: int
    losses: int
    draws: int
    longest_win: int            # the largest remoteness of a won position (side to move)
    longest_loss: int           # the largest remoteness of a lost position
    wall_seconds: float


def gamesman_path(given: str | None = None) -> Path | None:
    """The path given for his binary: `given`, else TABLEBASE_GAMESMAN, else None."""
    found = given or os.environ.get("TABLEBASE_GAMESMAN")
    return Path(found).expanduser().resolve() if found else None


def gamesman_binary(given: str | None = None) -> Path | None:
    """His binary (gamesman_path), None where not given or not an executable file."""
    path = gamesman_path(given)
    return path if path is not None and path.is_file() and os.access(path, os.X_OK) else None


def missing_line(given: str | None = None) -> str:
    """Why his binary is missing, and how to give it, in one line."""
    path = gamesman_path(given)
    return (f"no build of GamesmanOne{'' if path is None else f' at {path}'}"
            " (--gamesman PATH or TABLEBASE_GAMESMAN)")


# How often his process's high-water mark (/proc/PID/status VmHWM) is read while he runs.
POLL_SECONDS = 0.2


def _high_water(pid: int) -> int | None:
    """VmHWM of `pid` in bytes (its peak resident set since its exec), None if unreadable."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def _own_peak() -> int:
    """This process's peak resident set in bytes (ru_maxrss: KiB on Linux, bytes on macOS)."""
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _measured(command: list[str], cwd: Path, env: dict[str, str], out: Path,
              timeout: float | None) -> tuple[int, float, float, int]:
    """Run `command` in `cwd`, its stdout and stderr into `out`; (exit status, wall seconds,
    CPU seconds, peak resident bytes), of that process alone. Killed after `timeout` seconds,
    if given."""
    import subprocess
    polled = 0
    done = threading.Event()

    def poll(pid: int) -> None:
        nonlocal polled
        while not done.wait(POLL_SECONDS):
            polled = max(polled, _high_water(pid) or 0)

    with out.open("wb") as sink:
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=sink,
                                stderr=subprocess.STDOUT)
        ours = _own_peak()
        poller = threading.Thread(target=poll, args=(proc.pid,), daemon=True)
        poller.start()
        # os.kill, not proc.kill: Popen.kill polls first, and a poll could reap him before wait4.
        timer = (threading.Timer(timeout, os.kill, (proc.pid, signal.SIGKILL))
                 if timeout is not None else None)
        if timer is not None:
            timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)  # his rusage alone: his CPU time
        finally:
            done.set()
            if timer is not None:
                timer.cancel()
        wall = time.perf_counter() - start
        poller.join()
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    # His peak: wait4's ru_maxrss (like getrusage(RUSAGE_CHILDREN)'s) is not his alone: Linux
    # keeps in it the high-water mark of the memory he had before his exec, which is this
    # process's (a `sleep` started from a process of 800 MB reports 800 MB). It is his only
    # where it is above this process's own peak; else his VmHWM, read every POLL_SECONDS while
    # he runs (a high-water mark: only what he grows in his last moments can be missed).
    waited = usage.ru_maxrss if sys.platform == "darwin" else usage.ru_maxrss * 1024
    peak = max(polled, waited if waited > ours else 0)
    return proc.returncode, wall, usage.ru_utime + usage.ru_stime, peak


def _tail(path: Path, lines: int = 15) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def parse_solve(text: str) -> tuple[int, int, int, tuple[tuple[str, int], ...], int]:
    """(solve seconds, elapsed seconds, total positions, (name, size) of each tier solved,
    tiers failed) from his solve's output; PeerError if a line is missing."""
    total = re.search(r"Begin solving all \d+ tiers \(\d+ canonical\) of total size (\d+)", text)
    solve = re.search(r"Finished solving all tiers in (\d+) second", text)
    elapsed = re.search(r"Time Elapsed: (\d+) seconds", text)
    failed = re.search(r"Number of tiers failed due to OOM: (\d+)", text)
    if total is None or solve is None or elapsed is None or failed is None:
        raise PeerError(f"his solve's output lacks its summary lines:\n{text[-2000:]}")
    tiers = tuple((name, int(size)) for name, size in
                  re.findall(r"Finished solving tier \[([^\]]+)\] \(#\d+\) of size (\d+)", text))
    return int(solve[1]), int(elapsed[1]), int(total[1]), tiers, int(failed[1])


def query(binary: Path, folder: Path, position: str = START) -> tuple[str, int]:
    """(value, remoteness) of `position` (his notation: side to move 1 or 2, '_', the 25 cells
    row by row, 'X', 'O' or '-') by his `query` over the database in `folder`/data; the value
    is for the side to move: "win", "lose", "draw" (endless play), "undecided" if unsolved."""
    import subprocess
    done = subprocess.run([str(binary), "query", GAME, VARIANT, position], cwd=folder,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PeerError(f"gamesman query {GAME} {VARIANT} {position}: exit {done.returncode}:"
                        f" {(done.stderr or done.stdout).strip()[-500:]}")
    answer = json.loads(done.stdout)
    return str(answer["positionValue"]), int(answer["remoteness"])


def database_bytes(folder: Path) -> int:
    """The bytes of the files under `folder`/data (his database, with his analysis files)."""
    return sum(p.stat().st_size for p in (folder / "data").rglob("*") if p.is_file())


def _env(threads: int) -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": str(threads)}


def _command(binary: Path, nice: int, *args: str) -> list[str]:
    niced = ["nice", "-n", str(nice)] if nice and shutil.which("nice") else []
    return [*niced, str(binary), *args]  # nice execs him: the same pid, his rusage


def solve_teeko(binary: Path, folder: Path, threads: int = THREADS, nice: int = 0,
                timeout: float | None = None) -> PeerSolve:
    """His solve of standard Teeko in `folder` (new, or empty: his database is written to its
    data/, his output to its solve.log), with `threads` OpenMP threads at niceness `nice`; his
    figures and ours (see PeerSolve). PeerError if he fails or runs over `timeout` seconds."""
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        raise PeerError(f"{folder} is not empty: his solve would find an earlier database")
    log = folder / "solve.log"
    status, wall, cpu, peak = _measured(_command(binary, nice, "solve", GAME, VARIANT), folder,
                                   _env(threads), log, timeout)
    if status != 0:
        raise PeerError(f"gamesman solve {GAME} {VARIANT}: exit {status} after {wall:.0f} s:"
                        f"\n{_tail(log)}")
    solve, elapsed, total, tiers, failed = parse_solve(log.read_text(errors="replace"))
    if failed:
        raise PeerError(f"gamesman solve {GAME} {VARIANT}: {failed} tiers failed:\n{_tail(log)}")
    value, remoteness = query(binary, folder)
    return PeerSolve(solve, elapsed, wall, cpu, peak, database_bytes(folder), total, tiers,
                     threads, value, remoteness)


def parse_analysis(text: str) -> tuple[int, int, int, int, int, int]:
    """(reached, wins, losses, draws, longest win, longest loss) from the whole game's summary,
    the last one his analyze prints; PeerError if it is missing."""
    summary = text.rsplit("Finished analyzing all tiers", 1)[-1]
    found = [re.search(pattern, summary) for pattern in (
        r"Hash size: (\d+)", r"Winning positions: (\d+)", r"Losing positions: (\d+)",
        r"Drawing positions: (\d+)", r"One longest win starts .* has remoteness (\d+)",
        r"One longest lose starts .* has remoteness (\d+)")]
    if any(m is None for m in found):
        raise PeerError(f"his analysis's output lacks its summary:\n{summary[-2000:]}")
    a, b, c, d, e, f = (int(m[1]) for m in found if m is not None)
    return a, b, c, d, e, f


def analyze_teeko(binary: Path, folder: Path, threads: int = THREADS, nice: int = 0,
                  timeout: float | None = None) -> PeerAnalysis:
    """His `gamesman analyze teeko 0` over the database solved in `folder`."""
    log = folder / "analyze.log"
    status, wall, _, _ = _measured(_command(binary, nice, "analyze", GAME, VARIANT), folder,
                                _env(threads), log, timeout)
    if status != 0:
        raise PeerError(f"gamesman analyze {GAME} {VARIANT}: exit {status}:\n{_tail(log)}")
    return PeerAnalysis(*parse_analysis(log.read_text(errors="replace")), wall)


def main(argv: Sequence[str] | None = None) -> int:
    """Solve Teeko with his build and print the record; 0 also when skipped (no build)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--gamesman", metavar="PATH", help="his binary, built by hand"
                        " (default: $TABLEBASE_GAMESMAN)")
    parser.add_argument("--threads", type=int, default=THREADS,
                        help="OMP_NUM_THREADS (default %(default)s)")
    parser.add_argument("--nice", type=int, default=0, help="run him at this niceness")
    parser.add_argument("--keep", type=Path, help="solve in this new (or empty) folder, kept")
    parser.add_argument("--timeout", type=float, help="seconds before his solve is stopped")
    parser.add_argument("--analyze", action="store_true",
                        help="then his analysis: positions reached, longest win and loss")
    args = parser.parse_args(argv)
    binary = gamesman_binary(args.gamesman)
    if binary is None:
        print(f"  gamesman teeko: skipped: {missing_line(args.gamesman)}")
        return 0
    try:
        with tempfile.TemporaryDirectory(prefix="gamesman-teeko-") as tmp:
            folder = args.keep if args.keep is not None else Path(tmp) / "run"
            run = solve_teeko(binary, folder, args.threads, args.nice, args.timeout)
            print(f"  gamesman teeko ({binary}, {run.threads} threads):")
            print(f"  solve {run.solve_seconds} s (his), elapsed {run.elapsed_seconds} s (his),"
                  f" wall {run.wall_seconds:.1f} s, CPU {run.cpu_seconds:.1f} s,"
                  f" peak {run.peak_rss_bytes / 2**30:.2f} GiB ({run.peak_rss_bytes} bytes),"
                  f" database {run.database_bytes} bytes")
            print(f"  positions {run.total_positions:,} in {len(run.tiers)} tiers: " +
                  ", ".join(f"{name} {size:,}" for name, size in run.tiers))
            print(f"  start position: {run.start_value}, remoteness {run.start_remoteness}")
            if args.analyze:
                seen = analyze_teeko(binary, folder, args.threads, args.nice, args.timeout)
                print(f"  analysis ({seen.wall_seconds:.0f} s): {seen.reached:,} positions reached,"
                      f" {seen.wins:,} won, {seen.losses:,} lost, {seen.draws:,} drawn;"
                      f" longest win {seen.longest_win} plies, longest loss {seen.longest_loss}")
    except PeerError as e:
        print(f"  gamesman teeko: failed: {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
