"""Crash safety: a build killed with SIGKILL at many moments, in every stage and inside the
final atomic commit, never leaves a complete-looking copy of its game, never disturbs the
other games in the file, and the next build (fresh or resumed) completes."""
from __future__ import annotations

import json
import random
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.pipeline import build
from tests.conftest import game_row, stored_rows

ROOT = Path(__file__).resolve().parents[1]

CHILD = textwrap.dedent("""
    import os, signal, sys
    import tablebase.builder.enumerator, tablebase.builder.retrograde, tablebase.builder.workdir
    import tablebase.builder.pipeline, tablebase.db.writer
    from tablebase.builder.games.grid import parse_spec
    target, n = sys.argv[2], int(sys.argv[3])

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    if target == "final-commit":
        # Die inside the transaction that swaps the new table in, just before it commits.
        from sqlalchemy import event
        real_finish = tablebase.builder.pipeline.finish_build
        def finish(engine, *args, **kwargs):
            event.listen(engine, "commit", lambda conn: die())
            return real_finish(engine, *args, **kwargs)
        tablebase.builder.pipeline.finish_build = finish
    elif target != "timer":
        module, name = target.rsplit(".", 1)
        if module in sys.modules:
            owner = sys.modules[module]
        else:  # module.Class.method
            module, cls_name = module.rsplit(".", 1)
            owner = getattr(sys.modules[module], cls_name)
        real, calls = getattr(owner, name), []
        def wrapper(*args, **kwargs):
            calls.append(1)
            if len(calls) == n:
                die()
            return real(*args, **kwargs)
        setattr(owner, name, wrapper)
    tablebase.builder.pipeline.build(parse_spec("4x3k3"), sys.argv[1], write_chunk=2000,
                           force="--force" in sys.argv)
""")

# (where, nth call): spread over enumerate, solve, write and the final swap.
KILL_POINTS = [
    ("tablebase.builder.enumerator.classify", 2),
    ("tablebase.builder.enumerator.classify", 9),
    ("tablebase.builder.workdir.WorkDir.save_manifest", 6),
    ("tablebase.builder.retrograde.solve_tier", 8),
    ("tablebase.builder.workdir.WorkDir.put", 3),
    ("tablebase.builder.pipeline.write_tier", 1),
    ("tablebase.builder.pipeline.write_tier", 12),
    ("tablebase.builder.pipeline.finish_build", 1),
    ("final-commit", 1),
]


# Each build to kill runs in a child forked by one helper process that has imported what CHILD
# imports and loaded 4x3k3's compiled kernels (a fresh interpreter a build paid most of a second
# for the imports, and each child about half a second more for the kernels: the stages killed
# come after both). The helper runs no build itself, only the kernels on tiny inputs, so it has
# no threads when it forks; it kills a child after a delay itself (the pid is its own until it
# waits) and answers with the child's exit status, -9 when killed.
HELPER = textwrap.dedent("""
    import json, os, signal, sys, time, traceback
    import tablebase.builder.enumerator, tablebase.builder.retrograde, tablebase.builder.workdir
    import tablebase.builder.pipeline, tablebase.db.writer, sqlalchemy
    from tablebase.builder.games.registry import table_root
    from tablebase.builder.kernels import warm_up
    child = sys.argv[1]
    warm_up(table_root("4x3k3"))  # threadless: runs the kernels on tiny inputs here
    print("ready", flush=True)
    for line in sys.stdin:
        delay, *args = json.loads(line)
        pid = os.fork()
        if pid == 0:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            sys.argv = ["-c", *args]
            try:
                exec(child, {"__name__": "__main__"})
            except BaseException:
                traceback.print_exc()
                os._exit(1)
            os._exit(0)
        if delay is not None:
            time.sleep(delay)
            os.kill(pid, signal.SIGKILL)
        print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
""")


