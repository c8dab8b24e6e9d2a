"""The probing API's answers for games whose stones move (`+stonesN`): a position's value and
depth, every move's (placements, then steps `a1-b2`), and a perfect line, from the whole-board
table first, then the endgame tables. A draw is a draw by endless play: it has no depth (None),
and a drawn line is followed until a position comes back.

Positions are their cells followed by the side to move (builder/games/stones/rules.py); a stored code
is the canonical board's with the side's digit in the movement phase.
"""
from __future__ import annotations

from collections.abc import Sequence

from tablebase.builder.games.grid import EMPTY, Spec, Value, X, permutations, score, transform
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.stones import rules
from tablebase.builder.games.stones.notation import move_text
from tablebase.db.errors import DamagedTableError
from tablebase.query.errors import MissingPositionError
from tablebase.query.records import MoveInfo, Probe, Step
from tablebase.query.tables import StoredTable

_VALUES = {-1: Value.LOSS, 0: Value.DRAW, 1: Value.WIN}


# A table that holds a position, the board map under which it holds it (an endgame table
# keeps only the maps that fix its start, so a position may be held in another orientation),
# and the position's value and depth there.
Held = tuple[StoredTable, int, Value, int | None]


def stored_code(spec: Spec, position: Sequence[int]) -> int:
    """The code the whole-board table stores `position` under (its canonical code)."""
    return rules.canonical_code(spec, position)


def _image(spec: Spec, position: Sequence[int], s: int) -> tuple[int, ...]:
    if not s:
        return tuple(position)
    board, side = rules.split(spec, position)
    return rules.joined(transform(spec, board, s) if s else board, side)


def holder(spec: Spec, tables: Sequence[StoredTable], position: Sequence[int]) -> Held:
    """The first of a game's tables (the whole board's first) that holds `position`, in some
    orientation; MissingPositionError naming why none does."""
    for table in tables:
        maps = [0] if table.whole else range(len(permutations(spec)))
        codes = [table.root.position_code(_image(spec, position, s)) for s in maps]
        found = table.reader.lookup(codes)
        for i, s in enumerate(maps):
            if found.found[i]:
                value = int(found.value[i])
                return table, s, _VALUES[value], depth_or_none(value, int(found.depth[i]))
    text = board_text(spec, position)
    if any(t.whole for t in tables):
        raise MissingPositionError(f"position {text!r} ({spec.name}) cannot be reached from the"
                                   " empty board, so the table does not hold it")
    raise MissingPositionError(
        f"position {text!r} ({spec.name}) is in none of its {len(tables)} endgame tables; build"
        f" the whole board (tablebase build {spec.name}) or a table from it")


def depth_or_none(value: int, depth: int) -> int | None:
    """A stored depth as answers give it: none for a draw, which is by endless play."""
    return None if value == 0 else depth


def _read(held: Held, spec: Spec, positions: Sequence[Sequence[int]]
          ) -> list[tuple[Value, int | None]]:
    table, s = held[0], held[1]
    found = table.reader.lookup([table.root.position_code(_image(spec, p, s)) for p in positions])
    out = []
    for i, position in enumerate(positions):
        if not found.found[i]:
            raise MissingPositionError(
                f"position {board_text(spec, position)!r} ({spec.name}) is not in the"
                f" {table.root.name} table")
        value = int(found.value[i])
        out.append((_VALUES[value], depth_or_none(value, int(found.depth[i]))))
    return out


def probe(tables: Sequence[StoredTable], spec: Spec, position: Sequence[int]) -> Probe:
    """Value and depth of `position` for the side to move (depth None: a draw by endless play),
    from the first of `tables` that holds it."""
    return _probe(holder(spec, tables, position), spec, position)


def _probe(held: Held, spec: Spec, position: Sequence[int]) -> Probe:
    value, depth = held[2], held[3]
    board, side = rules.split(spec, position)
    return Probe(value, depth, "x" if side == X else "o", depth == 0,
                 len(board) - board.count(EMPTY))


def moves(tables: Sequence[StoredTable], spec: Spec, position: Sequence[int]
          ) -> tuple[Probe, list[MoveInfo]]:
    """`probe` and every legal move, best first, each valued for the player making it (a
    table holds every position play reaches from one it holds)."""
    held = holder(spec, tables, position)
    return _moves(held, spec, position)


def _moves(held: Held, spec: Spec, position: Sequence[int]) -> tuple[Probe, list[MoveInfo]]:
    """`moves` of a position `held` holds (its own value and depth read with its children's:
    `held`'s are those of the position it was found for)."""
    legal = rules.legal(spec, position)
    children = [rules.after(spec, position, m) for m in legal]
    try:  # the position and its children in one look-up: a table holds play from the one
        (value, depth), *answers = _read(held, spec, [position, *children])
    except MissingPositionError as e:
        raise DamagedTableError(f"the {spec.name} table is damaged: it holds"
                                f" {board_text(spec, position)!r} but not a position one"
                                f" move later ({e}); run `tablebase verify`",
                                "a child is missing") from None
    here = _probe((*held[:2], value, depth), spec, position)
    if here.terminal:
        return here, []
    scored = []
    for move, (value, depth) in zip(legal, answers):
        mine = _VALUES[-int(value)]
        after = 0 if depth is None else depth + 1
        scored.append((score(mine, after), move, mine, depth))
    scored.sort(key=lambda s: (-s[0], s[1][1], -1 if s[1][0] is None else s[1][0]))
    top = scored[0][0]
    return here, [MoveInfo(move_text(spec, move), move[1], value, depth, key == top, move[0])
                  for key, move, value, depth in scored]


def line(tables: Sequence[StoredTable], spec: Spec, position: Sequence[int]
         ) -> tuple[list[Step], bool]:
    """A perfect line from `position` (the first best move each time): to the end of the game,
    or for a draw by endless play until a position comes back (then True)."""
    seen = {rules.code_of(spec, position)}
    current = tuple(position)
    held = holder(spec, tables, position)
    here, options = _moves(held, spec, current)
    steps: list[Step] = []
    while options:
        best = options[0]
        current = rules.after(spec, current, (best.start, best.cell))
        steps.append(Step(best.move, best.cell, here.to_move, best.value, best.depth, current))
        code = rules.code_of(spec, current)
        if code in seen:
            return steps, True
        seen.add(code)
        here, options = _moves(held, spec, current)
    return steps, False
