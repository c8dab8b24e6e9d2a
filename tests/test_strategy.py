"""Smallest strategies against a plain recursion written here over tests/reference.py's own
board code and negamax, and every exported tree checked to be a real strategy."""
from __future__ import annotations

import json
import random
from collections.abc import Callable
from functools import lru_cache

import pytest

from tablebase.query import open_tablebase
from tablebase.query.cli import main
from tablebase.query.play.strategy import NoStrategyError, find_strategy
from tablebase.query.shapes import strategy_json
from tests.reference import DRAW, WIN, Game

CHARS = {".": 0, "x": 1, "o": 2}


@lru_cache(maxsize=None)
def _game(spec: str) -> Game:
    """One reference Game per spec for the module, so its negamax is solved once."""
    return Game(spec)


def _value_for(game: Game, board: tuple[int, ...], side: int) -> int:
    """The reference value of `board` for `side` (1 x, 2 o)."""
    value, _ = game.solve(board)
    mover = 1 if game.stones(board) % 2 == 0 else 2
    return value if mover == side else -value


def reference_size(game: Game, side: int, goal: int) -> Callable[[tuple[int, ...]], int]:
    """size(board): nodes of the smallest strategy for `side` keeping `goal`, by plain recursion."""
    @lru_cache(maxsize=None)
    def size(board: tuple[int, ...]) -> int:
        moves = game.moves(board)
        if not moves:
            return 1
        mover = 1 if game.stones(board) % 2 == 0 else 2
        children = [game.child(board, m) for m in moves]
        if mover == side:
            # The other side moves at each child: the child's value for `side` is minus the
            # value the negamax gives its mover (what _value_for says, without recounting).
            return 1 + min(size(c) for c in children if -game.solve(c)[0] >= goal)
        return 1 + sum(size(c) for c in children)
    return size


def _board(text: str) -> tuple[int, ...]:
    return tuple(CHARS[ch] for ch in text.replace("/", ""))


def check_tree(game: Game, data: dict) -> None:
    """Assert the exported tree is a strategy for data['side'] keeping data['goal'], with
    `nodes` nodes, `positions` distinct boards and a longest path of `depth` plies."""
    side = 1 if data["side"] == "x" else 2
    goal = WIN if data["goal"] == "win" else DRAW
    seen: set[tuple[int, ...]] = set()

    def walk(node: dict, board: tuple[int, ...]) -> tuple[int, int]:
        assert _board(node["board"]) == board
        assert node["to_move"] == ("x" if game.stones(board) % 2 == 0 else "o")
        assert _value_for(game, board, side) >= goal  # every node keeps the goal
        seen.add(board)
        legal = game.moves(board)
        children = node["children"]
        if not legal:
            assert children == {}  # a leaf is exactly a finished game
            assert _value_for(game, board, side) >= goal
            return 1, 0
        names = {f"{'abcdefghij'[c % game.w]}{game.h - c // game.w}": c for c in legal}
        mover = 1 if game.stones(board) % 2 == 0 else 2
        if mover == side:
            assert len(children) == 1 and set(children) <= set(names)
        else:
            assert set(children) == set(names)  # every reply of the opponent
        count, longest = 1, 0
        for move, child in children.items():
            n, d = walk(child, game.child(board, names[move]))
            count, longest = count + n, max(longest, d + 1)
        return count, longest

    count, longest = walk(data["tree"], _board(data["board"]))
    assert count == data["nodes"]
    assert len(seen) == data["positions"]
    assert longest == data["depth"]


@pytest.mark.parametrize("spec", ["3x3k3", "3x3k3+misere",
                                  pytest.param("4x3k3", marks=pytest.mark.slow)])
def test_sizes_from_the_empty_board_equal_a_plain_recursion(
        spec: str, table_db: Callable[[str], str]) -> None:
    game = _game(spec)
    empty = tuple([0] * game.n)
    with open_tablebase(table_db(spec)) as tb:
        found = find_strategy(tb, spec, empty)
        for s in found:
            side = 1 if s.side == "x" else 2
            goal = WIN if s.goal.word == "win" else DRAW
            assert _value_for(game, empty, side) == goal
            assert s.nodes == reference_size(game, side, goal)(empty)
            check_tree(game, strategy_json(s))
    value = game.solve(empty)[0]
    # Both sides of a draw, only the winner of a win.
    assert [s.side for s in found] == (["x", "o"] if value == DRAW else ["x"])


def test_won_positions_in_the_middle_of_tictactoe(table_db: Callable[[str], str]) -> None:
    game = _game("3x3k3")
    won = sorted(b for b in game.reachable() if game.moves(b) and game.solve(b)[0] != DRAW)
    picked = random.Random(7).sample(won, 60)
    sizes = {}
    with open_tablebase(table_db("3x3k3")) as tb:
        for board in picked:
            mover = 1 if game.stones(board) % 2 == 0 else 2
            winner = mover if game.solve(board)[0] == WIN else 3 - mover
            (s,) = find_strategy(tb, "3x3k3", board)
            assert s.side == "xo"[winner - 1] and s.goal.word == "win"
            assert s.nodes == reference_size(game, winner, WIN)(board)
            check_tree(game, strategy_json(s))
            sizes[board] = s.nodes
            # The loser has none.
            with pytest.raises(NoStrategyError, match="is a loss for"):
                find_strategy(tb, "3x3k3", board, "xo"[2 - winner])
    assert len(set(sizes.values())) > 5  # the sample is not all alike


