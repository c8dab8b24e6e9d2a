"""`make bench` verify section: each game built, then verified, by the `tablebase` command in
fresh processes, one after the other in the same run, so that their ratio holds on a shared
machine. The target: verify no slower than the build."""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPECS = ("6x4k4+gravity", "5x4k4")
COMMAND = [sys.executable, "-m", "tablebase"]


def _timed(args: list[str]) -> float:
    """Wall seconds of one `tablebase` command (its start-up included)."""
    start = time.perf_counter()
    subprocess.run([*COMMAND, *args], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def bench_verify(specs: tuple[str, ...] = SPECS) -> None:
    """Print the build and verify times of each game, their ratio, and the target."""
    print("verify: `tablebase build SPEC` then `tablebase verify SPEC` on the table it built,"
          " each a fresh process (seconds, start-up included)")
    print(f"{'spec':<15}{'build s':>9}{'verify s':>10}{'verify/build':>14}")
    for spec in specs:
        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp) / "bench.db")
            build = _timed(["build", spec, "--db", db, "--quiet"])
            verify = _timed(["verify", spec, "--db", db, "--quiet"])
        ratio = verify / build
        print(f"{spec:<15}{build:>9.1f}{verify:>10.1f}{ratio:>13.2f}x", flush=True)
        print(f"target: verify {spec} no slower than its build: {ratio:.2f}x:"
              f" {'met' if ratio <= 1.0 else 'NOT met'}")
