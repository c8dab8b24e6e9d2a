"""Smallest strategies: the fewest-node proof tree that guarantees one side a win or a draw,
found by dynamic programming over the values stored in a table (no search).

A strategy for side S with goal G (win, or at least a draw) is a tree rooted at the position:
at S's turns a node has exactly one child, a move that keeps G; at the opponent's turns it has
a child for every legal move; its leaves are finished games. Its size is its number of nodes
(a position reached along two paths counts twice; the root and the leaves count):

    size(P) = 1                                    P finished
    size(P) = 1 + min over S's moves m keeping G   size(P after m)
    size(P) = 1 + sum over every opponent move m   size(P after m)

Every node of any strategy for G has a value of at least G for S (else the opponent could
steer below G from there), so restricting S's moves to those that keep G loses nothing; at
the opponent's turns every child of such a node keeps G too. Sizes are exact Python ints:
they pass 2**63 on bigger boards. Sizes are memoised by canonical code, since a symmetry
maps strategies onto strategies of the same size. A bound prunes the recursion without
changing what it computes: a size is worked out exactly only up to a limit (the best
alternative found so far), and beyond it a lower bound is kept for later visits.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tablebase.builder.games.grid import Spec, Value, canonical_board, legal_moves
from tablebase.builder.games.grid.boards import place
from tablebase.builder.games.grid.notation import board_text, move_name
from tablebase.builder.games.move import Move, placements
from tablebase.builder.games.registry import grid_game
from tablebase.query.answer_records import known_depth
from tablebase.query.play.repeating import RepeatingStrategy
from tablebase.query.play.strategy_sizes import EXPLORE_LIMIT, NoStrategyError
from tablebase.query.play.strategy_tree import StrategyTree
from tablebase.query.tablebase import Position, Tablebase

SIDES = ("x", "o")


# A child as the programme keeps it: canonical code, board, value for the side to move there,
# depth. Boards are kept as reached from the starting position, never as their canonical
# images: a reached board is always in the table, which for an endgame table need not hold
# every image of it.
_Child = tuple[int, tuple[int, ...], Value, int]


@dataclass
class _Memo:
    """What the dynamic programme learns, keyed by canonical code: each position's value for
    its side to move, its children, the exact size of the smallest strategy from it where
    known, and otherwise the best lower bound on that size found so far."""

    value: dict[int, Value] = field(default_factory=dict)
    children: dict[int, list[_Child]] = field(default_factory=dict)
    exact: dict[int, int] = field(default_factory=dict)
    lower: dict[int, int] = field(default_factory=dict)


class Strategy(StrategyTree):
    """The smallest strategy for `side` ('x' or 'o') from `board`, with goal `goal`
    (Value.WIN or Value.DRAW, for `side`). Use `find_strategy`.

    `nodes` is its size, `positions` the distinct boards in it, `depth` its longest path in
    plies, `first_move` the side's first move when it is to move at the root (else None).
    Among equally small choices the first move in cell order is taken, so the tree is fixed.
    """

    def __init__(self, tb: Tablebase, spec: Spec, board: tuple[int, ...], side: str,
                 goal: Value, memo: _Memo, progress: Callable[[int], None] | None) -> None:
        super().__init__(tb, spec, board, side, goal)
        self._memo = memo
        self._progress = progress
        self.nodes = self._exact(board)
        self.positions, self.depth = self._shape()
        first = self.children(board) if self._mover(board) == self._player else []
        self.first_move = move_name(spec, first[0]) if first else None

    # --- the dynamic programme ----------------------------------------------------------

    def _keeps(self, value_for_side: Value) -> bool:
        return value_for_side >= self.goal

    def _children(self, code: int, board: tuple[int, ...]) -> list[_Child]:
        """The children of a board (whose canonical code is `code`), read from the table once."""
        found = self._memo.children.get(code)
        if found is None:
            found = []
            for m in self.tb.moves(self.spec, board):
                child = canonical_board(self.spec, place(board, m.cell))
                # A move's value is for its maker; the child's is for the side to move there.
                self._memo.value[child] = Value(-m.value)
                found.append((child, place(board, m.cell), Value(-m.value), known_depth(m.depth)))
            self._memo.children[code] = found
            if self._progress is not None:
                self._progress(1)
        return found

    def _size(self, code: int, board: tuple[int, ...], limit: float) -> int:
        """The size of the smallest strategy from `board` (canonical code `code`) if it is at most
        `limit`; otherwise some lower bound on it, which exceeds `limit`.

        The bound prunes: at the side's turns a move whose subtree cannot beat the best so far
        is abandoned as soon as its partial sum passes it, and what was learnt is kept as a
        lower bound. Results within the limit are exact, so the sizes are those of the plain
        recursion in the module docstring.
        """
        known = self._memo.exact.get(code)
        if known is not None:
            return known
        low = self._memo.lower.get(code, 1)
        if low > limit:
            return low
        children = self._children(code, board)
        if not children:
            self._memo.exact[code] = 1
            return 1
        if self._mover(board) == self._player:
            # The side's value at a child is the negation of the child's value; keep the goal.
            keeping = [c for c in children if self._keeps(Value(-c[2]))]
            # Likely small subtrees first (the side winning, then the shortest), to prune early.
            keeping.sort(key=lambda c: (c[2], c[3]))
            best: int | None = None
            bound = math.inf
            for child, child_board, _, _ in keeping:
                budget = (limit if best is None else best - 1) - 1
                size = self._size(child, child_board, budget)
                if size <= budget:
                    best = 1 + size
                else:
                    bound = min(bound, 1 + size)
            if best is not None:
                self._memo.exact[code] = best
                return best
            # Every move's subtree passed the limit: the smallest of their bounds bounds this.
            self._memo.lower[code] = int(bound)
            return int(bound)
        total = 1
        for child, child_board, _, _ in children:
            budget = limit - total
            size = self._size(child, child_board, budget)
            total += size
            if size > budget:
                self._memo.lower[code] = total
                return total
        self._memo.exact[code] = total
        return total

    def _exact(self, board: tuple[int, ...]) -> int:
        return self._size(canonical_board(self.spec, board), board, math.inf)

    def choice(self, board: tuple[int, ...]) -> int:
        """The side's move (a cell) at one of its turns in this strategy: the smallest subtree
        among the moves that keep the goal, the first in cell order among equals."""
        target = self._exact(board) - 1
        for cell in legal_moves(self.spec, board):
            child = place(board, cell)
            code = canonical_board(self.spec, child)
            if (self._keeps(Value(-self._memo.value[code]))
                    and self._size(code, child, target) == target):
                return cell
        raise AssertionError("a node of a strategy always has a move keeping the goal")

    def children(self, board: tuple[int, ...]) -> list[int]:
        """The moves (cells) a node of this strategy has: one at the side's turns, all at the
        opponent's, none when the game is over."""
        moves = legal_moves(self.spec, board)
        if not moves or self._mover(board) != self._player:
            return moves
        return [self.choice(board)]

    def _moves(self, board: tuple[int, ...]) -> list[Move]:
        return placements(self.children(board))

    def edges(self) -> Iterator[tuple[tuple[int, ...], int, tuple[int, ...]]]:
        """Every (board, move cell, child board) of the strategy's graph, each position once."""
        for board, move, child in self._edges():
            yield board, move.cell, child


