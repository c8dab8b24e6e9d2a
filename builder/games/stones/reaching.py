"""Moves from the empty board that reach a position of a game whose stones move (`+stonesN`),
so that an engine can be put into it with `clear_board` and `play`: the placements, then the
steps. A search backwards from the position by un-steps (a stone of the side that moved last
goes back to a cell it could have come from) finds the nearest position with x to move and
every stone down that a placement order reaches (builder/games/grid/orders.py); almost every such
board is one (any board without a line is), so the search is short. (An audit puts an engine
into a position this way: `SteppingGame.moves_reaching`.)

    x o x                       x o .
    . . o    -- x c3-b2 -->     . x o       a target, o to move; its parent by one un-step
    x . o                       x . o       of x's has no line, so placements build it
"""
from __future__ import annotations

from collections import deque

from tablebase.builder.games.errors import SearchLimitError
from tablebase.builder.games.grid import InvalidPositionError, O, Spec, X
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.grid.orders import stone_order
from tablebase.builder.games.move import Move, placements
from tablebase.builder.games.stones import rules

# Positions the backward search may visit before it gives up.
SEARCH_LIMIT = 100_000


def moves_reaching(spec: Spec, position: tuple[int, ...]) -> list[Move]:
    """Moves from the empty board, x first, that reach `position` (its cells, then the side to
    move) with every move legal; InvalidPositionError when none is found."""
    board, side = rules.split(spec, position)
    if rules.stones_say(spec, board) is not None or side == X:
        placed = _placements(spec, board)
        if placed is not None:
            return placed
    # Backwards: each position found with the steps that lead from it to the target.
    seen = {position}
    queue: deque[tuple[tuple[int, ...], list[Move]]] = deque([(position, [])])
    while queue and len(seen) < SEARCH_LIMIT:
        current, after = queue.popleft()
        for parent, step in _unsteps(spec, current):
            if parent in seen:
                continue
            seen.add(parent)
            path = [step, *after]
            parent_board, parent_side = rules.split(spec, parent)
            if parent_side == X:
                placed = _placements(spec, parent_board)
                if placed is not None:
                    return placed + path
            queue.append((parent, path))
    raise InvalidPositionError(f"no order of moves from the empty board found that reaches"
                               f" {board_text(spec, position)!r} ({spec.name})")


def _placements(spec: Spec, board: tuple[int, ...]) -> list[Move] | None:
    """Placements from the empty board, x first, that build `board`; None where none does."""
    try:
        order = stone_order(spec, board)
    except (SearchLimitError, InvalidPositionError):
        return None
    return None if order is None else placements(order)


def _unsteps(spec: Spec, position: tuple[int, ...]) -> list[tuple[tuple[int, ...], Move]]:
    """Every position one step before `position` that play can pass through (unfinished, and
    legal), with the step that leads from it to `position`."""
    board, side = rules.split(spec, position)
    if rules.stones_say(spec, board) is not None:
        return []  # still placing: no step came before
    mover = O if side == X else X  # the side that moved last
    found: list[tuple[tuple[int, ...], Move]] = []
    # Steps are symmetric: a stone of the mover's on `here` came from `there` exactly when it
    # could step from `here` to the empty `there`.
    for here, there in rules.steps(spec, board, mover):
        parent = rules.joined(rules.stepped(board, here, there), mover)
        try:
            rules.check_moving(spec, parent)
        except InvalidPositionError:
            continue
        if rules.outcome_of(spec, parent) is None:
            found.append((parent, Move(there, here)))
    return found
