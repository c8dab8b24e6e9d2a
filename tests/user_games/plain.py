"""A plain solver for user's game classes (start, moves, outcome): every reachable position's
value and depth, with dictionaries and a retrograde loop, no symmetry. For small games only; it
is the tests' and the bench's independent check of the builder, and imports nothing of ours.

The convention (the builder's, and GamesCrafters' for ties): values are for the side to move.
A position with an outcome is finished (depth 0); one with no moves and no outcome is lost
(depth 0). A win's depth is the plies to the end with the winner hurrying and the loser
delaying. A finished draw has depth 0; a drawn position from which a finished draw can be
reached through drawn positions has the plies to the nearest; any other draw is endless play,
depth None.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, Protocol

WIN, DRAW, LOSS = 1, 0, -1


class Game(Protocol):
    """The part of the user's game protocol this solver reads."""

    def start(self) -> Any: ...
    def moves(self, p: Any) -> Iterable[tuple[str, Any]]: ...
    def outcome(self, p: Any) -> int | None: ...


def reachable(game: Game) -> dict[Hashable, list[Hashable]]:
    """Every position reachable from the start, breadth first, with its children (one a move;
    none where the game is over)."""
    start = game.start()
    children: dict[Hashable, list[Hashable]] = {}
    queue = [start]
    seen = {start}
    for p in queue:
        kids = [] if game.outcome(p) is not None else [child for _, child in game.moves(p)]
        children[p] = kids
        for child in kids:
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return children


def solve(game: Game) -> dict[Hashable, tuple[int, int | None]]:
    """(value, depth) of every position reachable from `game.start()`, for the side to move:
    value 1 win, 0 draw, -1 loss; depth in plies, None for a draw by endless play."""
    children = reachable(game)
    parents: dict[Hashable, list[Hashable]] = {p: [] for p in children}
    for p, kids in children.items():
        for child in kids:
            parents[child].append(p)
    solved: dict[Hashable, tuple[int, int | None]] = {}
    draws: list[Hashable] = []
    frontier: list[Hashable] = []
    for p, kids in children.items():
        result = game.outcome(p)
        if result is None and not kids:
            result = LOSS
        if result is not None:
            solved[p] = (result, 0)
            (draws if result == DRAW else frontier).append(p)
    # Wins and losses level by level: `frontier` holds every position of depth `depth`. A parent
    # wins at its first losing child (the shortest win); it loses once its last child is found
    # winning, at the deepest of them (the loser delays). `unknown` counts unsolved moves.
    unknown = {p: len(kids) for p, kids in children.items()}
    depth = 0
    while frontier:
        following = []
        for child in frontier:
            value = solved[child][0]
            for parent in parents[child]:
                if parent in solved:
                    continue
                if value == LOSS:
                    solved[parent] = (WIN, depth + 1)
                    following.append(parent)
                elif value == WIN:
                    unknown[parent] -= 1
                    if unknown[parent] == 0:
                        solved[parent] = (LOSS, depth + 1)
                        following.append(parent)
        frontier = following
        depth += 1
    # Every other position is drawn; its depth is the distance to the nearest finished draw
    # through drawn positions, found breadth first backwards from the finished draws.
    depth = 0
    while draws:
        following = []
        for child in draws:
            for parent in parents[child]:
                if parent not in solved:
                    solved[parent] = (DRAW, depth + 1)
                    following.append(parent)
        draws = following
        depth += 1
    for p in children:
        if p not in solved:
            solved[p] = (DRAW, None)
    return solved
