"""Issue 58's check that nothing changes for a user: each game of the list is built by a
baseline checkout (today's main, d701a25) and by this checkout, each as a whole process, and
the two catalogue rows, per-ply counts and answers are compared; build seconds side by side.

    python tests/bench_same_tables.py --baseline /work/baseline [--games 3x3k3 ...]
        [--positions 500] [--builds 3] [--probes 100]

Answers: N positions drawn from random playouts from each table's root are asked `probe`,
`moves` and `line` with --json by both versions, each in one process of its own interpreter
calling its own CLI's `main` (the code path of `tablebase probe ... --json`), and stdout,
stderr and exit status compared byte for byte: the baseline on its own table (A) against
this checkout on A (a table built before reads the same) and on its own build (B).
Imports nothing of ours: run with this checkout's interpreter or any Python 3.11.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
OURS = HERE.parents[1]

# (label, spec, build arguments after the spec, the root for answers: board text or None for
# the empty board, then moves from it)
_C4 = "..xxo../..ooxx./..oxxo./..ooox./..xoxo./oxxxoxo"  # README's 26-stone example
_GOMOKU32 = ("d1 c1 d7 f7 d2 d3 e4 g6 d4 c4 f5 c6 d5 c5 b2 f1 e1 b4 a5 d6 b7 c7 c3 f4 b5 e5 g3"
             " f2 e3 f3 b6 e7")  # tests/bench_endgame.py's 7x7k5-32
_STONES = "o.x/xx./o.o o"  # docs/moving.md's example
Start = tuple[str | None, list[str]]
GAMES: list[tuple[str, str, list[str], Start]] = [
    (s, s, [], (None, [])) for s in (
        "3x3k3", "4x3k3", "3x3k3+misere", "4x4k3+exact", "4x4k4", "5x4k4+gravity",
        "6x4k4+gravity", "3x3k3+stones3", "3x3k3+stones3+jump", "3x3k3+stones4",
        "3x3k3+stones3+misere", "4x3k3+stones3", "4x4k4+stones4+square")
] + [
    ("7x6 endgame", "7x6k4+gravity", ["--from", _C4], (_C4, [])),
    ("7x7k5 endgame", "7x7k5", ["--moves", _GOMOKU32], (None, _GOMOKU32.split())),
    ("stones endgame", "3x3k3+stones3", ["--from", _STONES], (_STONES, [])),
]
CATALOGUE = ("spec", "root", "width", "height", "k", "gravity", "misere", "status", "layout",
             "schema_version", "reachable", "canonical", "terminal", "terminal_canonical",
             "wins", "draws", "losses", "root_value", "root_depth", "checksum", "stored_bytes")
COMMANDS = ("probe", "moves", "line")
MAX_PLAYOUT = 60  # where stones move, a playout can go on for ever


# --- the helper side: runs under either version's interpreter --------------------------------

def _cli(argv: list[str]) -> tuple[int, str, str]:
    """One `tablebase` command run in this process: exit status, stdout, stderr."""
    from tablebase.query.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _position_args(position: dict[str, Any]) -> list[str]:
    root, moves = position["root"], " ".join(position["moves"])
    return ([] if root is None else [root]) + (["--moves", moves] if moves else [])


def helper_sample(spec: str, start: Start, db: str, count: int, seed: int) -> None:
    """Print `count` distinct positions (root and moves from it) met on random playouts from
    `start`, each move drawn from `moves --json` of this interpreter's version."""
    rng = random.Random(seed)
    root, prefix = start
    pool: dict[str, dict[str, Any]] = {}
    calls = 0
    while len(pool) < 2 * count and calls < 10 * count:
        moves: list[str] = list(prefix)
        while len(moves) - len(prefix) <= MAX_PLAYOUT:
            calls += 1
            position = {"root": root, "moves": list(moves)}
            pool[json.dumps(position)] = position
            status, out, err = _cli(["moves", spec, *_position_args(position), "--db", db,
                                     "--json"])
            if status != 0:
                raise SystemExit(f"sampling {spec}: {err.strip()}")
            legal = [m["move"] for m in json.loads(out)["moves"]]
            if not legal:
                break
            moves.append(rng.choice(legal))
    keys = sorted(pool)
    print(json.dumps([pool[k] for k in rng.sample(keys, min(count, len(keys)))]))


