"""Every face searches without a database: probe, moves and line on the command line (no
database file, or no table of the game), `line --search`, the HTTP API's line, and
`search_position`, which keeps a searcher per game and thread. Values, depths and every step
of a perfect line are checked against the plain negamax of tests/reference.py."""
from __future__ import annotations

import json
import random
import threading
from pathlib import Path

import pytest

import tablebase
from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.position_text import read_position
from tablebase.builder.pipeline import build
from tablebase.query.cli import main
from tests.reference import WIN, Game

WORDS = {WIN: "win", 0: "draw", -1: "loss"}
GAMES = ["3x3k3", "4x3k3", "4x4k3+gravity", "3x3k3+misere", "4x3k3+exact"]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _positions(game: Game, rng: random.Random, count: int) -> list[tuple[int, ...]]:
    """Distinct random positions of unfinished games, played from the empty board: on tic-tac-toe
    from the empty board on, on the larger boards from two stones on (an empty board or one
    stone asks the negamax for nearly the whole game: 4.5 s on 4x3k3+exact, where drawn five
    times of twelve it was the same board searched again)."""
    least = 0 if game.n <= 9 else 2
    found: list[tuple[int, ...]] = []
    while len(found) < count:
        board = tuple([0] * game.n)
        for _ in range(rng.randint(least, game.n - 2)):
            moves = game.moves(board)
            if not moves:
                break
            board = game.child(board, rng.choice(moves))
        if game.moves(board) and board not in found:
            found.append(board)
    return found


@pytest.mark.parametrize("name", GAMES)
def test_a_line_by_search_is_perfect_move_by_move(name: str) -> None:
    from tablebase.query.search.fallback import search_line

    spec, game, rng = parse_spec(name), Game(name), random.Random(name)
    for board in _positions(game, rng, 12):
        root, steps = search_line(None, spec, board, 600.0)  # a first call may compile
        value, depth = game.solve(board)
        assert (root.solution.value, root.solution.depth) == (value, depth)
        assert len(steps) == depth  # a perfect line is as long as the depth
        here = board
        for step in steps:
            # each move keeps the value and depth of the position it is played in
            assert (int(step.value), step.depth + 1) == game.solve(here)
            assert step.cell in game.moves(here)
            here = game.child(here, step.cell)
            assert step.board == here
        assert not game.moves(here)  # the line ends the game


