"""The HTTP API on a game whose stones move (3x3k3+stones3: three stones each, placed, then
stepped to a neighbouring cell), through httpx on the app (tests/loop_client.py): every
reachable position checked against the rules written again here (moves, the end of the game,
and the retrograde conditions a solved loopy game must meet), the steps `a1-b2` with their two
cells, `"depth": null` for a draw by endless play, a drawn line that stops where a position
repeats, the shapes shared with the CLI's --json, and the one-line errors."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest

pytest.importorskip("httpx", reason="httpx (the test extra) sends the requests")

from httpx import Client  # noqa: E402

from tablebase.query.cli import main  # noqa: E402
from tablebase.query.server.app import make_app  # noqa: E402
from tests.conftest import stored_rows  # noqa: E402
from tests.loop_client import loop_client  # noqa: E402
from tests.test_server import _error  # noqa: E402

SPEC = "3x3k3+stones3"
N = 3  # stones a side
# The rules, plainly: cells 0..8 row-major from the top-left; a line is 3 in a row.
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
Position = tuple[str, str]  # nine characters of 'x', 'o', '.', and the side to move
Move = tuple[int | None, int]  # (from, to); from None: a placement


def _name(cell: int) -> str:
    return "abc"[cell % 3] + str(3 - cell // 3)


def _move_name(move: Move) -> str:
    start, to = move
    return _name(to) if start is None else f"{_name(start)}-{_name(to)}"


def _legal(position: Position) -> list[Move]:
    board, side = position
    if board.count(side) < N:
        return [(None, c) for c in range(9) if board[c] == "."]
    return [(a, b) for a in range(9) if board[a] == side for b in range(9)
            if board[b] == "." and a != b and abs(a // 3 - b // 3) <= 1 and abs(a % 3 - b % 3) <= 1]


def _after(position: Position, move: Move) -> Position:
    board, side = position
    cells = list(board)
    if move[0] is not None:
        cells[move[0]] = "."
    cells[move[1]] = side
    return "".join(cells), "o" if side == "x" else "x"


def _over(position: Position) -> bool:
    """The side to move has lost: the other made a line, or it has no move."""
    board, side = position
    other = "o" if side == "x" else "x"
    return any(all(board[c] == other for c in line) for line in LINES) or not _legal(position)


def _text(position: Position) -> str:
    """Board text, with the side once every stone is down (the stones no longer say it)."""
    board, side = position
    rows = "/".join(board[r:r + 3] for r in (0, 3, 6))
    return f"{rows} {side}" if board.count(".") == 9 - 2 * N else rows


def _reachable() -> list[Position]:
    start: Position = ("." * 9, "x")
    seen, todo = {start}, [start]
    while todo:
        position = todo.pop()
        if _over(position):
            continue
        for move in _legal(position):
            child = _after(position, move)
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return sorted(seen)


@pytest.fixture(scope="module")
def db(table_db: Callable[[str], str]) -> str:
    return table_db(SPEC)


@pytest.fixture(scope="module")
def client(db: str) -> Iterator[Client]:
    with loop_client(make_app(db)) as c:
        yield c


@pytest.fixture(scope="module")
def answers(client: Client) -> dict[Position, dict[str, object]]:
    """Every reachable position's `probe` object, in one batch."""
    positions = _reachable()
    r = client.post(f"/api/{SPEC}/probe", json=[_text(p) for p in positions])
    assert r.status_code == 200, r.text
    found = dict(zip(positions, r.json()))
    for position, data in found.items():
        assert data["board"] == _text(position) and data["to_move"] == position[1]
    return found


