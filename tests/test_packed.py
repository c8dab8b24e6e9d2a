"""The packed layout against the rows layout and against an independent block decoder
(tests/stored.py): the same answers on every position of every game the tests build, block
boundaries, damage that must give an error and never another answer, and schema-2 files."""
from __future__ import annotations

import random
import sqlite3
import warnings
from bisect import bisect_left
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.pipeline import build
from tablebase.db.errors import DamagedTableError
from tablebase.query import MissingPositionError, open_tablebase
from tablebase.query.cli import main
from tests.conftest import game_row, stored_rows
from tests.reference import Game, play
from tests.stored import decode_block
from tests.test_endgame import CONNECT4_ROOTS, GOMOKU_ROOTS, _root_text

GAMES = [("3x3k3", None), ("3x3k3+misere", None), ("3x3k3+gravity", None), ("4x3k3", None),
         ("4x4k4+gravity", None), ("7x6k4+gravity", CONNECT4_ROOTS[0]),
         ("7x7k5", GOMOKU_ROOTS[0])]


def _build(path: Path, spec: str, moves: str | None, layout: str) -> str:
    root = None if moves is None else play(Game(spec), moves)
    build(parse_spec(spec), str(path), root=root, layout=layout)
    return str(path)


Built = Callable[[str, "str | None", str], str]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """(spec, moves, layout) -> a file holding that one table, built once for the module (the
    same tables are read by several tests). A test that writes to a file copies it first."""
    made: dict[tuple[str, str | None, str], str] = {}

    def get(spec: str, moves: str | None, layout: str) -> str:
        if (spec, moves, layout) not in made:
            folder = tmp_path_factory.mktemp("built")
            made[spec, moves, layout] = _build(folder / f"{layout}.db", spec, moves, layout)
        return made[spec, moves, layout]
    return get


def _copy(db: str, path: Path) -> str:
    """A copy of `db` at `path`, for a test that changes it."""
    path.write_bytes(Path(db).read_bytes())
    return str(path)


