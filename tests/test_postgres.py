"""Tables in a real PostgreSQL server (started here, see tests/pgserver.py): built through the
CLI with binary COPY, they equal the SQLite tables position by position; every query command
and the HTTP app answer through the URL as they do from the SQLite file; a build interrupted in
the middle of a COPY leaves no partial chunk and resumes to the same table; a missing driver
or an unreachable server is one line and exit 2."""
from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.pipeline import build
from tablebase.builder.workdir import work_path
from tablebase.query.cli import main
from tests.conftest import game_row, stored_rows
from tests.pgserver import Server, ServerUnavailable, start_server
from tests.reference import Game
from tests.stored import decode_blocks

ENDGAME_SPEC = "7x6k4+gravity"
ENDGAME_MOVES = "c1 e1 d1 d2 c2 d3 e2 e3 d4 d5 b1 a1 e4 c3 d6 c4 e5 e6 f1 f2 f3 c5 c6 f4 f5 g1"
# The games columns a build computes (ids, table names and times differ between databases).
FACTS = ("spec", "root", "width", "height", "k", "gravity", "misere", "status", "reachable",
         "canonical", "terminal", "terminal_canonical", "wins", "draws", "losses", "root_value",
         "root_depth", "schema_version", "checksum")


@pytest.fixture(scope="session")
def pg() -> Iterator[Server]:
    """One server for the session; skipped (with the reason) only if none can start here."""
    try:
        server = start_server()
    except ServerUnavailable as e:
        if os.environ.get("TABLEBASE_REQUIRE_POSTGRES"):  # set by .ci/run: CI never skips
            pytest.fail(f"no PostgreSQL server could start: {e}")
        pytest.skip(f"no PostgreSQL server could start: {e}")
    try:
        yield server
    finally:
        server.stop()


def pg_rows(url: str, spec: str, root: str = "") -> dict[int, tuple[int, int, int]]:
    """code -> (ply, value, depth) of a complete table, read with psycopg (not through db/)."""
    import psycopg
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        table, layout, width, height = conn.execute(
            "SELECT positions_table, layout, width, height FROM games WHERE spec = %s AND"
            " root = %s AND status = 'complete'", (spec, root)).fetchone()
        if layout == "packed":
            return decode_blocks(conn.execute(f'SELECT data FROM "{table}"'), width * height)
        return {code: (ply, value, depth) for code, ply, value, depth in
                conn.execute(f'SELECT code, ply, value, depth FROM "{table}"')}


def pg_query(url: str, sql: str, *args: object) -> list[tuple]:  # type: ignore[type-arg]
    """Rows of one statement, read with psycopg."""
    import psycopg
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        return conn.execute(sql, args).fetchall()


def pg_game(url: str, spec: str, root: str = "") -> dict[str, object]:
    """The games row's build facts, with psycopg."""
    (row,) = pg_query(url, f"SELECT {', '.join(FACTS)} FROM games WHERE spec = %s AND root = %s",
                      spec, root)
    return dict(zip(FACTS, row))


@pytest.fixture(scope="module")
def built(pg: Server, tmp_path_factory: pytest.TempPathFactory,
          table_db: Callable[[str], str]) -> tuple[str, dict[str, str]]:
    """A PostgreSQL database holding 3x3k3 and a Connect Four endgame (packed) and 4x3k3 (rows),
    built through the CLI; and spec -> SQLite file holding the same table (packed)."""
    url = pg.new_database()
    endgame_db = str(tmp_path_factory.mktemp("pg") / "endgame.db")
    assert main(["build", "3x3k3", "--db", url, "--quiet"]) == 0
    assert main(["build", "4x3k3", "--db", url, "--quiet", "--layout", "rows"]) == 0
    for db in (url, endgame_db):
        assert main(["build", ENDGAME_SPEC, "--moves", ENDGAME_MOVES, "--db", db, "--quiet"]) == 0
    return url, {"3x3k3": table_db("3x3k3"), "4x3k3": table_db("4x3k3"),
                 ENDGAME_SPEC: endgame_db}


