"""Endgame tables: everything reachable from a given position, on boards up to 26x99, checked
against the whole-board tables and against the plain negamax of tests/reference.py."""
from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Iterable
from operator import itemgetter
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder.games.grid import encode, parse_spec
from tablebase.builder.pipeline import build
from tablebase.query import MissingPositionError, open_tablebase
from tablebase.query.cli import main
from tests.reference import Game, parse, play, reachable_from


def stored(db: str, spec: str, root: str | None) -> dict[tuple[int, ...], tuple[int, int, int]]:
    """board -> (ply, value, depth) of every stored position of one table, as full boards."""
    with open_tablebase(db) as tb:
        view = tb.table(spec, root)
        table = view.load()
        boards = view.boards(table.codes)
    # tolist() gives plain ints at once (numpy scalars converted one by one cost seconds).
    return {tuple(b): (p, v, d) for b, p, v, d in zip(
        boards.tolist(), table.ply.tolist(), table.value.tolist(), table.depth.tolist())}


def stabiliser(game: Game, root: tuple[int, ...]) -> list[int]:
    """Indices (into game.images) of the maps that fix the root, found independently."""
    return [i for i, image in enumerate(game.images(root)) if image == root]


def representatives(game: Game, maps: list[int],
                    boards: Iterable[tuple[int, ...]]) -> set[tuple[int, ...]]:
    """For each board, its image with the smallest code among the root's stabiliser images
    (game.images(board)[i] for i in maps). Fast: each map is read off game.images of the board
    of cell numbers once (where each image takes its cells from), then applied as one
    itemgetter; and the smallest code is the smallest reversed board (the last cell is the
    code's leading base-3 digit, and all codes have game.n digits)."""
    cells = game.images(tuple(range(game.n)))
    takes = [itemgetter(*cells[i]) for i in maps]
    return {min((take(b) for take in takes), key=lambda image: image[::-1]) for b in boards}


def check_against_negamax(db: str, spec: str, root_text: str,
                          reached: set[tuple[int, ...]] | None = None) -> int:
    """Every position of the endgame table equals the plain negamax, and the table holds
    exactly one position per stabiliser orbit of what is reachable (`reached`, if the caller
    has it already). Returns the count."""
    game = Game(spec)
    root = parse(game, root_text)
    maps = stabiliser(game, root)
    table = stored(db, spec, root_text)
    reached = reachable_from(game, root) if reached is None else reached
    orbits = representatives(game, maps, reached)
    assert set(table) == orbits
    for board in orbits:
        ply, value, depth = table[board]
        assert ply == game.stones(board)
        assert (value, depth) == game.solve(board), board
    game.solve.cache_clear()
    with sqlite3.connect(db) as conn:
        (reachable,) = conn.execute("SELECT reachable FROM games WHERE spec = ? AND root != ''",
                                    (parse_spec(spec).name,)).fetchone()
    assert reachable == len(reached)
    return len(orbits)


# --- endgame tables equal the whole-board table where both exist -----------------------

@pytest.mark.parametrize("spec, moves", [
    ("3x3k3", "b2 a1"),
    ("3x3k3", "a3 c3 b2"),
    ("4x4k4", "b2 c3 b3 c2 a1 d4 a4 d1"),
])
def test_endgame_table_equals_the_whole_board_table(table_db: Callable[[str], str], tmp_path: Path,
                                                     spec: str, moves: str) -> None:
    whole_db = table_db(spec)
    db = str(tmp_path / "end.db")
    game = Game(spec)
    root = play(game, moves)
    root_text = "/".join("".join(".xo"[v] for v in root[r * game.w:(r + 1) * game.w])
                         for r in range(game.h))
    assert main(["build", spec, "--moves", moves, "--db", db, "--quiet"]) == 0
    table = stored(db, spec, root_text)
    # The same set: every position reachable from the root, one per stabiliser orbit.
    maps = stabiliser(game, root)
    assert set(table) == representatives(game, maps, reachable_from(game, root))
    # The same values and depths as the whole-board table, looked up by whole-board code.
    boards = list(table)
    codes = np.array([encode(b) for b in boards], dtype=np.int64)
    with open_tablebase(whole_db) as tb:
        whole = tb.table(spec).probe_many(codes)
    for i, board in enumerate(boards):
        assert (int(whole.ply[i]), int(whole.value[i]), int(whole.depth[i])) == table[board]


