"""`make bench` peer section: Connect Four 6x4 built by tablebase against Böck's BDD strong
solver (markus7800/Connect4-Strong-Solver, `solve.out 24 6 4`, one core, win/draw/loss only),
both timed in the same run, one after the other.

His solver is not installed by this project: give a checkout of his repository with
`--bock-repo PATH` (or TABLEBASE_BOCK_REPO); it is compiled there (`make solve`, with gcc when
clang is missing). Without one, a fixed 9.6 s stands in for 0.2 of his time.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SPEC = "6x4k4+gravity"
SHARE = 0.2  # the target: our build in at most this share of his time
FALLBACK_SECONDS = 9.6  # 0.2 of his solver's ~48 s on this machine, measured once


def build_bock(repo: Path) -> Path | None:
    """His solver's `solve.out`, compiled in `repo`/src/connect4 if need be (None if it fails)."""
    source = repo / "src" / "connect4"
    binary = source / "build" / "solve.out"
    if binary.exists():
        return binary
    cc = "clang" if shutil.which("clang") else "gcc"
    done = subprocess.run(["make", "solve", f"CC={cc}"], cwd=source, capture_output=True, text=True)
    if done.returncode != 0 or not binary.exists():
        print(f"  cannot compile his solver in {source}: {done.stderr.strip()[-200:]}")
        return None
    return binary


def time_bock(binary: Path) -> float:
    """Wall seconds of `solve.out 24 6 4`, run in a scratch directory (it writes its BDDs)."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run([str(binary), "24", "6", "4"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start


def bench_bock(build_in_child: Callable[[str], dict[str, Any] | None],
               repo: str | None = None) -> None:
    """Print ours and his on Connect Four 6x4, and the target: ours at most SHARE of his."""
    repo = repo or os.environ.get("TABLEBASE_BOCK_REPO")
    print(f"peer: Connect Four 6x4 ({SPEC}, 47,455,869 canonical positions): tablebase (value"
          " and depth of every position, both cores) against Böck's BDD solver (win/draw/loss,"
          " one core), in the same run")
    binary = build_bock(Path(repo)) if repo else None
    theirs = time_bock(binary) if binary is not None else None
    ours = build_in_child(SPEC)
    if ours is None:
        return
    print(f"  tablebase: {ours['seconds']:.1f} s (enumerate {ours['stages']['enumerate'][0]:.1f},"
          f" solve {ours['stages']['solve'][0]:.1f}, write {ours['stages']['write'][0]:.1f})")
    if theirs is None:
        print(f"  Böck's solver: not measured (no --bock-repo); fixed target {FALLBACK_SECONDS:.0f} s")
        limit = FALLBACK_SECONDS
    else:
        print(f"  Böck's solver: {theirs:.1f} s ({binary}); ours {ours['seconds'] / theirs:.2f}x his")
        limit = theirs * SHARE
    met = ours["seconds"] <= limit
    print(f"target: {SPEC} in at most {f'{SHARE}x his time' if theirs else f'{limit:.0f} s'}:"
          f" {ours['seconds']:.1f} s against {limit:.1f} s: {'met' if met else 'NOT met'}")
