"""The search bench's pons-files part: Pascal Pons' test files whole (1,000 lines each) through
what a user runs, beside his whole process, in the same run:

- his: `c4solver -b none < FILE`, his own main.cpp's program, made by hand outside this
  repository and taken by path (`--pons PATH` or TABLEBASE_PONS; his test files by
  `--pons-sets DIR` or TABLEBASE_PONS_SETS; where one is missing, the part says which in one
  line and is skipped): a process: start, his table's memory, every line read and solved;
- ours in Python: `tablebase.search_positions(spec, lines)` in this process, reading included
  (a fresh searcher each call, as every call makes), after one warm call on positions of our
  own set, so that the compiled code is loaded;
- ours as a process: `tablebase solve 7x6k4+gravity --positions FILE --json`.

The three take turns, REPEATS times a file; each one's median and the range of the ratios are
printed, and every answer (value and depth) is checked against his score. Then the start-up
figures: `tablebase.search_position` one end-easy line a call after the first (p50, p90), and
one `tablebase solve` process of one end-easy position (median of PROCESSES).

    python tests/bench_search.py --part pons-files [--pons PATH] [--pons-sets DIR]
"""
from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.bench_pons import PonsPaths, _set_file, his_outcome, missing
from tests.search_sets import read_set

ROOT = Path(__file__).resolve().parents[1]
SPEC = "7x6k4+gravity"
FILES = [("Test_L3_R1", "end-easy"), ("Test_L2_R1", "middle-easy"),
         ("Test_L1_R1", "begin-easy"), ("Test_L2_R2", "middle-medium")]
REPEATS = 5
PROCESSES = 7
# The targets: ours in Python at most his whole process; ours as a process at most his plus
# this many seconds (a Python process and its compiled code start in some tenths of a second).
PROCESS_ALLOWANCE = 0.5
CALL_TARGET_US, SOLVE_PROCESS_TARGET = 50.0, 0.6


def _command() -> list[str]:
    script = ROOT / ".venv" / "bin" / "tablebase"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tablebase"]


def _byte_compiled() -> None:
    """Byte-compile the package, as installing it does: where PYTHONDONTWRITEBYTECODE is set (as
    on these machines) and a module changed since, each process timed would compile again every
    module of ours it imports (some 0.1 s of a `solve` process)."""
    import compileall

    for folder in ("builder", "db", "query"):
        compileall.compile_dir(str(ROOT / folder), quiet=1)


