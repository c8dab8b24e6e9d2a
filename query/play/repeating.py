"""Smallest winning strategies where positions repeat (stones that move, `+stonesN`): the same
sizes as strategy.py's, over a graph with cycles, so by Knuth's generalisation of Dijkstra's
algorithm instead of a recursion (D. E. Knuth, "A generalization of Dijkstra's algorithm",
Information Processing Letters 6(1), 1977).

The graph is every position the winner S reaches from the root keeping a win (any win, not
only the fastest) against every reply. Its sizes are the least solution of

    size(P) = 1                                      P finished
    size(P) = 1 + min over S's winning moves m        size(P after m)
    size(P) = 1 + sum over every opponent move m      size(P after m)

Both right-hand sides exceed each size they are made of (Knuth's "superior" functions), so
settling positions smallest first, as Dijkstra settles distances, finds that least solution:
a position is settled when it comes off the queue, S's positions go on the queue with 1 + their
smallest settled child, and the opponent's once every child is settled. A position on a cycle
that S cannot leave towards a win is never settled (it has no finite strategy), but every
position S wins has one: a move to a shorter win, then every reply, and so on. Along the
chosen moves sizes fall strictly, so the strategy is a finite tree even where the game loops.

A draw by endless play has no such tree: neither side can force the game to end, so no finite
strategy proves it (find_strategy refuses it). Sizes are keyed by the table's canonical code.

Since the winner may take any win, slow ones too, the graph is much of the region the winner
wins, which in a large game (Teeko: millions of positions) is far too much to read a position at
a time: past `limit` positions the search stops with StrategyTooLargeError.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from tablebase.builder.games.grid import Spec, Value
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.move import Move
from tablebase.builder.games.registry import grid_game
from tablebase.query import turns
from tablebase.query.play.strategy_sizes import EXPLORE_LIMIT, StrategyTooLargeError, settle
from tablebase.query.play.strategy_tree import StrategyTree

if TYPE_CHECKING:
    from tablebase.query.tablebase import Tablebase

class RepeatingStrategy(StrategyTree):
    """The smallest winning strategy for `side` ('x' or 'o') from `board` (a position where
    stones move, won for `side`). Use `find_strategy`.

    `nodes` is its size, `positions` the distinct positions in it, `depth` its longest path in
    plies, `first_move` the side's first move (`b2` or `a1-b2`) when it is to move at the root.
    Among equally small choices the first move in the rules' order is taken.
    """

    def __init__(self, tb: Tablebase, spec: Spec, board: tuple[int, ...], side: str,
                 progress: Callable[[int], None] | None = None,
                 limit: int = EXPLORE_LIMIT) -> None:
        super().__init__(tb, spec, board, side, Value.WIN)
        self._limit = limit
        self._sizes = settle(*self._explore(progress))
        self.nodes = self._size(board)
        self.positions, self.depth = self._shape()
        first = self.children(board) if self._mover(board) == self._player else []
        self.first_move = grid_game(spec).name(first[0]) if first else None

    def _key(self, position: tuple[int, ...]) -> int:
        return grid_game(self.spec).canonical_code(position)

    def _size(self, position: tuple[int, ...]) -> int:
        return self._sizes[self._key(position)]

    def _explore(self, progress: Callable[[int], None] | None
                 ) -> tuple[dict[int, bool], dict[int, list[int]]]:
        """Every position of the graph by key: whether S is to move there, and its children's
        keys (one per move: S's winning moves, or every move of the opponent)."""
        mine: dict[int, bool] = {}
        children: dict[int, list[int]] = {}
        stack = [self.board]
        while stack:
            position = stack.pop()
            key = self._key(position)
            if key in children:
                continue
            if len(children) >= self._limit:
                raise StrategyTooLargeError(
                    f"the smallest strategy for {self.side} from"
                    f" {board_text(self.spec, self.board)!r} ({self.spec.name}) would search"
                    f" more than {self._limit:,} positions: the winner may take any win, slow"
                    " ones too, and here they reach that far (a larger limit takes longer)")
            ours = self._mover(position) == self._player
            # A move's value is for its maker: S keeps a win; the opponent's replies all lose,
            # so there every move is taken without reading its value (half the table reads).
            if ours:
                moves = [turns.of(m) for m in self.tb.moves(self.spec, position)
                         if m.value == Value.WIN]
            else:
                moves = grid_game(self.spec).legal(position)
            reached = [grid_game(self.spec).played(position, m) for m in moves]
            mine[key], children[key] = ours, [self._key(p) for p in reached]
            stack.extend(reached)
            if progress is not None:
                progress(1)
        return mine, children

    def choice(self, board: tuple[int, ...]) -> Move:
        """The side's move at one of its turns in this strategy: the smallest subtree among
        its winning moves, the first in the rules' order among equals."""
        target = self._size(board) - 1
        for move in grid_game(self.spec).legal(board):
            if self._sizes.get(self._key(grid_game(self.spec).played(board, move))) == target:
                return move
        raise AssertionError("a node of a winning strategy always has a move keeping the win")

    def children(self, board: tuple[int, ...]) -> list[Move]:
        """The moves a node of this strategy has: one at the side's turns, all at the
        opponent's, none when the game is over."""
        moves = grid_game(self.spec).legal(board)
        if not moves or self._mover(board) != self._player:
            return moves
        return [self.choice(board)]

    def _moves(self, board: tuple[int, ...]) -> list[Move]:
        return self.children(board)

    def edges(self) -> Iterator[tuple[tuple[int, ...], Move, tuple[int, ...]]]:
        """Every (position, move, child position) of the strategy's graph, each position once."""
        return self._edges()