def find_strategy(tb: Tablebase, spec: str | Spec, position: Position, side: str | None = None,
                  *, progress: Callable[[int], None] | None = None,
                  limit: int = EXPLORE_LIMIT) -> list[StrategyTree]:
    """The smallest strategies from `position`: for `side` ('x' or 'o') if given, else for
    the winner, or for both sides (x first) when the position is a draw.

    The goal is a win when the side wins from the position, at least a draw when it is a
    draw; raises NoStrategyError when it is a loss for `side`, and where stones move
    (`+stonesN`) when it is a draw: a draw by endless play, which no finite strategy proves
    (wins there are found by repeating.py, which raises StrategyTooLargeError past `limit`
    positions). `progress(n)` is called as positions are solved.
    """
    spec = tb.spec(spec)
    board = tb.read_board(spec, position)
    probe = tb.probe(spec, board)
    if side is not None and side not in SIDES:
        raise NoStrategyError(f"a side is x or o, found {side!r}")
    # The position's value for x: x wins it when positive, o when negative.
    for_x = probe.value if probe.to_move == "x" else Value(-probe.value)
    if side is None:
        sides = list(SIDES) if for_x == Value.DRAW else ["x" if for_x == Value.WIN else "o"]
    else:
        sides = [side]
    found: list[StrategyTree] = []
    for s in sides:
        value = for_x if s == "x" else Value(-for_x)
        if value == Value.LOSS:
            raise NoStrategyError(
                f"{s} has no strategy from {board_text(spec, board)!r} ({spec.name}): the"
                f" position is a loss for {s} ({probe})")
        if value == Value.DRAW and probe.depth is None:
            raise NoStrategyError(
                f"{board_text(spec, board)!r} ({spec.name}) is a draw by endless play: no"
                " finite strategy proves it, since neither side can force the game to end")
        found.append(RepeatingStrategy(tb, spec, board, s, progress, limit)
                     if grid_game(spec).positions_repeat
                     else Strategy(tb, spec, board, s, value, _Memo(), progress))
    return found
