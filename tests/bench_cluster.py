"""`make bench` cluster section: builds on a local Dask cluster of 1 and 2 worker processes
against the single-process build, each configuration in a fresh child process.

Seconds are the build's own (the cluster's start-up is not counted); speedup is over the
1-worker cluster; peak memory is each worker's resident peak over the build, and the client's.
By hand, another game (5x4k4 takes minutes):
    python tests/bench_cluster.py --specs 5x4k4
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

CLUSTER_SPECS = ["5x4k4+gravity", "4x4k4"]
WORKERS = [0, 1, 2]  # 0: the single-process build, no cluster


def _one(spec_text: str, workers: int) -> dict[str, Any]:
    """Build `spec_text` into a fresh database, on a local cluster of `workers` (0: none)."""
    from tablebase.builder.game import parse_spec
    from tablebase.builder.pipeline import build

    spec = parse_spec(spec_text)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.db")
        if workers == 0:
            start = time.perf_counter()
            report = build(spec, path)
            seconds, peaks = time.perf_counter() - start, []
        else:
            from tablebase.builder.cluster import open_cluster

            with open_cluster(workers=workers) as executor:
                executor.reset_peaks()
                start = time.perf_counter()
                report = build(spec, path, executor=executor)
                seconds = time.perf_counter() - start
                peaks = executor.worker_peaks()
    return {"canonical": report.canonical, "seconds": seconds, "worker_peaks": peaks,
            "client_peak": max(v.peak_bytes for v in report.stages.values()),
            "stages": {k: v.seconds for k, v in report.stages.items()}}


def _in_child(*args: str) -> dict[str, Any] | None:
    proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                          cwd=ROOT)
    if proc.returncode != 0:
        print(f"  {' '.join(args)} failed: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_cluster(specs: list[str] | None = None) -> None:
    """Print single-process, 1-worker and 2-worker build times, speedups and peak memory."""
    print(f"cluster: builds on a local Dask cluster (processes, one thread each), {os.cpu_count()}"
          " cores; seconds exclude the cluster's start-up")
    print(f"{'spec':<15}{'workers':>8}{'canonical':>11}{'enum s':>8}{'solve s':>8}{'write s':>8}"
          f"{'total s':>8}{'pos/s':>10}{'vs 1 worker':>12}  peak MiB per worker (client)")
    for name in specs or CLUSTER_SPECS:
        one_worker = None
        for workers in WORKERS:
            r = _in_child("--one", name, str(workers))
            if r is None:
                continue
            if workers == 1:
                one_worker = r["seconds"]
            speed = f"{one_worker / r['seconds']:.2f}x" if one_worker and workers else "-"
            peaks = ", ".join(f"{p / (1 << 20):,.0f}" for p in r["worker_peaks"]) or "-"
            st = r["stages"]
            print(f"{name:<15}{workers or 'none':>8}{r['canonical']:>11,}{st['enumerate']:>8.2f}"
                  f"{st['solve']:>8.2f}{st['write']:>8.2f}{r['seconds']:>8.2f}"
                  f"{r['canonical'] / r['seconds']:>10,.0f}{speed:>12}  {peaks}"
                  f" ({r['client_peak'] / (1 << 20):,.0f})", flush=True)


def main() -> None:
    """Run the cluster section on its own, or one build (--one, for the parent process)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--specs", nargs="*", default=None)
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one(args.one[0], int(args.one[1]))))
        return
    bench_cluster(args.specs)


if __name__ == "__main__":
    main()