# --- bigger boards, against the plain negamax ----------------------------------------

# Connect Four 7x6: roots from self-play games of a simple player (wins, blocks, avoids giving
# a win, else a random centre-weighted column), written as the moves that reach them.
CONNECT4_ROOTS = [
    "c1 e1 d1 d2 c2 d3 e2 e3 d4 d5 b1 a1 e4 c3 d6 c4 e5 e6 f1 f2 f3 c5 c6 f4 f5 g1",
    "c1 c2 d1 c3 c4 d2 f1 e1 e2 d3 e3 d4 d5 c5 d6 c6 e4 e5 e6 g1 g2 b1 b2 b3 b4 g3",
    "e1 d1 e2 d2 d3 b1 e3 e4 c1 d4 c2 d5 c3 c4 e5 d6 c5 e6 c6 f1 a1 a2 f2 f3 f4 f5",
    "c1 f1 c2 d1 c3 c4 d2 g1 e1 d3 e2 f2 e3 e4 d4 d5 c5 c6 f3 f4 f5 d6 e5 f6 e6 g2",
    "d1 b1 c1 c2 e1 f1 e2 d2 c3 d3 d4 d5 f2 g1 d6 b2 b3 c4 c5 e3 e4 e5 e6 b4 b5 b6",
]
CONNECT4_22 = "e1 d1 e2 d2 d3 b1 e3 e4 c1 d4 c2 d5 c3 c4 e5 d6 c5 e6 c6 f1 a1 a2"
CONNECT4_9x5 = ("c1 f1 e1 e2 f2 f3 b1 d1 d2 f4 f5 g1 e3 c2 e4 c3 d3 e5 h1 h2 c4 c5 d4 d5 i1 b2"
                " b3 b4 b5 g2 g3")
GOMOKU_ROOTS = [  # 7x7, five in a row, 39 stones
    "d1 c1 d7 f7 d2 d3 e4 g6 d4 c4 f5 c6 d5 c5 b2 f1 e1 b4 a5 d6 b7 c7 c3 f4 b5 e5 g3 f2 e3"
    " f3 b6 e7 a3 f6 e6 b3 e2 g1 c2",
    "d6 d7 c4 e6 e7 d4 d1 d2 c2 c5 c3 d5 c6 f7 e5 e1 f2 e2 b2 f6 b4 d3 f3 c1 a1 c7 b3 e3 e4"
    " b6 a7 g5 f4 b7 f1 f5 b1 b5 a3",
]


def _root_text(spec: str, moves: str) -> str:
    game = Game(spec)
    root = play(game, moves)
    return "/".join("".join(".xo"[v] for v in root[r * game.w:(r + 1) * game.w])
                    for r in range(game.h))


@pytest.mark.slow
@pytest.mark.parametrize("spec, moves", [
    *[("7x6k4+gravity", m) for m in CONNECT4_ROOTS[::2]],  # 1 and 3: built by tests below
    ("9x5k4+gravity", CONNECT4_9x5),
    *[("7x7k5", m) for m in GOMOKU_ROOTS],
])
def test_endgames_of_big_boards_equal_plain_negamax(tmp_path: Path, spec: str, moves: str) -> None:
    db = str(tmp_path / "end.db")
    assert main(["build", spec, "--moves", moves, "--db", db, "--quiet"]) == 0
    assert check_against_negamax(db, spec, _root_text(spec, moves)) > 1


@pytest.mark.slow
def test_connect_four_endgame_from_22_stones(tmp_path: Path) -> None:
    db = str(tmp_path / "end.db")
    spec = "7x6k4+gravity"
    assert main(["build", spec, "--moves", CONNECT4_22, "--db", db, "--quiet"]) == 0
    assert check_against_negamax(db, spec, _root_text(spec, CONNECT4_22)) > 10_000


