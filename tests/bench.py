"""`make bench`: build figures per game in each storage layout (seconds and peak memory per
stage, positions per second, bits a position of the whole file) and a same-process ratio against
a plain memoised Python solver.

Each build runs in a fresh child process so that its peak memory is its own; both layouts of a
game are built in the same run, so their ratio holds on a shared machine. The probe section
(tests/bench_probe.py) times answering from the 4x4k4 table in each layout.
Run: python tests/bench.py [--specs 3x3k3 4x3k3 ...] [--section build|probe|...]
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
from tests.bench_bock import bench_bock  # noqa: E402
from tests.bench_cluster import bench_cluster  # noqa: E402
from tests.bench_endgame import bench_endgame  # noqa: E402
from tests.bench_levels import bench_levels  # noqa: E402
from tests.bench_morris import bench_morris  # noqa: E402
from tests.bench_moving import bench_moving  # noqa: E402
from tests.bench_postgres import bench_postgres  # noqa: E402
from tests.bench_probe import bench_probe  # noqa: E402
from tests.bench_prover import bench_prover  # noqa: E402
from tests.bench_ranked import bench_ranked  # noqa: E402
from tests.bench_search import bench_search  # noqa: E402
from tests.bench_serve import bench_serve  # noqa: E402
from tests.bench_strips import bench_strips  # noqa: E402
from tests.bench_verify import SPECS as VERIFY_SPECS  # noqa: E402
from tests.bench_verify import bench_verify  # noqa: E402

BUILD_SPECS = ["3x3k3", "4x3k3", "4x4k3", "4x4k4", "4x4k4+gravity", "5x4k4+gravity",
               "6x4k4+gravity"]
LAYOUTS = ("packed", "rows")
TARGET_SPEC, TARGET_SECONDS, TARGET_PEAK = "4x4k4", 1.5, 1 << 30
# Packed tables: the write stage's share of the build, whole-file bits a position, and the
# Connect Four 6x4 build against its rows build in the same run.
WRITE_SHARE_SPECS, WRITE_SHARE = ("4x4k4", "5x4k4+gravity", "6x4k4+gravity"), 0.10
BITS_TARGETS = {"4x4k4": 2.0, "6x4k4+gravity": 2.5}
AGAINST_ROWS_SPEC, AGAINST_ROWS = "6x4k4+gravity", 0.5
# The plain solver needs minutes beyond these; it is the same-process baseline.
BASELINE_SPECS = {"3x3k3", "4x3k3", "4x4k4+gravity"}


def _one_build(name: str, baseline: bool, layout: str) -> dict[str, object]:
    """Build `name` into a fresh database in this process; time the baseline here too."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.root import Root
    from tablebase.builder.kernels import warm_up
    from tablebase.builder.pipeline import build
    from tests.reference import Game

    with tempfile.TemporaryDirectory() as tmp:
        # The compiled kernels load once per process (numba's cache); timed on its own.
        start = time.perf_counter()
        warm_up(Root.whole(parse_spec(name)))
        load = time.perf_counter() - start
        path = os.path.join(tmp, "bench.db")
        report = build(parse_spec(name), path, layout=layout)
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
    print("build: each game into a fresh SQLite file, in each layout, in a fresh process (seconds;"
          " peak resident memory per stage); packed tables pack each tier as it is solved;"
          " 'bits/pos': the whole file; 'load s': the compiled kernels' one-off load in that"
          " process (tablebase.builder.kernels.warm_up), not counted in the total")
    head = (f"{'spec':<15}{'layout':<8}{'reachable':>12}{'canonical':>11}{'enum s':>8}"
            f"{'solve s':>8}{'write s':>8}{'total s':>8}{'pos/s':>11}{'peak MiB':>9}"
            f"{'bits/pos':>9}{'plain solver s':>15}{'ratio':>8}{'load s':>8}")
    print(head)
    target = None
    results: dict[tuple[str, str], dict[str, Any]] = {}
    for name in specs:
        for layout in LAYOUTS:
            baseline = name in BASELINE_SPECS and layout == "packed"
            r = _in_child(name, "--one", name, "--layout", layout,
                          *(["--baseline"] if baseline else []))
            if r is None:
                continue
            results[name, layout] = r
            if name == TARGET_SPEC and layout == "packed":
                target = (r["seconds"], max(v[1] for v in r["stages"].values()))
            st = r["stages"]
            peak = max(v[1] for v in st.values()) / (1 << 20)
            base = r.get("baseline_seconds")
            base_text = (f"{base:>15.2f}{base / r['seconds']:>7.0f}x" if base
                         else f"{'-':>15}{'-':>8}")
            print(f"{name:<15}{layout:<8}{r['reachable']:>12,}{r['canonical']:>11,}"
                  f"{st['enumerate'][0]:>8.2f}{st['solve'][0]:>8.2f}{st['write'][0]:>8.2f}"
                  f"{r['seconds']:>8.2f}{r['canonical'] / r['seconds']:>11,.0f}{peak:>9,.0f}"
                  f"{8 * r['db_bytes'] / r['canonical']:>9.1f}{base_text}{r['load']:>8.2f}",
                  flush=True)
    _packed_targets(results)
    if target is not None:
        seconds, peak = target
        met = seconds <= TARGET_SECONDS and peak < TARGET_PEAK
        print(f"target: {TARGET_SPEC} built (enumerate, solve, write) in at most"
              f" {TARGET_SECONDS} s with a peak under 1 GiB: {seconds:.2f} s,"
              f" {peak / (1 << 20):,.0f} MiB: {'met' if met else 'NOT met'}")


