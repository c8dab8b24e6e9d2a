"""`make bench` postgres section: a PostgreSQL server started here (tests/pgserver.py, default
durability settings), its bulk load rate through db/writer.py (binary COPY, then the primary key),
a whole build of 4x4k4 into it, and probe latency through the Python API against SQLite's.

Run alone: python tests/bench_postgres.py [--rows N]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SPEC = "4x4k4"
LOAD_ROWS = 4_000_000
CHUNK = 1 << 17  # rows per transaction, the pipeline's default write chunk
SAMPLES = 2000


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _load(target: str, rows: int) -> tuple[float, float]:
    """Seconds to append `rows` synthetic rows in chunks, and seconds to publish (key + commit)."""
    import numpy as np

    from tablebase.db.engine import open_database
    from tablebase.db.records import PositionArrays
    from tablebase.db.writer import (
        GameParams,
        GameSummary,
        PlyCounts,
        begin_build,
        finish_build,
        write_positions,
    )

    rng = np.random.default_rng(1)
    codes = np.unique(rng.integers(0, 3 ** 20, int(rows * 1.01), dtype=np.int64))[:rows]
    ply = rng.integers(0, 20, rows).astype(np.int16)
    value = rng.integers(-1, 2, rows).astype(np.int8)
    depth = rng.integers(0, 20, rows).astype(np.int8)
    params = GameParams("5x4k4", 5, 4, 4, False, False)
    with open_database(target, writable=True) as engine:
        handle = begin_build(engine, params, force=True, layout="rows")
        start = time.perf_counter()
        for at in range(0, rows, CHUNK):
            s = slice(at, at + CHUNK)
            write_positions(engine, handle, PositionArrays(codes[s], ply[s], value[s], depth[s]))
        load = time.perf_counter() - start
        summary = GameSummary(rows, rows, 0, 0, 0, rows, 0, 0, 0, "bench", 0.0, {}, "0" * 16)
        start = time.perf_counter()
        finish_build(engine, handle, summary, [PlyCounts(0, rows, rows, 0, 0, rows, 0)])
        return load, time.perf_counter() - start


def _probe_times(target: str, texts: list[str]) -> list[float]:
    """Microseconds per `probe` of each board text, one open Tablebase."""
    from tablebase.query import open_tablebase
    with open_tablebase(target) as tb:
        tb.probe(SPEC, texts[0])  # open the table once, as any session does
        out = []
        for text in texts:
            start = time.perf_counter_ns()
            tb.probe(SPEC, text)
            out.append((time.perf_counter_ns() - start) / 1000)
        return out


def bench_postgres(rows: int = LOAD_ROWS) -> None:
    """Print the PostgreSQL figures (load rate, build, probe p50/p99) beside SQLite's."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.notation import board_text
    from tablebase.builder.pipeline import build
    from tablebase.query import open_tablebase
    from tests.pgserver import ServerUnavailable, start_server

    try:
        server = start_server(fast=False)
    except ServerUnavailable as e:
        print(f"postgres: skipped, no server could start ({e})")
        return
    try:
        url = server.new_database()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bench.db")
            loads = {name: _load(target, rows) for name, target in
                     (("PostgreSQL", url), ("SQLite", os.path.join(tmp, "load.db")))}
            builds = {}
            for name, target in (("PostgreSQL", url), ("SQLite", path)):
                report = build(parse_spec(SPEC), target)
                builds[name] = (report.stages["write"].seconds, report.seconds, report.canonical)
            rng = random.Random(1)
            spec = parse_spec(SPEC)
            with open_tablebase(path) as tb:
                stored = tb.table(SPEC).load().codes
            picks = [int(stored[rng.randrange(len(stored))]) for _ in range(SAMPLES)]
            texts = [board_text(spec, [(c // 3 ** i) % 3 for i in range(spec.cells)])
                     for c in picks]
            probes = {name: _probe_times(target, texts)
                      for name, target in (("PostgreSQL", url), ("SQLite", path))}
    finally:
        server.stop()

    def row(name: str, figure: str, target: str = "") -> None:
        print(f"  {name:<62}{figure:>16}" + (f"   target {target}" if target else ""))

    print("postgres: a local PostgreSQL server (default settings, fsync on) beside a SQLite file")
    for name, (load, publish) in loads.items():
        how = "binary COPY" if name == "PostgreSQL" else "INSERT"
        row(f"{name}: load {rows:,} rows ({how}, {CHUNK:,} a commit)", f"{rows / load:,.0f} rows/s",
            "> 500,000 rows/s" if name == "PostgreSQL" else "")
        row(f"{name}: then key + publish", f"{publish:.2f} s")
        row(f"{name}: load + key + publish", f"{rows / (load + publish):,.0f} rows/s")
    for name, (write, total, canonical) in builds.items():
        row(f"{name}: build {SPEC} ({canonical:,} positions), write stage",
            f"{write:.2f} s")
        row(f"{name}: build {SPEC}, total", f"{total:.2f} s")
    for name, samples in probes.items():
        target = "< 1000 us" if name == "PostgreSQL" else ""
        row(f"{name}: probe p50 ({SAMPLES:,} stored {SPEC} boards)",
            f"{_percentile(samples, 0.5):.1f} us", target)
        row(f"{name}: probe p99", f"{_percentile(samples, 0.99):.1f} us")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=LOAD_ROWS)
    bench_postgres(parser.parse_args().rows)