@pytest.mark.parametrize("spec, moves", GAMES)
def test_packed_answers_as_rows(built: Built, spec: str, moves: str | None) -> None:
    """Every position: the packed table as decoded independently, as read through the API in
    bulk and one by one, equals the rows table; the checksums are equal."""
    rows = built(spec, moves, "rows")
    packed = built(spec, moves, "packed")
    truth = stored_rows(rows, spec)
    assert stored_rows(packed, spec) == truth
    assert game_row(rows, spec)["checksum"] == game_row(packed, spec)["checksum"]  # type: ignore[index]
    assert game_row(packed, spec)["layout"] == "packed"  # type: ignore[index]
    root = None if moves is None else _root_text(spec, moves)
    with open_tablebase(rows) as a, open_tablebase(packed) as b:
        whole_a, whole_b = a.table(spec, root).load(), b.table(spec, root).load()
        for x, y in zip(whole_a, whole_b):
            assert np.array_equal(x, y)
        streamed = [np.concatenate(parts) for parts in
                    zip(*[tuple(c) for c in b.table(spec, root).positions(1000)])]
        for x, y in zip(whole_a, streamed):
            assert np.array_equal(x, y)
        reader_a = a.table(spec, root)._chosen().reader
        reader_b = b.table(spec, root)._chosen().reader
        codes = whole_a.codes[:: max(1, len(whole_a.codes) // 3000)]
        for x, y in zip(reader_a.lookup(codes), reader_b.lookup(codes)):
            assert np.array_equal(x, y)
        assert b.table(spec, root).damage() == []


def _small_blocks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, spec: str,
                  positions: int = 64) -> str:
    monkeypatch.setattr("tablebase.db.blocks.BLOCK_POSITIONS", positions)
    return _build(tmp_path / "small.db", spec, None, "packed")


def _blocks(db: str) -> list[tuple[int, int, int, bytes]]:
    with closing(sqlite3.connect(db)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games").fetchone()
        return conn.execute(f'SELECT first_code, ply, count, data FROM "{table}"'
                            " ORDER BY ply, first_code").fetchall()


def test_block_boundaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, built: Built) -> None:
    """With blocks of 64 positions: each block's first and last code, the codes just outside
    them, a code between two blocks, before a ply's first block and after its last all answer
    as the rows table does (found or not)."""
    spec = "4x3k3"
    db = _small_blocks(monkeypatch, tmp_path, spec)
    truth = stored_rows(built(spec, None, "rows"), spec)
    blocks = _blocks(db)
    assert len(blocks) > 400
    asked: set[int] = set()
    by_ply: dict[int, list[int]] = {}
    ply_codes: dict[int, list[int]] = {}  # each ply's codes, ascending: sorted once, not per block
    for c, (p, _, _) in sorted(truth.items()):
        ply_codes.setdefault(p, []).append(c)
    for first, ply, _count, data in blocks:
        at = bisect_left(ply_codes[ply], first)  # the ply's codes from `first` on
        last = max(ply_codes[ply][at:at + _count])
        by_ply.setdefault(ply, []).append(first)
        asked |= {first, first - 1, first + 1, last, last - 1, last + 1}
    game = Game(spec)
    for ply in by_ply:  # the smallest and largest codes with `ply` stones
        low = [1 if i < (ply + 1) // 2 else 2 if i < ply else 0 for i in range(12)]
        high = list(reversed([2 if i < ply // 2 else 1 if i < ply else 0 for i in range(12)]))
        asked |= {game.code(tuple(low)), game.code(tuple(high))}
    asked = {c for c in asked if 0 <= c < 3 ** 12}
    with open_tablebase(db) as tb:
        reader = tb.table(spec)._chosen().reader
        order = sorted(asked)
        found = reader.lookup(order)
    for i, code in enumerate(order):
        if code in truth:
            assert found.found[i] and (int(found.value[i]), int(found.depth[i])) == truth[code][1:]
        else:
            assert not found.found[i], code
    assert sum(found.found) > 1000 and sum(~found.found) > 500


def _block_pages(db: str) -> list[int]:
    """Byte offsets of every page that holds the blocks table (its B-tree and overflow)."""
    with closing(sqlite3.connect(db)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games").fetchone()
        (size,) = conn.execute("PRAGMA page_size").fetchone()
        pages = [p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name = ?", (table,))]
    assert pages, "SQLite's dbstat table lists the pages"
    return [(p - 1) * size for p in pages] + [size]


def test_damaged_blocks_never_give_another_answer(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """200 copies of a packed file, each with a few bytes of the blocks' pages changed at
    random: every probe answers as the intact file does or raises DamagedTableError. (It was
    500 copies; the first 200 of the same seeded sequence already give 193 errors and 9,807
    unchanged answers, past both floors below, which are kept as they were.)"""
    spec = "4x3k3"
    db = _small_blocks(monkeypatch, tmp_path, spec, 256)
    with closing(sqlite3.connect(db)) as conn:
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    starts = _block_pages(db)[:-1]
    rng = random.Random(19)
    truth = stored_rows(db, spec)
    game = Game(spec)
    sample = rng.sample(sorted(truth), 40) + [game.code(tuple(rng.choice((0, 1, 2))
                                                              for _ in range(12))) for _ in range(10)]
    with open_tablebase(db) as tb:
        intact = {code: _answer(tb, spec, code) for code in sample}
    original = Path(db).read_bytes()
    copy = tmp_path / "damaged.db"
    outcomes = {"same": 0, "error": 0}
    for _ in range(200):
        data = bytearray(original)
        for _ in range(rng.randint(1, 4)):
            at = rng.choice(starts) + rng.randrange(size)
            data[at] ^= rng.randint(1, 255)
        copy.write_bytes(data)
        with open_tablebase(copy) as tb:
            for code in sample:
                try:
                    answer = _answer(tb, spec, code)
                except DamagedTableError as e:
                    assert "\n" not in str(e) and "damaged" in str(e)
                    outcomes["error"] += 1
                    continue
                assert answer == intact[code], code
                outcomes["same"] += 1
    # Most changes land in blocks the sample does not read, or in a page's unused space.
    assert outcomes["error"] >= 100 and outcomes["same"] >= 5_000, outcomes


def _answer(tb: object, spec: str, code: int) -> object:
    """A probe's answer, or the error it gives (a position not stored, an impossible one)."""
    try:
        return tb.probe(spec, code)  # type: ignore[attr-defined]
    except (MissingPositionError, ValueError) as e:
        return (type(e).__name__, str(e))


def test_verify_names_every_damaged_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """One byte changed inside two blocks' compressed data: `verify` names both blocks and
    exits 1; a probe of a position they hold is the one-line damaged-table error (exit 2)."""
    spec = "4x3k3"
    db = _small_blocks(monkeypatch, tmp_path, spec, 256)
    blocks = _blocks(db)
    hit = [blocks[10], blocks[len(blocks) // 2]]
    assert decode_block(bytes(hit[0][3]), 12)
    data = bytearray(Path(db).read_bytes())
    for _, _, _, blob in hit:
        at = bytes(data).index(blob[:64])  # the header and the start of the data, in its page
        data[at + 50] ^= 0x40
    Path(db).write_bytes(data)
    assert main(["verify", spec, "--db", db, "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "damaged 2" in out
    for first, ply, _, _ in hit:
        assert f"block at code {first} of ply {ply} is damaged (checksum mismatch)" in out
    inside = min(decode_block(bytes(hit[0][3]), 12))  # decoded before the damage
    board = "/".join("".join(".xo"[v] for v in Game(spec).board(inside)[r * 4:(r + 1) * 4])
                     for r in range(3))
    assert main(["probe", spec, board, "--db", db]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is damaged (checksum mismatch)" in err
    assert f"block at code {hit[0][0]}" in err and "tablebase verify" in err
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient
    from tablebase.query.server.app import make_app
    with TestClient(make_app(db)) as client:
        answer = client.get(f"/api/{spec}", params={"board": board})
    assert answer.status_code == 500 and "is damaged (checksum mismatch)" in answer.json()["error"]


def test_a_schema_2_database_still_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           built: Built) -> None:
    """A file as the previous release wrote it (schema 2: rows, no layout columns) answers as
    before, says what it is, and is not written to: a build into it names the way out."""
    db = _copy(built("4x3k3", None, "rows"), tmp_path / "old.db")
    truth = stored_rows(db, "4x3k3")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("UPDATE tablebase_meta SET value = '2' WHERE key = 'schema_version'")
        conn.execute("UPDATE games SET schema_version = 2")
        conn.execute("ALTER TABLE games DROP COLUMN layout")
        conn.execute("ALTER TABLE games DROP COLUMN stored_bytes")
        conn.commit()
    before = Path(db).read_bytes()
    game = Game("4x3k3")
    with open_tablebase(db) as tb:
        for code in random.Random(2).sample(sorted(truth), 300):
            probe = tb.probe("4x3k3", game.board(code))
            assert (probe.ply, int(probe.value), probe.depth) == truth[code]
        assert len(tb.table("4x3k3").load().codes) == len(truth)
    assert main(["info", "4x3k3", "--db", db]) == 0
    assert "(schema 2)" in capsys.readouterr().out
    assert main(["build", "3x3k3", "--db", db, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "schema version 2" in err and "new database file" in err
    assert Path(db).read_bytes() == before


# tests/fixtures/schema3.db: written by the packed writer of schema 3 (blocks "TBP1", codes'
# gaps), before blocks ranked their codes: 3x3k3, 4x3k3, 4x4k4+gravity and a 7x6 Connect Four
# endgame table from CONNECT4_ROOTS[0].
SCHEMA_3 = Path(__file__).parent / "fixtures" / "schema3.db"
SCHEMA_3_GAMES = [("3x3k3", None), ("4x3k3", None), ("4x4k4+gravity", None),
                  ("7x6k4+gravity", CONNECT4_ROOTS[0])]


def test_a_schema_3_database_still_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           built: Built) -> None:
    """A file of schema 3 as that release's writer left it answers every position as a rows
    table built now, in bulk and one by one (found or not), checksums equal; verify passes; it
    is not written to: a build into it names the way out."""
    db = str(tmp_path / "schema3.db")
    Path(db).write_bytes(SCHEMA_3.read_bytes())
    before = Path(db).read_bytes()
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT value FROM tablebase_meta").fetchone() == ("3",)
        for (table,) in conn.execute("SELECT positions_table FROM games").fetchall():
            assert {bytes(d[:4]) for (d,) in conn.execute(f'SELECT data FROM "{table}"')} == {
                b"TBP1"}
    rng = np.random.default_rng(5)
    for spec, moves in SCHEMA_3_GAMES:
        rows = built(spec, moves, "rows")
        assert stored_rows(db, spec) == stored_rows(rows, spec)
        assert game_row(db, spec)["checksum"] == game_row(rows, spec)["checksum"]  # type: ignore[index]
        root = None if moves is None else _root_text(spec, moves)
        with open_tablebase(rows) as a, open_tablebase(db) as b:
            for x, y in zip(a.table(spec, root).load(), b.table(spec, root).load()):
                assert np.array_equal(x, y)
            reader_a = a.table(spec, root)._chosen().reader
            reader_b = b.table(spec, root)._chosen().reader
            codes = a.table(spec, root).load().codes
            cells = parse_spec(spec).cells if moves is None else 16
            asked = np.concatenate([codes, rng.integers(0, 3 ** cells, 2000)])
            for x, y in zip(reader_a.lookup(asked), reader_b.lookup(asked)):
                assert np.array_equal(x, y)
        assert main(["verify", spec, "--db", db, "--quiet"]
                    + ([] if root is None else ["--root", root])) == 0
    capsys.readouterr()
    assert main(["build", "3x3k3", "--db", db, "--quiet", "--force"]) == 2
    err = capsys.readouterr().err
    assert "schema version 3" in err and "new database file" in err
    assert Path(db).read_bytes() == before


def test_every_command_answers_alike_in_both_layouts(capsys: pytest.CaptureFixture[str],
                                                     built: Built) -> None:
    """probe, moves, line, export (CSV and JSON Lines), strategy and info's counts print the
    same from a packed table as from a rows table of the same game."""
    rows = built("4x3k3", None, "rows")
    packed = built("4x3k3", None, "packed")
    commands = [["probe", "4x3k3", "--moves", "b2 a1"], ["moves", "4x3k3", "x.../.o../...."],
                ["line", "4x3k3", "--json"], ["export", "4x3k3", "--quiet"],
                ["export", "4x3k3", "--format", "jsonl", "--quiet"],
                ["strategy", "4x3k3", "--json"], ["probe", "4x3k3", "xxx./ooo./....", "--json"]]
    for argv in commands:
        said = []
        for db in (rows, packed):
            status = main([*argv, "--db", db])
            out, err = capsys.readouterr()
            said.append((status, out, err.replace(db, "DB")))
        assert said[0] == said[1], argv
        assert said[0][1] or said[0][2], argv


def test_many_codes_of_a_large_table_are_read_block_by_block(
        table_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Past LOAD_LIMIT positions, get_many reads each code's block instead of loading the table
    (a billion-position table would take 12 GB): the same answers, found or not, and the table
    is not loaded."""
    import tablebase.query.table_view as table_view_module

    game = Game("4x3k3")
    rng = random.Random(3)
    codes = np.array([rng.randrange(3 ** 12) for _ in range(3000)]
                     + [game.canonical(play(game, "b2 c2 a1"))], dtype=np.int64)
    with open_tablebase(table_db("4x3k3")) as tb:
        loaded = tb.table("4x3k3").get_many(codes)
    monkeypatch.setattr(table_view_module, "LOAD_LIMIT", 1000)
    with open_tablebase(table_db("4x3k3")) as tb:
        read = tb.table("4x3k3").get_many(codes)
        assert tb._tables._arrays == {}  # nothing loaded whole
    assert read.found[-1] and 0 < read.found.sum() < len(codes)
    for field in ("found", "value", "depth", "ply"):
        assert np.array_equal(getattr(read, field), getattr(loaded, field)), field
