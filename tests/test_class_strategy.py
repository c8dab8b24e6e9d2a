"""Strategies, graded moves and the GTP engine of games given as Python classes
(query/play/game_strategy.py, game_classes.py, game_gtp.py), each checked against what the test
works out itself from the class's own `moves` and `outcome`: a strategy is walked (one move of
the class's at the side's turns, every move of the class's at the opponent's, every leaf a
finished game the side wins or, for a draw, does not lose) and its size equals the smallest
one found by plain recursion (tic-tac-toe) or by plain iteration to a fixed point (graphs
whose positions repeat)."""
from __future__ import annotations

import math
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tablebase.builder.games.user.adapter import ClassGame
from tablebase.builder.games.values import Value
from tablebase.builder.graph_build import build_game
from tablebase.db.store import open_store
from tablebase.query.cli import main
from tablebase.query.game_answers import GameAnswers
from tablebase.query.play.game_strategy import (
    GameStrategy,
    find_game_strategy,
    game_strategy_json,
)
from tablebase.query.play.strategy_sizes import NoStrategyError, StrategyTooLargeError
from tablebase.query.tablebase import open_tablebase
from tests.class_games.clobber import Clobber3x4
from tests.class_games.graphs import Graph7, RandomGraph
from tests.class_games.tictactoe import PlainTicTacToe
from tests.class_games.ttt_inf import TicTacToeInfinite
from tests.reference_games import solve

HERE = Path(__file__).resolve().parent
GAMES = HERE / "class_games"
TTT = f"{GAMES / 'tictactoe.py'}:TicTacToe"
PLAIN = f"{GAMES / 'tictactoe.py'}:PlainTicTacToe"
INF = f"{GAMES / 'ttt_inf.py'}:TicTacToeInfinite"
CLOBBER = f"{GAMES / 'clobber.py'}:Clobber3x4"
GRAPH7 = f"{GAMES / 'graphs.py'}:Graph7"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("strategy") / "classes.db")
    for spec in (TTT, PLAIN, INF, CLOBBER, GRAPH7):
        assert main(["build", spec, "--db", path, "--quiet"]) == 0
    return path


def _finished(game: Any, position: Hashable) -> int | None:
    """The value for the side to move where the game is over (no moves and no outcome: lost)."""
    outcome = game.outcome(position)
    if outcome is not None:
        return int(outcome)
    return None if game.moves(position) else -1


