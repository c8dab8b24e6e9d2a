"""Builds on a Dask cluster: the same table, byte for byte, as the single-process build; a
worker killed in the middle of a tier; an interrupted client resumed; the CLI's --workers; a
build into PostgreSQL whose workers COPY their own blocks, one of them killed."""
from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed", reason="the [cluster] extra (dask[distributed]) is not installed")

from tablebase.builder.cluster import DaskExecutor, cuts, open_cluster  # noqa: E402  # noqa: E402
from tablebase.builder.cluster import executor as cluster
from tablebase.builder.games.grid import parse_spec  # noqa: E402
from tablebase.builder.games.grid.boards import play_moves  # noqa: E402
from tablebase.builder.pipeline import build  # noqa: E402
from tablebase.builder.progress import NO_PROGRESS  # noqa: E402
from tablebase.builder.workdir import work_path  # noqa: E402
from tablebase.db import writer  # noqa: E402
from tablebase.query.cli import main  # noqa: E402
from tests.conftest import game_row, stored_rows  # noqa: E402
from tests.pgserver import Server  # noqa: E402
from tests.reference import Game, reachable_from  # noqa: E402
from tests.test_postgres import pg, pg_game, pg_rows  # noqa: E402, F401

ENDGAME = ("7x6k4+gravity",
           "c1 e1 d1 d2 c2 d3 e2 e3 d4 d5 b1 a1 e4 c3 d6 c4 e5 e6 f1 f2 f3 c5 c6 f4 f5 g1")


# Dask's own diagnostics, which no test here reads: each worker's stack sampler (every 10 ms)
# and each event loop's watch on its ticks (every 20 ms). Together ~0.09 CPU seconds a second
# of a two-worker cluster even idle (0.135 -> 0.045 measured), paid over the module's minutes
# and more under load; the workers (restarted ones too) take the config from their nannies.
QUIET_DASK = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s"}


@pytest.fixture(scope="module")
def executor() -> Iterator[DaskExecutor]:
    """One local cluster of two worker processes for the whole module."""
    import dask

    with dask.config.set(QUIET_DASK), open_cluster(workers=2, memory_limit="1GiB") as ex:
        yield ex


# Under heavy load (a machine at 7-8 on two cores) a test of this module once waited on the
# cluster for 25 minutes; each test now fails instead after this many seconds.
HUNG_SECONDS = 300


