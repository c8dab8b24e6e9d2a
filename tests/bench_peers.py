"""`make bench-peers`: our full build against OpenSpiel's MinimaxSolver on the same games, in one
process, and an audit of our tables by every non-terminal state OpenSpiel solved.

OpenSpiel (the optional `bench` extra, never a core dependency) is timed with
`open_spiel.python.algorithms.minimax_solver.MinimaxSolver(game).solve()`, the strong solver
OpenSpiel offers from Python: a memoised depth-first minimax that stores the value and the action
values of every reachable non-terminal state, keyed by the state's string, with no symmetry
reduction. (`value_iteration` also solves strongly but first collects every state, terminals
included, then sweeps the whole table until nothing changes; `minimax.alpha_beta_search` and
`expectiminimax` only value one state.) Our figure is `build()` wall time into a fresh SQLite
file, writing included. Each solve has a time limit (default 600 s); a game that runs over it is
reported as "> limit" and the states it had finished are still audited: MinimaxSolver stores a
state only once all its children are solved, so every stored value is final.

Run: python tests/bench_peers.py [--specs 3x3k3 4x3k3 ...] [--time-limit 600]
"""
from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablebase.builder.games.grid import Spec, canonical_many, decode, parse_spec  # noqa: E402
from tablebase.builder.games.grid.codec import encode_many  # noqa: E402
from tablebase.builder.games.grid.root import Root  # noqa: E402
from tablebase.builder.kernels import warm_up  # noqa: E402
from tablebase.builder.pipeline import build  # noqa: E402
from tablebase.query.tablebase import open_tablebase  # noqa: E402

SPECS = ["3x3k3", "4x3k3", "4x4k3", "4x4k4+gravity", "5x4k4+gravity"]
TARGET = 30          # our full build must be at least this many times faster than OpenSpiel
TIME_LIMIT = 600.0   # seconds per OpenSpiel solve
SHOWN = 5            # disagreements printed per game, with their boards

# OpenSpiel's board strings use these characters; ours are cell values.
_CELL_OF_CHAR = bytes.maketrans(b".xo", b"\x00\x01\x02")


def openspiel_game(spec: Spec) -> str | None:
    """The OpenSpiel game string that plays `spec` by the same rules, or None if it has none.

    mnk's m is the number of columns and n of rows; connect_four takes rows and columns by name.
    Both (and tic_tac_toe) let X, player 0, move first, as we do, and end the game on the first
    k in a row or a full board. OpenSpiel has no misère variant of either.
    """
    if spec.misere:
        return None
    if spec.gravity:
        return f"connect_four(rows={spec.height},columns={spec.width},x_in_row={spec.k})"
    if (spec.width, spec.height, spec.k) == (3, 3, 3):
        return "tic_tac_toe"
    return f"mnk(m={spec.width},n={spec.height},k={spec.k})"


class SolveTimeout(Exception):
    """Raised inside a solve that ran over its time limit."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise SolveTimeout in the block after `seconds` of wall time (main thread only).

    MinimaxSolver recurses in Python, so the signal is handled between two of its bytecodes and
    the unwinding leaves its table holding only finished states.
    """
    def _expire(_signum: int, _frame: Any) -> None:
        raise SolveTimeout

    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class PeerRun:
    """One OpenSpiel solve: wall seconds, whether it finished, and its table (str -> entry)."""

    seconds: float
    finished: bool
    table: dict[str, Any]


def solve_openspiel(game_string: str, limit: float) -> PeerRun:
    """Time MinimaxSolver on `game_string`, stopping it after `limit` seconds."""
    from open_spiel.python.algorithms.minimax_solver import MinimaxSolver

    start = time.perf_counter()
    solver = MinimaxSolver(game_string)
    finished = True
    try:
        with time_limit(limit):
            solver.solve()
    except SolveTimeout:
        finished = False
    seconds = time.perf_counter() - start
    # solve() returns this same dict; after a timeout it is reachable only here.
    return PeerRun(seconds, finished, solver._table)  # noqa: SLF001


@dataclass
class OurRun:
    """Our build: wall seconds of `build()` and the stored table as sorted arrays."""

    seconds: float
    canonical: int
    codes: np.ndarray
    values: np.ndarray
    depths: np.ndarray