def test_the_faces_answer_by_search_without_a_database(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    none = str(tmp_path / "none.db")
    game = Game("4x3k3")
    board = read_position(parse_spec("4x3k3"), "b1 b2").board
    value, depth = game.solve(board)
    status, out, _ = _run(capsys, "probe", "4x3k3", "b1 b2", "--db", none, "--json")
    data = json.loads(out)
    assert status == 0 and data["source"] == "search"
    assert (data["value"], data["depth"]) == (WORDS[value], depth)
    status, out, _ = _run(capsys, "moves", "4x3k3", "--moves", "b1 b2", "--db", none)
    assert status == 0 and "(by search)" in out and "* " in out
    status, out, _ = _run(capsys, "line", "4x3k3", "b1 b2", "--db", none)
    lines = out.splitlines()
    assert status == 0 and "(by search)" in lines[0]
    assert lines[1].startswith(f"perfect line, {WORDS[value]} in {depth} plies for x: ")
    assert len(lines[1].split(": ")[1].split()) == depth
    status, out, _ = _run(capsys, "line", "4x3k3", "b1 b2", "--db", none, "--json",
                          "--search", "20")
    data = json.loads(out)
    assert data["source"] == "search" and len(data["line"]) == depth
    assert data["line"][-1]["depth"] == 0
    # A database without the game: the same, by search; --no-search refuses in one line.
    db = str(tmp_path / "t.db")
    build("3x3k3", db)
    status, out, _ = _run(capsys, "line", "4x3k3", "b1 b2", "--db", db, "--json")
    assert json.loads(out)["line"] == data["line"]
    status, _, err = _run(capsys, "line", "4x3k3", "--db", db, "--no-search")
    assert status == 2 and "4x3k3 has not been built" in err and err.count("\n") == 1


def test_a_line_cut_short_by_its_time_says_so(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    # 8x8 five in a row, nearly empty: no search proves it in a moment.
    status, out, _ = _run(capsys, "line", "8x8k5", "d4", "--db", str(tmp_path / "none.db"),
                          "--search", "0.2")
    assert status == 0 and out.splitlines()[0].endswith("(by search)")
    assert "perfect line" not in out


def test_the_http_line_searches_what_no_table_holds(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from tablebase.query.server.app import make_app
    db = str(tmp_path / "t.db")
    build("3x3k3", db)
    board = read_position(parse_spec("4x3k3"), "b1 b2").board
    value, depth = Game("4x3k3").solve(board)
    with TestClient(make_app(db, search=20.0)) as client:
        r = client.get("/api/4x3k3/line", params={"board": "b1 b2"})
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        data = r.json()
        assert data["source"] == "search" and (data["value"], data["depth"]) == (WORDS[value],
                                                                                  depth)
        assert len(data["line"]) == depth
        assert client.get("/api/3x3k3/line", params={"moves": "b2"}).json()["source"] == "table"
    with TestClient(make_app(db, search=None)) as client:
        assert client.get("/api/4x3k3/line").status_code == 404


def test_search_position_keeps_a_searcher_per_game_and_thread() -> None:
    from tablebase.query.search.solving import kept_searcher

    game, spec = Game("4x4k3+gravity"), parse_spec("4x4k3+gravity")
    for board in _positions(game, random.Random(3), 10):
        answer = tablebase.search_position("4x4k3+gravity", board)
        assert (answer.solution.value, answer.solution.depth) == game.solve(board)
    text = tablebase.search_position("4x4k3+gravity", "223")  # Pons' digits, too
    assert text.board == read_position(spec, "b1 b2 c1").board
    mine = kept_searcher(spec)
    assert kept_searcher(spec) is mine  # kept: its table with it
    theirs: list[object] = []
    worker = threading.Thread(target=lambda: theirs.append(kept_searcher(spec)))
    worker.start()
    worker.join()
    assert theirs[0] is not mine  # another thread's own


def test_search_position_with_a_database_follows_its_tables(tmp_path: Path) -> None:
    from tablebase.query.search.solving import kept_searcher

    db = str(tmp_path / "t.db")
    spec = parse_spec("4x3k3")
    build("3x3k3", db)
    first = kept_searcher(spec, db)
    assert kept_searcher(spec, db) is first
    build("4x3k3", db)  # a table of the game now: its searcher is made again, with it
    again = kept_searcher(spec, db)
    assert again is not first and again.arrays is not first.arrays
    board = read_position(spec, "a1").board
    answer = tablebase.search_position("4x3k3", "a1", db=db)
    assert (answer.solution.value, answer.solution.depth) == Game("4x3k3").solve(board)


def test_the_http_api_without_a_database_file_searches(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from tablebase.query.server.app import make_app
    db = str(tmp_path / "none.db")  # no such file
    board = read_position(parse_spec("4x3k3"), "b1 b2").board
    value, depth = Game("4x3k3").solve(board)
    with TestClient(make_app(db, search=20.0)) as client:
        assert client.get("/api/games").json() == []
        data = client.get("/api/4x3k3", params={"moves": "b1 b2"}).json()
        assert data["source"] == "search" and (data["value"], data["depth"]) == (WORDS[value],
                                                                                  depth)
        assert len(client.get("/api/4x3k3/line", params={"board": "b1 b2"}).json()["line"]) \
            == depth
        for refused in (client.post("/api/3x3k3/probe", json=["x.o/.x./..."]),
                        client.get("/api/3x3k3/stats")):
            assert refused.status_code == 404 and "no such database file" in refused.json()["error"]
        build("3x3k3", db)  # built while it serves: its table answers
        assert client.get("/api/3x3k3", params={"moves": "b2"}).json()["source"] == "table"