def _hung(signum: int, frame: object) -> None:
    raise TimeoutError(f"a cluster test still running after {HUNG_SECONDS} s: taken as hung")


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """Fail a test that hangs (SIGALRM interrupts a wait on a lock or a socket)."""
    previous = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(HUNG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def small_tiers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Split every tier of more than 256 positions, so that tiny games go through routing."""
    monkeypatch.setattr(cuts, "_SMALL_TIER", 256)


def _same_table(single: str, distributed: str, name: str) -> None:
    """Same checksum, counts and rows in both databases."""
    a, b = game_row(single, name), game_row(distributed, name)
    assert a is not None and b is not None
    for column in ("checksum", "reachable", "canonical", "terminal", "wins", "draws", "losses",
                   "root_value", "root_depth"):
        assert a[column] == b[column], column
    assert stored_rows(single, name) == stored_rows(distributed, name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["4x3k3", "4x4k4+gravity"])  # 3x3k3: the negamax test below
def test_cluster_build_equals_single_process(table_db: Callable[[str], str], tmp_path: Path,
                                             executor: DaskExecutor, small_tiers: None,
                                             name: str) -> None:
    db = str(tmp_path / "cluster.db")
    report = build(parse_spec(name), db, executor=executor)
    assert report.canonical > 0
    _same_table(table_db(name), db, name)


@pytest.mark.slow
def test_cluster_rows_layout_equals_single_process(table_db: Callable[[str], str],
                                                   tmp_path: Path, executor: DaskExecutor,
                                                   small_tiers: None) -> None:
    # The rows layout reads every tier back from the workers' range files, joined in order.
    name, db = "4x3k3", str(tmp_path / "cluster.db")
    build(parse_spec(name), db, executor=executor, layout="rows")
    assert stored_rows(db, name) == stored_rows(table_db(name), name)
    assert game_row(db, name)["checksum"] == game_row(table_db(name), name)["checksum"]


@pytest.mark.slow
def test_a_worker_of_two_threads_builds_the_same_table(table_db: Callable[[str], str],
                                                       tmp_path: Path) -> None:
    # One worker given both cores: its kernels split their rows over two threads, and it packs
    # its blocks on two.
    import dask

    name, db = "4x4k4+gravity", str(tmp_path / "cluster.db")
    with dask.config.set(QUIET_DASK), open_cluster(workers=1, threads=2,
                                                   memory_limit="2GiB") as one:
        build(parse_spec(name), db, executor=one)
    _same_table(table_db(name), db, name)


def test_tiers_are_cut_into_even_ranges(tmp_path: Path, executor: DaskExecutor,
                                        small_tiers: None) -> None:
    # Every tier past the small ones is one range per worker, the larger ranges summed over
    # the tiers within 6% of the mean (the cuts come from an even sample of a few thousand of
    # each range's distinct positions, expanded: no position counted twice).
    executor.profile.clear()
    build(parse_spec("4x4k4+gravity"), str(tmp_path / "cluster.db"), executor=executor)
    assert executor.profile["largest ranges"] <= 1.06 * executor.profile["mean ranges"]
    assert executor.profile["largest ranges"] > executor.profile["mean ranges"]  # cut at all


@pytest.mark.slow
@pytest.mark.parametrize("name", ["4x3k3"])
def test_solving_by_owners_equals_single_process(table_db: Callable[[str], str], tmp_path: Path,
                                                 executor: DaskExecutor, small_tiers: None,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 name: str) -> None:
    # No tier is broadcast: every lookup goes to the owner of the child's code range.
    monkeypatch.setattr(cluster, "_BROADCAST_SHARE", 0)
    db = str(tmp_path / "cluster.db")
    build(parse_spec(name), db, executor=executor)
    _same_table(table_db(name), db, name)


def test_cluster_tictactoe_equals_plain_negamax(tmp_path: Path, executor: DaskExecutor) -> None:
    # Against facts and the independent recursion, with the default (unsplit) small tiers.
    db = str(tmp_path / "cluster.db")
    report = build(parse_spec("3x3k3"), db, executor=executor)
    assert (report.reachable, report.canonical, report.terminal) == (5478, 765, 958)
    game = Game("3x3k3")
    rows = stored_rows(db, "3x3k3")
    assert set(rows) == {game.canonical(b) for b in game.reachable()}
    for code, (ply, value, depth) in rows.items():
        assert (ply, value, depth) == (game.stones(game.board(code)), *game.solve(game.board(code)))


@pytest.mark.slow
def test_cluster_endgame_equals_single_process(tmp_path: Path, executor: DaskExecutor,
                                               small_tiers: None) -> None:
    spec = parse_spec(ENDGAME[0])
    root = play_moves(spec, ENDGAME[1])
    single, distributed = str(tmp_path / "single.db"), str(tmp_path / "cluster.db")
    a = build(spec, single, root=root)
    b = build(spec, distributed, root=root, executor=executor)
    assert a.canonical == b.canonical > 1000
    _same_table(single, distributed, spec.name)


def _worker_pids(executor: DaskExecutor) -> set[int]:
    return set(executor.client.run(os.getpid).values())


def _killing(executor: DaskExecutor, when: Callable[[str], bool]) -> Callable[..., Any]:
    """A progress factory that kills one worker process when a bar `when` accepts opens: the
    tier's tasks are submitted by then, and the killed worker held some of them."""
    killed: list[int] = []

    @contextmanager
    def factory(**kwargs: Any) -> Iterator[Any]:
        if not killed and when(kwargs.get("desc", "")):
            pid = min(_worker_pids(executor))
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        with NO_PROGRESS(**kwargs) as bar:
            yield bar

    factory.killed = killed  # type: ignore[attr-defined]
    return factory


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["enumerate", "solve"])
def test_a_killed_worker_does_not_fail_the_build(table_db: Callable[[str], str], tmp_path: Path,
                                                 executor: DaskExecutor, small_tiers: None,
                                                 stage: str) -> None:
    name = "4x3k3"
    # "  ply 6 -> 7" opens while ply 6's expansions run; "  ply 6" while its solving runs.
    bar = "  ply 6 -> 7" if stage == "enumerate" else "  ply 6"
    progress = _killing(executor, lambda desc: desc == bar)
    db = str(tmp_path / "cluster.db")
    build(parse_spec(name), db, executor=executor, progress=progress)
    assert len(progress.killed) == 1  # type: ignore[attr-defined]
    assert progress.killed[0] not in _worker_pids(executor)  # type: ignore[attr-defined]
    _same_table(table_db(name), db, name)


