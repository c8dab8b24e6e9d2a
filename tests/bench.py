"""`make bench`: build figures per game (seconds and peak memory per stage, positions per second,
database bytes per position) and a same-process ratio against a plain memoised Python solver.

Each game is built in a fresh child process so that its peak memory is its own.
The probe section times answering from the 4x4k4 table (probe, moves, probe_many, one process).
Run: python tests/bench.py [--specs 3x3k3 4x3k3 ...] [--section build|probe]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.bench_audit import bench_audit  # noqa: E402

from tests.bench_cluster import bench_cluster  # noqa: E402
from tests.bench_endgame import bench_endgame  # noqa: E402
from tests.bench_levels import bench_levels  # noqa: E402
from tests.bench_postgres import bench_postgres  # noqa: E402
from tests.bench_serve import bench_serve  # noqa: E402

BUILD_SPECS = ["3x3k3", "4x3k3", "4x4k3", "4x4k4", "4x4k4+gravity", "5x4k4+gravity"]
TARGET_SPEC, TARGET_SECONDS, TARGET_PEAK = "4x4k4", 1.5, 1 << 30
# The plain solver needs minutes beyond these; it is the same-process baseline.
BASELINE_SPECS = {"3x3k3", "4x3k3", "4x4k4+gravity"}


def _one_build(name: str, baseline: bool) -> dict[str, object]:
    """Build `name` into a fresh database in this process; time the baseline here too."""
    from tablebase.builder.game import parse_spec
    from tablebase.builder.kernels import warm_up
    from tablebase.builder.pipeline import build
    from tests.reference import Game

    with tempfile.TemporaryDirectory() as tmp:
        # The compiled kernels load once per process (numba's cache); timed on its own.
        start = time.perf_counter()
        warm_up()
        load = time.perf_counter() - start
        path = os.path.join(tmp, "bench.db")
        report = build(parse_spec(name), path)
        size = sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))
    result: dict[str, object] = {
        "spec": name, "reachable": report.reachable, "canonical": report.canonical, "load": load,
        "stages": {k: [v.seconds, v.peak_bytes] for k, v in report.stages.items()},
        "seconds": report.seconds, "db_bytes": size,
        "root": f"{report.root_value.word} in {report.root_depth}",
    }
    if baseline:
        game = Game(name)
        start = time.perf_counter()
        empty = tuple([0] * game.n)
        game.solve(empty)
        result["baseline_seconds"] = time.perf_counter() - start
        result["baseline_positions"] = game.solve.cache_info().currsize
    return result


def _in_child(name: str, *args: str) -> dict[str, Any] | None:
    """Run this script with `args` in a fresh process (so its peak memory is its own) and
    return the JSON it prints, or say that it failed and return None."""
    proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                          cwd=ROOT)
    if proc.returncode != 0:
        print(f"{name:<15} failed: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(proc.stdout)


def bench_build(specs: list[str]) -> None:
    """Print the build table."""
    print("build: each game into a fresh SQLite file, in a fresh process (seconds; peak resident"
          " memory per stage); 'load s': the compiled kernels' one-off load in that process"
          " (tablebase.builder.kernels.warm_up), not counted in the total")
    head = (f"{'spec':<15}{'reachable':>12}{'canonical':>11}{'enum s':>8}{'solve s':>8}"
            f"{'write s':>8}{'total s':>8}{'pos/s':>11}{'peak MiB':>9}{'B/pos':>7}"
            f"{'plain solver s':>15}{'ratio':>8}{'load s':>8}")
    print(head)
    target = None
    for name in specs:
        r = _in_child(name, "--one", name, *(["--baseline"] if name in BASELINE_SPECS else []))
        if r is None:
            continue
        if name == TARGET_SPEC:
            target = (r["seconds"], max(v[1] for v in r["stages"].values()))
        st = r["stages"]
        peak = max(v[1] for v in st.values()) / (1 << 20)
        base = r.get("baseline_seconds")
        base_text = f"{base:>15.2f}{base / r['seconds']:>7.0f}x" if base else f"{'-':>15}{'-':>8}"
        print(f"{name:<15}{r['reachable']:>12,}{r['canonical']:>11,}{st['enumerate'][0]:>8.2f}"
              f"{st['solve'][0]:>8.2f}{st['write'][0]:>8.2f}{r['seconds']:>8.2f}"
              f"{r['canonical'] / r['seconds']:>11,.0f}{peak:>9,.0f}"
              f"{r['db_bytes'] / r['canonical']:>7.1f}{base_text}{r['load']:>8.2f}", flush=True)
    if target is not None:
        seconds, peak = target
        met = seconds <= TARGET_SECONDS and peak < TARGET_PEAK
        print(f"target (issue 12): {TARGET_SPEC} built (enumerate, solve, write) in at most"
              f" {TARGET_SECONDS} s with a peak under 1 GiB: {seconds:.2f} s,"
              f" {peak / (1 << 20):,.0f} MiB: {'met' if met else 'NOT met'}")


PROBE_SPEC = "4x4k4"


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_probe(samples: int = 2000, many: int = 1_000_000) -> None:
    """Print answering latency on the 4x4k4 table, against the targets of issue 3."""
    import random
    import statistics

    import numpy as np

    from tablebase.builder.game import parse_spec
    from tablebase.builder.game.codec import digits, encode_many
    from tablebase.builder.game.symmetry import permutations
    from tablebase.builder.pipeline import build
    from tablebase.query import open_tablebase
    from tablebase.query.notation import board_text

    spec = parse_spec(PROBE_SPEC)
    rng = random.Random(1)
    perms = permutations(spec)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.db")
        build(spec, path)
        with open_tablebase(path) as tb:
            stored = tb.table(spec).codes
        # Stored positions, each shown in a random one of its symmetric orientations.
        chosen = np.array([stored[rng.randrange(len(stored))] for _ in range(samples)])
        boards = digits(chosen, spec.cells)
        texts = []
        for board in boards:
            image = np.empty_like(board)
            image[perms[rng.randrange(len(perms))]] = board
            texts.append(board_text(spec, image.tolist()))

        with open_tablebase(path) as tb:
            tb.probe(spec, texts[0])  # open the game's table once, as any session does
            probe_us, moves_us = [], []
            for text in texts:
                start = time.perf_counter_ns()
                tb.probe(PROBE_SPEC, text)
                probe_us.append((time.perf_counter_ns() - start) / 1000)
            for text in texts:
                start = time.perf_counter_ns()
                tb.moves(PROBE_SPEC, text)
                moves_us.append((time.perf_counter_ns() - start) / 1000)

            start = time.perf_counter()
            tb.table(spec)
            load_s = time.perf_counter() - start
            np_rng = np.random.default_rng(1)
            picks = digits(stored[np_rng.integers(0, len(stored), many)], spec.cells)
            maps = np_rng.integers(0, len(perms), many)
            images = np.empty_like(picks)
            images[np.arange(many)[:, None], perms[maps]] = picks
            codes = encode_many(images)
            start = time.perf_counter()
            answers = tb.probe_many(spec, codes)
            many_s = time.perf_counter() - start
            assert answers.found.all()

        script = ROOT / ".venv" / "bin" / "tablebase"
        command = [str(script)] if script.exists() else [sys.executable, "-m", "tablebase"]
        walls = []
        for text in texts[:5]:
            start = time.perf_counter()
            subprocess.run([*command, "probe", PROBE_SPEC, text, "--db", path], cwd=ROOT,
                           check=True, capture_output=True)
            walls.append(time.perf_counter() - start)

    def row(name: str, figure: str, target: str) -> None:
        print(f"  {name:<42}{figure:>16}" + (f"   target {target}" if target else ""))

    print(f"probe: answering from the {PROBE_SPEC} table ({len(stored):,} canonical positions);"
          f" {samples:,} random stored positions as board text, in random orientations")
    row("probe p50 (Python API)", f"{_percentile(probe_us, 0.50):.1f} us", "< 100 us")
    row("probe p99 (Python API)", f"{_percentile(probe_us, 0.99):.1f} us", "")
    row("moves p50 (Python API)", f"{_percentile(moves_us, 0.50):.1f} us", "< 1000 us")
    row("moves p99 (Python API)", f"{_percentile(moves_us, 0.99):.1f} us", "")
    row(f"probe_many, {many:,} codes", f"{many / many_s:,.0f} pos/s", "> 1,000,000 pos/s")
    row("probe_many table load (once per game)", f"{load_s:.2f} s", "")
    row("one `tablebase probe` process, median of 5", f"{statistics.median(walls):.3f} s",
        "< 0.5 s")


BUDGET_RUNS = [("5x4k4+gravity", 0.25), ("4x4k4", 0.25)]


def _budget_build(name: str, gib: float) -> dict[str, object]:
    """Build `name` under a memory budget of `gib` GiB in this process."""
    from tablebase.builder.game import parse_spec
    from tablebase.builder.pipeline import build

    with tempfile.TemporaryDirectory() as tmp:
        report = build(parse_spec(name), os.path.join(tmp, "bench.db"),
                       memory_budget=int(gib * (1 << 30)))
    return {"stages": {k: [v.seconds, v.peak_bytes] for k, v in report.stages.items()},
            "lookup": report.lookup, "spilled": report.spilled_runs}


def bench_budget() -> None:
    """Print peak memory per stage of builds under a small --memory budget."""
    print("budget: builds under --memory, each in a fresh process; peak resident memory per stage")
    print(f"{'spec':<15}{'budget':>10}{'lookup':>15}{'enum MiB':>10}{'solve MiB':>10}{'write MiB':>10}"
          f"{'total s':>9}  within budget")
    for name, gib in BUDGET_RUNS:
        r = _in_child(name, "--budget-one", name, str(gib))
        if r is None:
            continue
        st = r["stages"]
        peaks = [st[k][1] / (1 << 20) for k in ("enumerate", "solve", "write")]
        ok = max(peaks) <= gib * 1024
        print(f"{name:<15}{gib * 1024:>7.0f} MiB{r['lookup']:>15}"
              f"{peaks[0]:>10.0f}{peaks[1]:>10.0f}{peaks[2]:>10.0f}"
              f"{sum(v[0] for v in st.values()):>9.2f}  {'yes' if ok else 'NO'}", flush=True)


def main() -> None:
    """Run the benchmark sections."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--specs", nargs="*", default=None)
    parser.add_argument("--section", choices=["build", "probe", "budget", "endgame", "serve",
                                              "audit", "levels", "cluster", "postgres", "all"], default="all")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--budget-one", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one_build(args.one, args.baseline)))
        return
    if args.budget_one:
        print(json.dumps(_budget_build(args.budget_one[0], float(args.budget_one[1]))))
        return
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}")
    if args.section in ("build", "all"):
        bench_build(args.specs or BUILD_SPECS)
    if args.section in ("probe", "all"):
        bench_probe()
    if args.section in ("budget", "all"):
        bench_budget()
    if args.section in ("endgame", "all"):
        bench_endgame()
    if args.section in ("serve", "all"):
        bench_serve()
    if args.section in ("audit", "all"):
        bench_audit()
    if args.section in ("levels", "all"):
        bench_levels()
    if args.section in ("cluster", "all"):
        bench_cluster()
    if args.section in ("postgres", "all"):
        bench_postgres()


if __name__ == "__main__":
    main()
