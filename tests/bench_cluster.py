"""`make bench` cluster section: builds on a local Dask cluster of 1 and 2 worker processes
against the single-process build, each configuration in a fresh child process.

Seconds are the build's own (the cluster's start-up is not counted); "vs 1 worker" is the
speedup over the 1-worker cluster of one thread; "vs process" the time over the single-process
build's (both cores); peak memory is each worker's resident peak, and the client's. Each
cluster build's checksum is compared with the single process's. The profile line sums the
worker-seconds of each task phase over the build (and the client's own seconds between tiers).
The last line of each game runs two single-process one-thread builds at once: how much two
processes that share nothing but the machine slow each other, a bound for two workers.
By hand, another game (5x4k4 takes minutes), each configuration run N times, the fastest shown:
    python tests/bench_cluster.py --specs 5x4k4 --repeat N
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

CLUSTER_SPECS = ["6x4k4+gravity", "5x4k4+gravity"]
# (workers, threads each); workers 0: the single-process build, no cluster, on both cores
# (threads 0) or on one (threads 1).
CONFIGS = [(0, 0), (0, 1), (1, 1), (2, 1), (1, 2)]


def _one(spec_text: str, workers: int, threads: int) -> dict[str, Any]:
    """Build `spec_text` into a fresh database, on a local cluster of `workers` (0: none)."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.pipeline import build
    from tablebase.query.tablebase import open_tablebase

    spec = parse_spec(spec_text)
    profile: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.db")
        if workers == 0:
            if threads == 1:  # the single process on one core, as a one-thread worker runs
                from tablebase.builder import threads as kernel_threads

                kernel_threads.THREADS = 1
            start = time.perf_counter()
            report = build(spec, path)
            seconds, peaks = time.perf_counter() - start, []
        else:
            from tablebase.builder.cluster import open_cluster

            with open_cluster(workers=workers, threads=threads) as executor:
                executor.reset_peaks()
                start = time.perf_counter()
                report = build(spec, path, executor=executor)
                seconds = time.perf_counter() - start
                peaks = executor.worker_peaks()
                profile = executor.profile
        with open_tablebase(path) as tb:
            checksum = tb.record(spec).checksum
    return {"canonical": report.canonical, "seconds": seconds, "worker_peaks": peaks,
            "client_peak": max(v.peak_bytes for v in report.stages.values()),
            "stages": {k: v.seconds for k, v in report.stages.items()}, "checksum": checksum,
            "profile": profile}


def _in_children(count: int, *args: str) -> list[dict[str, Any]]:
    """Run `count` children with `args` at once; the results of those that succeeded."""
    procs = [subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT) for _ in range(count)]
    results = []
    for proc in procs:
        out, err = proc.communicate()
        if proc.returncode != 0:
            print(f"  {' '.join(args)} failed: {err.strip().splitlines()[-1:]}")
        else:
            results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def bench_cluster(specs: list[str] | None = None, repeat: int = 1) -> None:
    """Print single-process and 1- and 2-worker build times, speedups, peak memory, profiles;
    with `repeat` > 1, every configuration runs that many times, in alternating rounds, and
    the fastest of each is shown (the machine is shared: the least disturbed run)."""
    print(f"cluster: builds on a local Dask cluster of worker processes, {os.cpu_count()} cores;"
          " seconds exclude the cluster's start-up"
          + (f"; the fastest of {repeat} alternating runs of each" if repeat > 1 else ""))
    print(f"{'spec':<15}{'workers':>8}{'threads':>8}{'canonical':>12}{'enum s':>8}{'solve s':>8}"
          f"{'write s':>8}{'total s':>8}{'vs 1 worker':>12}{'vs process':>11}"
          "  peak MiB per worker (client)")
    for name in specs or CLUSTER_SPECS:
        runs: dict[tuple[int, int], list[dict[str, Any]]] = {c: [] for c in CONFIGS}
        pairs: list[float] = []  # two one-thread processes at once: the slower one's seconds
        for _ in range(repeat):
            for workers, threads in CONFIGS:
                runs[(workers, threads)] += _in_children(1, "--one", name, str(workers),
                                                         str(threads))
            both = _in_children(2, "--one", name, "0", "1")
            if len(both) == 2:
                pairs.append(max(r["seconds"] for r in both))
        best = {c: min(rs, key=lambda r: r["seconds"]) for c, rs in runs.items() if rs}
        base, one = best.get((0, 0)), best.get((1, 1))
        for (workers, threads), r in best.items():
            speed = (f"{one['seconds'] / r['seconds']:.2f}x" if one and workers and threads == 1
                     else "-")
            ratio = f"{r['seconds'] / base['seconds']:.2f}x" if base and r is not base else "-"
            same = ("" if base is None or all(x["checksum"] == base["checksum"]
                                              for x in runs[(workers, threads)])
                    else "  CHECKSUM DIFFERS")
            peaks = ", ".join(f"{p / (1 << 20):,.0f}" for p in r["worker_peaks"]) or "-"
            st = r["stages"]
            spread = (f"  runs {min(x['seconds'] for x in runs[(workers, threads)]):.2f}-"
                      f"{max(x['seconds'] for x in runs[(workers, threads)]):.2f} s"
                      if repeat > 1 else "")
            print(f"{name:<15}{workers or 'none':>8}{threads or '-':>8}{r['canonical']:>12,}"
                  f"{st['enumerate']:>8.2f}{st['solve']:>8.2f}{st['write']:>8.2f}"
                  f"{r['seconds']:>8.2f}{speed:>12}{ratio:>11}  {peaks}"
                  f" ({r['client_peak'] / (1 << 20):,.0f}){spread}{same}", flush=True)
            if r["profile"]:
                print(" " * 15 + "  worker-seconds: " + ", ".join(
                    f"{k} {v:.2f}" for k, v in r["profile"].items() if "ranges" not in k)
                    + f"; largest range {_spread(r['profile'])} the mean", flush=True)
        alone = best.get((0, 1))
        if pairs and alone:
            # What two workers could reach on this machine: two processes that share nothing
            # but its memory and caches, each as slow as it is beside the other.
            print(f"{name:<15}two one-thread processes at once: the slower {min(pairs):.2f} s,"
                  f" {min(pairs) / alone['seconds']:.2f}x one alone (a bound for two workers:"
                  f" {2 * alone['seconds'] / min(pairs):.2f}x)", flush=True)


def _spread(profile: dict[str, float]) -> str:
    mean = profile.get("mean ranges", 0)
    return f"{profile.get('largest ranges', 0) / mean:.2f}x" if mean else "-"


def main() -> None:
    """Run the cluster section on its own, or one build (--one, for the parent process)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--specs", nargs="*", default=None)
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each configuration this many times, show the fastest")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one(args.one[0], int(args.one[1]), int(args.one[2]))))
        return
    bench_cluster(args.specs, args.repeat)


if __name__ == "__main__":
    main()