def test_tables_equal_the_sqlite_tables(built: tuple[str, dict[str, str]]) -> None:
    """Codes, ply, value, depth of every position, the game's facts (checksum included, whatever
    the layout) and the per-ply counts are those of the same build into SQLite; the stored types
    are PostgreSQL's bigint, smallint and bytea, and each table has its primary key."""
    url, sqlite = built
    for spec, db in sqlite.items():
        facts = game_row(db, spec)
        assert facts is not None
        root = str(facts["root"])
        assert pg_rows(url, spec, root) == stored_rows(db, spec)
        mine = pg_game(url, spec, root)
        assert mine == {k: (bool(facts[k]) if k in ("gravity", "misere") else facts[k])
                        for k in FACTS}
        assert mine["status"] == "complete" and len(str(mine["checksum"])) == 16
        plies = pg_query(url, "SELECT p.ply, p.reachable, p.canonical, p.terminal, p.wins,"
                         " p.draws, p.losses FROM game_plies p JOIN games g ON g.id = p.game_id"
                         " WHERE g.spec = %s ORDER BY p.ply", spec)
        import sqlite3
        with sqlite3.connect(db) as conn:
            theirs = conn.execute("SELECT p.ply, p.reachable, p.canonical, p.terminal, p.wins,"
                                  " p.draws, p.losses FROM game_plies p JOIN games g ON"
                                  " g.id = p.game_id WHERE g.spec = ? ORDER BY p.ply",
                                  (spec,)).fetchall()
        assert [tuple(r) for r in plies] == theirs
    types = pg_query(url, "SELECT DISTINCT column_name, data_type FROM information_schema.columns"
                     " WHERE table_name LIKE 'positions_%%'")
    assert sorted(types) == [("code", "bigint"), ("count", "integer"), ("data", "bytea"),
                             ("depth", "smallint"), ("first_code", "bigint"),
                             ("ply", "smallint"), ("value", "smallint")]
    assert sorted(pg_query(url, "SELECT spec, layout FROM games")) == [
        ("3x3k3", "packed"), ("4x3k3", "rows"), (ENDGAME_SPEC, "packed")]
    keyed = pg_query(url, "SELECT count(*) FROM information_schema.table_constraints"
                     " WHERE constraint_type = 'PRIMARY KEY' AND table_name LIKE 'positions_%%'")
    assert keyed == [(3,)]


def test_tictactoe_through_postgres_equals_plain_negamax(built: tuple[str, dict[str, str]]) -> None:
    """Independently of SQLite: every stored tic-tac-toe row equals the plain negamax of
    tests/reference.py, and the table holds exactly the 765 canonical reachable boards."""
    url, _ = built
    game = Game("3x3k3")
    rows = pg_rows(url, "3x3k3")
    assert set(rows) == {game.canonical(b) for b in game.reachable()}
    for code, (ply, value, depth) in rows.items():
        board = game.board(code)
        assert (ply, value, depth) == (game.stones(board), *game.solve(board))


POSITIONS = ["", "b2", "a1 b1", "a1 b2 c1", "b1 a3 d3 a2"]


