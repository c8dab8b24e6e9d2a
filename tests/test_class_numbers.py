"""The walk of a class whose positions are small ints, carried on in compiled code
(builder/graph_numbers.py) from NUMBERS_FROM positions, lowered here to reach it in small
games, the class's calls in this process or on two forked ones: the same graph as the plain
walk (numbering, edges, ends, plies, positions), every stored answer equal to the plain solver
(tests/reference_games.py), and where a later child is not such an int, a call raises or an
outcome is wrong, the plain walk's graph or its very fault."""
from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tablebase.builder.graph as graph_module
import tablebase.builder.graph_numbers as numbers_module
from tablebase.builder.games.errors import BuildTooLargeError
from tablebase.builder.games.protocol import GameFault
from tablebase.builder.games.user.adapter import ClassGame
from tablebase.builder.graph import Graph, walk
from tablebase.builder.graph_build import build_game
from tablebase.query.cli import main
from tests.class_games.clobber import Clobber3x4
from tests.class_games.graphs import RandomGraph
from tests.test_class_games import answers_equal_the_plain_solver

BUDGET = 8 << 30
SEED, SIZE = 1, 30_000  # 11,401 positions reachable from 0, loops among them


WORKERS: list[int] = []


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """NUMBERS_FROM lowered to 4,096 (graph's check interval), and the compiled walk's starts
    and give-ups counted."""
    monkeypatch.setattr(graph_module, "NUMBERS_FROM", 4096)
    calls = {"started": 0, "gave up": 0}
    real = numbers_module.walk_numbers

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls["started"] += 1
        WORKERS.append(args[-1])  # the processes asked for
        try:
            return real(*args, **kwargs)
        except numbers_module.NotNumbers:
            calls["gave up"] += 1
            raise
    monkeypatch.setattr(numbers_module, "walk_numbers", counted)
    return calls


def graph_of(instance: Any, compiled: bool = True, workers: int = 2) -> Graph:
    """The walk's graph; the compiled walk's calls on `workers` forked processes (1: none)."""
    game = ClassGame(instance, type(instance).__name__, type(instance).__name__)
    return walk(game, game.start(), BUDGET, compiled=compiled, workers=workers)