def _packed_targets(results: dict[tuple[str, str], dict[str, Any]]) -> None:
    """Print the packed layout's build and size targets, met or not, from this run's builds."""
    for name in WRITE_SHARE_SPECS:
        r = results.get((name, "packed"))
        if r is not None:
            share = r["stages"]["write"][0] / r["seconds"]
            print(f"target: {name} packed, write stage at most {WRITE_SHARE:.0%} of the build:"
                  f" {share:.1%}: {'met' if share <= WRITE_SHARE else 'NOT met'}")
    for name, limit in BITS_TARGETS.items():
        r = results.get((name, "packed"))
        if r is not None:
            bits = 8 * r["db_bytes"] / r["canonical"]
            print(f"target: {name} packed in at most {limit:.1f} bits a position (whole file):"
                  f" {bits:.2f}: {'met' if bits <= limit else 'NOT met'}")
    packed, rows = (results.get((AGAINST_ROWS_SPEC, layout)) for layout in LAYOUTS)
    if packed is not None and rows is not None:
        ratio = packed["seconds"] / rows["seconds"]
        print(f"target: {AGAINST_ROWS_SPEC} packed in at most {AGAINST_ROWS:.0%} of its rows"
              f" build: {packed['seconds']:.2f} s against {rows['seconds']:.2f} s ({ratio:.2f}):"
              f" {'met' if ratio <= AGAINST_ROWS else 'NOT met'}")


BUDGET_RUNS = [("5x4k4+gravity", 0.25), ("4x4k4", 0.25)]


def _budget_build(name: str, gib: float) -> dict[str, object]:
    """Build `name` under a memory budget of `gib` GiB in this process."""
    from tablebase.builder.games.grid import parse_spec
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
                                              "audit", "levels", "cluster", "postgres", "search",
                                              "strips", "gomoku", "peer", "verify", "moving",
                                              "morris", "ranked", "all"],
                        default="all")
    parser.add_argument("--gamesman", metavar="PATH", help="GamesmanOne's binary, built by hand,"
                        " for --section moving (default: $TABLEBASE_GAMESMAN)")
    parser.add_argument("--bock", metavar="PATH", help="Böck's solve.out, built by hand, for"
                        " --section peer (default: $TABLEBASE_BOCK)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--budget-one", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--layout", default="packed", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one_build(args.one, args.baseline, args.layout)))
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
    if args.section in ("search", "all"):
        bench_search()
    if args.section in ("strips", "all"):
        bench_strips()
    if args.section in ("gomoku", "all"):
        bench_prover()
    if args.section in ("verify", "all"):
        bench_verify(tuple(args.specs) if args.specs else VERIFY_SPECS)
    if args.section in ("moving", "all"):
        bench_moving(args.gamesman)
    if args.section in ("morris", "all"):
        bench_morris()
    if args.section in ("ranked", "all"):
        bench_ranked()
    if args.section in ("peer", "all"):
        bench_bock(lambda name: _in_child(name, "--one", name), args.bock)


if __name__ == "__main__":
    main()