@pytest.mark.slow
@pytest.mark.parametrize("bar, stage", [("  ply 5", "solve"), ("  ply 5 -> 6", "enumerate")])
def test_an_interrupted_client_resumes(table_db: Callable[[str], str], tmp_path: Path,
                                       executor: DaskExecutor, small_tiers: None, bar: str,
                                       stage: str) -> None:
    name, db = "4x3k3", str(tmp_path / "cluster.db")
    shared = tmp_path / "shared"

    @contextmanager
    def interrupt(**kwargs: Any) -> Iterator[Any]:
        if kwargs.get("desc") == bar:  # in the middle of the stage
            raise KeyboardInterrupt
        with NO_PROGRESS(**kwargs) as progress_bar:
            yield progress_bar

    with pytest.raises(KeyboardInterrupt):
        build(parse_spec(name), db, executor=executor, progress=interrupt, work_dir=str(shared))
    # The tier files went to the directory asked for, and stay there for --resume.
    assert (work_path(db, name, str(shared)) / "manifest.json").exists()
    assert not work_path(db, name).exists()
    fetched = executor.profile.get("ranges fetched", 0)
    report = build(parse_spec(name), db, executor=executor, resume=True, work_dir=str(shared))
    assert report.resumed_stage is not None and report.resumed_stage.startswith(stage)
    # Workers of one machine share one lookup table in /dev/shm, removed when the solve ends;
    # a resumed solve reads the tier solved last into it from the work directory.
    assert executor.shared_table is not None
    assert not list(Path("/dev/shm").glob(executor.shared_table + "*"))
    assert (executor.profile.get("ranges fetched", 0) > fetched) == (stage == "solve")
    assert not work_path(db, name, str(shared)).exists()
    _same_table(table_db(name), db, name)


def _pretend_machines() -> None:
    """On a worker: count as a machine of its own (its shared table a file of its own)."""
    from tablebase.builder.cluster import shared_table as shared

    pid = os.getpid()
    if not hasattr(shared, "real_machine_id"):
        shared.real_machine_id = shared.machine_id  # type: ignore[attr-defined]
    shared.machine_id = lambda: f"machine{pid}"


def _one_machine() -> None:
    """On a worker: its real machine id again (undoes _pretend_machines)."""
    from tablebase.builder.cluster import shared_table as shared

    shared.machine_id = getattr(shared, "real_machine_id", shared.machine_id)


@pytest.mark.slow
def test_workers_on_two_machines_share_a_table_each(table_db: Callable[[str], str],
                                                     tmp_path: Path, executor: DaskExecutor,
                                                     small_tiers: None) -> None:
    # The module's cluster, its two workers made two machines for this test (a cluster of its
    # own cost two more worker processes started, ~5 CPU seconds).
    name, db = "4x3k3", str(tmp_path / "cluster.db")
    fetched = executor.profile.get("ranges fetched", 0)
    executor.client.run(_pretend_machines)
    try:
        build(parse_spec(name), db, executor=executor)
    finally:
        executor.client.run(_one_machine)
    # Each machine read the ranges that the other machine's worker solved from the work
    # directory; on one machine none is (the resumed build's test above).
    assert executor.profile.get("ranges fetched", 0) > fetched
    assert executor.shared_table is not None
    assert not list(Path("/dev/shm").glob(executor.shared_table + "*"))
    _same_table(table_db(name), db, name)