@pytest.mark.parametrize("command", ["probe", "moves", "line"])
def test_query_commands_answer_as_from_sqlite(built: tuple[str, dict[str, str]], command: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """probe, moves and line (text and JSON) print the same answers through the URL."""
    url, sqlite = built
    for spec, moves in [("4x3k3", m) for m in POSITIONS] + [
            (ENDGAME_SPEC, ENDGAME_MOVES), (ENDGAME_SPEC, ENDGAME_MOVES + " a2"), ("3x3k3", "a1")]:
        for extra in ([], ["--json"]):
            args = [command, spec, "--moves", moves, *extra]
            answers = []
            for db in (url, sqlite[spec]):
                assert main([*args, "--db", db]) == 0
                answers.append(capsys.readouterr().out)
            assert answers[0] == answers[1] and answers[0].strip()


def test_export_verify_info_through_postgres(built: tuple[str, dict[str, str]], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """export writes the same file; verify re-derives every row and passes; info lists the
    three tables with their counts."""
    url, sqlite = built
    capsys.readouterr()  # the module's builds, if this test runs first
    for spec in ("4x3k3", ENDGAME_SPEC):
        root = [] if spec == "4x3k3" else ["--root", _endgame_root(sqlite[spec])]
        for fmt in ("csv", "jsonl"):
            files = [tmp_path / f"{spec}.{fmt}.{i}" for i in (0, 1)]
            for db, out in zip((url, sqlite[spec]), files):
                assert main(["export", spec, *root, "--format", fmt, "-o", str(out), "--db", db,
                             "--quiet"]) == 0
            assert files[0].read_bytes() == files[1].read_bytes()
            assert len(files[0].read_text().splitlines()) >= 9316
        assert main(["verify", spec, *root, "--db", url, "--quiet", "--json"]) == 0
        assert '"ok": true' in capsys.readouterr().out.replace('"ok":true', '"ok": true')
    assert main(["info", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "holds 3 tables" in out and "28,275" in out and "9,316" in out and "765" in out
    assert main(["info", "4x3k3", "--db", url, "--json"]) == 0
    assert '"canonical": 28275' in capsys.readouterr().out


def _endgame_root(db: str) -> str:
    root = str(game_row(db, ENDGAME_SPEC)["root"])  # type: ignore[index]
    w = parse_spec(ENDGAME_SPEC).width
    return "/".join("".join(".xo"[int(d)] for d in root[r:r + w]) for r in range(0, len(root), w))


def test_serve_through_postgres(built: tuple[str, dict[str, str]]) -> None:
    """The HTTP app over the URL answers every 4x3k3 position asked as the SQLite file does."""
    pytest.importorskip("httpx", reason="httpx (the test extra) drives Starlette's TestClient")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient
    from tablebase.query.server.app import make_app
    url, sqlite = built
    with TestClient(make_app(url)) as pg_client, TestClient(make_app(sqlite["4x3k3"])) as lite:
        games = pg_client.get("/api/games")
        assert games.status_code == 200 and "4x3k3" in games.text
        for moves in POSITIONS:
            for path in ("", "/line"):
                mine = pg_client.get(f"/api/4x3k3{path}", params={"moves": moves})
                theirs = lite.get(f"/api/4x3k3{path}", params={"moves": moves})
                assert mine.status_code == theirs.status_code == 200
                assert mine.json() == theirs.json()
        boards = ["..../..../....", "x.../..../....", "xo../..../...."]
        mine = pg_client.post("/api/4x3k3/probe", json=boards)
        assert mine.status_code == 200 and mine.json() == lite.post("/api/4x3k3/probe",
                                                                     json=boards).json()


def test_interrupted_copy_commits_no_partial_chunk_and_resumes(
        pg: Server, table_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Interrupted between two writes of one COPY: the chunks committed before are there whole,
    the broken one not at all, the game reads as not built, and --resume finishes the same
    table as SQLite's, checksum included."""
    import tablebase.db.postgres
    import tablebase.db.writer
    url = pg.new_database()
    committed: list[int] = []
    real_copy, real_rows = tablebase.db.writer.copy_positions, tablebase.db.postgres.copy_rows
    pieces: list[int] = []  # rows sent by the COPY under way, one entry per write

    def counting_copy(conn, table, codes, *rest):  # type: ignore[no-untyped-def]
        pieces.clear()
        real_copy(conn, table, codes, *rest)
        committed.append(len(codes))

    def breaking_rows(codes, *rest):  # type: ignore[no-untyped-def]
        # Break the third COPY once its first 100 rows are written to the COPY stream.
        if len(committed) == 2 and pieces:
            raise KeyboardInterrupt
        pieces.append(len(codes))
        return real_rows(codes, *rest)
    with monkeypatch.context() as patch:
        patch.setattr(tablebase.db.postgres, "COPY_ROWS", 100)
        patch.setattr(tablebase.db.writer, "copy_positions", counting_copy)
        patch.setattr(tablebase.db.postgres, "copy_rows", breaking_rows)
        with pytest.raises(KeyboardInterrupt):
            build(parse_spec("4x3k3"), url, write_chunk=4000, layout="rows")
    assert len(committed) == 2 and pieces == [100]
    assert 0 < sum(committed) < 28275
    ((table, status),) = pg_query(url, "SELECT positions_table, status FROM games")
    assert status == "building" and table is None
    (name,) = [n for (n,) in pg_query(url, "SELECT tablename FROM pg_tables"
                                      " WHERE tablename LIKE 'positions_%%'")]
    # Whole chunks only: the interrupted COPY had sent rows of its chunk, none stayed.
    assert pg_query(url, f'SELECT count(*) FROM "{name}"') == [(sum(committed),)]
    assert main(["probe", "4x3k3", "--db", url, "--no-search"]) == 2
    assert "did not finish" in capsys.readouterr().err
    assert work_path(url, "4x3k3").exists()
    report = build(parse_spec("4x3k3"), url, resume=True, write_chunk=4000, layout="rows")
    assert report.resumed_stage is not None and report.resumed_stage.startswith("write")
    assert pg_rows(url, "4x3k3") == stored_rows(table_db("4x3k3"), "4x3k3")
    assert pg_game(url, "4x3k3")["checksum"] == game_row(table_db("4x3k3"), "4x3k3")["checksum"]  # type: ignore[index]
    assert not work_path(url, "4x3k3").exists()


def test_forced_rebuild_replaces_the_table(pg: Server, capsys: pytest.CaptureFixture[str]) -> None:
    """--force builds a new table and drops the old one in the publishing transaction."""
    url = pg.new_database()
    assert main(["build", "3x3k3", "--db", url, "--quiet"]) == 0
    assert main(["build", "3x3k3", "--db", url, "--quiet"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["build", "3x3k3", "--db", url, "--quiet", "--force"]) == 0
    tables = pg_query(url, "SELECT tablename FROM pg_tables WHERE tablename LIKE 'positions_%%'")
    assert [t for (t,) in tables] == [pg_query(url, "SELECT positions_table FROM games")[0][0]]
    assert len(pg_rows(url, "3x3k3")) == 765


def test_missing_driver_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Without psycopg, a PostgreSQL URL is one line naming the extra to install, exit 2."""
    monkeypatch.setitem(sys.modules, "psycopg", None)  # makes `import psycopg` fail
    for url in ("postgresql+psycopg://u@127.0.0.1:9/x", "postgresql://u@127.0.0.1:9/x"):
        assert main(["info", "--db", url]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "tablebase[postgres]" in err and "Traceback" not in err


def test_unreachable_server_is_one_line(pg: Server, capsys: pytest.CaptureFixture[str]) -> None:
    """A URL where no server listens: one line naming the URL, exit 2, for a query and a build."""
    from tests.pgserver import _free_port
    url = f"postgresql://postgres:secret@127.0.0.1:{_free_port()}/none"
    for args in (["probe", "3x3k3"], ["build", "3x3k3", "--quiet"]):
        assert main([*args, "--db", url]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "127.0.0.1" in err and "secret" not in err


def test_open_reader_neither_blocks_a_rebuild_nor_reads_a_dropped_table(pg: Server) -> None:
    """A Tablebase open on the URL holds no lock between reads, so `build --force` can drop the
    table it read; its next answers come from the new table and equal the plain negamax's."""
    from tablebase.query import open_tablebase
    url = pg.new_database()
    build(parse_spec("3x3k3"), url)
    game = Game("3x3k3")
    board = game.child(game.child(tuple([0] * 9), 4), 0)
    with open_tablebase(url) as tb:
        before = tb.probe("3x3k3", board)
        (old,) = pg_query(url, "SELECT positions_table FROM games")[0]
        build(parse_spec("3x3k3"), url, force=True)  # would wait forever on a held lock
        (new,) = pg_query(url, "SELECT positions_table FROM games")[0]
        assert new != old and not pg_query(url, "SELECT 1 FROM pg_tables WHERE tablename = %s", old)
        after = tb.probe("3x3k3", board)
        assert after == before
        assert (int(after.value), after.depth) == game.solve(board)
        assert len(tb.moves("3x3k3", board)) == 7


def test_audit_and_play_through_postgres(built: tuple[str, dict[str, str]],
                                         monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """audit checks a textbook solver against the table over the URL (all agree); play runs a
    game against the table over the URL and shows the same first answer as from SQLite."""
    import io
    import json
    url, sqlite = built
    capsys.readouterr()  # the module's builds, if this test runs first
    assert main(["audit", "3x3k3", "--builtin", "alphabeta", "--positions", "sample:40",
                 "--db", url, "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert (report["positions"], report["mismatched"], report["declined"]) == (40, 0, 0)
    assert report["agreed"] >= 40
    shown = []
    for db in (url, sqlite["3x3k3"]):
        monkeypatch.setattr("sys.stdin", io.StringIO("b2\nq\n"))
        assert main(["play", "3x3k3", "--as", "x", "--seed", "3", "--db", db]) == 0
        shown.append(capsys.readouterr().out)
    assert shown[0] == shown[1] and "draw" in shown[0]


def test_stones_that_move_through_postgres(pg: Server, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A game whose stones move builds on the server as on SQLite: the same positions, values
    and depths (its movement phase's two stored plies included), and answers with the side to
    move as SQLite's table does; it verifies clean and exports the same rows."""
    from tablebase import open_tablebase
    url, sqlite = pg.new_database(), str(tmp_path / "moving.db")
    spec, position = "3x3k3+stones3", "o.x/xx./o.o o"
    for db in (url, sqlite):
        assert main(["build", spec, "--db", db, "--quiet"]) == 0
    with open_tablebase(url) as server, open_tablebase(sqlite) as local:
        mine, theirs = server.table(spec).load(), local.table(spec).load()
        assert all((a == b).all() for a, b in zip(mine, theirs))
        assert server.probe(spec, position) == local.probe(spec, position)
        assert server.moves(spec, position) == local.moves(spec, position)
    exported = []
    for db in (url, sqlite):
        assert main(["verify", spec, "--db", db, "--quiet"]) == 0
        capsys.readouterr()
        assert main(["export", spec, "--format", "jsonl", "--with-moves", "--db", db]) == 0
        exported.append(capsys.readouterr().out)
    assert exported[0] == exported[1] and exported[0].count("\n") == 744


def test_a_game_class_through_postgres(pg: Server, tmp_path: Path) -> None:
    """A game given as a class (docs/games.md) builds into PostgreSQL and answers every
    position as the plain solver does, with the checksum of its build into SQLite."""
    from tests.class_games.graphs import RandomGraph
    from tests.reference_games import solve

    url, sqlite = pg.new_database(), str(tmp_path / "graph.db")
    spec = f"{Path(__file__).parent / 'class_games' / 'graphs.py'}:Graph7"
    for db in (url, sqlite):
        assert main(["build", spec, "--db", db, "--quiet"]) == 0
    game = RandomGraph(7)
    (pg_check,) = pg_query(url, "SELECT checksum FROM games WHERE spec = %s", game.name)
    assert pg_check[0] == game_row(sqlite, game.name)["checksum"]  # type: ignore[index]
    from tablebase.query.tablebase import open_tablebase
    with open_tablebase(url) as tb:
        answers = tb.game(spec)
        for position, (value, depth) in solve(game).items():
            probe = answers.probe(game.text(position))
            assert (int(probe.value), probe.depth) == (value, depth)


def test_a_morris_game_through_postgres(pg: Server, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A morris game (builder/games/morris/) builds into PostgreSQL with the checksum of its
    build into SQLite, and answers the same from both."""
    url, sqlite = pg.new_database(), str(tmp_path / "morris.db")
    spec = "achi"
    for db in (url, sqlite):
        assert main(["build", spec, "--db", db, "--quiet"]) == 0
    (pg_check,) = pg_query(url, "SELECT checksum FROM games WHERE spec = %s", spec)
    assert pg_check[0] == game_row(sqlite, spec)["checksum"]  # type: ignore[index]
    from tablebase.query.tablebase import open_tablebase
    answers = []
    for db in (url, sqlite):
        with open_tablebase(db) as tb:
            probe, moves = tb.game(spec).moves("x../.o./... x 3 3")
            answers.append((str(probe), [(m.move, int(m.value), m.depth) for m in moves]))
    assert answers[0] == answers[1] and len(answers[0][1]) == 7
    # Stored by ranked tiers: verify reads every block in key order, as the build wrote them.
    assert main(["verify", spec, "--db", url, "--quiet"]) == 0
    tiers = []  # its counts by tier, kept alike
    for db in (url, sqlite):
        capsys.readouterr()
        assert main(["info", spec, "--db", db, "--json"]) == 0
        tiers.append(json.loads(capsys.readouterr().out)[0]["per_tier"])
    assert tiers[0] == tiers[1] and len(tiers[0]) == 9
