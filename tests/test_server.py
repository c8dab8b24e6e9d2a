"""The HTTP API of `tablebase serve`, through httpx on the app (tests/loop_client.py: the
app on this thread's event loop, lifespan included) on tables built here: every endpoint,
every error code, the headers; every tic-tac-toe position answered over HTTP equals the
Python API and the plain negamax of tests/reference.py."""
from __future__ import annotations

import functools
import json
import os
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("httpx", reason="httpx (the test extra) sends the requests")

from httpx import Client  # noqa: E402

from tablebase.query import open_tablebase  # noqa: E402
from tablebase.query.cli import main  # noqa: E402
from tablebase.query.search.fallback import DEFAULT_SEARCH_SECONDS  # noqa: E402
from tablebase.query.server.answers import MAX_BATCH, MAX_BODY_BYTES, MAX_QUERY_CHARS  # noqa: E402
from tablebase.query.server.app import make_app  # noqa: E402
from tests.conftest import game_row, stored_rows  # noqa: E402
from tests.loop_client import loop_client  # noqa: E402
from tests.reference import Game  # noqa: E402

WORDS = {1: "win", 0: "draw", -1: "loss"}


@pytest.fixture(scope="module")
def db(table_db: Callable[[str], str]) -> str:
    table_db("3x3k3")
    table_db("3x3k3+misere")
    return table_db("4x3k3")


@pytest.fixture(scope="module")
def client(db: str) -> Iterator[Client]:
    with loop_client(make_app(db)) as c:
        yield c


def _error(response, status: int, fragment: str) -> None:  # type: ignore[no-untyped-def]
    """An error answer: the status, a JSON body with one line naming the fault, the headers."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"}
    assert fragment in body["error"]
    assert "\n" not in body["error"] and "Traceback" not in response.text
    assert response.headers["access-control-allow-origin"] == "*"
    assert "max-age" not in response.headers.get("cache-control", "")
    assert "etag" not in response.headers


@functools.cache
def _stored(db: str, spec: str) -> dict[int, tuple[int, int, int]]:
    """A table's raw rows (tests/conftest.py's stored_rows), decoded once for the file: two
    tests read 4x3k3's, and decoding its blocks in Python takes a fifth of a second or more."""
    return stored_rows(db, spec)


def _cli_json(*argv: str, capsys: pytest.CaptureFixture[str]) -> object:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


# --- answers ------------------------------------------------------------------------------

def test_health(client: Client) -> None:
    r = client.get("/health")
    assert r.status_code == 200 and r.json() == {
        "status": "ok",
        "search": {"seconds": DEFAULT_SEARCH_SECONDS, "running": 0, "most": os.cpu_count() or 1}}
    assert r.headers["access-control-allow-origin"] == "*"


