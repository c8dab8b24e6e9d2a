"""The sqlite3 writer of a game class's table (db/keyed_sqlite.py) writes what the SQLAlchemy
writer (db/writer.py) writes: its DDL is SQLAlchemy's; a table built into a file path equals,
row for row, the one built into the same file named by a sqlite:/// URL (SQLAlchemy's path),
schema, catalogue, counts by ply, blocks and checksum; a rebuild replaces the table; a file it
does not serve goes to SQLAlchemy, which words the error; a build that fails leaves nothing;
a block whose contents disagree with its row is refused when read."""
from __future__ import annotations

import hashlib
import re
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.schema import CreateTable

from tablebase.db.errors import GameExistsError, NotATablebaseError
from tablebase.db.keyed import KeyedRows
from tablebase.db.keyed_sqlite import KEYED_DDL, SCHEMA_DDL, TIERED_DDL
from tablebase.db.keyed_writer import open_keyed_build
from tablebase.db.records import GameParams, GameRecord, GameSummary, PlyCounts
from tablebase.db.schema import keyed_table, metadata, tiered_table
from tablebase.query.cli import main

HERE = Path(__file__).resolve().parent
TTT = f"{HERE / 'class_games' / 'tictactoe.py'}:TicTacToe"
CLOBBER = f"{HERE / 'class_games' / 'clobber.py'}:Clobber3x4"
# What differs between two builds of one table: when and how fast it was built, the build's
# random table name, and the row's check over those.
_PER_BUILD = {"built_at", "build_seconds", "stages", "positions_table", "row_check"}


def _compiled(table: object) -> str:
    return str(CreateTable(table).compile(dialect=sqlite_dialect.dialect()))  # type: ignore[arg-type]


def test_the_ddl_is_sqlalchemys() -> None:
    tables = {t.name: t for t in metadata.sorted_tables}
    assert SCHEMA_DDL == tuple(_compiled(tables[name])
                               for name in ("tablebase_meta", "games", "game_plies"))
    assert KEYED_DDL.format(name="positions_1_abcd0123") == _compiled(
        keyed_table("positions_1_abcd0123"))
    assert TIERED_DDL.format(name="positions_1_abcd0123") == _compiled(
        tiered_table("positions_1_abcd0123"))


def _contents(db: Path) -> dict[str, object]:
    """Everything a file holds, the per-build facts left out and the table's name normalised."""
    with closing(sqlite3.connect(db)) as conn:
        conn.row_factory = sqlite3.Row
        games = [dict(r) for r in conn.execute("SELECT * FROM games ORDER BY id")]
        out: dict[str, object] = {
            "schema": [(r["type"], re.sub(r"positions_\d+_[0-9a-f]+", "T", r["name"]),
                        re.sub(r"positions_\d+_[0-9a-f]+", "T", r["sql"] or ""))
                       for r in conn.execute("SELECT * FROM sqlite_master ORDER BY rowid")],
            "pragmas": [conn.execute(f"PRAGMA {p}").fetchone()[0]
                        for p in ("page_size", "journal_mode", "encoding", "user_version")],
            "meta": [tuple(r) for r in conn.execute("SELECT * FROM tablebase_meta")],
            "games": [{k: v for k, v in g.items() if k not in _PER_BUILD} for g in games],
            "plies": [tuple(r) for r in conn.execute("SELECT * FROM game_plies ORDER BY 1, 2")],
            "types": [tuple(r) for r in conn.execute(
                "SELECT typeof(width), typeof(gravity), typeof(reachable), typeof(build_seconds)"
                " FROM games")],
        }
        blocks = []
        for g in games:
            blocks.append([tuple(r) for r in conn.execute(
                f'SELECT first_key, count, data, chk, typeof(count), typeof(chk)'
                f' FROM "{g["positions_table"]}" ORDER BY first_key')])
            plies = [PlyCounts(*r[1:]) for r in conn.execute(
                "SELECT * FROM game_plies WHERE game_id = ? ORDER BY ply", (g["id"],))]
            record = GameRecord(**{**g, "gravity": bool(g["gravity"]),
                                   "misere": bool(g["misere"])})
            assert record.row_check == record.row_digest(plies)  # each writer's check holds
        out["blocks"] = blocks
        out["tables"] = len([r for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE name LIKE 'positions_%'")])
    return out


@pytest.mark.parametrize("spec", [TTT, CLOBBER])
def test_a_file_path_and_a_url_write_the_same_table(tmp_path: Path, spec: str) -> None:
    direct, through = tmp_path / "direct.db", tmp_path / "url.db"
    for _ in range(2):  # built, then rebuilt (--force) into the file that holds it
        assert main(["build", spec, "--db", str(direct), "--quiet", "--force"]) == 0
        assert main(["build", spec, "--db", f"sqlite:///{through}", "--quiet", "--force"]) == 0
    assert main(["build", TTT if spec == CLOBBER else CLOBBER, "--db", str(direct), "--quiet"]) == 0
    assert main(["build", TTT if spec == CLOBBER else CLOBBER, "--db", f"sqlite:///{through}",
                 "--quiet"]) == 0
    ours, theirs = _contents(direct), _contents(through)
    assert ours == theirs
    assert ours["tables"] == 2 and ours["pragmas"][:2] == [512, "delete"]  # type: ignore[index]
    assert "sqlalchemy" in sys.modules  # (this test imports it; the build process does not)


def test_the_build_process_leaves_sqlalchemy_alone(tmp_path: Path) -> None:
    import subprocess

    code = ("import sys; from tablebase.query.cli import main;"
            f" assert main(['build', {CLOBBER!r}, '--db', {str(tmp_path / 'x.db')!r}, '--quiet'])"
            " == 0; print('sqlalchemy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-1] == "False"


def _rows(keys: list[str]) -> KeyedRows:
    n = len(keys)
    return KeyedRows(keys, np.zeros(n, np.int32), np.zeros(n, np.int8), np.zeros(n, np.int32))


def test_a_build_that_fails_leaves_nothing(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    params = GameParams("g", 0, 0, 0, False, False, keyed=True)
    with pytest.raises(RuntimeError):
        with open_keyed_build(str(db), params, force=False) as build:
            build.write([_rows(["a", "b"])], hashlib.blake2b(digest_size=8))
            raise RuntimeError("the build stops")
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT status, positions_table FROM games").fetchall() == [
            ("building", None)]
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE"
                            " 'positions_%'").fetchone() == (0,)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)


def _stored_blocks(db: Path) -> list[tuple[str, int, bytes]]:
    """(first key, count, raw bytes) of the one keyed table in `db`, in key order, read with
    sqlite3 and zstandard alone."""
    import zstandard
    with closing(sqlite3.connect(db)) as conn:
        table = conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'positions_%'"
                             " AND type = 'table'").fetchone()[0]
        return [(first, count, zstandard.ZstdDecompressor().decompress(data))
                for first, count, data in conn.execute(
                    f'SELECT first_key, count, data FROM "{table}" ORDER BY first_key')]