def build_ours(spec: Spec, directory: str) -> OurRun:
    """Build `spec` into a fresh database in `directory`, timed, and read every row back."""
    path = os.path.join(directory, f"{spec.name.replace('+', '_')}.db")
    start = time.perf_counter()
    report = build(spec, path)
    seconds = time.perf_counter() - start
    with open_tablebase(path) as tb:
        chunks = list(tb.table(spec).positions())
    codes, _ply, values, depths = (np.concatenate([c[i] for c in chunks]) for i in range(4))
    return OurRun(seconds, report.canonical, codes, values, depths)


@dataclass
class Audit:
    """OpenSpiel's solved states against our table, each by its canonical code."""

    compared: int = 0
    missing: int = 0            # no row for the state's canonical code
    terminal_here: int = 0      # our row says terminal (depth 0), OpenSpiel solved it as not
    disagreements: int = 0      # both present, values differ
    uncovered: int | None = None  # our non-terminal canonical codes no OpenSpiel state maps to
    examples: list[str] = field(default_factory=list)


def boards_of(keys: list[str], cells: int) -> np.ndarray:
    """OpenSpiel board strings (rows top to bottom, '.xo', rows split by newlines) as an
    (N, cells) array of our cell values, row-major from the top-left.

    mnk and tic_tac_toe number rows from the top; connect_four keeps row 0 at the bottom but
    prints the top row first, so its strings read top to bottom too.
    """
    flat = "".join(keys).replace("\n", "").encode("ascii").translate(_CELL_OF_CHAR)
    if len(flat) != len(keys) * cells:
        raise ValueError(f"OpenSpiel boards hold {len(flat)} cells in all, expected "
                         f"{len(keys)} x {cells}")
    boards = np.frombuffer(flat, dtype=np.uint8).reshape(len(keys), cells)
    if boards.size and int(boards.max()) > 2:
        raise ValueError("an OpenSpiel board has a character other than '.', 'x' or 'o'")
    return boards.astype(np.int8)


def picture(spec: Spec, code: int) -> str:
    """A board in our notation, rows top to bottom joined by '/'."""
    cells = decode(code, spec.cells)
    return "/".join("".join(".xo"[v] for v in cells[r * spec.width:(r + 1) * spec.width])
                    for r in range(spec.height))


def audit(spec: Spec, peer: PeerRun, ours: OurRun, chunk: int = 1 << 18) -> Audit:
    """Compare OpenSpiel's value of every state in its table with our stored value.

    OpenSpiel's entry value is for the player to move (+1 win, 0 draw, -1 loss), as ours is.
    """
    result = Audit()
    keys = list(peer.table)
    theirs_all = np.fromiter((entry.value for entry in peer.table.values()), dtype=np.float64,
                             count=len(keys))
    seen: list[np.ndarray] = []
    word = {-1: "loss", 0: "draw", 1: "win"}
    for start in range(0, len(keys), chunk):
        part = keys[start:start + chunk]
        theirs = np.rint(theirs_all[start:start + chunk]).astype(np.int8)
        canon = canonical_many(spec, encode_many(boards_of(part, spec.cells)))
        seen.append(canon)
        at = np.minimum(np.searchsorted(ours.codes, canon), len(ours.codes) - 1)
        found = ours.codes[at] == canon
        terminal = found & (ours.depths[at] == 0)
        wrong = found & ~terminal & (ours.values[at] != theirs)
        result.compared += len(part)
        result.missing += int((~found).sum())
        result.terminal_here += int(terminal.sum())
        result.disagreements += int(wrong.sum())
        for i in np.flatnonzero(~found | terminal | wrong):
            if len(result.examples) >= SHOWN:
                break
            mine = ("no row" if not found[i] else "terminal" if terminal[i]
                    else word[int(ours.values[at[i]])])
            result.examples.append(
                f"{part[i].strip().replace(chr(10), '/')} (canonical {picture(spec, int(canon[i]))}):"
                f" OpenSpiel {word[int(theirs[i])]}, ours {mine}")
    if peer.finished:
        covered = np.unique(np.concatenate(seen)) if seen else np.empty(0, dtype=np.int64)
        result.uncovered = len(np.setdiff1d(ours.codes[ours.depths > 0], covered,
                                            assume_unique=True))
    return result


