"""Builds within a memory budget, interrupted and resumed builds, and the work directory."""
from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.manifest import Manifest, TierCounts, TierRanges
from tablebase.builder.pipeline import build
from tablebase.builder.workdir import work_path
from tests.conftest import game_row, stored_rows

ROOT = Path(__file__).resolve().parents[1]
TINY = 1 << 20  # one MiB: far below the interpreter itself, so everything runs in tiny chunks


def _same_table(db: str | Path, reference: str, spec: str) -> None:
    assert stored_rows(db, spec) == stored_rows(reference, spec)
    row, ref = game_row(db, spec), game_row(reference, spec)
    assert row is not None and ref is not None and row["status"] == "complete"
    for key in ("reachable", "canonical", "terminal", "terminal_canonical", "wins", "draws",
                "losses", "root_value", "root_depth", "checksum"):
        assert row[key] == ref[key], key


@pytest.mark.parametrize("spec", ["4x3k3", pytest.param("4x4k4+gravity", marks=pytest.mark.slow)])
def test_tiny_budget_gives_the_same_table(tmp_path: Path, table_db: Callable[[str], str],
                                          spec: str) -> None:
    path = tmp_path / "tiny.db"
    report = build(parse_spec(spec), str(path), memory_budget=TINY, write_chunk=997)
    assert report.spilled_runs > 0  # sorted runs really went to disk
    assert not report.direct_table
    _same_table(path, table_db(spec), spec)
    assert not work_path(str(path), spec).exists()


