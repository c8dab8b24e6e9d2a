"""Shared fixtures: tables built once per test session, and raw reads of what is stored."""
from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.pipeline import build
from tests.stored import decode_blocks

# The files of the suite that take longest, longest first (seconds of test time, the processes
# they start included, the whole suite in one process on the 2-core machine shared with a
# build, 2026-12-04: the docs' ~24 and the cluster's ~29, mypy's ~12 on a fresh clone, the
# search's budgets ~14, ... down to ~3). `make test` gives whole files to its workers in this
# order (--dist loadfile --no-loadscope-reorder), so the long ones start first and the last to
# start are short: no worker is left idle at the end while another runs one long file. The
# other files follow in name order.
LONGEST_FIRST = [
    "test_docs.py", "test_cluster.py", "test_types.py", "test_search_budgets.py", "test_search.py",
    "test_endgame.py", "test_win_proofs.py", "test_browser_tables.py", "test_packed.py",
    "test_damage.py", "test_gravity_search.py", "test_crash.py", "test_audit.py", "test_tiered.py",
    "test_solvers.py", "test_class_strategy.py", "test_reference_moving.py", "test_scale.py",
    "test_settling.py", "test_browser.py", "test_keyed_sqlite.py", "test_audit_players.py",
    "test_moving.py", "test_postgres.py", "test_concurrency.py", "test_class_numbers.py",
    "test_ranked.py", "test_proofs.py", "test_install.py", "test_verify_moving.py",
    "test_moving_audit.py", "test_cluster_by_hand.py", "test_storage.py", "test_verify.py",
    "test_course_audit.py", "test_course_dialect.py", "test_moving_strategy.py",
    "test_serve_cli.py", "test_browser_moving.py", "test_browser_games.py",
    "test_browser_morris.py", "test_kernels.py", "test_refusals.py", "test_compiled.py",
    "test_levels.py", "test_openings.py", "test_strategy.py", "test_tablebase.py",
    "test_class_game_rules.py", "test_build.py", "test_search_faces.py",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first (LONGEST_FIRST), each file's tests in their own order."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="session")
def table_db(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], str]:
    """Returns a function spec -> path of a database (shared by the session) holding that game."""
    path = str(tmp_path_factory.mktemp("tables") / "shared.db")
    built: set[str] = set()

    def get(spec: str) -> str:
        name = parse_spec(spec).name
        if name not in built:
            build(parse_spec(name), path)
            built.add(name)
        return path
    return get


def stored_rows(db: str | Path, spec: str) -> dict[int, tuple[int, int, int]]:
    """code -> (ply, value, depth) of a game's one complete table, in either layout, read with
    plain sqlite3 and tests/stored.py (not through db/)."""
    with closing(sqlite3.connect(db)) as conn:
        table, layout, width, height = conn.execute(
            "SELECT positions_table, layout, width, height FROM games WHERE spec = ? AND"
            " status = 'complete'", (spec,)).fetchone()
        if layout == "packed":
            return decode_blocks(conn.execute(f'SELECT data FROM "{table}"'), width * height)
        return {code: (ply, value, depth) for code, ply, value, depth in
                conn.execute(f'SELECT code, ply, value, depth FROM "{table}"')}


def game_row(db: str | Path, spec: str) -> dict[str, object] | None:
    """The games row of `spec` as a dict, read with plain sqlite3."""
    with closing(sqlite3.connect(db)) as conn:
        conn.row_factory = sqlite3.Row
        row = conn.execute("SELECT * FROM games WHERE spec = ?", (spec,)).fetchone()
        return None if row is None else dict(row)