@pytest.mark.parametrize("url", [False, True])
def test_chunks_packed_while_the_one_before_is_stored_are_stored_whole(
        tmp_path: Path, url: bool) -> None:
    # Three chunks large enough to be compressed on threads (each while the one before it is
    # stored), then a small one: every row comes back, in order, in the documented raw format
    # (ply int32s, value int8s, depth int32s, keys joined by newlines), and the digest is of the
    # raw blocks in key order.
    rng = np.random.default_rng(5)
    sizes = [40_000, 50_000, 40_000, 300]
    keys = [f"k{i:07d}" for i in range(sum(sizes))]
    ply = rng.integers(0, 60, len(keys)).astype(np.int32)
    value = rng.integers(-1, 2, len(keys)).astype(np.int8)
    depth = rng.integers(-1, 90, len(keys)).astype(np.int32)
    cuts = np.cumsum([0, *sizes])
    db = tmp_path / "x.db"
    digest = hashlib.blake2b(digest_size=8)
    with open_keyed_build(f"sqlite:///{db}" if url else str(db),
                          GameParams("g", 0, 0, 0, False, False, keyed=True),
                          force=False) as build:
        build.write((KeyedRows(keys[a:b], ply[a:b], value[a:b], depth[a:b])
                     for a, b in zip(cuts[:-1], cuts[1:])), digest)
    blocks = _stored_blocks(db)
    whole = hashlib.blake2b(digest_size=8)
    at = 0
    for first, count, raw in blocks:
        whole.update(raw)
        assert first == keys[at]
        n = count
        assert np.array_equal(np.frombuffer(raw, "<i4", n, 0), ply[at:at + n])
        assert np.array_equal(np.frombuffer(raw, "i1", n, 4 * n), value[at:at + n])
        assert np.array_equal(np.frombuffer(raw, "<i4", n, 5 * n), depth[at:at + n])
        assert raw[9 * n:].decode().split("\n") == keys[at:at + n]
        at += n
    assert at == len(keys)
    assert digest.digest() == whole.digest()


def test_a_stream_of_chunks_that_fails_leaves_nothing(tmp_path: Path) -> None:
    def chunks() -> Iterator[KeyedRows]:
        yield _rows([f"a{i:06d}" for i in range(40_000)])
        yield _rows([f"b{i:06d}" for i in range(40_000)])
        raise RuntimeError("the build stops")
    db = tmp_path / "x.db"
    with pytest.raises(RuntimeError):
        with open_keyed_build(str(db), GameParams("g", 0, 0, 0, False, False, keyed=True),
                              force=False) as build:
            build.write(chunks(), hashlib.blake2b(digest_size=8))
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT status, positions_table FROM games").fetchall() == [
            ("building", None)]
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE"
                            " 'positions_%'").fetchone() == (0,)


