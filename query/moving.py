"""The probing API's answers for games whose stones move (`+stonesN`): a position's value and
depth, every move's (placements, then steps `a1-b2`), and a perfect line, from the whole-board
table. A draw is a draw by endless play: it has no depth (None), and a drawn line is followed
until a position comes back.

Positions are their cells followed by the side to move (builder/game/moving.py); a stored code
is the canonical board's with the side's digit in the movement phase.
"""
from __future__ import annotations

from collections.abc import Sequence

from tablebase.builder.game import O, Spec, Value, X, canonical_board, score
from tablebase.builder.game import moving as rules
from tablebase.db.errors import DamagedTableError
from tablebase.query.errors import MissingPositionError, MissingTableError
from tablebase.query.records import MoveInfo, Probe, Step
from tablebase.query.steps import move_text, position_text
from tablebase.query.tables import StoredTable

_VALUES = {-1: Value.LOSS, 0: Value.DRAW, 1: Value.WIN}


def stored_code(spec: Spec, position: Sequence[int]) -> int:
    """The canonical code a table stores `position` under."""
    board, side = rules.split(spec, position)
    extra = rules.O_TO_MOVE * 3 ** spec.cells \
        if rules.stones_say(spec, board) is None and side == O else 0
    return canonical_board(spec, board) + extra


def whole_table(spec: Spec, tables: Sequence[StoredTable]) -> StoredTable:
    """The game's whole-board table (a game whose stones move has no other)."""
    for table in tables:
        if table.whole:
            return table
    raise MissingTableError(f"{spec.name} has no whole-board table; build it first"
                            f" (tablebase build {spec.name})")


def depth_or_none(value: int, depth: int) -> int | None:
    """A stored depth as answers give it: none for a draw, which is by endless play."""
    return None if value == 0 else depth


def _read(table: StoredTable, spec: Spec, positions: Sequence[Sequence[int]]
          ) -> list[tuple[Value, int | None]]:
    found = table.reader.lookup([stored_code(spec, p) for p in positions])
    out = []
    for i, position in enumerate(positions):
        if not found.found[i]:
            raise MissingPositionError(
                f"position {position_text(spec, position)!r} ({spec.name}) cannot be reached"
                " from the empty board, so the table does not hold it")
        value = int(found.value[i])
        out.append((_VALUES[value], depth_or_none(value, int(found.depth[i]))))
    return out


def probe(table: StoredTable, spec: Spec, position: Sequence[int]) -> Probe:
    """Value and depth of `position` for the side to move (depth None: a draw by endless play)."""
    (value, depth), = _read(table, spec, [position])
    board, side = rules.split(spec, position)
    return Probe(value, depth, "x" if side == X else "o", depth == 0,
                 sum(1 for v in board if v))


def moves(table: StoredTable, spec: Spec, position: Sequence[int]) -> tuple[Probe, list[MoveInfo]]:
    """`probe` and every legal move, best first, each valued for the player making it."""
    here = probe(table, spec, position)
    if here.terminal:
        return here, []
    legal = rules.legal(spec, position)
    children = [rules.after(spec, position, m) for m in legal]
    try:
        answers = _read(table, spec, children)
    except MissingPositionError as e:
        raise DamagedTableError(f"the {spec.name} table is damaged: it holds"
                                f" {position_text(spec, position)!r} but not a position one"
                                f" move later ({e}); run `tablebase verify`",
                                "a child is missing") from None
    scored = []
    for move, (value, depth) in zip(legal, answers):
        mine = _VALUES[-int(value)]
        after = 0 if depth is None else depth + 1
        scored.append((score(mine, after), move, mine, depth))
    scored.sort(key=lambda s: (-s[0], s[1][1], -1 if s[1][0] is None else s[1][0]))
    top = scored[0][0]
    return here, [MoveInfo(move_text(spec, move), move[1], value, depth, key == top, move[0])
                  for key, move, value, depth in scored]


def line(table: StoredTable, spec: Spec, position: Sequence[int]) -> tuple[list[Step], bool]:
    """A perfect line from `position` (the first best move each time): to the end of the game,
    or for a draw by endless play until a position comes back (then True)."""
    seen = {rules.code_of(spec, position)}
    current = tuple(position)
    here, options = moves(table, spec, current)
    steps: list[Step] = []
    while options:
        best = options[0]
        current = rules.after(spec, current, (best.start, best.cell))
        steps.append(Step(best.move, best.cell, here.to_move, best.value, best.depth, current))
        code = rules.code_of(spec, current)
        if code in seen:
            return steps, True
        seen.add(code)
        here, options = moves(table, spec, current)
    return steps, False
