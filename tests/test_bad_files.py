"""Files that are not usable tablebases: every command answers with one line naming the file
and what is wrong, exits 2, and leaves the file exactly as it was."""
from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from tablebase.query.cli import main

COMMANDS = [
    ["info"],
    ["info", "4x3k3"],
    ["probe", "4x3k3", "..../..../...."],
    ["moves", "4x3k3", "x.../..../...."],
    ["line", "4x3k3"],
    ["export", "4x3k3"],
    ["verify", "4x3k3"],
    ["build", "3x3k3", "--quiet"],
]


def _not_a_tablebase(path: Path, _: str) -> str:
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
        conn.commit()
    return "not a tablebase"


def _plain_text(path: Path, _: str) -> str:
    path.write_text("hello, I am a shopping list\n" * 100)
    return "not a database"


def _newer_schema(path: Path, source: str) -> str:
    shutil.copy(source, path)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE tablebase_meta SET value = '99' WHERE key = 'schema_version'")
        conn.commit()
    return "schema version 99"


def _truncated(path: Path, source: str) -> str:
    data = Path(source).read_bytes()
    path.write_bytes(data[: len(data) // 3])
    return ""  # SQLite words this one itself ("malformed", "not a database", ...)


@pytest.mark.parametrize("make", [_not_a_tablebase, _plain_text, _newer_schema, _truncated],
                         ids=["foreign-db", "text", "newer-schema", "truncated"])
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: "-".join(a[:2]))
def test_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                  table_db: Callable[[str], str], make: Callable[[Path, str], str],
                  argv: list[str]) -> None:
    path = tmp_path / "bad.db"
    fragment = make(path, table_db("4x3k3"))
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    status = main([*argv, "--db", str(path)])
    out, err = capsys.readouterr()
    assert status == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("tablebase: error: "), err
    assert str(path) in err
    assert fragment in err
    assert "Traceback" not in err
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.db"]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: "-".join(a[:2]))
@pytest.mark.parametrize("url, fragment", [
    ("sqlite:////nonexistent-dir/sub/t.db", "nonexistent-dir"),
    ("postgresql://nobody@127.0.0.1:1/none", "postgresql://nobody@127.0.0.1:1/none"),
    ("notadialect://x/y", "notadialect://x/y"),
])
def test_unreachable_url(capsys: pytest.CaptureFixture[str], argv: list[str], url: str,
                         fragment: str) -> None:
    searching = argv[0] in ("probe", "moves", "line")  # these search where tables are missing
    status = main([*argv, "--db", url, *(["--no-search"] if searching else [])])
    _, err = capsys.readouterr()
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("tablebase: error: "), err
    assert fragment in err and "Traceback" not in err
    if searching and url.startswith("sqlite"):  # no such file: answered by search instead
        assert main([*argv, "--db", url]) == 0
        assert "(by search)" in capsys.readouterr().out