HEAD = (f"{'spec':<15}{'OpenSpiel s':>12}{'OS states':>12}{'OS states/s':>12}{'our s':>8}"
        f"{'canonical':>11}{'pos/s':>10}{'ratio':>9}  {TARGET}x target")


def report_line(name: str, peer: PeerRun | None, ours: OurRun, limit: float) -> str:
    """One table row: OpenSpiel's solve, our build, the ratio and the target."""
    mine = f"{ours.seconds:>8.2f}{ours.canonical:>11,}{ours.canonical / ours.seconds:>10,.0f}"
    if peer is None:
        return (f"{name:<15}{'-':>12}{'-':>12}{'-':>12}{mine}{'-':>9}  "
                "n/a (no OpenSpiel equivalent)")
    states = len(peer.table)
    ratio = peer.seconds / ours.seconds
    if peer.finished:
        peer_s, ratio_s = f"{peer.seconds:>12.2f}", f"{ratio:>8.{0 if ratio >= 10 else 1}f}x"
        verdict = "met" if ratio >= TARGET else "NOT met"
    else:
        peer_s, ratio_s = f"{'> ' + format(limit, '.0f'):>12}", f"{'> ' + format(ratio, '.0f'):>8}x"
        verdict = f"n/a (OpenSpiel over {limit:.0f} s)"
    return (f"{name:<15}{peer_s}{states:>12,}{states / peer.seconds:>12,.0f}{mine}"
            f"{ratio_s}  {verdict}")


def audit_lines(result: Audit, peer: PeerRun) -> list[str]:
    """The audit's findings for one game, indented under its row."""
    solved = "every" if peer.finished else "every (before the limit)"
    bad = result.missing + result.terminal_here + result.disagreements
    lines = [f"  audit: {result.compared:,} = {solved} non-terminal state OpenSpiel solved,"
             f" compared: {result.disagreements} disagree, {result.missing} missing here,"
             f" {result.terminal_here} terminal here" + ("" if bad else " (all agree)")]
    if result.uncovered is not None:
        lines.append(f"         our non-terminal canonical positions no OpenSpiel state maps to:"
                     f" {result.uncovered:,}")
    lines += [f"         {example}" for example in result.examples]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print the table; exit 1 if the audit found a fault."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--specs", nargs="*", default=SPECS)
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT,
                        help="seconds per OpenSpiel solve (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel is not installed: `make bench-peers` installs the bench extra "
              "(pip install -e '.[bench]')", file=sys.stderr)
        return 2
    from importlib.metadata import version

    print(f"OpenSpiel {version('open_spiel')} MinimaxSolver vs our build (writing included), "
          f"one process, {args.time_limit:.0f} s limit per OpenSpiel solve")
    print("OpenSpiel solves every reachable non-terminal state (no symmetry); we store one "
          "canonical position per orbit, terminals included")
    # Our compiled kernels load once per process (numba's cache): about 0.4 s, paid here
    # and reported, as OpenSpiel's own import and C++ game loading are not timed either.
    start = time.perf_counter()
    warm_up(Root.whole(parse_spec(args.specs[0])))
    print(f"our compiled kernels loaded (tablebase.builder.kernels.warm_up) in "
          f"{time.perf_counter() - start:.2f} s, before any timing")
    print(HEAD, flush=True)
    faults = 0
    for name in args.specs:
        spec = parse_spec(name)
        game_string = openspiel_game(spec)
        with tempfile.TemporaryDirectory() as tmp:
            ours = build_ours(spec, tmp)
        if game_string is None:
            print(report_line(spec.name, None, ours, args.time_limit), flush=True)
            continue
        peer = solve_openspiel(game_string, args.time_limit)
        print(report_line(spec.name, peer, ours, args.time_limit))
        print(f"  OpenSpiel game: {game_string}")
        result = audit(spec, peer, ours)
        faults += result.missing + result.terminal_here + result.disagreements
        faults += result.uncovered or 0
        print("\n".join(audit_lines(result, peer)), flush=True)
        del peer, ours, result
        gc.collect()
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