def _interrupt_on_call(monkeypatch: pytest.MonkeyPatch, target: str, n: int) -> None:
    module, name = target.rsplit(".", 1)
    real = getattr(sys.modules[module], name)
    calls = []

    def wrapper(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == n:
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    monkeypatch.setattr(target, wrapper)


@pytest.mark.parametrize("target, n, stage, layout", [
    ("tablebase.builder.enumerator.classify", 6, "enumerate", "packed"),
    ("tablebase.builder.retrograde.solve_tier", 4, "solve", "packed"),
    ("tablebase.builder.pipeline.write_tier", 5, "solve", "packed"),
    ("tablebase.builder.retrograde.solve_tier", 4, "solve", "rows"),
    ("tablebase.builder.pipeline.write_positions", 5, "write", "rows"),
])
def test_interrupted_build_resumes_to_the_same_table(
        tmp_path: Path, table_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch,
        target: str, n: int, stage: str, layout: str) -> None:
    path = tmp_path / "t.db"
    build(parse_spec("3x3k3"), str(path))
    with monkeypatch.context() as patch:
        _interrupt_on_call(patch, target, n)
        with pytest.raises(KeyboardInterrupt):
            build(parse_spec("4x3k3"), str(path), write_chunk=1000, layout=layout)
    assert game_row(path, "4x3k3")["status"] == "building"  # type: ignore[index]
    assert work_path(str(path), "4x3k3").exists()  # kept for --resume
    report = build(parse_spec("4x3k3"), str(path), resume=True, write_chunk=1000, layout=layout)
    assert report.resumed_stage is not None and report.resumed_stage.startswith(stage)
    _same_table(path, table_db("4x3k3"), "4x3k3")
    assert not work_path(str(path), "4x3k3").exists()
    assert len(stored_rows(path, "3x3k3")) == 765


def test_without_resume_an_unfinished_build_starts_over(tmp_path: Path, table_db: Callable[[str], str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.db"
    with monkeypatch.context() as patch:
        _interrupt_on_call(patch, "tablebase.builder.retrograde.solve_tier", 3)
        with pytest.raises(KeyboardInterrupt):
            build(parse_spec("4x3k3"), str(path))
    report = build(parse_spec("4x3k3"), str(path))
    assert report.resumed_stage is None
    _same_table(path, table_db("4x3k3"), "4x3k3")


KILLER = textwrap.dedent("""
    import os, signal, sys
    import tablebase.builder.pipeline as pipeline
    import tablebase.builder.retrograde as retrograde
    import tablebase.builder.workdir as workdir
    from tablebase.builder.games.grid import parse_spec
    workdir._CHECKPOINT_SECONDS = float(sys.argv[2])
    real, calls = retrograde.solve_tier, []
    def dying(*args, **kwargs):
        calls.append(1)
        if len(calls) == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    retrograde.solve_tier = dying
    pipeline.build(parse_spec("4x3k3"), sys.argv[1])
""")


@pytest.mark.parametrize("checkpoint, resumed", [
    (0.0, "solve, continuing at ply 8"),   # a checkpoint after every tier: none is lost
    (3600.0, "enumerate, continuing after ply 0"),  # none since the start: all over again
])
def test_killed_build_resumes(tmp_path: Path, table_db: Callable[[str], str], checkpoint: float,
                              resumed: str) -> None:
    path = tmp_path / "t.db"
    proc = subprocess.run([sys.executable, "-c", KILLER, str(path), str(checkpoint)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    report = build(parse_spec("4x3k3"), str(path), resume=True)
    assert report.resumed_stage == resumed
    _same_table(path, table_db("4x3k3"), "4x3k3")


def test_work_directory_is_removed_after_a_failure(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.db"

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("no space left on device")
    monkeypatch.setattr("tablebase.builder.pipeline.write_tier", broken)
    with pytest.raises(OSError, match="no space"):
        build(parse_spec("3x3k3"), str(path))
    assert not work_path(str(path), "3x3k3").exists()
    assert game_row(path, "3x3k3")["status"] == "building"  # type: ignore[index]
    assert list(tmp_path.iterdir()) == [path] or all(
        p.name.startswith("t.db") for p in tmp_path.iterdir())


def test_resume_of_a_complete_game_still_needs_force(tmp_path: Path) -> None:
    from tablebase.db.errors import GameExistsError

    path = tmp_path / "t.db"
    build(parse_spec("3x3k3"), str(path))
    with pytest.raises(GameExistsError):
        build(parse_spec("3x3k3"), str(path), resume=True)
    assert not work_path(str(path), "3x3k3").exists()


def test_resume_starts_over_when_the_work_directory_is_damaged(
        tmp_path: Path, table_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.db"
    with monkeypatch.context() as patch:
        _interrupt_on_call(patch, "tablebase.builder.retrograde.solve_tier", 5)
        with pytest.raises(KeyboardInterrupt):
            build(parse_spec("4x3k3"), str(path))
    work = work_path(str(path), "4x3k3")
    # As after a power loss: a finished tier's file lost its last bytes.
    scores = sorted(work.glob("scores_*.bin"))[0]
    scores.write_bytes(scores.read_bytes()[:-1])
    report = build(parse_spec("4x3k3"), str(path), resume=True)
    assert report.resumed_stage is None  # nothing was trusted
    _same_table(path, table_db("4x3k3"), "4x3k3")


def test_deferred_tier_arrays_reach_the_disk_at_a_checkpoint(tmp_path: Path) -> None:
    import numpy as np

    from tablebase.builder import workdir as workdir_module
    from tablebase.builder.workdir import WorkDir

    work = WorkDir(tmp_path / "w", defer=True)
    work.start(Manifest(version=0))
    small = np.arange(1000, dtype=np.int64)
    big = np.arange(workdir_module._KEEP_BYTES // 8 + 10, dtype=np.int64)
    work.put("codes", 1, small)
    out = work.writer("codes", 2)
    for part in np.array_split(big, 7):
        out.append(part)
    out.close()
    scores = work.writer("scores", 3)
    scores.append(np.array([5, -3], dtype=np.int8))
    scores.close()
    # Only the array too big to keep went to disk; the small ones read back from memory.
    assert sorted(p.name for p in work.path.glob("*.bin")) == ["codes_2.bin"]
    assert np.array_equal(work.get("codes", 1, in_memory=False), small)
    assert np.array_equal(np.fromfile(work.path / "codes_2.bin", dtype=np.int64), big)
    work.save_manifest()  # a checkpoint: the waiting arrays first, then the manifest
    assert sorted(p.name for p in work.path.glob("*.bin")) == [
        "codes_1.bin", "codes_2.bin", "scores_3.bin"]
    assert np.array_equal(np.fromfile(work.path / "codes_1.bin", dtype=np.int64), small)
    again = WorkDir(work.path)
    again.load_manifest()
    assert again.intact() and set(again.manifest.files) == {
        "codes_1.bin", "codes_2.bin", "scores_3.bin"}
    assert np.array_equal(again.get("scores", 3), [5, -3])


def test_a_manifest_reads_as_earlier_builds_wrote_it() -> None:
    # manifest.json as builds wrote it before the manifest was typed: plies as strings, the
    # keys added on first use (parts, ranges) absent until then.
    old = {"version": 4, "spec": "4x3k3", "root": "", "tool_version": "0.1.0",
           "table": "positions_4x3k3_1", "layout": "packed",
           "tiers": [{"ply": 0, "canonical": 1, "reachable": 1, "terminal": 0,
                      "terminal_canonical": 0},
                     {"ply": 1, "canonical": 4, "reachable": 12, "terminal": 0,
                      "terminal_canonical": 0}],
           "enumerated": True, "solved_from": 1, "values": {"1": [4, 0, 0]},
           "checksums": {"1": "00000000deadbeef"},
           "files": {"codes_0.bin": [123, 8], "scores_1.bin": [456, 4]},
           "stages": {"enumerate": {"seconds": 0.25, "peak_bytes": 1 << 20}},
           "spilled_runs": 0}
    manifest = Manifest.from_json(old)
    assert manifest.tiers[1] == TierCounts(1, 4, 12, 0, 0)
    assert manifest.values == {1: (4, 0, 0)} and manifest.checksums == {1: "00000000deadbeef"}
    assert manifest.files["scores_1.bin"] == (456, 4) and manifest.stages["enumerate"].seconds == 0.25
    assert manifest.to_json() == {**old, "parts": {}, "ranges": {}}
    manifest.ranges[2] = TierRanges([40, 90], [3, 5, 2], [7, None, 95])
    assert Manifest.from_json(manifest.to_json()) == manifest
    with pytest.raises(ValueError):
        Manifest.from_json({"spec": "4x3k3"})  # not a manifest: no version


def test_a_disk_array_narrows_to_a_code_range(tmp_path: Path) -> None:
    # A cluster's owner reads the part of each sender's file that falls in its code range.
    import numpy as np

    from tablebase.builder.workdir import DiskArray

    rng = np.random.default_rng(5)
    codes = np.unique(rng.integers(0, 10_000, 3_000)).astype(np.int64)
    path = tmp_path / "kids.bin"
    codes.tofile(path)
    edges = [None, -5, 0, int(codes[0]), int(codes[17]), 4_321, int(codes[-1]), 10_000, None]
    for low in edges[:-1]:
        for high in edges[1:]:
            data = DiskArray(path, np.dtype(np.int64)).narrow(low, high)
            expected = codes[(codes >= (-1 if low is None else low))
                             & (codes < (1 << 40 if high is None else high))]
            assert np.array_equal(np.asarray(data), expected), (low, high)
            if len(expected) > 3:
                assert data[1] == expected[1] and np.array_equal(data[1:3], expected[1:3])
            data.close()


def test_a_joined_array_reads_rows_as_one_array_does(tmp_path: Path) -> None:
    # A tier read from part files piece by piece, as the solve reads the open rows of a chunk.
    import numpy as np

    from tablebase.builder.workdir import DiskArray, JoinedArray

    whole = np.arange(1_000, dtype=np.int64) * 7
    parts = []
    for i, piece in enumerate(np.array_split(whole, 3)):
        path = tmp_path / f"part{i}.bin"
        piece.tofile(path)
        parts.append(DiskArray(path, np.dtype(np.int64)))
    joined = JoinedArray(parts)
    for rows in (np.array([5, 6, 400, 401, 999]), np.arange(300, 700), np.array([], np.int64)):
        assert np.array_equal(np.asarray(joined[rows]), whole[rows])
    assert joined[334] == whole[334] and np.array_equal(joined[330:340], whole[330:340])


def test_the_work_directory_is_beside_the_database_file_however_it_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    beside = tmp_path / "sub" / ".t.db.4x3k3.work"
    for target in ("sub/t.db", str(tmp_path / "sub" / "t.db"), "sqlite:///sub/t.db",
                   f"sqlite:///{tmp_path}/sub/t.db?mode=rwc"):
        assert work_path(target, "4x3k3") == beside, target
    assert work_path("link/t.db", "a b") == tmp_path / "real" / ".t.db.a_b.work"  # resolved
    for target in ("sqlite://", "sqlite:///:memory:", "postgresql://u@h/d"):
        assert work_path(target, "4x3k3") == tmp_path / ".tablebase.4x3k3.work", target
    assert work_path("sub/t.db", "4x3k3", "link") == tmp_path / "real" / "tablebase.4x3k3.work"
