"""What every search for a smallest strategy shares, whatever the game: the size limit and the
errors, and the sizes of a strategy over a graph whose positions may repeat, settled smallest
first by Knuth's generalisation of Dijkstra's algorithm (D. E. Knuth, "A generalization of
Dijkstra's algorithm", Information Processing Letters 6(1), 1977).

The graph's nodes are keys (any hashable values); at the side S's nodes a strategy takes one
move, at the opponent's every move. The sizes are the least solution of

    size(P) = 1                                      P finished (no children)
    size(P) = 1 + min over S's children c             size(c)
    size(P) = 1 + sum over every opponent child c     size(c)   (a child once per move)

Both right-hand sides exceed each size they are made of (Knuth's "superior" functions), so
settling nodes smallest first finds that least solution: a node is settled when it comes off
the queue, S's nodes go on the queue with 1 + their smallest settled child, the opponent's once
every child is settled. A node on a cycle that S cannot leave is never settled: it has no
finite strategy tree.
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from tablebase.query.errors import QueryError

# Positions the graph may hold before the search stops (from the empty 4x3k3+stones3 board it
# holds 3,000 to 5,000; Teeko reads about 300 a second on this machine).
EXPLORE_LIMIT = 20_000

K = TypeVar("K", bound=Hashable)


class NoStrategyError(QueryError, ValueError):
    """The side asked for has no strategy: the position is a loss for it."""


class StrategyTooLargeError(QueryError, ValueError):
    """The region a strategy is searched in is too large to search for the smallest one."""


def settle(mine: Mapping[K, bool], children: Mapping[K, Sequence[K]]) -> dict[K, int]:
    """The least sizes of the module docstring's equations, by key, for every node that has a
    finite strategy tree (the others are left out). `mine[key]` says whether S moves there;
    `children[key]` lists a child's key once per move (every node's children are keys too)."""
    parents: dict[K, list[K]] = {key: [] for key in children}
    for key, below in children.items():
        for child in below:
            parents[child].append(key)  # once per move: the opponent's sum counts each
    waiting = {key: len(below) for key, below in children.items()}
    total = dict.fromkeys(children, 1)
    offered: dict[K, float] = {}
    # The counter breaks ties between equal sizes without comparing keys of any type.
    queue: list[tuple[int, int, K]] = [(1, i, key) for i, (key, below)
                                       in enumerate(children.items()) if not below]
    heapq.heapify(queue)
    pushed = len(queue)
    settled: dict[K, int] = {}
    while queue:
        size, _, key = heapq.heappop(queue)
        if key in settled:
            continue
        settled[key] = size
        for parent in parents[key]:
            if parent in settled:
                continue
            if mine[parent]:
                if size + 1 < offered.get(parent, math.inf):
                    offered[parent] = size + 1
                    heapq.heappush(queue, (size + 1, pushed, parent))
                    pushed += 1
            else:
                total[parent] += size
                waiting[parent] -= 1
                if waiting[parent] == 0:
                    heapq.heappush(queue, (total[parent], pushed, parent))
                    pushed += 1
    return settled