def test_a_batch_takes_move_lists_as_every_game_s_does(client: Client,
                                                       answers: dict[Position, dict[str, object]]
                                                       ) -> None:
    """Placements and a step as moves, each answered as its board text is in the batch."""
    lists = ["b2 a1", "b2 a1 c3 a3 a2 c1", "b2 a1 c3 a3 a2 c1 b2-b1"]
    r = client.post(f"/api/{SPEC}/probe", json=lists)
    assert r.status_code == 200, r.text
    by_text = {_text(p): data for p, data in answers.items()}
    got = r.json()
    assert [d["board"] for d in got] == [".../.x./o..", "o.x/xx./o.o x", "o.x/x../oxo o"]
    assert got == [by_text[d["board"]] for d in got]


def _score(value: str, depth: int | None) -> tuple[int, int]:
    """Order of outcomes for the side they belong to: a faster win, a slower loss is better."""
    assert (depth is None) == (value == "draw")
    return {"win": (2, -(depth or 0)), "draw": (1, 0), "loss": (0, depth or 0)}[value]


def test_every_position_meets_the_retrograde_conditions(
        client: Client, answers: dict[Position, dict[str, object]]) -> None:
    """Values and depths of every reachable position, as the batch gives them, are the only
    labelling that meets the conditions of a solved game whose positions repeat: a loss at 0
    where the game is over; a win where some move leaves the other side lost (depth: the
    fastest such, + 1); a loss where every move leaves it won (the slowest, + 1); else a draw
    by endless play, with no depth. Decided values lean on shallower ones down to the ends,
    so nothing else meets them."""
    game = next(g for g in client.get("/api/games").json() if g["spec"] == SPEC)
    assert len(answers) == game["reachable"]  # the table's count, by its own enumeration
    values = {"win": 0, "draw": 0, "loss": 0}
    for position, data in answers.items():
        values[str(data["value"])] += 1
        if _over(position):
            assert (data["value"], data["depth"], data["terminal"]) == ("loss", 0, True), position
            continue
        children = [answers[_after(position, m)] for m in _legal(position)]
        lost = [int(str(c["depth"])) for c in children if c["value"] == "loss"]
        expected: tuple[str, int | None] = ("draw", None)
        if lost:
            expected = ("win", 1 + min(lost))
        elif all(c["value"] == "win" for c in children):
            expected = ("loss", 1 + max(int(str(c["depth"])) for c in children))
        assert (data["value"], data["depth"], data["terminal"]) == (*expected, False), position
    assert min(values.values()) > 0  # all three occur
    assert answers[("." * 9, "x")]["depth"] is None  # the empty board: a draw, so no depth


def test_moves_lists(client: Client, answers: dict[Position, dict[str, object]]) -> None:
    """A sixth of the positions' moves over HTTP (every one of them takes a minute): exactly
    the legal ones, placements by their cell and steps `a1-b2`, with their two cells; each
    valued as its child is (for the player making it), best first, the best marked; the
    position's own value that of its best move."""
    for position, probe in list(answers.items())[::6]:
        data = client.get(f"/api/{SPEC}", params={"board": _text(position)}).json()
        assert {k: data[k] for k in probe} == probe
        legal = {_move_name(m): m for m in _legal(position)} if not _over(position) else {}
        assert sorted(m["move"] for m in data["moves"]) == sorted(legal)
        scores = []
        for m in data["moves"]:
            start, to = legal[m["move"]]
            assert (m["from"], m["to"]) == (None if start is None else _name(start), _name(to))
            child = answers[_after(position, (start, to))]
            flip = {"win": "loss", "loss": "win", "draw": "draw"}[str(child["value"])]
            assert (m["value"], m["depth"]) == (flip, child["depth"])
            scores.append(_score(m["value"], m["depth"]))
        assert scores == sorted(scores, reverse=True)
        assert [m["best"] for m in data["moves"]] == [s == max(scores) for s in scores]
        if scores:
            best = data["moves"][0]
            assert data["value"] == best["value"]
            assert data["depth"] == (None if best["depth"] is None else best["depth"] + 1)


