"""A cluster started by hand, as users on several machines start one: `dask scheduler` and
`dask worker ... --nworkers 2 --nthreads 1` as their own processes, then `tablebase build
--scheduler tcp://... --work-dir` from a separate client; the same table as one process."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the [cluster] extra (dask[distributed]) is not installed")

from tests.conftest import game_row, stored_rows  # noqa: E402

# The `dask` command the [cluster] extra installs beside this interpreter, as users run it.
DASK = [str(Path(sys.executable).parent / "dask"), "scheduler"]
WORKER = [str(Path(sys.executable).parent / "dask"), "worker"]
ROOT = Path(__file__).resolve().parents[1]
# Dask's own diagnostics, which this test does not read, off in every process of the cluster
# and the client (as tests/test_cluster.py's QUIET_DASK): each worker's stack sampler (every
# 10 ms) and each event loop's watch on its ticks (every 20 ms), ~0.09 CPU seconds a second.
QUIET_DASK = {**os.environ, "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
              "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s"}


@pytest.fixture
def scheduler(tmp_path: Path) -> Iterator[str]:
    """The address of a scheduler and two one-thread workers, each its own process."""
    info = tmp_path / "scheduler.json"
    logs = open(tmp_path / "dask.log", "w")
    procs = [subprocess.Popen([*DASK, "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(info)],
                              stdout=logs, stderr=logs, start_new_session=True, env=QUIET_DASK)]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() or not info.read_text().strip():
            assert time.monotonic() < deadline, (tmp_path / "dask.log").read_text()
            time.sleep(0.2)
        address = json.loads(info.read_text())["address"]
        procs.append(subprocess.Popen(
            [*WORKER, address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard",
             "--memory-limit", "2GiB", "--local-directory", str(tmp_path / "workers")],
            stdout=logs, stderr=logs, cwd=ROOT, start_new_session=True, env=QUIET_DASK))
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        # The processes' group at once: a nanny told to stop waits seconds on its workers'
        # graceful close, and how they stop is not what this test checks.
        for proc in reversed(procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        for proc in reversed(procs):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        logs.close()


@pytest.mark.slow
def test_hand_started_workers_build_the_same_table(table_db: Callable[[str], str], tmp_path: Path,
                                                   scheduler: str) -> None:
    db, shared = str(tmp_path / "hand.db"), tmp_path / "shared"
    shared.mkdir()
    done = subprocess.run([sys.executable, "-m", "tablebase", "build", "4x4k4+gravity",
                           "--scheduler", scheduler, "--work-dir", str(shared), "--db", db,
                           "--quiet"], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env=QUIET_DASK)
    assert done.returncode == 0, done.stderr
    assert "on a Dask cluster of 2 workers" in done.stdout
    single = table_db("4x4k4+gravity")
    a, b = game_row(single, "4x4k4+gravity"), game_row(db, "4x4k4+gravity")
    assert a is not None and b is not None
    for column in ("checksum", "reachable", "canonical", "wins", "draws", "losses"):
        assert a[column] == b[column], column
    assert stored_rows(single, "4x4k4+gravity") == stored_rows(db, "4x4k4+gravity")