# --- symmetric roots --------------------------------------------------------------------

def test_a_symmetric_root_is_stored_once_per_orbit_and_every_image_answers_alike(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    #   . . . .
    #   . x o .      kept by the identity, the half turn and both diagonal flips; not by the
    #   . o x .      mirrors or the quarter turns, which swap x and o
    #   . . . .
    spec, root_text = "4x4k3", "..../.xo./.ox./...."
    db = str(tmp_path / "sym.db")
    assert main(["build", spec, "--from", root_text, "--db", db, "--quiet"]) == 0
    out = capsys.readouterr().out
    game = Game(spec)
    root = parse(game, root_text)
    maps = stabiliser(game, root)
    assert len(maps) == 4 and f"{len(maps)} symmetries keep the root" in out
    reached = reachable_from(game, root)
    count = check_against_negamax(db, spec, root_text, reached)
    assert count < len(reached)  # symmetry really folded positions together
    with open_tablebase(db) as tb:
        for board in sorted(reached, key=game.code)[:400]:
            probes = [tb.probe(spec, image) for image in game.images(board)]
            assert len({(probe.value, probe.depth) for probe in probes}) == 1


# --- queries find the table that holds a position -------------------------------------

def test_queries_answer_from_whichever_table_holds_the_position(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "q.db")
    spec = "7x6k4+gravity"
    moves = CONNECT4_ROOTS[0]
    game = Game(spec)
    assert main(["build", spec, "--moves", moves, "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    # A position two moves further on, in the mirrored orientation, is answered.
    board = play(game, moves + " g2 b2")
    mirrored = game.images(board)[1]
    text = "/".join("".join(".xo"[v] for v in mirrored[r * 7:(r + 1) * 7]) for r in range(6))
    assert main(["probe", spec, text, "--db", db, "--json"]) == 0
    import json
    answer = json.loads(capsys.readouterr().out)
    value, depth = game.solve(board)
    assert (answer["value"], answer["depth"]) == ({1: "win", 0: "draw", -1: "loss"}[value], depth)
    assert main(["line", spec, text, "--db", db, "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["line"]) == depth
    # A position of another game: no table holds it, and the message says how to build one.
    other = _root_text(spec, CONNECT4_ROOTS[1])
    assert main(["probe", spec, other, "--db", db, "--no-search"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no table of 7x6k4+gravity holds position" in err
    assert f"tablebase build 7x6k4+gravity --from '{other}' --db {db}" in err
    with open_tablebase(db) as tb, pytest.raises(MissingPositionError):
        tb.probe(spec, other)


def test_info_lists_every_table_and_export_verify_take_root(
        table_db: Callable[[str], str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import json
    import shutil
    db = str(tmp_path / "i.db")
    shutil.copy(table_db("3x3k3"), db)
    assert main(["build", "3x3k3", "--moves", "b2 a1", "--db", db, "--quiet"]) == 0
    assert main(["build", "3x3k3", "--from", "x.o/.x./...", "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["info", "--db", db, "--json"]) == 0
    tables = [t for t in json.loads(capsys.readouterr().out) if t["spec"] == "3x3k3"]
    assert sorted((t["root"] or "") for t in tables) == ["", ".../.x./o..", "x.o/.x./..."]
    # The side to move at each root, as tests/reference.py's rules count it.
    assert {t["root"]: t["to_move"] for t in tables} == {
        r: "xo"[Game("3x3k3").stones(parse(Game("3x3k3"), r or ".../.../...")) % 2]
        for r in (None, ".../.x./o..", "x.o/.x./...")}
    assert all(len(t["checksum"]) == 16 for t in tables)
    assert main(["info", "3x3k3", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "2 tables" in out and "x.o/.x./..." in out and ".../.x./o.." in out
    # --root takes the root in any orientation: o in the top right instead of bottom left.
    path = tmp_path / "e.csv"
    assert main(["export", "3x3k3", "--root", "..o/.x./...", "-o", str(path), "--db", db,
                 "--quiet"]) == 0
    rows = path.read_text().splitlines()[1:]
    expected = next(t for t in tables if t["root"] == ".../.x./o..")["canonical"]
    assert len(rows) == expected and all(r.split(",")[0][5] == "x" for r in rows)
    capsys.readouterr()
    assert main(["verify", "3x3k3", "--root", "..o/.x./...", "--db", db, "--quiet"]) == 0
    assert f"all {expected:,} positions verified" in capsys.readouterr().out
    assert main(["verify", "3x3k3", "--root", "x../.../...", "--db", db]) == 2
    assert "no endgame table of 3x3k3 is rooted at 'x../.../...'" in capsys.readouterr().err


# --- refusals: one line, exit 2, nothing written ----------------------------------------

@pytest.mark.parametrize("argv, fragment", [
    (["build", "7x6k4+gravity"], "7x6k4+gravity has 42 cells; a whole-board build needs at most"
                                 " 39. Build an endgame table: tablebase build 7x6k4+gravity"
                                 " --from POSITION"),
    (["build", "7x7k5", "--moves", "d4 d5 c4"], "has 46 empty cells; an endgame table codes at"
                                                " most 39"),
    (["build", "3x3k3", "--from", "xx./.../..."], "x moves first, so x must have"),
    (["build", "3x3k3", "--from", "xxx/oo./..."], "the game is already over"),
    (["build", "4x4k4+gravity", "--from", "..../..../x.../o..."],
     "cannot be reached"),
    (["build", "4x4k4+gravity", "--from", "..../..../..../.o.."], "impossible stone counts"),
    (["build", "4x4k4+gravity", "--from", "..../..x./..../o..."], "floating stone"),
])
def test_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                  fragment: str) -> None:
    db = tmp_path / "r.db"
    assert main([*argv, "--db", str(db), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert fragment in captured.err, captured.err
    if db.exists():
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM games").fetchone() == (0,)


# --- atomicity, --force and --resume, as for whole-board builds ---------------------------

@pytest.fixture(scope="module")
def fresh_endgame(
        tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[int, ...], tuple[int, int, int]]:
    """The stored positions of CONNECT4_ROOTS[3]'s endgame table built in one go, without
    interruption: what every interrupted-then-resumed build below must end up equal to (built
    once for the module: the tests only read it)."""
    fresh = str(tmp_path_factory.mktemp("fresh") / "fresh.db")
    root = play(Game("7x6k4+gravity"), CONNECT4_ROOTS[3])
    build(parse_spec("7x6k4+gravity"), fresh, root=root)
    return stored(fresh, "7x6k4+gravity", _root_text("7x6k4+gravity", CONNECT4_ROOTS[3]))


@pytest.mark.parametrize("target, n, stage", [
    ("tablebase.builder.enumerator.classify", 4, "enumerate"),
    ("tablebase.builder.retrograde.solve_tier", 3, "solve"),
    ("tablebase.builder.pipeline.write_tier", 3, "solve"),
])
def test_an_interrupted_endgame_build_reads_as_incomplete_and_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, n: int, stage: str,
        fresh_endgame: dict[tuple[int, ...], tuple[int, int, int]]) -> None:
    from tablebase.builder.games.registry import table_root
    from tablebase.builder.pipeline import work_slug
    from tablebase.builder.workdir import work_path
    spec = parse_spec("7x6k4+gravity")
    game = Game("7x6k4+gravity")
    root = play(game, CONNECT4_ROOTS[3])
    path = str(tmp_path / "t.db")
    build(parse_spec("3x3k3"), path)  # another table, which must stay untouched
    module, name = target.rsplit(".", 1)
    import sys
    real = getattr(sys.modules[module], name)
    calls: list[int] = []

    def interrupt(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == n:
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    with monkeypatch.context() as patch:
        patch.setattr(target, interrupt)
        with pytest.raises(KeyboardInterrupt):
            build(spec, path, root=root, write_chunk=2000)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT status FROM games WHERE root != ''").fetchone() == ("building",)
    text = "/".join("".join(".xo"[v] for v in root[r * 7:(r + 1) * 7]) for r in range(6))
    with open_tablebase(path) as tb, pytest.raises(Exception, match="has not been built|no complete"):
        tb.probe(spec, text)
    work = work_path(path, work_slug(table_root(spec, root)))
    assert work.exists()
    report = build(spec, path, root=root, resume=True, write_chunk=2000)
    assert report.resumed_stage is not None and report.resumed_stage.startswith(stage)
    assert not work.exists()
    assert stored(path, "7x6k4+gravity", text) == fresh_endgame
    with pytest.raises(Exception, match="already built; add --force"):
        build(spec, path, root=root)
    build(spec, path, root=root, force=True)
    assert stored(path, "7x6k4+gravity", text) == fresh_endgame
    assert len(stored(path, "3x3k3", None)) == 765


# --- audits on endgame tables, and the course's Gomoku engines ------------------------------

COURSE = f"{sys.executable} {Path(__file__).resolve().parent / 'audit_samples' / 'course_engine.py'}"


@pytest.mark.slow
def test_course_gomoku_engines_are_audited_on_a_7x7_endgame(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The course's dialect, without a wrapper, on a five-in-a-row endgame: a right engine
    agrees on every position of the table, a wrong one is caught on exactly its board."""
    import json
    db = str(tmp_path / "g.db")
    spec, moves = "7x7k5", GOMOKU_ROOTS[0]
    root = _root_text(spec, moves)
    assert main(["build", spec, "--from", root, "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    # Each position costs a game's worth of GTP commands (the root's 39 stones, then the
    # moves from it): a sample keeps this test short.
    argv = ["audit", spec, "--root", root, "--db", db, "--orientations", "random", "--quiet",
            "--timeout", "60", "--json"]
    assert main([*argv, "--positions", "sample:60", "--engine", f"{COURSE} --k 5"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["positions"] == 60 and report["agreed"] == report["boards"] == 60
    # The engine is wrong on the root itself, shown as it is stored (the root's own image).
    assert main([*argv, "--positions", "ply:39", "--orientations", "all",
                 "--engine", f"{COURSE} --k 5 --wrong-at {root}"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["mismatches"] == {"wrong-value": 1}
    (example,) = report["examples"]
    assert example["board"] == root
    game = Game(spec)
    truth = game.solve(parse(game, root))
    assert {1: "win", 0: "draw", -1: "loss"}[truth[0]] == example["value"]


def test_audit_root_takes_the_endgame_positions(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A solver audited on a Connect Four 7x6 endgame: the positions are the endgame table's,
    and a plain negamax written in the tests passes on every one of them."""
    import json
    db = str(tmp_path / "a.db")
    spec = "7x6k4+gravity"
    root = _root_text(spec, CONNECT4_ROOTS[0])
    assert main(["build", spec, "--from", root, "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["audit", spec, "--root", root, "--db", db, "--solver",
                 "tests.audit_samples.reference_solver:solve_7x6", "--positions", "sample:300",
                 "--orientations", "random", "--quiet", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["positions"] == 300 and report["agreed"] == report["boards"] == 300
    assert main(["audit", spec, "--root", root, "--db", db, "--solver",
                 "tests.audit_samples.reference_solver:solve_7x6", "--play", "2", "--quiet"]) == 0
    assert "games" in capsys.readouterr().out


def test_play_and_strategy_start_from_an_endgame_root(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    db = str(tmp_path / "p.db")
    spec = "7x6k4+gravity"
    root = _root_text(spec, CONNECT4_ROOTS[0])
    assert main(["build", spec, "--from", root, "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    game = Game(spec)
    value, depth = game.solve(parse(game, root))
    # The strategy from the root: the winner's, with the root as its tree's root.
    assert main(["strategy", spec, "--root", root, "--db", db, "--json", "--quiet"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["board"] == root and found["goal"] in ("win", "draw")
    assert found["depth"] >= depth
    # Play from the root: the computer (x, to move at the root) plays perfectly; we resign.
    monkeypatch.setattr("builtins.input", lambda prompt="": "quit")
    assert main(["play", spec, root, "--as", "o", "--db", db, "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "computer (x) plays" in out and "game abandoned" in out
