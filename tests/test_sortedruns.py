"""builder/sortedruns.py: the collector that deduplicates children, against numpy's unique."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablebase.builder import threads
from tablebase.builder.sortedruns import UniqueCollector


@pytest.mark.parametrize("buffer_items, memory_items", [(1 << 20, 1 << 20), (700, 1 << 20),
                                                        (700, 1_500)])
def test_the_collector_yields_every_code_once_in_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, buffer_items: int,
        memory_items: int) -> None:
    # One buffer, several flushes (runs that are views of the buffer, moved down to close the
    # gaps the duplicates left), runs spilled to disk; batches both copied in and written in
    # place.
    monkeypatch.setattr(threads, "PARALLEL_ROWS", 8)  # two threads even on small batches
    monkeypatch.setattr(threads, "THREADS", 2)
    rng = np.random.default_rng(3)
    collector = UniqueCollector(buffer_items, memory_items, lambda name: tmp_path / name)
    batches = [rng.integers(0, 5_000, int(rng.integers(0, 400))) for _ in range(40)]
    for i, batch in enumerate(batches):
        if i % 2:
            collector.add(batch)
        else:
            room = collector.room(len(batch) + 5)  # more room than used, as expand asks
            room[: len(batch)] = batch
            collector.commit(len(batch))
    found = np.concatenate(list(collector.chunks(300)))
    assert found.tolist() == np.unique(np.concatenate(batches)).tolist()
    assert (collector.spilled > 0) == (memory_items < 1 << 20)
    assert not list(tmp_path.iterdir())  # spilled runs are removed once read


def test_a_collector_used_again_starts_empty(tmp_path: Path) -> None:
    # The enumerator keeps one collector (and its buffer) for every tier.
    collector = UniqueCollector(100, 150, lambda name: tmp_path / name)
    for round_ in range(3):
        codes = np.arange(120) * 3 + round_
        collector.add(codes[::-1])
        assert np.concatenate(list(collector.chunks(50))).tolist() == codes.tolist()
        assert collector.spilled == 0  # 120 codes a round, within the 150 kept in memory



def test_runs_stay_in_the_buffer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A flush's runs stay views of the buffer, the next batch written after them: a run made
    # at an earlier flush is never copied again (copying every run at every flush made
    # collecting a large tier quadratic: 38 s of a Connect Four 7x4 build).
    monkeypatch.setattr(threads, "THREADS", 1)
    collector = UniqueCollector(100, 1 << 20, lambda name: tmp_path / name)
    for i in range(4):  # a flush at each add after the first
        collector.add(np.arange(i * 100, i * 100 + 100))
    before = list(collector._runs)
    collector.add(np.arange(400, 500))
    assert len(before) == 3 and len(collector._runs) == 4
    assert all(a is b for a, b in zip(before, collector._runs))
    assert all(run.base is collector._space for run in collector._runs)
    assert np.concatenate(list(collector.chunks(1000))).tolist() == list(range(500))
