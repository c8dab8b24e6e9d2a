"""query/misses.py: a position no table holds is called unreachable only where the rules'
search for an order of moves from a table's root finds none; where it finds one the table is
damaged; where it gives up, neither is said. Positions are checked against
tests/reference.py; damaged pages of a rows table are tests/test_damage.py's."""
from __future__ import annotations

import io
import shutil
import sqlite3
import warnings
from contextlib import closing, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from tablebase.builder.games.grid import orders
from tablebase.builder.pipeline import build
from tablebase.db.errors import DamagedTableError
from tablebase.query import MissingPositionError, open_tablebase
from tablebase.query.cli import main
from tests.reference import Game, parse, reachable_from

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402
from tablebase.query.server.app import make_app  # noqa: E402

WHOLE = "3x3k3+gravity"
# . . x   x's stones stack on o's in column c, and o's only other stone is b1: o played c1,
# . . x   c2 went to x, and then nothing of o's is left for x's c3 to follow. Every rule on
# . o o   the board itself holds; only a search for an order of moves shows it (it backtracks).
UNREACHABLE = "..x/..x/.oo"
ENDGAME = "4x3k3+gravity"
ROOT = "..../..../.xo."  # x b1, o c1: x to move
# From the root x moves first, but the only stone of the board's to stack first is o's a1;
# from the empty board, o's a1 comes between x's b1 and o's c1.
NOT_FROM_ROOT = "..../x.../oxo."
# Column c holds o, o, x from the bottom: x's c3 needs o's c2, which needs x's b1 played first.
NEVER = "..x./..o./.xo."


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("misses") / "whole.db"
    build(WHOLE, str(path), layout="rows")
    return path


