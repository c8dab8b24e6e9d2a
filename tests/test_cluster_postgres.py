"""A cluster build into PostgreSQL: each worker COPYs the blocks of its own code ranges
(the client inserts none) and the client publishes; the same table as one process, with a
worker killed in the middle of the solve stage."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the [cluster] extra (dask[distributed]) is not installed")
pytest.importorskip("psycopg", reason="the [postgres] extra (psycopg) is not installed")

from tablebase.builder.cluster import cuts, open_cluster  # noqa: E402
from tablebase.builder.games.grid import parse_spec  # noqa: E402
from tablebase.builder.pipeline import build  # noqa: E402
from tablebase.db import writer  # noqa: E402
from tests.conftest import game_row, stored_rows  # noqa: E402
from tests.pgserver import Server  # noqa: E402
from tests.test_cluster import _killing, _worker_pids  # noqa: E402
from tests.test_postgres import pg, pg_game, pg_rows  # noqa: E402, F401


@pytest.mark.slow
def test_workers_copy_their_blocks_into_postgres(pg: Server, table_db: Callable[[str], str],  # noqa: F811
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    name = "4x4k4+gravity"
    single = table_db(name)  # built by one process before the client's inserts are forbidden
    monkeypatch.setattr(cuts, "_SMALL_TIER", 256)  # every tier past the first few in ranges

    def client_insert(*args: object) -> None:
        raise AssertionError("the client inserted blocks: the workers should have")
    monkeypatch.setattr(writer, "write_blocks", client_insert)
    monkeypatch.setattr("tablebase.builder.pipeline.write_blocks", client_insert)
    url = pg.new_database()
    with open_cluster(workers=2, memory_limit="1GiB") as executor:
        progress = _killing(executor, lambda desc: desc == "  ply 9")
        build(parse_spec(name), url, executor=executor, progress=progress,
              work_dir=str(tmp_path / "shared"))
        assert len(progress.killed) == 1  # type: ignore[attr-defined]
        assert progress.killed[0] not in _worker_pids(executor)  # type: ignore[attr-defined]
    row = game_row(single, name)
    assert row is not None
    assert pg_game(url, name)["checksum"] == row["checksum"]
    assert pg_rows(url, name) == stored_rows(single, name)
