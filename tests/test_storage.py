"""Storage: several games per database, --force, failed and killed builds leave nothing complete."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

import tablebase.db.writer
from tablebase.builder.games.grid import parse_spec
from tablebase.builder.pipeline import build
from tablebase.db.engine import open_database
from tablebase.db.errors import DatabaseError, GameExistsError, NotATablebaseError
from tablebase.db.store import complete_tables, open_store
from tests.conftest import game_row, stored_rows

ROOT = Path(__file__).resolve().parents[1]


def _tables(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        return [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'positions_%'")]


def test_many_games_in_one_database(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    build(parse_spec("3x3k3"), str(path))
    before = stored_rows(path, "3x3k3")
    build(parse_spec("3x3k3+misere"), str(path))
    build(parse_spec("3x3k3+gravity"), str(path))
    assert stored_rows(path, "3x3k3") == before
    assert len(_tables(path)) == 3


def test_rebuild_needs_force(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    build(parse_spec("3x3k3"), str(path))
    first = game_row(path, "3x3k3")
    with pytest.raises(GameExistsError, match="--force"):
        build(parse_spec("3x3k3"), str(path))
    build(parse_spec("3x3k3"), str(path), force=True)
    second = game_row(path, "3x3k3")
    assert first is not None and second is not None
    assert second["positions_table"] != first["positions_table"]
    assert second["checksum"] == first["checksum"]
    assert len(_tables(path)) == 1  # the old table is gone


def test_failed_build_leaves_nothing_complete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.db"
    build(parse_spec("3x3k3"), str(path))
    before = stored_rows(path, "3x3k3")
    real = tablebase.db.writer.write_tier
    calls = []

    def failing(*args: object, **kwargs: object) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk on fire")
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("tablebase.builder.pipeline.write_tier", failing)
    with pytest.raises(RuntimeError, match="disk on fire"):
        build(parse_spec("4x3k3"), str(path), write_chunk=1000)
    row = game_row(path, "4x3k3")
    assert row is not None and row["status"] == "building"
    assert stored_rows(path, "3x3k3") == before
    assert len(_tables(path)) == 1  # the partial table was dropped
    with closing(open_store(str(path))) as store, pytest.raises(LookupError):
        complete_tables(store, "4x3k3")
    monkeypatch.setattr("tablebase.builder.pipeline.write_tier", real)
    build(parse_spec("4x3k3"), str(path))
    assert game_row(path, "4x3k3")["status"] == "complete"  # type: ignore[index]


KILLER = textwrap.dedent("""
    import os, signal, sys
    import tablebase.builder.pipeline as pipeline
    from tablebase.builder.games.grid import parse_spec
    real, calls = pipeline.write_tier, []
    def dying(*args, **kwargs):
        calls.append(1)
        if len(calls) == int(sys.argv[2]):
            os.kill(os.getpid(), signal.SIGKILL)
        real(*args, **kwargs)
    pipeline.write_tier = dying
    pipeline.build(parse_spec("4x3k3"), sys.argv[1], write_chunk=2000, force=True)
""")


@pytest.mark.parametrize("kill_at", [1, 7])
def test_killed_build_leaves_nothing_complete_and_rerun_works(tmp_path: Path, kill_at: int) -> None:
    path = tmp_path / "t.db"
    build(parse_spec("3x3k3"), str(path))
    before = stored_rows(path, "3x3k3")
    proc = subprocess.run([sys.executable, "-c", KILLER, str(path), str(kill_at)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    row = game_row(path, "4x3k3")
    assert row is not None and row["status"] != "complete"
    assert stored_rows(path, "3x3k3") == before
    build(parse_spec("4x3k3"), str(path))
    assert game_row(path, "4x3k3")["canonical"] == 28275  # type: ignore[index]
    assert len(stored_rows(path, "4x3k3")) == 28275
    assert len(_tables(path)) == 2  # the dead build's table was cleaned up


def test_killed_forced_rebuild_keeps_the_old_table(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    build(parse_spec("4x3k3"), str(path))
    before = stored_rows(path, "4x3k3")
    proc = subprocess.run([sys.executable, "-c", KILLER, str(path), "5"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert game_row(path, "4x3k3")["status"] == "complete"  # type: ignore[index]
    assert stored_rows(path, "4x3k3") == before


def test_read_only_open_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "missing.db"
    with pytest.raises(DatabaseError, match="no such database file"):
        with open_database(str(path)):
            pass
    assert not path.exists()


def test_foreign_sqlite_file_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    data = path.read_bytes()
    with pytest.raises(NotATablebaseError):
        build(parse_spec("3x3k3"), str(path))
    with pytest.raises(NotATablebaseError):
        with open_database(str(path)):
            pass
    assert path.read_bytes() == data


def test_sqlalchemy_url_works(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'url.db'}"
    report = build(parse_spec("3x3k3"), url)
    assert report.canonical == 765
    with closing(open_store(url)) as store:
        assert complete_tables(store, "3x3k3")[0].canonical == 765


def test_pipeline_report(tmp_path: Path) -> None:
    report = build(parse_spec("4x3k3"), str(tmp_path / "t.db"))
    assert (report.reachable, report.canonical, report.terminal) == (111973, 28275, 32410)
    assert int(report.root_value) == 1 and report.root_depth == 7
    assert set(report.stages) == {"enumerate", "solve", "write"}
    assert all(f.seconds >= 0 and f.peak_bytes > 0 for f in report.stages.values())
    assert [p.canonical for p in report.plies][:4] == [1, 4, 36, 172]
    assert np.isclose(report.seconds, sum(f.seconds for f in report.stages.values()))
    assert os.path.getsize(tmp_path / "t.db") > 0