def check_walk(game: Any, s: GameStrategy) -> None:
    """Walk the strategy from its root, checking every node against the class itself; for a
    tree, its size, distinct positions and longest path too."""
    goal = int(s.goal)
    sizes: dict[Any, tuple[int, int]] = {}  # a tree's node: (size, longest path)
    seen: set[Any] = set()
    stack = [s.root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        position, ours = node
        kids = s.children(node)
        over = _finished(game, position)
        if over is not None:
            assert kids == []
            assert (over if ours else -over) >= goal, game.text(position)
            continue
        moves = dict(game.moves(position))
        if ours:
            assert len(kids) == 1 and kids[0][0] in moves
        else:
            assert sorted(name for name, _ in kids) == sorted(moves)
        for name, (child, child_ours) in kids:
            assert child == moves[name] and child_ours is not ours
            stack.append((child, child_ours))
    if not s.is_tree:
        assert s.positions == len(seen) and s.depth is None
        return

    def tree(node: Any) -> tuple[int, int]:
        if node not in sizes:
            below = [tree(child) for _, child in s.children(node)]
            sizes[node] = (1 + sum(n for n, _ in below), max((1 + d for _, d in below), default=0))
        return sizes[node]
    assert tree(s.root) == (s.nodes, s.depth)
    assert s.positions == len(seen)


def least_sizes(game: Any, root: Hashable, ours: bool, goal: int) -> dict[Any, float]:
    """The smallest finite strategy tree from every node reachable from (root, ours), where
    the side is `ours` at the root: plain iteration to a fixed point from infinity (after k
    rounds, the smallest tree of at most k plies), over every move of either side; a leaf
    counts where the side gets at least `goal`. math.inf where no finite tree exists."""
    nodes: dict[Any, list[Any]] = {}
    stack = [(root, ours)]
    while stack:
        node = stack.pop()
        if node not in nodes:
            position, mine = node
            over = _finished(game, position)
            nodes[node] = [] if over is not None else [(c, not mine) for _, c in game.moves(position)]
            stack.extend(nodes[node])
    size: dict[Any, float] = dict.fromkeys(nodes, math.inf)
    for (position, mine), kids in nodes.items():
        if not kids:
            over = _finished(game, position) or 0
            size[(position, mine)] = 1 if (over if mine else -over) >= goal else math.inf
    changed = True
    while changed:
        changed = False
        for node, kids in nodes.items():
            if kids:
                below = [size[k] for k in kids]
                new = 1 + (min(below) if node[1] else sum(below))
                if new < size[node]:
                    size[node], changed = new, True
    return size


@contextmanager
def answers_of(db: str, spec: str) -> Iterator[GameAnswers]:
    with open_tablebase(db) as tb:
        yield tb.game(spec)


# Tic-tac-toe positions (x moves first; the start first) and each side's smallest strategy,
# by plain recursion.
POSITIONS = [".../.../... x", "x../.../... o", "x../.o./... x", "xx./oo./... x", ".o./.x./... x",
             "x.o/.x./... o", "xo./.../... x"]


@pytest.mark.parametrize("spec", [TTT, PLAIN])
def test_tictactoe_sizes_equal_plain_recursion(db: str, spec: str) -> None:
    game = PlainTicTacToe()

    @cache
    def smallest(position: tuple[str, str], ours: bool, goal: int) -> float:
        over = _finished(game, position)
        if over is not None:
            return 1 if (over if ours else -over) >= goal else math.inf
        below = [smallest(child, not ours, goal) for _, child in game.moves(position)]
        return 1 + (min(below) if ours else sum(below))

    truth = solve(game)
    with answers_of(db, spec) as answers:
        # The start, a draw, with no position and no side given: a strategy for each side,
        # x first (the default sides), checked as every other one below.
        start = find_game_strategy(answers)
        assert [(s.side, s.goal.word) for s in start] == [("x", "draw"), ("o", "draw")]
        for text in POSITIONS:
            position = game.read(text)
            for side, ours in (("x", True), ("o", False)):
                value = truth[position][0] * (1 if ours else -1)
                if value < 0:
                    with pytest.raises(NoStrategyError, match="is a loss for"):
                        find_game_strategy(answers, text, side)
                    continue
                if text == POSITIONS[0]:
                    s = start[0 if ours else 1]
                else:
                    [s] = find_game_strategy(answers, text, side)
                assert (s.goal, s.is_tree) == (Value(value), True)
                assert s.nodes == smallest(position, ours, value), (text, side)
                check_walk(answers.game, s)
    assert smallest(game.start(), True, 0) == 182 and smallest(game.start(), False, 0) == 1280


def test_the_default_sides(db: str) -> None:
    # At the start, a draw: both sides, x first (test_tictactoe_sizes_equal_plain_recursion,
    # which checks those two strategies too). Here a win: the winner's alone.
    with answers_of(db, PLAIN) as answers:
        assert [s.side for s in find_game_strategy(answers, "xx./oo./x.. o")] == ["x"]
        assert [s.side for s in find_game_strategy(answers, "xx./oo./... x")] == ["x"]
        with pytest.raises(NoStrategyError, match="a side is x"):
            find_game_strategy(answers, None, "black")


@pytest.mark.parametrize("seed", range(12))
def test_graphs_equal_plain_iteration(tmp_path: Path, seed: int) -> None:
    """Every position of a random graph that repeats, each side: a tree of the least size
    where one exists, a graph keeping the draw where none does, no strategy for a loss."""
    instance = RandomGraph(seed)
    game = ClassGame(instance, "RandomGraph", f"graphs.py:RandomGraph({seed})")
    build_game(game, str(tmp_path / "g.db"))
    truth = solve(instance)
    store = open_store(str(tmp_path / "g.db"))
    answers = GameAnswers(game, store)
    kinds = set()
    try:
        for position, (value, _) in truth.items():
            for side, ours in (("x", True), ("o", False)):
                mine = value if ours else -value
                if mine < 0:
                    with pytest.raises(NoStrategyError):
                        find_game_strategy(answers, instance.text(position), side)
                    continue
                [s] = find_game_strategy(answers, instance.text(position), side)
                least = least_sizes(instance, position, ours, mine)[(position, ours)]
                assert s.nodes == (None if least == math.inf else least), (seed, position, side)
                assert mine == 0 or s.is_tree  # every win has a finite tree
                check_walk(instance, s)
                kinds.add(s.is_tree)
    finally:
        answers.close()
        store.close()
    if seed in (7, 8, 11):
        assert kinds == {True, False}  # these graphs have draws no finite tree proves


def test_infinite_tictactoe_win_and_clobber(db: str) -> None:
    with answers_of(db, INF) as answers:
        [s] = find_game_strategy(answers)
        assert (s.side, s.goal.word, s.nodes, s.depth, s.first_move) == ("x", "win", 256, 13, "b3")
        check_walk(TicTacToeInfinite(), s)
        with pytest.raises(StrategyTooLargeError, match="more than 50 positions"):
            find_game_strategy(answers, limit=50)
    with answers_of(db, CLOBBER) as answers:
        [s] = find_game_strategy(answers)
        assert (s.side, s.goal.word, s.first_move) == ("o", "win", None)
        check_walk(Clobber3x4(), s)


def test_json_tree_graph_and_dot(db: str) -> None:
    with answers_of(db, GRAPH7) as answers:
        for s in find_game_strategy(answers):
            data = game_strategy_json(s, 1000)
            assert (data["position"], data["side"], data["nodes"]) == ("n0", s.side, s.nodes)
            assert "tree" in data and data["tree"]["position"] == "n0"
            assert "tree" not in game_strategy_json(s, 1)
    graph = Graph7()
    endless = sorted(p for p, (value, depth) in solve(graph).items() if depth is None)
    with answers_of(db, GRAPH7) as answers:
        s = find_game_strategy(answers, graph.text(endless[0]), "x")[0]
        data = game_strategy_json(s, 1000)
        assert data["nodes"] is None and data["depth"] is None and "tree" not in data
        assert [n["id"] for n in data["graph"]] == list(range(s.positions))
        dot = s.dot()
        assert dot.startswith('digraph "x draw strategy random-graph-7-60"')
        assert dot.count("->") == sum(len(n["children"]) for n in data["graph"])


def test_strategy_command(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["strategy", PLAIN, "--db", db, "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        ".../.../... x  (class-tictactoe-plain; x is the side to move, o the other)",
        "x, the side to move: smallest strategy for at least a draw, 182 nodes, 153 distinct"
        " positions, longest path 9 plies; first move a3",
        "o, the other side: smallest strategy for at least a draw, 1,280 nodes, 571 distinct"
        " positions, longest path 9 plies; the opponent moves first"]
    dot = tmp_path / "s.dot"
    assert main(["strategy", TTT, "xx./oo./... x", "--side", "x", "--dot", str(dot), "--json",
                 "--db", db]) == 0
    data = capsys.readouterr().out
    assert '"first_move": "c3"' in data and '"nodes": 2' in data
    assert dot.read_text().count("->") == 1


@pytest.mark.parametrize("args, message", [
    (["xx./oo./... x", "--side", "o"], "o (the side not to move) has no strategy from"
     " 'xx./oo./... x' (class-tictactoe-plain): the position is a loss for o"),
    (["xx/oo x"], "class-tictactoe-plain: cannot read 'xx/oo x'"),
    (["--moves", "b2 z9"], "class-tictactoe-plain: 'z9' at '.../.x./... o': the moves here are"),
    (["x.o/.x./... o", "--dot", "x.dot"], "--dot writes one strategy and the position is a draw"),
])
def test_strategy_errors_are_one_line(db: str, args: list[str], message: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["strategy", PLAIN, *args, "--db", db, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_a_strategy_past_the_limit_is_one_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["strategy", INF, "--max-explored", "100", "--db", db, "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "tablebase: error: the strategy for x from '.../.../...' (ttt-inf) would search more"
        " than 100 positions (a larger limit takes longer)\n")