def test_games_are_the_info_objects(client: Client, db: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    r = client.get("/api/games")
    assert r.status_code == 200
    assert r.json() == _cli_json("info", "--db", db, "--json", capsys=capsys)
    assert {g["spec"] for g in r.json()} >= {"3x3k3", "3x3k3+misere", "4x3k3"}
    tictactoe = next(g for g in r.json() if g["spec"] == "3x3k3")
    assert (tictactoe["reachable"], tictactoe["canonical"], tictactoe["terminal"]) == (5478, 765, 958)
    assert r.headers["etag"] and r.headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize("argv, query", [
    ([], ""),
    (["x.o/.x./..."], "?board=x.o/.x./..."),
    (["--moves", "b2 a1"], "?moves=b2+a1"),
    (["x../.../...", "--moves", "b2"], "?board=x../.../...&moves=b2"),
    (["xxx/oo./..."], "?board=xxx/oo./..."),  # over: no moves
])
def test_position_and_line_are_the_cli_objects(client: Client, db: str, argv: list[str],
                                               query: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    for command, path in (("moves", ""), ("line", "/line")):
        r = client.get(f"/api/tictactoe{path}{query}")
        assert r.status_code == 200, r.text
        assert r.json() == _cli_json(command, "3x3k3", *argv, "--db", db, "--json",
                                     capsys=capsys)


def test_every_tictactoe_position_over_http(client: Client, db: str) -> None:
    """Every reachable tic-tac-toe board, as the player sees it: the HTTP answer equals the
    Python API's, and value, depth and every move's value equal the plain negamax's."""
    game = Game("3x3k3")
    canonical: dict[int, tuple[int, ...]] = {}
    for board in game.reachable():
        canonical.setdefault(game.canonical(board), board)
    assert len(canonical) == 765
    with open_tablebase(db) as tb:
        for board in canonical.values():
            text = "/".join("".join(".xo"[v] for v in board[r * 3:(r + 1) * 3]) for r in range(3))
            data = client.get("/api/3x3k3", params={"board": text}).json()
            probe, moves = tb.probe("3x3k3", text), tb.moves("3x3k3", text)
            assert (data["value"], data["depth"], data["to_move"], data["ply"],
                    data["terminal"]) == (probe.value.word, probe.depth, probe.to_move,
                                          probe.ply, probe.terminal)
            assert data["moves"] == [{"move": m.move, "value": m.value.word, "depth": m.depth,
                                      "best": m.best} for m in moves]
            value, depth = game.solve(board)
            assert (data["value"], data["depth"]) == (WORDS[value], depth)
            by_name = {m["move"]: m for m in data["moves"]}
            legal = game.moves(board) if game.terminal_value(board) is None else []
            assert len(by_name) == len(legal)
            for cell in legal:
                v, d = game.solve(game.child(board, cell))
                name = "abc"[cell % 3] + str(3 - cell // 3)
                assert (by_name[name]["value"], by_name[name]["depth"]) == (WORDS[-v], d)


def test_stats_count_the_stored_rows(client: Client, db: str) -> None:
    for spec in ("3x3k3", "4x3k3", "3x3k3+misere"):
        r = client.get(f"/api/{spec}/stats")
        assert r.status_code == 200
        data = r.json()
        rows = _stored(db, spec).values()
        assert data["spec"] == spec and data["positions"] == len(rows)
        # The raw rows counted once (not once a ply and value: 4x3k3's are many).
        by_ply = Counter((p, val) for p, val, _ in rows)
        by_depth = Counter((val, d) for _, val, d in rows)
        by_value = Counter(val for _, val, _ in rows)
        for entry in data["per_ply"]:
            for v, word in WORDS.items():
                assert entry[word] == by_ply[entry["ply"], v]
        assert len(data["per_ply"]) == max(p for p, _, _ in rows) + 1
        for v, word in WORDS.items():
            counts = data["depth"][word]
            assert sum(counts) == by_value[v]
            for depth, n in enumerate(counts):
                assert n == by_depth[v, depth]
    # Facts: tic-tac-toe holds 765 positions up to symmetry; its empty board is a draw.
    ttt = client.get("/api/3x3k3/stats").json()
    assert ttt["positions"] == 765 and ttt["per_ply"][0] == {"ply": 0, "win": 0, "draw": 1,
                                                              "loss": 0}


def test_bulk_probe_equals_one_by_one(client: Client, db: str) -> None:
    """A batch of 8,000 boards met in random 4x3k3 games, as played, equals the raw stored rows
    found through tests/reference.py's own canonical code, and the one-by-one answers; the
    boards come back in the order and orientation sent."""
    game = Game("4x3k3")
    rows = _stored(db, "4x3k3")
    rng, boards = random.Random(11), []
    while len(boards) < 8000:
        board = tuple([0] * game.n)
        while True:
            boards.append(board)
            if game.terminal_value(board) is not None:
                break
            board = game.child(board, rng.choice(game.moves(board)))
    boards = boards[:8000]
    texts = ["/".join("".join(".xo"[v] for v in b[r * 4:(r + 1) * 4]) for r in range(3))
             for b in boards]
    # Other spellings parse_board accepts: upper case, one string without '/', spaces around.
    texts[0], texts[1], texts[2] = texts[0].upper(), texts[1].replace("/", ""), f" {texts[2]} "
    r = client.post("/api/4x3k3/probe", json=texts)
    assert r.status_code == 200, r.text
    answers = r.json()
    assert len(answers) == len(texts)
    for i, (board, text, got) in enumerate(zip(boards, texts, answers)):
        if i < 200:  # the same object as one position's answer, without its moves and table
            single = client.get("/api/4x3k3", params={"board": text.strip()}).json()
            del single["moves"], single["table"]
            assert got == single
        ply, value, depth = rows[game.canonical(board)]
        assert (got["ply"], got["value"], got["depth"]) == (ply, WORDS[value], depth)
        assert got["ply"] == game.stones(board) and got["terminal"] == (depth == 0)
        assert got["to_move"] == "xo"[ply % 2]
        assert got["board"] == "/".join("".join(".xo"[v] for v in board[r * 4:(r + 1) * 4])
                                        for r in range(3))
    with open_tablebase(db) as tb:
        from tablebase.builder.games.grid.boards import parse_board
        from tablebase.query.shapes import probe_json
        for text, got in zip(texts[:50], answers[:50]):
            board = parse_board(tb.spec("4x3k3"), text)
            assert got == probe_json(tb.spec("4x3k3"), board, tb.probe("4x3k3", board))
    assert client.post("/api/4x3k3/probe", json=[]).json() == []


# --- errors -------------------------------------------------------------------------------

@pytest.mark.parametrize(("spec", "title", "drops", "stones", "squares"), [
    ("tictactoe", "tic-tac-toe", False, 0, False),
    ("3x3k3+misere", "tic-tac-toe misère", False, 0, False),
    ("7x6k4+gravity", "Connect Four 7x6", True, 0, False),
    ("15x15k5", "Gomoku 15x15", False, 0, False),
    ("teeko", "Teeko", False, 4, True),
    ("3x3k3+stones3+jump", "tic-tac-toe, 3 jumping stones", False, 3, False),
    ("4x4k3+exact", "4x4k3+exact", False, 0, False),
])
def test_layout_is_what_the_page_draws_from(client: Client, spec: str, title: str,
                                            drops: bool, stones: int, squares: bool) -> None:
    """Any spec, a table or not: the page reads no spec grammar of its own."""
    got = client.get(f"/api/{spec}/layout")
    assert got.status_code == 200, got.text
    data = got.json()
    size = spec.split("k")[0].split("x") if spec[0].isdigit() else None
    if size is not None:
        assert (data["width"], data["height"]) == (int(size[0]), int(size[1]))
        assert data["cells"] == data["width"] * data["height"]
    assert (data["title"], data["drops"], data["stones_each"], data["squares"]) == \
        (title, drops, stones, squares)
    assert data["exact"] == ("exact" in spec)
    # The lines the page finds a win on: every one of k cells (squares: 4, closed), ends on
    # the board only under +exact.
    lines = data["lines"]
    assert lines and all(len(line["cells"]) == (4 if line["closed"] else data["k"])
                         for line in lines)
    assert any(line["closed"] for line in lines) == squares
    assert all(0 <= c < data["cells"] for line in lines for c in line["cells"])
    assert any(e >= 0 for line in lines for e in line["ends"]) == data["exact"]
    # Every point named and placed, in cell order, within the drawing; the start's text.
    points = data["points"]
    assert len(points) == data["cells"] and len({p["name"] for p in points}) == data["cells"]
    assert all(0 <= p["x"] < data["width"] and 0 <= p["y"] < data["height"] for p in points)
    assert data["start"].replace("/", "") == "." * data["cells"]  # every stone still to place
    if spec == "tictactoe":
        assert (points[0], points[5], points[8]) == ({"name": "a3", "x": 0, "y": 0},
                                                     {"name": "c2", "x": 2, "y": 1},
                                                     {"name": "c1", "x": 2, "y": 2})
        assert data["start"] == ".../.../..."
        assert sorted(sorted(line["cells"]) for line in lines) == [
            [0, 1, 2], [0, 3, 6], [0, 4, 8], [1, 4, 7], [2, 4, 6], [2, 5, 8], [3, 4, 5], [6, 7, 8]]
    _error(client.get("/api/9x9k12/layout"), 400, "k=12")
    _error(client.get("/api/3x3k3/layout?board=x"), 400, "unknown parameter")


def test_bad_input_is_400(client: Client) -> None:
    _error(client.get("/api/3x3k3", params={"board": "xx./.../..."}), 400,
           "impossible stone counts: 2 x and 0 o")
    _error(client.get("/api/3x3k3", params={"board": "x\n/.../..."}), 400, "board")
    _error(client.get("/api/3x3k3/line", params={"moves": "b2 b2"}), 400, "move 2 of 'b2 b2'")
    _error(client.get("/api/3x3k3", params={"moves": "z9"}), 400, "move 1")
    _error(client.get("/api/5x5k9"), 400, "k=9 is larger than both sides")
    _error(client.get("/api/3x3k3", params={"bord": "..."}), 400, "unknown parameter 'bord'")
    _error(client.post("/api/3x3k3/probe", content=b"[1,"), 400, "the body is not JSON")
    _error(client.post("/api/3x3k3/probe", json={"boards": []}), 400, "found an object")
    _error(client.post("/api/3x3k3/probe", json=[".........", 7]), 400,
           "board 2 of 2: expected board text or moves, found a number")
    _error(client.post("/api/3x3k3/probe", json=[".........", "xxx/ooo/..."]), 400,
           "board 2 of 2: position 'xxx/ooo/...' (3x3k3): both x and o have a line")
    _error(client.post("/api/3x3k3/probe", json=["x?./.../..."]), 400,
           "board 1 of 1: board 'x?./.../...': unknown character '?'")


def test_not_held_is_404_with_the_build_hint(db: str) -> None:
    with loop_client(make_app(db, search=None)) as client:
        _not_held(client, db)


def _not_held(client: Client, db: str) -> None:
    _error(client.get("/api/5x3k4"), 404,
           f"5x3k4 has not been built in this database; build it with: tablebase build 5x3k4"
           f" --db {db}")
    _error(client.get("/api/5x3k4/stats"), 404, "build it with: tablebase build 5x3k4")
    _error(client.post("/api/5x3k4/probe", json=["...../...../....."]), 404, "5x3k4")
    # Every rule holds, but no game reaches it (tests/test_tablebase.py shows why).
    _error(client.get("/api/4x3k3", params={"board": "xxxo/oxo./xxoo"}), 404,
           "cannot be reached from the empty board")
    _error(client.post("/api/4x3k3/probe", json=["..../..../....", "xxxo/oxo./xxoo"]), 404,
           "board 2 of 2: position 'xxxo/oxo./xxoo' (4x3k3) cannot be reached")
    _error(client.get("/no/such/page"), 404, "no such page: /no/such/page")


def test_wrong_method_is_405(client: Client) -> None:
    r = client.put("/api/3x3k3/probe", json=[])
    _error(r, 405, "method PUT is not allowed on /api/3x3k3/probe")
    assert r.headers["allow"] == "POST"
    _error(client.post("/api/3x3k3", json=[]), 405, "method POST")
    _error(client.delete("/api/games"), 405, "method DELETE")


def test_oversized_is_413(client: Client) -> None:
    _error(client.post("/api/3x3k3/probe", json=["........."] * (MAX_BATCH + 1)), 413,
           f"{MAX_BATCH + 1:,} boards in one request; at most {MAX_BATCH:,}")
    assert client.post("/api/3x3k3/probe", json=["........."] * MAX_BATCH).status_code == 200
    _error(client.post("/api/3x3k3/probe", content=b" " * (MAX_BODY_BYTES + 1)), 413,
           f"at most {MAX_BODY_BYTES:,} are accepted")

    def chunked() -> Iterator[bytes]:  # no Content-Length: the limit holds while reading
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b" " * 65536
    _error(client.post("/api/3x3k3/probe", content=chunked()), 413, "the body is over")
    _error(client.get("/api/3x3k3", params={"moves": "b2 " * MAX_QUERY_CHARS}), 413,
           f"at most {MAX_QUERY_CHARS:,} are accepted")


# --- headers ------------------------------------------------------------------------------

def test_answers_are_cacheable_by_the_table_checksum(client: Client, db: str) -> None:
    checksum = game_row(db, "3x3k3")["checksum"]
    assert re.fullmatch(r"[0-9a-f]{16}", str(checksum))
    for r in (client.get("/api/3x3k3"), client.get("/api/tictactoe/line?moves=a1"),
              client.get("/api/3x3k3/stats"), client.post("/api/3x3k3/probe", json=["........."])):
        assert r.status_code == 200
        assert r.headers["etag"] == f'"{checksum}"'
        assert r.headers["cache-control"] == "public, max-age=86400"
        assert r.headers["access-control-allow-origin"] == "*"
    again = client.get("/api/3x3k3", headers={"If-None-Match": f'"{checksum}"'})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/api/3x3k3", headers={"If-None-Match": '"other"'}).status_code == 200
    other = game_row(db, "4x3k3")["checksum"]
    assert client.get("/api/4x3k3").headers["etag"] == f'"{other}"' != f'"{checksum}"'


def test_preflight_allows_any_origin(client: Client) -> None:
    r = client.options("/api/3x3k3/probe", headers={
        "Origin": "http://elsewhere.example", "Access-Control-Request-Method": "POST"})
    assert r.status_code == 204
    assert r.headers["access-control-allow-origin"] == "*"
    assert "POST" in r.headers["access-control-allow-methods"]


def test_the_page_and_its_files_are_served(client: Client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text):
        r = client.get(src)
        assert r.status_code == 200 and r.content, src
    # Nothing fetched from elsewhere: no CDN, no internet at run time.
    for path in ("/", "/static/app.js", "/static/style.css"):
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", client.get(path).text)


def test_the_page_knows_every_layout_of_a_game_given_as_a_class() -> None:
    """The page opens a class's own page for exactly the layouts db/facts.py lists."""
    from tablebase.db.facts import GAME_LAYOUTS
    text = (Path(__file__).resolve().parents[1] / "query" / "server" / "static"
            / "app.js").read_text()
    found = re.search(r"const CLASS_LAYOUTS = \[([^\]]*)\]", text)
    assert found is not None
    assert sorted(re.findall(r'"([^"]+)"', found.group(1))) == sorted(GAME_LAYOUTS)


def test_endgame_tables_are_served_the_same_way(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A 7x6 Connect Four endgame (42 cells: no whole-board table can exist) over HTTP."""
    from tests.reference import play
    db = str(tmp_path / "end.db")
    spec = "7x6k4+gravity"
    moves = "c1 c2 d1 c3 c4 d2 f1 e1 e2 d3 e3 d4 d5 c5 d6 c6 e4 e5 e6 g1 g2 b1 b2 b3 b4 g3"
    assert main(["build", spec, "--moves", moves, "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    game = Game(spec)
    board = play(game, moves + " a1")
    text = "/".join("".join(".xo"[v] for v in board[r * 7:(r + 1) * 7]) for r in range(6))
    with loop_client(make_app(db, search=None)) as c:
        games = c.get("/api/games").json()
        assert len(games) == 1
        assert games[0]["root"] is not None and len(games[0]["checksum"]) == 16
        answer = c.get(f"/api/{spec}", params={"board": text})
        assert answer.status_code == 200
        value, depth = game.solve(board)
        data = answer.json()
        assert (data["value"], data["depth"]) == ({1: "win", 0: "draw", -1: "loss"}[value], depth)
        assert answer.headers["etag"] == f'"{games[0]["checksum"]}"'
        assert c.get(f"/api/{spec}/line", params={"board": text}).status_code == 200
        batch = c.post(f"/api/{spec}/probe", json=[text, games[0]["root"]])
        assert batch.status_code == 200 and batch.json()[0]["depth"] == depth
        stats = c.get(f"/api/{spec}/stats", params={"root": games[0]["root"]})
        assert stats.status_code == 200
        _error(c.get(f"/api/{spec}/stats"), 404, "no whole-board table")
        _error(c.get(f"/api/{spec}"), 404, "too far from the end for a table here")
        near = play(game, "e1 d1 e2 d2 d3 b1 e3 e4 c1 d4 c2 d5 c3 c4 e5 d6 c5 e6 c6 f1 a1 a2")
        near_text = "/".join("".join(".xo"[v] for v in near[r * 7:(r + 1) * 7]) for r in range(6))
        _error(c.get(f"/api/{spec}", params={"board": near_text}), 404,
               "build an endgame table from it: tablebase build")
