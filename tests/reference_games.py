"""A deliberately plain solver of games given as classes (docs/games.md), sharing nothing
with builder/: every position reached from the start kept in a dictionary (no symmetry), then
values and depths decided one depth at a time by the definitions themselves:

    depth 0: the game is over (the class's outcome; no move and no outcome: lost)
    win in d: not decided before, some move to a loss in d - 1
    loss in d: not decided before, every move to a win, the longest in d - 1
    draws: the rest; a finished draw has depth 0, a draw with a move to a draw of depth d - 1
           (and none shorter) depth d, any other None (endless play)
"""
from __future__ import annotations

from collections.abc import Hashable
from typing import Any


def reachable(game: Any, start: Hashable | None = None) -> dict[Hashable, list[Hashable]]:
    """Every position reached from the start (or `start`) -> its children (none where over)."""
    first = game.start() if start is None else start
    children: dict[Hashable, list[Hashable]] = {}
    todo = [first]
    while todo:
        p = todo.pop()
        if p in children:
            continue
        kids = [] if game.outcome(p) is not None else [c for _, c in game.moves(p)]
        children[p] = kids
        todo.extend(c for c in kids if c not in children)
    return children


def solve(game: Any, start: Hashable | None = None) -> dict[Hashable, tuple[int, int | None]]:
    """position -> (value for the side to move, depth or None) of every reachable position."""
    children = reachable(game, start)
    known: dict[Hashable, tuple[int, int | None]] = {}
    for p, kids in children.items():
        outcome = game.outcome(p)
        if outcome is not None:
            known[p] = (outcome, 0)
        elif not kids:
            known[p] = (-1, 0)
    depth = 1
    while True:
        found: dict[Hashable, tuple[int, int | None]] = {}
        for p, kids in children.items():
            if p in known or not kids:
                continue
            if any(known.get(c) == (-1, depth - 1) for c in kids):
                found[p] = (1, depth)
            elif all(known.get(c, (0, None))[0] == 1 for c in kids) \
                    and max(known[c][1] or 0 for c in kids) == depth - 1:
                found[p] = (-1, depth)
        if not found:  # a win or loss in d needs one in d - 1: none deeper either
            break
        known.update(found)
        depth += 1
    draws = {p for p in children if p not in known}
    tie: dict[Hashable, int] = {p: 0 for p, (v, d) in known.items() if v == 0 and d == 0}
    depth = 1
    while True:
        found_ties = {p: depth for p in draws if p not in tie
                      and any(tie.get(c) == depth - 1 for c in children[p])}
        if not found_ties:
            break
        tie.update(found_ties)
        depth += 1
    for p in draws:
        known[p] = (0, tie.get(p))
    return known