def test_drawn_positions_for_each_side(table_db: Callable[[str], str]) -> None:
    game = _game("3x3k3+misere")
    drawn = sorted(b for b in game.reachable() if game.moves(b) and game.solve(b)[0] == DRAW)
    with open_tablebase(table_db("3x3k3+misere")) as tb:
        for board in random.Random(3).sample(drawn, 30):
            for s in find_strategy(tb, "3x3k3+misere", board):
                side = 1 if s.side == "x" else 2
                assert s.nodes == reference_size(game, side, DRAW)(board)
                check_tree(game, strategy_json(s))


def test_the_smallest_win_may_be_a_slower_one(table_db: Callable[[str], str]) -> None:
    # 4x3k3 after d1 c2: x wins, but a tree through x's fastest wins only has 104 nodes, and
    # the smallest, which takes a slower win somewhere, has 50.
    #   3 | . . . .
    #   2 | . . o .
    #   1 | . . . x
    game = _game("4x3k3")
    board = _board("..../..o./...x")

    @lru_cache(maxsize=None)
    def fastest_only(board: tuple[int, ...]) -> int:
        moves = game.moves(board)
        if not moves:
            return 1
        children = [game.child(board, m) for m in moves]
        if game.stones(board) % 2 == 0:
            best = game.solve(board)
            keep = [c for c in children if (-game.solve(c)[0], game.solve(c)[1] + 1) == best]
            return 1 + min(fastest_only(c) for c in keep)
        return 1 + sum(fastest_only(c) for c in children)

    with open_tablebase(table_db("4x3k3")) as tb:
        (s,) = find_strategy(tb, "4x3k3", board)
    assert s.side == "x" and s.goal.word == "win"
    assert s.nodes == reference_size(game, 1, WIN)(board) < fastest_only(board)
    check_tree(game, strategy_json(s))


def test_cli_text_json_dot_and_errors(table_db: Callable[[str], str], tmp_path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    db = table_db("3x3k3")
    game = _game("3x3k3")
    empty = tuple([0] * 9)
    x_size = reference_size(game, 1, DRAW)(empty)
    o_size = reference_size(game, 2, DRAW)(empty)
    assert main(["strategy", "tictactoe", "--db", db, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"x's smallest strategy for at least a draw: {x_size:,} nodes" in out
    assert f"o's smallest strategy for at least a draw: {o_size:,} nodes" in out

    assert main(["strategy", "tictactoe", "--db", db, "--side", "o", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["side"] == "o" and data["nodes"] == o_size and data["first_move"] is None
    check_tree(game, data)
    assert main(["strategy", "tictactoe", "--db", db, "--json", "--max-nodes", "10"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert [d["side"] for d in both] == ["x", "o"] and all("tree" not in d for d in both)

    dot = tmp_path / "x.dot"
    assert main(["strategy", "tictactoe", "--db", db, "--side", "x", "--dot", str(dot)]) == 0
    text = dot.read_text()
    labels = [line for line in text.splitlines() if "[label=" in line and "->" not in line]
    edges = [line for line in text.splitlines() if "->" in line]
    assert text.startswith("digraph") and text.rstrip().endswith("}")
    assert len(labels) == data_positions(db, "x") and len(edges) >= len(labels) - 1
    capsys.readouterr()

    # After b2 b3 (o on an edge) x wins: o has no strategy.
    assert main(["strategy", "tictactoe", "--moves", "b2 b3", "--side", "o", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablebase: error: o has no strategy") and err.count("\n") == 1
    assert main(["strategy", "tictactoe", "--db", db, "--dot", str(dot)]) == 2
    assert "--side" in capsys.readouterr().err


def data_positions(db: str, side: str) -> int:
    """The distinct positions of tic-tac-toe's smallest draw strategy for `side`, via JSON."""
    with open_tablebase(db) as tb:
        (s,) = find_strategy(tb, "3x3k3", (0,) * 9, side)
        return s.positions


def test_an_endgame_table(tmp_path) -> None:
    # An endgame table of 4x4k4 rooted after eight stones, with no symmetry left: the
    # strategies from its root and from positions along a random game in it (down to the
    # finished game, a single node) equal the plain recursion.
    #   4 | . . o .
    #   3 | . x o .
    #   2 | . o x x
    #   1 | x . . o
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.pipeline import build

    game = _game("4x4k4")
    root = _board("..o./.xo./.oxx/x..o")
    db = str(tmp_path / "endgame.db")
    build(parse_spec("4x4k4"), db, root=root)
    rng = random.Random(1)
    with open_tablebase(db) as tb:
        boards = [root]
        board = root
        while game.moves(board):
            board = game.child(board, rng.choice(game.moves(board)))
            boards.append(board)
        sizes = []
        for board in boards:
            for s in find_strategy(tb, "4x4k4", board):
                side = 1 if s.side == "x" else 2
                goal = WIN if s.goal.word == "win" else DRAW
                assert _value_for(game, board, side) == goal
                assert s.nodes == reference_size(game, side, goal)(board)
                check_tree(game, strategy_json(s))
                sizes.append(s.nodes)
    assert sizes[-1] == 1 and max(sizes) > 50