@pytest.mark.slow
def test_workers_copy_their_blocks_into_postgres(pg: Server,  # noqa: F811
                                                 table_db: Callable[[str], str], tmp_path: Path,
                                                 executor: DaskExecutor, small_tiers: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # Each worker COPYs the blocks of its own code ranges (the client inserts none) and the
    # client publishes; the same table as one process, a worker killed in the solve stage. On
    # the module's cluster (one of its own cost two worker processes more, ~8 CPU seconds);
    # skipped, with the reason, where no PostgreSQL server starts (the pg fixture).
    name = "4x4k4+gravity"
    single = table_db(name)  # built by one process before the client's inserts are forbidden

    def client_insert(*args: object) -> None:
        raise AssertionError("the client inserted blocks: the workers should have")
    monkeypatch.setattr(writer, "write_blocks", client_insert)
    monkeypatch.setattr("tablebase.builder.pipeline.write_blocks", client_insert)
    url = pg.new_database()
    progress = _killing(executor, lambda desc: desc == "  ply 9")
    build(parse_spec(name), url, executor=executor, progress=progress,
          work_dir=str(tmp_path / "shared"))
    assert len(progress.killed) == 1  # type: ignore[attr-defined]
    assert progress.killed[0] not in _worker_pids(executor)  # type: ignore[attr-defined]
    row = game_row(single, name)
    assert row is not None
    assert pg_game(url, name)["checksum"] == row["checksum"]
    assert pg_rows(url, name) == stored_rows(single, name)


@pytest.mark.slow
def test_cli_workers(table_db: Callable[[str], str], tmp_path: Path,
                     capsys: pytest.CaptureFixture[str]) -> None:
    # A cluster of its own, started by the CLI: the module's has lost a worker to the tests that
    # kill one, and its nanny's new one did not always come back (a wait of 300 s failed).
    import dask

    db = str(tmp_path / "cli.db")
    with dask.config.set(QUIET_DASK):
        assert main(["build", "3x3k3", "--workers", "2", "--db", db, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "5,478 reachable" in out and "on a Dask cluster of 2 workers" in out
    _same_table(table_db("3x3k3"), db, "3x3k3")


@pytest.mark.parametrize("args, message", [
    (["--workers", "0"], "expected a positive number of workers"),
    (["--scheduler", "tcp://127.0.0.1:9"], "--scheduler needs --work-dir"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:9", "--work-dir", "."], "give one of"),
])
def test_cli_cluster_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  args: list[str], message: str) -> None:
    assert main(["build", "3x3k3", "--db", str(tmp_path / "x.db"), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x.db").exists()


def test_missing_dask_names_the_extra(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # makes `import distributed` fail
    assert main(["build", "3x3k3", "--workers", "2", "--db", str(tmp_path / "x.db")]) == 2
    err = capsys.readouterr().err.strip()
    assert "pip install 'tablebase[cluster]'" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("spec", ["4x3k3", "4x4k4+gravity"])
def test_cuts_weigh_a_child_by_its_parents(spec: str) -> None:
    """The weight of a sampled child in the cuts is one over its parents (the root's
    `last_moves`): the stones its last mover could have played last, counted here by
    tests/reference.py's own rules."""
    import numpy as np

    from tablebase.builder.games.grid.root import Root
    game, root = Game(spec), Root.whole(parse_spec(spec))
    boards = sorted(b for b in reachable_from(game, (0,) * game.n, plies=5)
                    if game.stones(b) == 5)[:200]
    codes = np.array([game.code(b) for b in boards], dtype=np.int64)
    counted = root.last_moves(4, codes)
    for board, n in zip(boards, counted):
        last = 1  # x moved last after 5 stones
        expected = sum(1 for c, v in enumerate(board) if v == last and (
            not game.gravity or c < game.w or board[c - game.w] == 0))
        assert n == expected, board


def test_a_task_carries_the_root_without_the_kernels_bound_here() -> None:
    """A root goes to a worker pickled, once a task: the compiled kernels it bound in this
    process stay here (each process binds its own), and the copy binds and codes as it does."""
    import pickle

    from tablebase.builder.games.registry import table_root

    root = table_root(parse_spec("5x4k4+gravity"))
    bound = [root.tier_kernels(ply) for ply in range(1, 8)]
    buffers: list[pickle.PickleBuffer] = []
    copy = pickle.loads(pickle.dumps(root, protocol=5, buffer_callback=buffers.append),
                        buffers=buffers)
    assert "_tiers" in vars(root) and "_tiers" not in vars(copy)
    assert copy == root and copy.symmetries.tolist() == root.symmetries.tolist()
    assert copy.tier_kernels(3) is not bound[2] and root.tier_kernels(3) is bound[2]
