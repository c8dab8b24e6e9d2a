"""Damaged files: random damage to copies of a built database (bytes changed, runs of random
bytes, truncation, a zeroed page, the end of leaf pages of a rows table) must give the intact
file's answer or the one-line damaged-database error, through the Python API, the command line
and the HTTP API; never a traceback, never another value, never "unreachable" for a stored
position."""
from __future__ import annotations

import io
import os
import random
import re
import sqlite3
import warnings
from collections import Counter
from contextlib import closing, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from tablebase.builder.pipeline import build
from tablebase.db.errors import DamagedTableError
from tablebase.query import MissingPositionError, open_tablebase
from tablebase.query.cli import main
from tests.conftest import stored_rows
from tests.reference import Game
from tests.stored import leaf_pages

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402
from tablebase.query.server.app import make_app  # noqa: E402

TRIALS = 1000


@pytest.fixture(scope="module")
def intact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("damage") / "intact.db"
    build("3x3k3", str(path))
    build("4x3k3", str(path))
    return path


def _damage(data: bytes, rng: random.Random, page: int) -> tuple[str, bytes]:
    copy = bytearray(data)
    kind = rng.choice(["bytes", "run", "truncate", "zero"])
    if kind == "bytes":
        for _ in range(rng.randint(1, 8)):
            copy[rng.randrange(len(copy))] ^= rng.randint(1, 255)
    elif kind == "run":
        at, n = rng.randrange(len(copy)), rng.randint(16, 4096)
        copy[at:at + n] = os.urandom(min(n, len(copy) - at))
    elif kind == "truncate":
        del copy[rng.randrange(len(copy)):]
    else:
        at = rng.randrange(len(copy) // page) * page
        copy[at:at + page] = bytes(page)
    return kind, bytes(copy)


def _answers(db: Path, asked: list[tuple[str, str]]) -> list[object]:
    """Probe and moves answers (or the position's error), through the Python API."""
    out: list[object] = []
    with open_tablebase(db) as tb:
        for spec, text in asked:
            try:
                out.append((tb.probe(spec, text), tb.moves(spec, text)))
            except (MissingPositionError, ValueError) as e:
                out.append((type(e).__name__, str(e)))
    return out


def _run(db: Path, *argv: str) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([*argv, "--db", str(db)])
    shown = re.sub(r"verified in .*? a minute\)", "verified", out.getvalue())
    return status, shown.replace(str(db), "DB"), err.getvalue().replace(str(db), "DB")


def _one_damaged_line(err: str) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("tablebase: error: ") and "damaged" in lines[0]


def test_random_damage_never_gives_another_answer(intact: Path, tmp_path: Path) -> None:
    rng = random.Random(20)
    game = Game("4x3k3")
    codes = sorted(stored_rows(intact, "4x3k3"))
    asked = [("4x3k3", _text(game, c)) for c in rng.sample(codes, 6)]
    asked += [("3x3k3", "x.o/.x./..."), ("4x3k3", "xxxx/oooo/...."), ("4x3k3", "x.../o.../x...")]
    truth = _answers(intact, asked)
    cli = [("probe", "4x3k3", asked[0][1]), ("verify", "4x3k3", "--quiet")]
    cli_truth = [_run(intact, *argv) for argv in cli]
    with TestClient(make_app(str(intact))) as client:
        http_truth = client.get("/api/4x3k3", params={"board": asked[1][1]}).json()
    with closing(sqlite3.connect(intact)) as conn:
        (page,) = conn.execute("PRAGMA page_size").fetchone()
    data = intact.read_bytes()
    copy = tmp_path / "damaged.db"
    seen = {"same": 0, "damaged": 0}
    for trial in range(TRIALS):
        kind, damaged = _damage(data, rng, page)
        copy.write_bytes(damaged)
        try:
            answers = _answers(copy, asked)
        except DamagedTableError as e:
            assert "\n" not in str(e) and "damaged" in str(e), (trial, kind)
            seen["damaged"] += 1
        else:
            assert answers == truth, (trial, kind)
            seen["same"] += 1
        if trial % 20:
            continue
        for argv, (status, out, err) in zip(cli, cli_truth):
            got = _run(copy, *argv)
            if got != (status, out, err):
                damaged_line = got[0] == 2 and _one_damaged_line(got[2])
                finding = argv[0] == "verify" and got[0] == 1 and "damaged" in got[1]
                assert damaged_line or finding, (trial, kind, argv, got)
        with TestClient(make_app(str(copy))) as client:
            answer = client.get("/api/4x3k3", params={"board": asked[1][1]})
        if answer.status_code == 200:
            assert answer.json() == http_truth, (trial, kind)
        else:
            assert answer.status_code == 500 and "damaged" in answer.json()["error"], (trial, kind)
    assert seen["same"] >= 50 and seen["damaged"] >= 100, seen


def test_a_lost_row_is_damage_not_unreachable(tmp_path: Path) -> None:
    """Rows have no checks of their own: a position lost from a rows table (here deleted
    by SQL, as a page SQLite cannot tell is damaged would lose it) is found out by its
    parent, which is stored and not over, so its children must be stored."""
    path = tmp_path / "rows.db"
    build("4x3k3", str(path), layout="rows")
    game = Game("4x3k3")
    truth = stored_rows(path, "4x3k3")
    code = sorted(c for c, (ply, _, depth) in truth.items() if ply == 5)[100]
    text = _text(game, code)
    with closing(sqlite3.connect(path)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games").fetchone()
        conn.execute(f'DELETE FROM "{table}" WHERE code = ?', (code,))
        conn.commit()
    with open_tablebase(path) as tb:
        with pytest.raises(DamagedTableError, match="is damaged: it holds"):
            tb.probe("4x3k3", text)
        # The same from the parent's side: its moves.
        board = game.board(code)
        parent = next(p for p in _parents(game, board) if game.canonical(p) in truth)
        with pytest.raises(DamagedTableError, match="is damaged: it holds"):
            tb.moves("4x3k3", parent)


def test_a_lost_row_with_its_parents_is_damage_not_unreachable(tmp_path: Path) -> None:
    """With every parent lost too (as when they sat in the same damaged page), the rules'
    search for an order of moves still finds the position reachable: damage."""
    path = tmp_path / "rows.db"
    build("4x3k3", str(path), layout="rows")
    game = Game("4x3k3")
    truth = stored_rows(path, "4x3k3")
    code = sorted(c for c, (ply, _, depth) in truth.items() if ply == 6)[200]
    lost = [code] + [game.canonical(p) for p in _parents(game, game.board(code))]
    with closing(sqlite3.connect(path)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games").fetchone()
        conn.executemany(f'DELETE FROM "{table}" WHERE code = ?', [(c,) for c in lost])
        conn.commit()
    with open_tablebase(path) as tb:
        with pytest.raises(DamagedTableError, match="the 4x3k3 table is damaged: it lacks .*"
                                                    "which legal moves reach from the empty"):
            tb.probe("4x3k3", _text(game, code))
        with pytest.raises(DamagedTableError, match="it lacks 1 of the 2 codes asked"):
            tb.table("4x3k3").probe_many([code, 0])


def _parents(game: Game, board: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The boards one move before `board` (no gravity here): a stone of the last mover taken."""
    last = 1 if game.stones(board) % 2 == 1 else 2
    return [board[:i] + (0,) + board[i + 1:] for i, v in enumerate(board) if v == last]


def _text(game: Game, code: int) -> str:
    """Board text of a code, written independently of the notation under test."""
    board = game.board(code)
    return "/".join("".join(".xo"[v] for v in board[r * game.w:(r + 1) * game.w])
                    for r in range(game.h))


@pytest.mark.parametrize("change", ["value = 7", "value = -value", "depth = depth + 1",
                                   "ply = ply + 1", "value = 'win'", "depth = 2.5"])
def test_a_garbled_row_is_damage_not_an_answer(tmp_path: Path, change: str) -> None:
    """A row SQLite reads back fine but no position can hold (as a page damaged where SQLite
    cannot tell leaves it): the damaged-table error, never its value, never a traceback."""
    path = tmp_path / "rows.db"
    build("4x3k3", str(path), layout="rows")
    truth = stored_rows(path, "4x3k3")
    code = sorted(c for c, (ply, value, _) in truth.items() if ply == 5 and value)[10]
    with closing(sqlite3.connect(path)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games").fetchone()
        conn.execute(f'UPDATE "{table}" SET {change} WHERE code = ?', (code,))
        conn.commit()
    with open_tablebase(path) as tb, pytest.raises(DamagedTableError, match="is damaged: a row"):
        tb.probe("4x3k3", _text(Game("4x3k3"), code))


PAGES = 16  # leaf pages damaged at the end by test_damaged_leaf_pages_of_a_rows_table


@pytest.mark.parametrize("spec", ["4x3k3", "4x4k4+gravity"])
def test_damaged_leaf_pages_of_a_rows_table(tmp_path: Path, spec: str) -> None:
    """Issue 34: random bytes over the end half of leaf pages of a rows table's B-tree
    (which SQLite may read without complaint). Every position stored in those pages, probed
    with its moves, answers as before the damage or raises the damaged-table error: never
    "cannot be reached" (there is no parent left to tell, when parents share the page), never
    another value, never a traceback. Then the same through the command line and HTTP."""
    path = tmp_path / "rows.db"
    build(spec, str(path), layout="rows")
    truth = stored_rows(path, spec)
    with closing(sqlite3.connect(path)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games").fetchone()
    size, leaves = leaf_pages(path, table)
    rng = random.Random(34)
    pages = rng.sample(sorted(leaves), PAGES)
    data = bytearray(path.read_bytes())
    for page in pages:
        data[page * size - size // 2:page * size] = rng.randbytes(size // 2)
    path.write_bytes(bytes(data))
    game = Game(spec)
    seen: Counter[str] = Counter()
    texts: dict[str, list[str]] = {"right": [], "damaged": []}
    with open_tablebase(path) as tb:
        for code in (c for page in pages for c in leaves[page]):
            text, board = _text(game, code), game.board(code)
            try:
                probe, moves = tb.probe(spec, text), tb.moves(spec, text)
            except DamagedTableError as e:
                assert "\n" not in str(e) and "is damaged" in str(e), str(e)
                assert "tablebase verify" in str(e), str(e)
                kind = "damaged"
            else:
                assert (probe.value, probe.depth) == truth[code][1:], text
                children = {cell: truth[game.canonical(game.child(board, cell))][1:]
                            for cell in game.moves(board)}
                assert {m.cell: (-m.value, m.depth) for m in moves} == children, text
                kind = "right"
            seen[kind] += 1
            texts[kind].append(text)
    assert seen["right"] >= 100 and seen["damaged"] >= 100, seen
    with TestClient(make_app(str(path))) as client:  # searching allowed: damage is no reason
        for kind in ("right", "damaged"):
            for text in texts[kind][:3]:
                status, out, err = _run(path, "probe", spec, text)
                answer = client.get(f"/api/{spec}", params={"board": text})
                if kind == "right":
                    assert status == 0 and err == "" and answer.status_code == 200, (out, err)
                    assert answer.json()["source"] == "table"
                else:
                    assert status == 2 and out == "" and _one_damaged_line(err), err
                    assert answer.status_code == 500 and "damaged" in answer.json()["error"]