@pytest.fixture(scope="module")
def helper() -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen([sys.executable, "-c", HELPER, CHILD], cwd=ROOT, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    yield proc
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0


def _kill_build(helper: subprocess.Popen[str], path: Path, target: str, n: int, *extra: str,
                delay: float | None = None) -> int:
    """The exit status of a build of 4x3k3 into `path` (-9: killed), as CHILD runs it."""
    assert helper.stdin is not None and helper.stdout is not None
    helper.stdin.write(json.dumps([delay, str(path), target, str(n), *extra]) + "\n")
    helper.stdin.flush()
    ready, _, _ = select.select([helper.stdout], [], [], 120)
    assert ready, "the build neither ended nor was killed within 120 s"
    return int(helper.stdout.readline())


@pytest.fixture(scope="module")
def truth(table_db: Callable[[str], str]) -> dict[int, tuple[int, int, int]]:
    """The rows of an undisturbed 4x3k3 build, read once for the module."""
    return stored_rows(table_db("4x3k3"), "4x3k3")


@pytest.fixture(scope="module")
def built_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Files built once for the module, each test killing builds in a copy of its own: "two"
    holds 3x3k3 and 3x3k3+misere, "three" those and a complete 4x3k3 too."""
    folder = tmp_path_factory.mktemp("crash")
    two, three = folder / "two.db", folder / "three.db"
    build(parse_spec("3x3k3"), str(two))
    build(parse_spec("3x3k3+misere"), str(two))
    shutil.copy(two, three)
    build(parse_spec("4x3k3"), str(three))
    return {"two": two, "three": three}


@pytest.fixture
def two_games(tmp_path: Path, built_files: dict[str, Path]) -> Path:
    """A fresh file holding 3x3k3 and 3x3k3+misere (a copy of the module's)."""
    return Path(shutil.copy(built_files["two"], tmp_path / "t.db"))


def _others_unchanged(path: Path, before: dict[str, object]) -> None:
    for spec in ("3x3k3", "3x3k3+misere"):
        assert stored_rows(path, spec) == before[spec]
        assert game_row(path, spec) == before[spec + "/row"]


def _snapshot(path: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    for spec in ("3x3k3", "3x3k3+misere"):
        out[spec] = stored_rows(path, spec)
        out[spec + "/row"] = game_row(path, spec)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("target, n", KILL_POINTS)
def test_killed_first_build(helper: subprocess.Popen[str], two_games: Path,
                            truth: dict[int, tuple[int, int, int]], target: str, n: int) -> None:
    before = _snapshot(two_games)
    assert _kill_build(helper, two_games, target, n) == -signal.SIGKILL
    row = game_row(two_games, "4x3k3")
    assert row is not None and row["status"] != "complete"
    _others_unchanged(two_games, before)
    resume = n % 2 == 0  # half the reruns resume, half start over
    build(parse_spec("4x3k3"), str(two_games), resume=resume)
    assert stored_rows(two_games, "4x3k3") == truth
    _others_unchanged(two_games, before)


@pytest.mark.slow
@pytest.mark.parametrize("target, n", KILL_POINTS[::3] + [("final-commit", 1)])
def test_killed_forced_rebuild_keeps_the_old_table(helper: subprocess.Popen[str], tmp_path: Path,
                                                  built_files: dict[str, Path], target: str,
                                                  n: int) -> None:
    # A fresh copy of the two games with 4x3k3 built beside them (the table to keep).
    two_games = Path(shutil.copy(built_files["three"], tmp_path / "t.db"))
    old_rows, old_row = stored_rows(two_games, "4x3k3"), game_row(two_games, "4x3k3")
    before = _snapshot(two_games)
    assert _kill_build(helper, two_games, target, n, "--force") == -signal.SIGKILL
    assert game_row(two_games, "4x3k3") == old_row
    assert stored_rows(two_games, "4x3k3") == old_rows
    _others_unchanged(two_games, before)
    build(parse_spec("4x3k3"), str(two_games), force=True)
    assert stored_rows(two_games, "4x3k3") == old_rows


@pytest.mark.slow
def test_killed_at_random_moments(helper: subprocess.Popen[str], two_games: Path,
                                  truth: dict[int, tuple[int, int, int]], tmp_path: Path) -> None:
    rng = random.Random(20261122)
    before = _snapshot(two_games)
    # The moments fall within one whole build's time, start-up included, measured here.
    shutil.copy(two_games, tmp_path / "whole.db")
    start = time.monotonic()
    assert _kill_build(helper, tmp_path / "whole.db", "timer", 0) == 0
    whole = time.monotonic() - start
    for attempt in range(3):
        path = tmp_path / f"attempt{attempt}.db"
        shutil.copy(two_games, path)
        status = _kill_build(helper, path, "timer", 0, delay=rng.uniform(0.3, 1.0) * whole)
        row = game_row(path, "4x3k3")
        if status == -signal.SIGKILL:
            assert row is None or row["status"] != "complete" or (
                stored_rows(path, "4x3k3") == truth)
        _others_unchanged(path, before)
        if row is None or row["status"] != "complete":
            build(parse_spec("4x3k3"), str(path), resume=rng.random() < 0.5)
        assert stored_rows(path, "4x3k3") == truth
