"""`make bench --section probe`: answering from the 4x4k4 table in each layout, one process:
probe and moves latency, probe_many throughput, one `tablebase probe` process, and `verify`.
Both tables are built in the same run, so the ratios between the layouts hold on a noisy machine.
"""
from __future__ import annotations

import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROBE_SPEC = "4x4k4"
PROCESSES = 11  # `tablebase probe` processes timed (their median)
LAYOUTS = ("packed", "rows")


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _measure(path: str, texts: list[str], many_codes: Any) -> dict[str, float]:
    """The figures of one database: latencies in microseconds, rates, seconds."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.query import open_tablebase

    spec = parse_spec(PROBE_SPEC)
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
        tb.table(spec).load()
        load_s = time.perf_counter() - start
        start = time.perf_counter()
        answers = tb.table(spec).probe_many(many_codes)
        many_s = time.perf_counter() - start
        assert answers.found.all()
    script = ROOT / ".venv" / "bin" / "tablebase"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "tablebase"]
    walls, cpus = [], []
    for text in texts[:PROCESSES]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([*command, "probe", PROBE_SPEC, text, "--db", path], cwd=ROOT,
                       check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    start = time.perf_counter()
    subprocess.run([*command, "verify", PROBE_SPEC, "--db", path, "--quiet"], cwd=ROOT,
                   check=True, capture_output=True)
    verify_s = time.perf_counter() - start
    return {"probe50": _percentile(probe_us, 0.5), "probe99": _percentile(probe_us, 0.99),
            "moves50": _percentile(moves_us, 0.5), "moves99": _percentile(moves_us, 0.99),
            "many": len(many_codes) / many_s, "load": load_s,
            "process": statistics.median(walls), "process_cpu": statistics.median(cpus),
            "verify": verify_s}


def bench_probe(samples: int = 2000, many: int = 1_000_000) -> None:
    """Print answering figures on the 4x4k4 table in both layouts, with the targets."""
    import numpy as np

    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.codec import digits, encode_many
    from tablebase.builder.games.grid.notation import board_text
    from tablebase.builder.games.grid.symmetry import permutations
    from tablebase.builder.pipeline import build
    from tablebase.query import open_tablebase

    spec = parse_spec(PROBE_SPEC)
    rng = random.Random(1)
    perms = permutations(spec)
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {layout: os.path.join(tmp, f"{layout}.db") for layout in LAYOUTS}
        for layout, path in paths.items():
            build(spec, path, layout=layout)
        with open_tablebase(paths["packed"]) as tb:
            stored = tb.table(spec).load().codes
        # Stored positions, each shown in a random one of its symmetric orientations.
        chosen = np.array([stored[rng.randrange(len(stored))] for _ in range(samples)])
        texts = []
        for board in digits(chosen, spec.cells):
            image = np.empty_like(board)
            image[perms[rng.randrange(len(perms))]] = board
            texts.append(board_text(spec, image.tolist()))
        np_rng = np.random.default_rng(1)
        picks = digits(stored[np_rng.integers(0, len(stored), many)], spec.cells)
        maps = np_rng.integers(0, len(perms), many)
        images = np.empty_like(picks)
        images[np.arange(many)[:, None], perms[maps]] = picks
        codes = encode_many(images)
        for layout, path in paths.items():
            figures[layout] = _measure(path, texts, codes)

    print(f"probe: answering from the {PROBE_SPEC} table ({len(stored):,} canonical positions) in"
          f" each layout; {samples:,} random stored positions as board text, in random"
          " orientations; one process, warm")
    print(f"  {'':<42}{'packed':>12}{'rows':>12}   target (packed)")
    rows = [("probe p50 (Python API), us", "probe50", "{:.1f}", "<= 100 us"),
            ("probe p99 (Python API), us", "probe99", "{:.1f}", ""),
            ("moves p50 (Python API), us", "moves50", "{:.1f}", "<= 1,000 us"),
            ("moves p99 (Python API), us", "moves99", "{:.1f}", ""),
            (f"probe_many of {many:,} codes, pos/s", "many", "{:,.0f}", ">= 1,000,000"),
            ("probe_many table load (once per game), s", "load", "{:.2f}", ""),
            ("one `tablebase probe` process, median, s", "process", "{:.3f}", "<= 0.25 s"),
            ("  its processor time (user + system), s", "process_cpu", "{:.3f}", ""),
            (f"`tablebase verify {PROBE_SPEC}`, s", "verify", "{:.2f}", "no slower than rows")]
    for name, key, form, target in rows:
        print(f"  {name:<42}{form.format(figures['packed'][key]):>12}"
              f"{form.format(figures['rows'][key]):>12}   {target}")
    p = figures["packed"]
    met = (p["probe50"] <= 100 and p["moves50"] <= 1000 and p["many"] >= 1e6
           and p["verify"] <= figures["rows"]["verify"] and p["process"] <= 0.25)
    print(f"  reading targets (packed): {'met' if met else 'NOT met'}")