def test_a_complete_table_is_kept_unless_forced(tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    assert main(["build", TTT, "--db", db, "--quiet"]) == 0
    with pytest.raises(GameExistsError, match="already built"):
        with open_keyed_build(db, GameParams("class-tictactoe", 0, 0, 0, False, False,
                                             keyed=True), force=False):
            pass


def test_a_file_not_ours_is_worded_by_sqlalchemy(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(NotATablebaseError, match="holds other tables"):
        with open_keyed_build(str(db), GameParams("g", 0, 0, 0, False, False, keyed=True),
                              force=True):
            pass


@pytest.mark.parametrize("value, keys, first, sound", [
    ([1, 0, -1], ["a", "b", "c"], "a", True),
    ([1, 2, -1], ["a", "b", "c"], "a", False),    # a value past -1, 0, +1
    ([1, 0, -128], ["a", "b", "c"], "a", False),
    ([1, 0, -1], ["a", "b"], "a", False),         # fewer keys than its row counts
    ([1, 0, -1], ["a", "b", "c"], "b", False),    # a first key that is not its row's
])
def test_a_block_whose_check_matches_but_contents_do_not_is_damaged(
        value: list[int], keys: list[str], first: str, sound: bool) -> None:
    """The block's check guards its bytes; what they say is checked too (a block written
    wrong, with a check over the wrong bytes, must not answer)."""
    import zlib

    from tablebase.db.errors import DamagedTableError
    from tablebase.db.keyed import KeyedBlock, _pack_all, decode, raw_block, unpack

    n = len(value)
    raw = raw_block(KeyedRows(keys, np.zeros(n, np.int32), np.array(value, np.int8),
                              np.zeros(n, np.int32)))
    block = KeyedBlock(first, n, _pack_all([raw])[0][0], zlib.crc32(raw))
    if sound:
        rows = unpack(block, "t")
        assert rows.keys == keys and rows.value.tolist() == value
        assert decode(block, "t").value.tolist() == value
    else:
        for read in (unpack, decode):
            with pytest.raises(DamagedTableError, match="damaged"):
                read(block, "t")


def test_a_decoded_block_finds_each_key_and_no_other() -> None:
    """Lookups search the block's newline-joined keys: each key is found at its place, and a
    key that is only part of one (a prefix, a suffix, the middle of one, two joined) is not."""

    from tablebase.db.keyed import KeyedBlock, _pack_all, decode, raw_block

    keys = ["(1, 2)", "(1, 23)", "a", "ab", "b\u00e9", "x y", "~o.x/... x"]
    n = len(keys)
    raw = raw_block(KeyedRows(keys, np.arange(n, dtype=np.int32), np.zeros(n, np.int8),
                              np.zeros(n, np.int32)))
    block = decode(KeyedBlock(keys[0], n, *_pack_all([raw])[0]), "t")
    assert [block.at(k) for k in keys] == list(range(n))
    for absent in ("(1, 2", "1, 23)", "(1, 3)", "", "b", "\u00e9", "a\nab", "x", "~o.x/...",
                   "\ud800"):
        assert block.at(absent) == -1, absent


def test_one_lookup_of_more_blocks_than_are_cached_answers_every_key(tmp_path: Path) -> None:
    """A lookup fetches the blocks it needs at once: asked for every key of a table of more
    blocks than a reader keeps, in a random order, with keys no block holds among them, it
    answers each one as written, and again from what it kept."""
    from tablebase.db.keyed import BLOCK, CACHED_BLOCKS
    from tablebase.db.store import open_store

    n = BLOCK * (CACHED_BLOCKS + 70) + 17
    keys = [f"{i:07d}" for i in range(0, 2 * n, 2)]   # even numbers: the odd ones are absent
    rng = np.random.default_rng(11)
    value = rng.integers(-1, 2, n).astype(np.int8)
    depth = rng.integers(-1, 60, n).astype(np.int32)
    ply = rng.integers(0, 40, n).astype(np.int32)
    db = str(tmp_path / "x.db")
    digest = hashlib.blake2b(digest_size=8)
    with open_keyed_build(db, GameParams("g", 0, 0, 0, False, False, keyed=True),
                          force=False) as build:
        build.write([KeyedRows(keys, ply, value, depth)], digest)
        build.finish(GameSummary(n, n, 0, 0, 0, n, 0, 0, 0, "t", 0.0, {}, digest.hexdigest()),
                     [PlyCounts(0, n, n, 0, 0, n, 0)])
    asked = [*keys, *(f"{i:07d}" for i in range(1, 2 * n, 2 * 97)), "", "~", "0000000\n"]
    order = rng.permutation(len(asked))
    store = open_store(db)
    try:
        (game,) = store.games("g")
        reader = store.keyed(game)
        for _ in range(2):
            with reader.snapshot():
                found = reader.lookup([asked[i] for i in order])
            for j, i in enumerate(order.tolist()):
                if i < n:
                    assert found.found[j] and (found.value[j], found.depth[j], found.ply[j]) == (
                        value[i], depth[i], ply[i])
                else:
                    assert not found.found[j], asked[i]
    finally:
        store.close()
