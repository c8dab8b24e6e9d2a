"""What every smallest strategy shows, whichever programme found it (strategy.py where games
end, loopy.py where positions repeat): its shape, its tree, its edges and its Graphviz graph.
A strategy for side S is a tree of positions: one move at S's turns, every move at the
opponent's, finished games at the leaves; positions are walked as they are reached from the
root (the game's turns: builder/games/grid/game.py), never as their canonical images.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tablebase.builder.games.grid import O, Spec, Value, X
from tablebase.builder.games.grid.game import Move
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.registry import grid_game

if TYPE_CHECKING:
    from tablebase.query.tablebase import Tablebase


class StrategyTree:
    """What every smallest strategy shows, whatever found it: its shape (distinct positions,
    longest path), its tree, its edges and its Graphviz graph, walked through `_moves`, the
    moves a node of the strategy has (one at the side's turns, all at the opponent's)."""

    nodes: int
    positions: int
    depth: int
    first_move: str | None

    def __init__(self, tb: Tablebase, spec: Spec, board: tuple[int, ...], side: str,
                 goal: Value) -> None:
        self.tb, self.spec, self.board, self.side, self.goal = tb, spec, board, side, goal
        self._player = X if side == "x" else O

    def _mover(self, board: tuple[int, ...]) -> int:
        return grid_game(self.spec).mover(board)

    def _moves(self, board: tuple[int, ...]) -> list[Move]:
        """The moves a node of the strategy has (see `children`)."""
        raise NotImplementedError

    @property
    def to_move(self) -> str:
        """The side to move at the root, 'x' or 'o'."""
        return grid_game(self.spec).side(self.board)

    def _shape(self) -> tuple[int, int]:
        """(distinct boards, longest path in plies), walking the strategy's graph once."""
        longest: dict[tuple[int, ...], int] = {}
        # An explicit stack: (board, whether its children are done).
        stack: list[tuple[tuple[int, ...], bool]] = [(self.board, False)]
        while stack:
            board, done = stack.pop()
            if done:
                longest[board] = max((1 + longest[grid_game(self.spec).played(board, m)]
                                      for m in self._moves(board)), default=0)
                continue
            if board in longest:
                continue
            longest[board] = -1  # on the stack: its children are being done
            stack.append((board, True))
            for move in self._moves(board):
                child = grid_game(self.spec).played(board, move)
                if child not in longest:
                    stack.append((child, False))
        return len(longest), longest[self.board]

    # --- exports -------------------------------------------------------------------------

    def tree(self) -> dict[str, Any]:
        """The strategy as nested `{"board", "to_move", "children": {MOVE: node}}`; leaves
        have empty `children`. It has `nodes` nodes: mind the size before asking."""
        spec = self.spec

        def node(board: tuple[int, ...]) -> dict[str, Any]:
            return {"board": board_text(spec, board), "to_move": grid_game(spec).side(board),
                    "children": {grid_game(spec).name(m): node(grid_game(spec).played(board, m))
                                 for m in self._moves(board)}}
        return node(self.board)

    def _edges(self) -> Iterator[tuple[tuple[int, ...], Move, tuple[int, ...]]]:
        """Every (board, move, child board) of the strategy's graph, each position once."""
        seen = {self.board}
        stack = [self.board]
        while stack:
            board = stack.pop()
            for move in self._moves(board):
                child = grid_game(self.spec).played(board, move)
                yield board, move, child
                if child not in seen:
                    seen.add(child)
                    stack.append(child)

    def dot(self) -> str:
        """The strategy as a Graphviz digraph, each position once; the side's moves are bold."""
        ids: dict[tuple[int, ...], str] = {}
        lines = [f'digraph "{self.side} {self.goal.word} strategy {self.spec.name}" {{',
                 '  node [shape=box, fontname="monospace"];']

        def name(board: tuple[int, ...]) -> str:
            if board not in ids:
                ids[board] = f"p{len(ids)}"
                label = board_text(self.spec, board).replace("/", "\\n")
                finished = not grid_game(self.spec).legal(board)
                lines.append(f'  {ids[board]} [label="{label}"'
                             f'{", peripheries=2" if finished else ""}];')
            return ids[board]
        name(self.board)
        for board, move, child in self._edges():
            a, b = name(board), name(child)
            bold = ", style=bold" if self._mover(board) == self._player else ""
            lines.append(f'  {a} -> {b} [label="{grid_game(self.spec).name(move)}"{bold}];')
        lines.append("}")
        return "\n".join(lines) + "\n"