def test_lines_stop_at_the_end_or_where_a_position_repeats(
        client: Client, answers: dict[Position, dict[str, object]]) -> None:
    """A perfect line follows best moves; a decided one runs to the end (`repeats` false,
    as long as the depth), a drawn one until its last position came back (`repeats` true)."""
    by_text = {_text(p): p for p in answers}
    best_moves: dict[Position, dict[str, object]] = {}  # the lines cross: half the steps repeat

    def best_move(position: Position) -> dict[str, object]:
        if position not in best_moves:
            best_moves[position] = client.get(
                f"/api/{SPEC}", params={"board": _text(position)}).json()["moves"][0]
        return best_moves[position]

    drawn = decided = 0
    for position in list(answers)[::37]:
        data = client.get(f"/api/{SPEC}/line", params={"board": _text(position)}).json()
        seen, current = [position], position
        for step in data["line"]:
            best = best_move(current)
            assert (step["move"], step["value"], step["depth"]) == (
                best["move"], best["value"], best["depth"])
            current = by_text[step["board"]]
            assert step["player"] == seen[-1][1]
            seen.append(current)
        if answers[position]["value"] == "draw":
            drawn += 1
            assert data["repeats"] is True and data["depth"] is None
            assert seen[-1] in seen[:-1] and len(set(seen)) == len(seen) - 1
            assert all(s["depth"] is None for s in data["line"])
        else:
            decided += 1
            assert data["repeats"] is False and _over(seen[-1])
            assert len(data["line"]) == data["depth"]
    assert drawn and decided