def assert_same(a: Graph, b: Graph) -> None:
    for name in ("first", "kids", "term", "ply", "orbit"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.numbers is not None and b.numbers is not None
    assert np.array_equal(a.numbers, b.numbers)
    assert a.ply.dtype == b.ply.dtype and a.kids.dtype == b.kids.dtype


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("instance", [Clobber3x4(), RandomGraph(SEED, SIZE)],
                         ids=["clobber-3x4", "random-graph"])
def test_the_compiled_walk_makes_the_plain_walks_graph(spied: dict[str, int], instance: Any,
                                                       workers: int) -> None:
    compiled = graph_of(instance, workers=workers)
    assert spied == {"started": 1, "gave up": 0}
    assert_same(compiled, plain_random_graph() if isinstance(instance, RandomGraph)
                else graph_of(instance, compiled=False))
    assert spied["started"] == 1  # the plain walk did not start it


def test_a_compiled_walks_table_equals_the_plain_solver(spied: dict[str, int],
                                                        tmp_path: Path) -> None:
    instance = RandomGraph(SEED, SIZE)
    game = ClassGame(instance, "RandomGraph", "graphs.py:RandomGraph")
    db = str(tmp_path / "g.db")
    report = build_game(game, db)
    assert spied == {"started": 1, "gave up": 0}
    assert report.canonical == answers_equal_the_plain_solver(game, instance, db) == 11_401


@cache
def plain_random_graph() -> Graph:
    """The plain walk's graph of RandomGraph(SEED, SIZE), made once for the module (the tests
    only read it)."""
    return graph_of(RandomGraph(SEED, SIZE), compiled=False)


@cache
def late_node() -> int:
    """A node the walk of RandomGraph(SEED, SIZE) meets among its last (past the switch),
    where play goes on by a move."""
    graph = plain_random_graph()
    assert graph.numbers is not None and graph.size > 10_000
    going_on = (graph.term == graph_module.OPEN) & (np.diff(graph.first) > 0)
    return int(graph.numbers[np.flatnonzero(going_on)[-1]])


class Odd(RandomGraph):
    """RandomGraph with one late node given as another value (`shown`), read back by text."""

    def __init__(self, node: int, shown: Any) -> None:
        super().__init__(SEED, SIZE)
        self.node, self.shown = node, shown

    def start(self) -> Any:
        return self._out(0)

    def _in(self, p: Any) -> int:
        return self.node if type(p) is type(self.shown) and p == self.shown else int(p)

    def _out(self, v: int) -> Any:
        return self.shown if v == self.node else v

    def outcome(self, p: Any) -> int | None:
        return super().outcome(self._in(p))

    def moves(self, p: Any) -> list[tuple[str, Any]]:
        return [(name, self._out(c)) for name, c in super().moves(self._in(p))]

    def text(self, p: Any) -> str:
        return super().text(self._in(p))

    def read(self, text: str) -> Any:
        return self._out(super().read(text))


@pytest.mark.parametrize("shown", ["a string", 0.5, -1, 10 ** 17, 2 ** 70],
                         ids=["str", "float", "negative", "ten-to-the-17", "past-int64"])
def test_a_child_that_is_not_a_small_int_gives_the_plain_walks_graph(
        spied: dict[str, int], shown: Any) -> None:
    node = late_node()
    odd = Odd(node, shown)
    compiled = graph_of(odd)
    assert spied == {"started": 1, "gave up": 1}
    plain = graph_of(odd, compiled=False)
    for name in ("first", "kids", "term", "ply", "orbit"):
        assert np.array_equal(getattr(compiled, name), getattr(plain, name)), name
    assert compiled.numbers is None and compiled.keys == plain.keys
    assert len(compiled.keys) == 11_401  # the odd node there, as itself


class LateFault(RandomGraph):
    def __init__(self, node: int, where: str) -> None:
        super().__init__(SEED, SIZE)
        self.node, self.where = node, where

    def outcome(self, p: int) -> Any:
        if p == self.node and self.where == "outcome":
            return "won"
        if p == self.node and self.where == "outcome raises":
            raise KeyError("no such node")
        return super().outcome(p)

    def moves(self, p: int) -> list[tuple[str, int]]:
        if p == self.node and self.where == "moves":
            raise ZeroDivisionError("division by zero")
        return super().moves(p)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("where", ["outcome", "outcome raises", "moves"])
def test_a_late_fault_is_the_plain_walks_fault(spied: dict[str, int], where: str,
                                               workers: int) -> None:
    node = late_node()
    with pytest.raises(GameFault) as compiled:
        graph_of(LateFault(node, where), workers=workers)
    assert spied["started"] == 1
    assert str(compiled.value) == plain_fault(where)
    assert f"n{node}" in str(compiled.value)


@cache
def plain_fault(where: str) -> str:
    """The plain walk's fault on LateFault(late_node(), where), once for both worker counts."""
    with pytest.raises(GameFault) as plain:
        graph_of(LateFault(late_node(), where), compiled=False)
    return str(plain.value)


class WorkerDies(RandomGraph):
    """RandomGraph whose `moves` ends the worker process it runs in at one late node."""

    def __init__(self, node: int) -> None:
        super().__init__(SEED, SIZE)
        self.node = node

    def moves(self, p: int) -> list[tuple[str, int]]:
        if p == self.node and multiprocessing.parent_process() is not None:
            os._exit(3)  # as a worker killed mid-batch would
        return super().moves(p)


def test_a_worker_that_dies_leaves_the_rest_to_the_build(spied: dict[str, int]) -> None:
    """A worker lost mid-batch (its batch never answered): the walk goes on in this process,
    the same graph, not a wait for ever."""
    graph = graph_of(WorkerDies(late_node()))
    assert spied == {"started": 1, "gave up": 0}
    assert_same(graph, plain_random_graph())


def test_the_compiled_walk_keeps_to_the_memory_budget(spied: dict[str, int]) -> None:
    game = ClassGame(RandomGraph(SEED, SIZE), "RandomGraph", "RandomGraph")
    with pytest.raises(BuildTooLargeError, match="memory budget"):
        walk(game, game.start(), 1)
    assert spied["started"] == 1


def test_ctrl_c_in_the_compiled_walk_is_one_line_and_stops_every_worker(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while the workers
    make the class's calls: the build's one line, its exit status, no table, no process left."""
    mark, db = tmp_path / "mark", tmp_path / "t.db"
    spec = f"{Path(__file__).parent / 'class_games' / 'ints.py'}:SlowTree"
    proc = subprocess.Popen([sys.executable, "-m", "tablebase", "build", spec, "--db", str(db),
                             "--quiet"], env={**os.environ, "TABLEBASE_TEST_MARK": str(mark)},
                            start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not mark.exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert err == "tablebase: interrupted; nothing was written\n", err
    deadline = time.monotonic() + 10
    while True:  # the workers gone with the build
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "a worker outlived the build"
        time.sleep(0.05)
    if db.exists():
        with closing(sqlite3.connect(db)) as conn:
            assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'games'")\
                .fetchall() or not conn.execute("SELECT * FROM games WHERE status = 'complete'")\
                .fetchall()


def test_build_workers_are_the_walks_processes(spied: dict[str, int], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`tablebase build CLASS --workers N`: N processes call the class (1: none but this one),
    the same table either way; --scheduler is one line."""
    spec = f"{Path(__file__).parent / 'class_games' / 'clobber.py'}:Clobber3x4"
    WORKERS.clear()
    sums = []
    for workers in ("1", "3"):
        db = str(tmp_path / f"w{workers}.db")
        assert main(["build", spec, "--db", db, "--workers", workers, "--quiet"]) == 0
        with closing(sqlite3.connect(db)) as conn:
            sums.append(conn.execute("SELECT checksum, canonical FROM games").fetchall())
    assert WORKERS == [1, 3] and spied["gave up"] == 0
    assert sums[0] == sums[1] and sums[0][0][1] == 13_343
    capsys.readouterr()
    assert main(["build", spec, "--db", str(tmp_path / "s.db"), "--scheduler",
                 "tcp://127.0.0.1:1"]) == 2
    assert capsys.readouterr().err == ("tablebase: error: a game class is built on this machine:"
                                       " leave out --scheduler\n")