def helper_answer(spec: str, db: str) -> None:
    """Read positions (JSON) on stdin; print probe, moves and line of each, as the CLI would."""
    answers = []
    for position in json.loads(sys.stdin.read()):
        for command in COMMANDS:
            answers.append(_cli([command, spec, *_position_args(position), "--db", db,
                                 "--json"]))
    print(json.dumps(answers))


# --- the driver side ----------------------------------------------------------------------

def _python(checkout: Path) -> str:
    return str(checkout / ".venv" / "bin" / "python")


def _helper(checkout: Path, args: list[str], stdin: str = "") -> Any:
    """Run this file's helper mode under `checkout`'s interpreter; its JSON output."""
    run = subprocess.run([_python(checkout), str(HERE), *args], input=stdin, text=True,
                         capture_output=True, cwd=checkout)
    if run.returncode != 0:
        raise SystemExit(f"helper {args[:2]} under {checkout} failed:\n{run.stderr}")
    return json.loads(run.stdout)


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Run `argv` as a whole process; its wall and CPU seconds (children's user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{run.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def build(checkout: Path, spec: str, extra: list[str], db: Path) -> tuple[float, float]:
    """Build `spec` into a fresh `db` with `checkout`'s tablebase; wall and CPU seconds."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    tool = str(checkout / ".venv" / "bin" / "tablebase")
    return timed([tool, "build", spec, *extra, "--db", str(db), "--quiet"], db.parent)


def catalogue(db: Path) -> tuple[dict[str, Any], list[tuple[int, ...]]]:
    """The one catalogue row of `db` (the compared columns) and its per-ply counts."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
        con.row_factory = sqlite3.Row
        rows = con.execute("SELECT * FROM games").fetchall()
        if len(rows) != 1:
            raise SystemExit(f"{db}: expected one catalogue row, found {len(rows)}")
        row = {c: rows[0][c] for c in CATALOGUE if c in rows[0].keys()}
        plies = con.execute("SELECT ply, reachable, canonical, terminal, wins, draws, losses"
                            " FROM game_plies WHERE game_id = ? ORDER BY ply",
                            (rows[0]["id"],)).fetchall()
    return row, [tuple(p) for p in plies]


def compare_answers(baseline: Path, spec: str, start: Start, a_db: Path, b_db: Path,
                    n: int, seed: int) -> tuple[int, int, int, int, list[str]]:
    """Positions compared, mismatches of ours on A and on B against the baseline on A, the
    baseline's answers that came from search rather than the table, and the first few
    mismatches described."""
    positions = _helper(baseline, ["--sample", spec, json.dumps(start), str(a_db), str(n),
                                   str(seed)])
    stdin = json.dumps(positions)
    want = _helper(baseline, ["--answer", spec, str(a_db)], stdin)
    examples: list[str] = []
    bad = []
    for db, label in ((a_db, "A"), (b_db, "B")):
        got = _helper(OURS, ["--answer", spec, str(db)], stdin)
        wrong = 0
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            if w != g:
                wrong += 1
                if len(examples) < 3:
                    p = positions[i // len(COMMANDS)]
                    examples.append(
                        f"{spec} on {label}: {COMMANDS[i % len(COMMANDS)]}"
                        f" {' '.join(map(repr, _position_args(p)))}\n"
                        f"  baseline: {w!r}\n  ours:     {g!r}")
        bad.append(wrong)
    searched = sum('"source": "search"' in w[1] for w in want)
    return len(positions), bad[0], bad[1], searched, examples


def probe_p50(baseline: Path, spec: str, a_db: Path, b_db: Path, position: list[str],
              n: int) -> tuple[float, float]:
    """Median wall seconds of `n` `tablebase probe` processes of each version, alternating."""
    times: dict[Path, list[float]] = {baseline: [], OURS: []}
    for i in range(n):
        for checkout, db in ((baseline, a_db), (OURS, b_db))[:: 1 if i % 2 == 0 else -1]:
            tool = str(checkout / ".venv" / "bin" / "tablebase")
            times[checkout].append(timed([tool, "probe", spec, *position, "--db", str(db)],
                                         db.parent)[0])
    return statistics.median(times[baseline]), statistics.median(times[OURS])


def warm(checkout: Path) -> None:
    """Compile and cache each version's kernels before anything is timed (numba caches them
    beside each checkout's sources, so each compiles once, untimed)."""
    script = checkout / "tests" / "compile_kernels.py"
    subprocess.run([_python(checkout), str(script), "tables"], cwd=checkout, check=True,
                   capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default=os.environ.get("TABLEBASE_BASELINE"),
                        help="checkout of today's main with its .venv (or TABLEBASE_BASELINE)")
    parser.add_argument("--games", nargs="+", metavar="LABEL",
                        help=f"labels of the list (default: all): {[g[0] for g in GAMES]}")
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--builds", type=int, default=3,
                        help="builds of each version, alternating, a game (the fastest counts;"
                             " one only for a game whose first build takes over 20 s)")
    parser.add_argument("--probes", type=int, default=100,
                        help="probe processes of each version for the p50 (on 4x4k4)")
    parser.add_argument("--work", help="folder for the databases (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=58)
    parser.add_argument("--no-warm", action="store_true", help="skip compiling the kernels")
    args = parser.parse_args()
    if args.baseline is None:
        parser.error("--baseline (or TABLEBASE_BASELINE) is required")
    baseline = Path(args.baseline).resolve()
    chosen = [g for g in GAMES if args.games is None or g[0] in args.games]
    if args.games and len(chosen) != len(args.games):
        parser.error(f"unknown game among {args.games}; labels: {[g[0] for g in GAMES]}")
    head = {c: subprocess.run(["git", "-C", str(c), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
            for c in (baseline, OURS)}
    print(f"baseline {baseline} at {head[baseline]}; ours {OURS} at {head[OURS]};"
          f" {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}", flush=True)
    if not args.no_warm:
        for checkout in (baseline, OURS):
            warm(checkout)
    work_ctx = (contextlib.nullcontext(args.work) if args.work
                else tempfile.TemporaryDirectory(prefix="same-tables-"))
    rows, examples, problems = [], [], []
    with work_ctx as work_dir:
        work = Path(work_dir)
        work.mkdir(parents=True, exist_ok=True)
        for index, (label, spec, extra, start) in enumerate(chosen):
            a_db, b_db = work / f"A-{index}.db", work / f"B-{index}.db"
            times: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
            order = [("A", baseline, a_db), ("B", OURS, b_db)]
            for rep in range(args.builds):
                for side, checkout, db in order[:: 1 if (index + rep) % 2 == 0 else -1]:
                    times[side].append(build(checkout, spec, extra, db))
                if max(t[0] for t in times["A"] + times["B"]) > 20:
                    break
            (row_a, plies_a), (row_b, plies_b) = catalogue(a_db), catalogue(b_db)
            differing = [c for c in CATALOGUE if row_a.get(c) != row_b.get(c)]
            if differing:
                problems.append(f"{label}: catalogue differs in {differing}:"
                                f" baseline {[row_a.get(c) for c in differing]},"
                                f" ours {[row_b.get(c) for c in differing]}")
            n, wrong_a, wrong_b, searched, ex = compare_answers(
                baseline, spec, start, a_db, b_db, args.positions, args.seed + index)
            examples += ex
            best_a, best_b = min(times["A"]), min(times["B"])
            rows.append((label, row_a["checksum"] == row_b["checksum"],
                         (row_a["root_value"], row_a["root_depth"])
                         == (row_b["root_value"], row_b["root_depth"]),
                         plies_a == plies_b, not differing, n, wrong_a, wrong_b,
                         best_a, best_b, len(times["A"]), row_a["checksum"], searched))
            print(f"  {label}: done ({n} positions, builds {best_a[0]:.2f} s / {best_b[0]:.2f} s)",
                  flush=True)
        p50 = None
        if args.probes and any(g[1] == "4x4k4" for g in chosen):
            i = next(i for i, g in enumerate(chosen) if g[1] == "4x4k4")
            p50 = probe_p50(baseline, "4x4k4", work / f"A-{i}.db", work / f"B-{i}.db",
                            ["x.../.o../..x./...."], args.probes)

    def yes(flag: bool) -> str:
        return "yes" if flag else "NO"

    print()
    print(f"{'game':<22}{'checksum':>17}{'same':>5}{'root':>5}{'plies':>6}{'row':>4}"
          f"{'positions':>10}{'bad A':>6}{'bad B':>6}{'base s':>8}{'ours s':>8}{'ratio':>6}"
          f"{'base cpu':>9}{'ours cpu':>9}{'builds':>7}{'search':>7}")
    for (label, cs, root_eq, plies_eq, row_eq, n, wa, wb, (wa_s, ca_s), (wb_s, cb_s), reps,
         checksum, searched) in rows:
        print(f"{label:<22}{checksum or '-':>17}{yes(cs):>5}{yes(root_eq):>5}"
              f"{yes(plies_eq):>6}{yes(row_eq):>4}{n:>10}{wa:>6}{wb:>6}{wa_s:>8.2f}"
              f"{wb_s:>8.2f}{wb_s / wa_s:>6.2f}{ca_s:>9.2f}{cb_s:>9.2f}{reps:>7}{searched:>7}")
    total_a = sum(r[8][0] for r in rows)
    total_b = sum(r[9][0] for r in rows)
    if rows:
        print(f"{'all builds (wall, fastest of each)':<45}{total_a:>42.2f}{total_b:>8.2f}"
              f"{total_b / total_a:>6.2f}")
    print("same: checksums equal; root: root value and depth equal; plies: per-ply counts equal;"
          f" row: the columns {', '.join(CATALOGUE)} equal; bad A / bad B: answers (probe,"
          " moves, line --json: stdout, stderr, status) of ours on the baseline's table / on"
          " our build differing from the baseline's on its table; seconds: each build a whole"
          " process, the fastest of `builds`; ratio: ours / baseline (wall); cpu: user +"
          " system seconds of that build; search: the baseline's answers given by search,"
          " not the table")
    if p50 is not None:
        print(f"probe p50 (4x4k4, {args.probes} `tablebase probe` processes each, alternating):"
              f" baseline {p50[0] * 1000:.0f} ms, ours {p50[1] * 1000:.0f} ms,"
              f" ratio {p50[1] / p50[0]:.2f}")
    for p in problems:
        print(f"MISMATCH {p}")
    for e in examples:
        print(f"MISMATCH {e}")
    same = not problems and all(r[1] and r[2] and r[3] and r[6] == 0 and r[7] == 0 for r in rows)
    print("all the same" if same else "DIFFERENCES FOUND (above)")
    return 0 if same else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--sample":
        spec_, start_, db_, count_, seed_ = sys.argv[2:7]
        root_, prefix_ = json.loads(start_)
        helper_sample(spec_, (root_, prefix_), db_, int(count_), int(seed_))
    elif len(sys.argv) > 1 and sys.argv[1] == "--answer":
        helper_answer(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