@pytest.mark.parametrize("argv, query", [
    ([], ""),
    (["xo./.xo/x.o o"], "?board=xo./.xo/x.o+o"),
    (["--moves", "b2 a1 c3 a3 a2 c1 b2-b1"], "?moves=b2+a1+c3+a3+a2+c1+b2-b1"),
    (["..x/x.o/oxo x", "--moves", "a2-b2"], "?board=..x/x.o/oxo%20x&moves=a2-b2"),
    (["xxx/oo./o.. o"], "?board=xxx/oo./o..+o"),  # over: no moves
])
def test_position_and_line_are_the_cli_objects(client: Client, db: str, argv: list[str],
                                               query: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    for command, path in (("moves", ""), ("line", "/line")):
        r = client.get(f"/api/{SPEC}{path}{query}")
        assert r.status_code == 200, r.text
        assert main([command, SPEC, *argv, "--db", db, "--json"]) == 0
        assert r.json() == json.loads(capsys.readouterr().out)


def test_stats_and_games_say_the_side_and_no_depth_for_draws(client: Client, db: str) -> None:
    """Counts by ply as stored: the movement phase is two stored plies of 2N stones, x then o
    to move; draws have no depth; the game's root depth is null for its drawn empty board."""
    rows = stored_rows(db, SPEC).values()
    data = client.get(f"/api/{SPEC}/stats").json()
    assert data["positions"] == len(rows)
    for stored, entry in enumerate(data["per_ply"]):
        assert (entry["ply"], entry["to_move"]) == (min(stored, 2 * N), "xo"[stored % 2])
        for v, word in ((1, "win"), (0, "draw"), (-1, "loss")):
            assert entry[word] == sum(1 for p, val, _ in rows if p == stored and val == v)
    assert [e["ply"] for e in data["per_ply"]][-2:] == [2 * N, 2 * N]
    assert data["depth"]["draw"] is None
    for v, word in ((1, "win"), (-1, "loss")):
        assert sum(data["depth"][word]) == sum(1 for _, val, _ in rows if val == v)
        for depth, n in enumerate(data["depth"][word]):
            assert n == sum(1 for _, val, d in rows if val == v and d == depth)
    game = next(g for g in client.get("/api/games").json() if g["spec"] == SPEC)
    assert (game["root_value"], game["root_depth"]) == ("draw", None)
    assert [(e["ply"], e["to_move"]) for e in game["per_ply"]] == [
        (e["ply"], e["to_move"]) for e in data["per_ply"]]


def test_bad_positions_and_steps_are_one_line_400s(client: Client) -> None:
    api = f"/api/{SPEC}"
    _error(client.get(api, params={"board": "xo./.xo/x.o"}), 400,
           "the stones do not say whose turn it is: add ' x' or ' o' after the board")
    _error(client.get(api, params={"board": "xo./.xo/x.o q"}), 400, "add ' x' or ' o'")
    _error(client.get(api, params={"board": "xo./.xo/x.o o c1-a2"}), 400,  # board, then moves
           "a2 is not next to c1")
    _error(client.get(api, params={"board": "xo./.xo/x.o o", "moves": "c1-a2"}), 400,
           "move 1 of 'c1-a2': move 'c1-a2': a2 is not next to c1")
    _error(client.get(api, params={"board": "xo./.xo/x.o o", "moves": "a1-b1"}), 400,
           "a1 holds no stone of o (x's stone)")
    _error(client.get(api, params={"board": "xo./.xo/x.o o", "moves": "b3-c2"}), 400,
           "c2 is occupied")
    _error(client.get(api, params={"board": "xo./.xo/x.o o", "moves": "c3"}), 400,
           "every stone is down, so o moves one: write FROM-TO")
    _error(client.get(f"{api}/line", params={"moves": "b2 a1-a2"}), 400,
           "o still has stones to place; write the cell")
    _error(client.post(f"{api}/probe", json=[".../.../...", "xo./.xo/x.o"]), 400,
           "board 2 of 2: every stone of 3x3k3+stones3 is down")
    _error(client.post(f"{api}/probe", json=[7]), 400, "board 1 of 1: expected board text")


def test_search_is_refused_in_one_line(db: str) -> None:
    """A game whose stones move that no table holds: search does not take it (400, before any
    search thread), or with --no-search, 404 with the build command. (A game no test builds:
    the session's shared database holds whatever other test files built in this worker.)"""
    for search, status in ((2.0, 400), (None, 404)):
        with loop_client(make_app(db, search=search)) as c:
            hint = "search does not take such games" if search else "build it with"
            _error(c.get("/api/5x3k3+stones3"), status, hint)
    with loop_client(make_app(db)) as c:
        _error(c.get("/api/5x3k3+stones3/line"), 404, "build it with: tablebase build 5x3k3+stones3")
        _error(c.post("/api/5x3k3+stones3/probe", json=["...../...../....."]), 404,
               "5x3k3+stones3 has not been built in this database; build it with")


def test_endgame_tables_answer_and_say_what_they_lack(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Only an endgame table of the game: its positions answered, one by one in a batch; the
    empty board is in no table (404 naming them, search or not: search does not take it)."""
    db = str(tmp_path / "end.db")
    root = "..x/x.o/oxo x"
    assert main(["build", SPEC, "--from", root, "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    after = _after((root.replace("/", "")[:9], "x"), (3, 4))  # a2-b2
    for search in (2.0, None):
        with loop_client(make_app(db, search=search)) as c:
            games = c.get("/api/games").json()
            assert [g["root"] for g in games] == [root]
            data = c.get(f"/api/{SPEC}", params={"board": root}).json()
            assert data["table"] == root
            step = next(m for m in data["moves"] if m["move"] == "a2-b2")
            batch = c.post(f"/api/{SPEC}/probe", json=[root, _text(after)]).json()
            assert [b["board"] for b in batch] == [root, _text(after)]
            flip = {"win": "loss", "loss": "win", "draw": "draw"}[batch[1]["value"]]
            assert (step["value"], step["depth"]) == (flip, batch[1]["depth"])
            assert batch[0]["value"] == data["value"] and batch[0]["depth"] == data["depth"]
            _error(c.get(f"/api/{SPEC}"), 404, "is in none of its 1 endgame tables")
