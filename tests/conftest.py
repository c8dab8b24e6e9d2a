"""Shared fixtures: tables built once per test session, and raw reads of what is stored."""
from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from tablebase.builder.game import parse_spec
from tablebase.builder.pipeline import build
from tests.stored import decode_blocks


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