@pytest.fixture(scope="module")
def endgame(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("misses") / "endgame.db"
    build(ENDGAME, str(path), root=parse(Game(ENDGAME), ROOT), layout="rows")
    return path


def _run(db: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([*argv, "--db", str(db)])
    return status, out.getvalue(), err.getvalue()


def _lose(source: Path, tmp_path: Path, spec: str, boards: list[tuple[int, ...]],
          root: tuple[int, ...] | None = None) -> Path:
    """A copy of `source` whose rows table lacks `boards` (as a damaged page loses them): their
    codes worked out here from docs/storage.md and docs/endgames.md (cell i is digit 3**i; an
    endgame table codes its root's empty cells in order; these roots have no symmetry but the
    identity, the whole board the reference's)."""
    game = Game(spec)
    codes = [game.canonical(b) if root is None else _code(root, b) for b in boards]
    path = tmp_path / "lost.db"
    shutil.copy(source, path)
    with closing(sqlite3.connect(path)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games").fetchone()
        gone = conn.executemany(f'DELETE FROM "{table}" WHERE code = ?', [(c,) for c in codes])
        assert gone.rowcount == len(codes)
        conn.commit()
    return path


def _code(root: tuple[int, ...], board: tuple[int, ...]) -> int:
    """The code of `board` in the endgame table of `root` (whose stabiliser is the identity)."""
    free = [c for c, v in enumerate(root) if v == 0]
    return sum(board[c] * 3 ** i for i, c in enumerate(free))


def test_reference_facts_behind_the_boards() -> None:
    game, small = Game(WHOLE), Game(ENDGAME)
    assert parse(game, UNREACHABLE) not in game.reachable()
    from_root = reachable_from(small, parse(small, ROOT))
    assert parse(small, NOT_FROM_ROOT) in small.reachable()
    assert parse(small, NOT_FROM_ROOT) not in from_root
    assert parse(small, NEVER) not in small.reachable()


def test_unreachable_in_a_whole_table(whole: Path) -> None:
    with open_tablebase(whole) as tb, pytest.raises(MissingPositionError) as info:
        tb.probe(WHOLE, UNREACHABLE)
    assert str(info.value) == (f"position {UNREACHABLE!r} ({WHOLE}) cannot be reached from the"
                               " empty board, so the table does not hold it")
    status, out, err = _run(whole, "probe", WHOLE, UNREACHABLE)
    assert (status, out) == (2, "") and err == f"tablebase: error: {info.value}\n"
    with TestClient(make_app(str(whole))) as client:
        answer = client.get(f"/api/{WHOLE}", params={"board": UNREACHABLE})
    assert answer.status_code == 404 and answer.json() == {"error": str(info.value)}


def test_where_the_search_gives_up_nothing_is_said_either_way(
        whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the move-order search held to one column state, the unreachable board above and a
    reachable one the table lost (with its parent, so nothing else tells) are both "not
    known": never "cannot be reached", never damage either."""
    monkeypatch.setattr(orders, "STATES", 1)
    game = Game(WHOLE)
    lost = parse(game, ".../.../.xo")  # x b1, o c1
    path = _lose(whole, tmp_path, WHOLE, [lost, parse(game, ".../.../.x.")])
    for board in (UNREACHABLE, ".../.../.xo"):
        with open_tablebase(path) as tb, pytest.raises(MissingPositionError) as info:
            tb.probe(WHOLE, board)
        message = str(info.value)
        assert message == (f"position {board!r} ({WHOLE}) is not in the {WHOLE} table, and"
                           " whether it can be reached from the empty board is not known (the"
                           " search for an order of moves gave up after 1 states); if"
                           " it can, the table is damaged: run `tablebase verify`")
        status, out, err = _run(path, "probe", WHOLE, board)
        assert (status, out) == (2, "") and err == f"tablebase: error: {message}\n"
    monkeypatch.undo()
    with open_tablebase(path) as tb, pytest.raises(DamagedTableError) as damage:
        tb.probe(WHOLE, ".../.../.xo")
    assert str(damage.value) == (f"{path}: the {WHOLE} table is damaged: it lacks '.../.../.xo',"
                                 " which legal moves reach from the empty board; run `tablebase"
                                 " verify`")


def test_unreachable_and_damaged_in_an_endgame_table(endgame: Path, tmp_path: Path) -> None:
    small = Game(ENDGAME)
    root = parse(small, ROOT)
    name = f"{ENDGAME} endgame (2 stones)"
    with open_tablebase(endgame) as tb:
        with pytest.raises(MissingPositionError) as info:
            tb.probe(ENDGAME, NOT_FROM_ROOT)  # a table built from it would answer
        assert str(info.value) == (f"no table of {ENDGAME} holds position {NOT_FROM_ROOT!r}: it"
                                   " descends from none of the endgame tables' roots")
        assert info.value.build_from == NOT_FROM_ROOT
        with pytest.raises(MissingPositionError) as info:
            tb.probe(ENDGAME, NEVER)
        assert str(info.value) == (f"position {NEVER!r} ({ENDGAME}) cannot be reached from the"
                                   " empty board, so no table holds it")
        assert info.value.build_from is None
        code = _code(root, parse(small, NOT_FROM_ROOT))
        with pytest.raises(MissingPositionError) as info:
            tb.table(ENDGAME, ROOT).probe_many([code])
        assert str(info.value) == (f"1 of 1 codes are not in the {name} table (they cannot be"
                                   f" reached from its root); the first is code {code},"
                                   f" {NOT_FROM_ROOT!r}")
    # x a1 then o d1 from the root; its parent without o's d1 is lost too.
    lost = [parse(small, "..../..../xxoo"), parse(small, "..../..../xxo.")]
    path = _lose(endgame, tmp_path, ENDGAME, lost, root)
    with open_tablebase(path) as tb:
        with pytest.raises(DamagedTableError) as damage:
            tb.probe(ENDGAME, "..../..../xxoo")
        assert str(damage.value) == (f"{path}: the {name} table is damaged: it lacks"
                                     " '..../..../xxoo', which legal moves reach from its root;"
                                     " run `tablebase verify`")
        with pytest.raises(DamagedTableError, match="it lacks 1 of the 1 codes asked"):
            tb.table(ENDGAME, ROOT).probe_many([_code(root, lost[0])])
    status, out, err = _run(path, "probe", ENDGAME, "..../..../xxoo")
    assert (status, out) == (2, "") and err == f"tablebase: error: {damage.value}\n"
