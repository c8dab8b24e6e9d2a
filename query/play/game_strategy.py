"""Smallest strategies of a game given as a Python class (docs/games.md), read from its stored
table: for the side that wins, a tree that guarantees the win; for a drawn position, one that
guarantees at least a draw. A class's positions may repeat, so the sizes are settled as
strategy_sizes.py settles them (Knuth), over every position the side reaches keeping its goal.

The sides are named as `tablebase play` names them: x is the side to move at the position the
strategy starts from, o the other. A node is a position with who moves there (the class's
positions say whose turn it is, but only to the class: a graph of positions need not alternate
the way the players do), and the sizes are kept by the position's stored key and that side.

Where the side can force the game to end (every win; a draw it can steer to a finished game)
the strategy is a tree, the smallest: its size in nodes, a position reached along two paths
counting twice. Where it cannot (a draw by endless play), no finite tree proves the draw; the
strategy is then a graph with cycles: at the side's turns one move keeping at least a draw, at
the opponent's every move. Any such move will do, since a position's stored value is what
perfect play keeps; the graph takes the side's moves greedily (`_choose_graph`: the fewest new
positions one reply ahead), so it is small but not always the smallest.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Any

from tablebase.builder.games.values import Value
from tablebase.query.answer_records import GameMove, GameProbe
from tablebase.query.game_answers import GameAnswers
from tablebase.query.play.strategy_sizes import (
    EXPLORE_LIMIT,
    NoStrategyError,
    StrategyTooLargeError,
    settle,
)
from tablebase.query.play.strategy_tree import StrategyWalk

SIDES = ("x", "o")
# A node: a position as the class holds it, and whether the strategy's side moves there.
Node = tuple[Hashable, bool]
# A move of the walk: its name and the node it leads to.
Step = tuple[str, Node]
# What the sizes are kept under: the position's stored key (one an orbit) and the same flag.
Key = tuple[str, bool]


class GameStrategy(StrategyWalk[Node, Step]):
    """The strategy for `side` ('x', the side to move at `position`, or 'o') with goal `goal`
    (Value.WIN or Value.DRAW, for the side) from `position`. Use `find_game_strategy`.

    `nodes` is the tree's size (None for a graph: a draw by endless play, where play may go on
    forever), `positions` the distinct positions in it, `depth` its longest path in plies
    (None for a graph), `first_move` the side's first move when it is x (else None). Among
    equally small choices the first move in the order `moves` ranks them is taken.
    """

    node_key = "position"

    def __init__(self, answers: GameAnswers, position: Hashable, side: str, goal: Value,
                 progress: Callable[[int], None] | None = None,
                 limit: int = EXPLORE_LIMIT) -> None:
        self.answers, self.position, self.side, self.goal = answers, position, side, goal
        self._limit = limit
        self._read: dict[Hashable, tuple[GameProbe, list[tuple[GameMove, Hashable]]]] = {}
        self._chosen: dict[Node, Step] = {}
        self._sizes = settle(*self._explore(progress))
        self.nodes: int | None = self._sizes.get(self._key(self.root))
        self.positions: int
        self.depth: int | None
        if self.nodes is not None:
            self.positions, self.depth = self._shape()
        else:
            if goal == Value.WIN:
                raise AssertionError("every won position has a finite winning strategy")
            self._choose_graph()
            self.positions, self.depth = len(self.graph()), None
        first = self._moves(self.root) if side == "x" else []
        self.first_move = first[0][0] if first else None

    @property
    def root(self) -> Node:
        return self.position, self.side == "x"

    @property
    def to_move(self) -> str:
        """The side to move at the root: always 'x', as the sides are named."""
        return "x"

    @property
    def is_tree(self) -> bool:
        """Whether the strategy is a finite tree (else a graph with cycles)."""
        return self.nodes is not None

    # --- reading the table ----------------------------------------------------------------

    def _moves_at(self, position: Hashable) -> tuple[GameProbe, list[tuple[GameMove, Hashable]]]:
        found = self._read.get(position)
        if found is None:
            found = self._read[position] = self.answers.scored_moves(position)
        return found

    def _key(self, node: Node) -> Key:
        return self.answers.game.key(node[0]), node[1]

    def _steps(self, node: Node) -> list[Step]:
        """The moves a strategy may take at `node`: at the side's turns those keeping the goal
        (a move's value is for its maker), at the opponent's every move; best first."""
        position, ours = node
        return [(m.move, (child, not ours)) for m, child in self._moves_at(position)[1]
                if not ours or m.value >= self.goal]

    def _explore(self, progress: Callable[[int], None] | None
                 ) -> tuple[dict[Key, bool], dict[Key, list[Key]]]:
        """Every node the side reaches keeping its goal, by key: whether the side moves there,
        and its children's keys (once a move)."""
        mine: dict[Key, bool] = {}
        children: dict[Key, list[Key]] = {}
        stack = [self.root]
        while stack:
            node = stack.pop()
            key = self._key(node)
            if key in children:
                continue
            if len(children) >= self._limit:
                raise StrategyTooLargeError(
                    f"the strategy for {self.side} from {self.answers.game.text(self.position)!r:.80}"
                    f" ({self.answers.game.name}) would search more than {self._limit:,}"
                    " positions (a larger limit takes longer)")
            steps = self._steps(node)
            mine[key], children[key] = node[1], [self._key(child) for _, child in steps]
            stack.extend(child for _, child in steps)
            if progress is not None:
                progress(1)
        return mine, children

    # --- the side's choices ---------------------------------------------------------------

    def choice(self, node: Node) -> Step:
        """The side's move at one of its nodes: the smallest subtree (the first as `moves`
        ranks them among equals); in a graph, as the module's docstring says."""
        chosen = self._chosen.get(node)
        if chosen is not None:
            return chosen
        sized = [(self._sizes[self._key(child)], i) for i, (_, child) in enumerate(self._steps(node))
                 if self._key(child) in self._sizes]
        if not sized:
            raise AssertionError("a node of a finite strategy always has a finite subtree")
        return self._steps(node)[min(sized)[1]]

    def _choose_graph(self) -> None:
        """Fix the side's move at every node of the graph with no finite tree below it,
        walking from the root breadth first (a finite subtree's moves are `choice`'s): the move
        that adds the fewest nodes not yet in the graph, looking one reply ahead, then the
        smallest finite subtree, then the first as `moves` ranks them."""
        seen = {self.root}
        order = [self.root]
        for node in order:  # grows as new nodes are met
            steps = self._steps(node)
            if node[1] and steps and self._key(node) not in self._sizes:
                def cost(i: int) -> tuple[int, float, int]:
                    child = steps[i][1]
                    new = 0 if child in seen else 1 + sum(
                        1 for _, after in self._steps(child) if after not in seen)
                    return new, self._sizes.get(self._key(child), math.inf), i
                self._chosen[node] = steps[min(range(len(steps)), key=cost)]
            for _, child in self._moves(node):
                if child not in seen:
                    seen.add(child)
                    order.append(child)

    # --- the walk's hooks -----------------------------------------------------------------

    def _moves(self, node: Node) -> list[Step]:
        steps = self._steps(node)
        if not steps or not node[1]:
            return steps
        return [self.choice(node)]

    def children(self, node: Node) -> list[Step]:
        """The moves a node of this strategy has, as (name, node after it): one at the side's
        turns, all at the opponent's, none when the game is over."""
        return self._moves(node)

    def _child(self, node: Node, move: Step) -> Node:
        return move[1]

    def _text(self, node: Node) -> str:
        return self.answers.game.text(node[0])

    def _move_text(self, move: Step) -> str:
        return move[0]

    def _turn(self, node: Node) -> str:
        return self.side if node[1] else SIDES[1 - SIDES.index(self.side)]

    def _finished(self, node: Node) -> bool:
        return not self._moves_at(node[0])[1]

    def _title(self) -> str:
        return self.answers.game.name

    def graph(self) -> list[dict[str, Any]]:
        """The strategy as a list of nodes, the root first, each `{"id", "position",
        "to_move", "children": {MOVE: id}}`: the shape of a graph with cycles."""
        ids: dict[Node, int] = {self.root: 0}
        order = [self.root]
        for node in order:  # grows as new nodes are met
            for _, child in self._moves(node):
                if child not in ids:
                    ids[child] = len(order)
                    order.append(child)
        return [{"id": ids[n], "position": self._text(n), "to_move": self._turn(n),
                 "children": {name: ids[child] for name, child in self._moves(n)}}
                for n in order]


def find_game_strategy(answers: GameAnswers, text: str | None = None, side: str | None = None,
                       *, progress: Callable[[int], None] | None = None,
                       limit: int = EXPLORE_LIMIT) -> list[GameStrategy]:
    """The smallest strategies of a game class from the position `text` names (None: the
    class's start): for `side` ('x', the side to move there, or 'o') if given, else for the
    winner, or for both sides (x first) when the position is a draw.

    The goal is a win when the side wins from the position, at least a draw when it is a
    draw. Raises NoStrategyError (a ValueError) when the position is a loss for `side`,
    StrategyTooLargeError past `limit` positions searched, and what `GameAnswers.probe`
    raises for a position the class cannot read or no table holds. `progress(n)` is called as
    positions are read.
    """
    if side is not None and side not in SIDES:
        raise NoStrategyError(f"a side is x (the side to move) or o (the other side), found"
                              f" {side!r}")
    position = answers.position(text)
    probe = answers.probe_position(position)
    if side is None:
        sides = list(SIDES) if probe.value == Value.DRAW else \
            ["x" if probe.value == Value.WIN else "o"]
    else:
        sides = [side]
    found = []
    for s in sides:
        value = probe.value if s == "x" else Value(-probe.value)
        if value == Value.LOSS:
            who = "the side to move" if s == "x" else "the side not to move"
            raise NoStrategyError(
                f"{s} ({who}) has no strategy from {probe.position!r:.80}"
                f" ({answers.game.name}): the position is a loss for {s} ({probe})")
        found.append(GameStrategy(answers, position, s, value, progress, limit))
    return found


def game_strategy_json(strategy: GameStrategy, max_nodes: int) -> dict[str, Any]:
    """The `strategy --json` object of a game class: as a grid game's (query/shapes.py's
    `strategy_json`), `position` for `board`; `tree` when it is a tree of at most `max_nodes`
    nodes, `graph` (the nodes, each once) when it is a graph of at most `max_nodes`
    positions."""
    s = strategy
    data: dict[str, Any] = {
        "spec": s.answers.game.name, "position": s.answers.game.text(s.position),
        "to_move": s.to_move, "side": s.side, "goal": s.goal.word, "nodes": s.nodes,
        "positions": s.positions, "depth": s.depth, "first_move": s.first_move}
    if s.nodes is not None and s.nodes <= max_nodes:
        data["tree"] = s.tree()
    elif s.nodes is None and s.positions <= max_nodes:
        data["graph"] = s.graph()
    return data
