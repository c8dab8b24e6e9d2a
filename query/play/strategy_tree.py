"""What every smallest strategy shows, whichever programme found it (strategy.py where games
end, repeating.py where positions repeat, game_strategy.py for a game class): its shape, its tree,
its edges and its Graphviz graph.
A strategy for side S is a tree of positions: one move at S's turns, every move at the
opponent's, finished games at the leaves; positions are walked as they are reached from the
root (the game's turns: builder/games/grid/game.py), never as their canonical images.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from tablebase.builder.games.grid import O, Spec, Value, X
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.move import Move
from tablebase.builder.games.registry import grid_game

if TYPE_CHECKING:
    from tablebase.query.tablebase import Tablebase

N = TypeVar("N", bound=Hashable)  # a node of a strategy: a board, or a game class's position
M = TypeVar("M")                  # a move


class StrategyWalk(Generic[N, M]):
    """The walks every smallest strategy shares, whatever its game: its shape, its tree, its
    edges and its Graphviz graph, from `root` through `_moves` (the moves a node of the
    strategy has: one at the side's turns, all at the opponent's) and the hooks below, which
    say what a node and a move look like. `side` and `goal` (for the side) name it."""

    side: str
    goal: Value
    node_key = "board"  # what `tree` calls a node's text

    @property
    def root(self) -> N:
        """The node the strategy starts from."""
        raise NotImplementedError

    def _moves(self, node: N) -> list[M]:
        """The moves a node of the strategy has (see `children`)."""
        raise NotImplementedError

    def _child(self, node: N, move: M) -> N:
        raise NotImplementedError

    def _text(self, node: N) -> str:
        raise NotImplementedError

    def _move_text(self, move: M) -> str:
        raise NotImplementedError

    def _turn(self, node: N) -> str:
        """Who moves at `node`, as the side is named."""
        raise NotImplementedError

    def _finished(self, node: N) -> bool:
        raise NotImplementedError

    def _title(self) -> str:
        """The game's name, as the Graphviz graph's title shows it."""
        raise NotImplementedError

    def _shape(self) -> tuple[int, int]:
        """(distinct nodes, longest path in plies), walking the strategy's graph once (a tree's
        graph: no node is its own descendant)."""
        longest: dict[N, int] = {}
        # An explicit stack: (node, whether its children are done).
        stack: list[tuple[N, bool]] = [(self.root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                longest[node] = max((1 + longest[self._child(node, m)]
                                     for m in self._moves(node)), default=0)
                continue
            if node in longest:
                continue
            longest[node] = -1  # on the stack: its children are being done
            stack.append((node, True))
            for move in self._moves(node):
                child = self._child(node, move)
                if child not in longest:
                    stack.append((child, False))
        return len(longest), longest[self.root]

    # --- exports -------------------------------------------------------------------------

    def tree(self) -> dict[str, Any]:
        """The strategy as nested `{"board", "to_move", "children": {MOVE: node}}` (a game
        class's: "position" for "board"); leaves have empty `children`. It has `nodes` nodes:
        mind the size before asking."""
        def node(at: N) -> dict[str, Any]:
            return {self.node_key: self._text(at), "to_move": self._turn(at),
                    "children": {self._move_text(m): node(self._child(at, m))
                                 for m in self._moves(at)}}
        return node(self.root)

    def _edges(self) -> Iterator[tuple[N, M, N]]:
        """Every (node, move, child node) of the strategy's graph, each node once."""
        seen = {self.root}
        stack = [self.root]
        while stack:
            node = stack.pop()
            for move in self._moves(node):
                child = self._child(node, move)
                yield node, move, child
                if child not in seen:
                    seen.add(child)
                    stack.append(child)

    def dot(self) -> str:
        """The strategy as a Graphviz digraph, each position once; the side's moves are bold."""
        ids: dict[N, str] = {}
        lines = [f'digraph "{self.side} {self.goal.word} strategy {self._title()}" {{',
                 '  node [shape=box, fontname="monospace"];']

        def name(node: N) -> str:
            if node not in ids:
                ids[node] = f"p{len(ids)}"
                label = self._text(node).replace("\\", "\\\\").replace('"', '\\"')
                label = label.replace("/", "\\n")
                lines.append(f'  {ids[node]} [label="{label}"'
                             f'{", peripheries=2" if self._finished(node) else ""}];')
            return ids[node]
        name(self.root)
        for node, move, child in self._edges():
            a, b = name(node), name(child)
            bold = ", style=bold" if self._turn(node) == self.side else ""
            label = self._move_text(move).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'  {a} -> {b} [label="{label}"{bold}];')
        lines.append("}")
        return "\n".join(lines) + "\n"


class StrategyTree(StrategyWalk[tuple[int, ...], Move]):
    """What every smallest strategy of tablebase's own games shows (boards of cell values,
    moves of builder/games/grid/game.py): `nodes`, `positions`, `depth`, `first_move`, and the walks."""

    nodes: int
    positions: int
    depth: int
    first_move: str | None

    def __init__(self, tb: Tablebase, spec: Spec, board: tuple[int, ...], side: str,
                 goal: Value) -> None:
        self.tb, self.spec, self.board, self.side, self.goal = tb, spec, board, side, goal
        self._player = X if side == "x" else O

    @property
    def root(self) -> tuple[int, ...]:
        return self.board

    def _mover(self, board: tuple[int, ...]) -> int:
        return grid_game(self.spec).mover(board)

    @property
    def to_move(self) -> str:
        """The side to move at the root, 'x' or 'o'."""
        return grid_game(self.spec).side(self.board)

    def _child(self, node: tuple[int, ...], move: Move) -> tuple[int, ...]:
        return grid_game(self.spec).played(node, move)

    def _text(self, node: tuple[int, ...]) -> str:
        return board_text(self.spec, node)

    def _move_text(self, move: Move) -> str:
        return grid_game(self.spec).name(move)

    def _turn(self, node: tuple[int, ...]) -> str:
        return grid_game(self.spec).side(node)

    def _finished(self, node: tuple[int, ...]) -> bool:
        return not grid_game(self.spec).legal(node)

    def _title(self) -> str:
        return self.spec.name
