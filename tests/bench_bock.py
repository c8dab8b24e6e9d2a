"""`make bench` peer section: Connect Four 6x4 built by tablebase against Böck's BDD strong
solver (markus7800/Connect4-Strong-Solver, `solve.out 24 6 4`, one core, win/draw/loss only),
both timed in the same run, one after the other.

His solver is run, never built, by this bench: give his `solve.out`, made by hand outside this
repository, with `--bock PATH` (or TABLEBASE_BOCK). Without it, the bench says so in one line
and a fixed 9.6 s stands in for 0.2 of his time.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SPEC = "6x4k4+gravity"
SHARE = 0.2  # the target: our build in at most this share of his time
FALLBACK_SECONDS = 9.6  # 0.2 of his solver's ~48 s on this machine, measured once


def bock_binary(given: str | None = None) -> Path | None:
    """His `solve.out`: `given`, else TABLEBASE_BOCK, else None."""
    found = given or os.environ.get("TABLEBASE_BOCK")
    return Path(found).expanduser() if found else None


def time_bock(binary: Path) -> float:
    """Wall seconds of `solve.out 24 6 4`, run in a scratch directory (it writes its BDDs)."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run([str(binary), "24", "6", "4"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start


def bench_bock(build_in_child: Callable[[str], dict[str, Any] | None],
               given: str | None = None) -> None:
    """Print ours and his on Connect Four 6x4, and the target: ours at most SHARE of his."""
    found = bock_binary(given)
    binary = found if found is not None and found.is_file() and os.access(found, os.X_OK) else None
    print(f"peer: Connect Four 6x4 ({SPEC}, 47,455,869 canonical positions): tablebase (value"
          " and depth of every position, both cores) against Böck's BDD solver (win/draw/loss,"
          " one core), in the same run")
    theirs = time_bock(binary) if binary is not None else None
    ours = build_in_child(SPEC)
    if ours is None:
        return
    print(f"  tablebase: {ours['seconds']:.1f} s (enumerate {ours['stages']['enumerate'][0]:.1f},"
          f" solve {ours['stages']['solve'][0]:.1f}, write {ours['stages']['write'][0]:.1f})")
    if theirs is None:
        at = "" if found is None else f" at {found}"
        print(f"  Böck's solver: not measured (no build of his solve.out{at}: --bock PATH or"
              f" TABLEBASE_BOCK); fixed target {FALLBACK_SECONDS:.0f} s")
        limit = FALLBACK_SECONDS
    else:
        print(f"  Böck's solver: {theirs:.1f} s ({binary}); ours {ours['seconds'] / theirs:.2f}x his")
        limit = theirs * SHARE
    met = ours["seconds"] <= limit
    print(f"target: {SPEC} in at most {f'{SHARE}x his time' if theirs else f'{limit:.0f} s'}:"
          f" {ours['seconds']:.1f} s against {limit:.1f} s: {'met' if met else 'NOT met'}")