def _timed(argv: list[str], stdin: Path | None = None) -> tuple[float, float, str]:
    """(wall seconds, processor seconds, stdout) of one process. The processor time (user and
    system) is the steadier figure on a machine others share: waiting for a core is not in it."""
    with open(stdin) if stdin is not None else open("/dev/null") as given:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, stdin=given, capture_output=True, text=True, cwd=ROOT)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {done.stderr.strip()[-300:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds, cpu, done.stdout


def bench_pons_files(paths: PonsPaths) -> None:
    """Print, per file: lines, his process, ours in Python and as a process, the ratios and
    disagreements; then the start-up figures."""
    import tablebase

    why = missing(paths, "solver", "sets")
    if why is not None or paths.solver is None or paths.sets is None:
        print(f"  pons files: skipped: {why}")
        return
    root, his_exe = paths.sets, str(paths.solver)
    _byte_compiled()
    warm = [line.split()[0] for line in read_set("connect4_pons.txt")[:20]]
    list(tablebase.search_positions(SPEC, warm))  # the compiled code loaded, once
    print(f"  his: `c4solver -b none < FILE` (a process); ours: search_positions(spec, lines)"
          f" (Python, reading included) and `tablebase solve {SPEC} --positions FILE --json`"
          f" (a process); {REPEATS} turns each, medians; seconds for the whole file")
    print(f"  {'file':<24} {'lines':>5} {'his s':>7} {'python s':>9} {'/his':>6} {'range':>10}"
          f" {'process s':>9} {'-his s':>7} {'cpu: his':>9} {'process':>8} {'disagree':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, label in FILES:
            path = _set_file(root, name)
            if path is None:
                print(f"  {name}: skipped: not in {root}")
                continue
            rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
            lines = [moves for moves, _ in rows]
            moves_file = Path(tmp) / f"{name}.moves"
            moves_file.write_text("\n".join(lines) + "\n")
            his, python, process, disagree = [], [], [], 0
            his_cpu, process_cpu = [], []
            for turn in range(REPEATS):
                for side in ((0, 1, 2) if turn % 2 == 0 else (2, 1, 0)):
                    if side == 0:
                        seconds, cpu, out = _timed([his_exe, "-b", "none"], moves_file)
                        his.append(seconds)
                        his_cpu.append(cpu)
                        scores = [int(line.split()[-1]) for line in out.splitlines()]
                        disagree += sum(s != int(want) for s, (_, want) in zip(scores, rows))
                    elif side == 1:
                        start = time.perf_counter()
                        answers = list(tablebase.search_positions(SPEC, lines))
                        python.append(time.perf_counter() - start)
                        found = [(int(a.solution.value), a.solution.depth) for a in answers]
                        disagree += _disagree(rows, found)
                    else:
                        seconds, cpu, out = _timed([*_command(), "solve", SPEC, "--positions",
                                                    str(moves_file), "--json", "--db",
                                                    str(Path(tmp) / "none.db")])
                        process.append(seconds)
                        process_cpu.append(cpu)
                        data = [json.loads(line) for line in out.splitlines()]
                        words = {"win": 1, "draw": 0, "loss": -1}
                        disagree += _disagree(rows, [(words[d["value"]], d["depth"])
                                                     for d in data])
            h, p, c = (statistics.median(t) for t in (his, python, process))
            ratios = sorted(a / b for a, b in zip(python, his))
            print(f"  {label + ' (' + name[5:] + ')':<24} {len(rows):>5} {h:>7.3f} {p:>9.3f}"
                  f" {p / h:>5.2f}x {ratios[0]:>4.2f}-{ratios[-1]:.2f} {c:>9.3f} {c - h:>+7.3f}"
                  f" {statistics.median(his_cpu):>9.3f} {statistics.median(process_cpu):>8.3f}"
                  f" {disagree:>8}", flush=True)
        _start_up(root, tmp)
    print(f"  targets: python at most his (1.00x); process at most his + {PROCESS_ALLOWANCE:g} s;"
          f" every answer his; search_position p50 <= {CALL_TARGET_US:g} us; one solve process"
          f" <= {SOLVE_PROCESS_TARGET:g} s")


def _disagree(rows: list[list[str]], found: list[tuple[int, int | None]]) -> int:
    """How many of `found` (value, depth) are not his score's, or missing."""
    bad = abs(len(rows) - len(found))
    for (moves, score), got in zip(rows, found):
        bad += got != his_outcome(len(moves), int(score))
    return bad


def _start_up(root: Path, tmp: str) -> None:
    """search_position one end-easy line a call after the first; one `solve` process."""
    import tablebase

    path = _set_file(root, FILES[0][0])
    if path is None:
        return
    lines = [line.split()[0] for line in path.read_text().splitlines() if line.strip()]
    tablebase.search_position(SPEC, lines[0])
    calls = []
    for line in lines:
        start = time.perf_counter()
        tablebase.search_position(SPEC, line)
        calls.append(time.perf_counter() - start)
    calls.sort()
    print(f"  search_position, {len(lines)} end-easy lines one a call (a kept searcher): p50"
          f" {1e6 * calls[len(calls) // 2]:.1f} us, p90 {1e6 * calls[len(calls) * 9 // 10]:.1f} us")
    runs = [_timed([*_command(), "solve", SPEC, line, "--db", str(Path(tmp) / "none.db")])
            for line in lines[:PROCESSES]]
    walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
    print(f"  one `tablebase solve {SPEC} LINE` process (end-easy lines): median"
          f" {statistics.median(walls):.3f} s, range {min(walls):.3f}-{max(walls):.3f} s;"
          f" processor time median {statistics.median(cpus):.3f} s")
