"""The answers of one position from a game's stored tables, the same for every grid family
(the game's turns: builder/games/grid/game.py): the table that holds the position (the whole
board's first, then the endgame tables, in whichever orientation holds each root), its value
and depth, every move's, and a perfect line. Where positions repeat, a draw is a draw by
endless play: it has no depth (None), and a drawn line is followed until a position comes back.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from tablebase.builder.games.grid import Value
from tablebase.builder.games.grid.game import GridGame
from tablebase.db.scores import score
from tablebase.query import turns
from tablebase.query.answer_records import MoveInfo, Probe, Step
from tablebase.query.misses import damaged
from tablebase.query.tables import StoredTable

_VALUES = {-1: Value.LOSS, 0: Value.DRAW, 1: Value.WIN}

# A table that holds a position, the board map under which it holds it (an endgame table
# keeps only the maps that fix its start, so a position may be held in another orientation),
# and the position's value and depth there.
Held = tuple[StoredTable, int, Value, int | None]
# What to raise for a position none of the tables holds (query/misses.py explains why).
Missing = Callable[[tuple[int, ...]], Exception]


def locate(game: GridGame, tables: Sequence[StoredTable], position: Sequence[int]
           ) -> Held | None:
    """The first of a game's tables (the whole board's first) that holds `position`, in some
    orientation, or None."""
    for table in tables:
        maps = list(table.orientations(game.board(position)))
        if not maps:
            continue
        found = table.reader.lookup([table.root.position_code(game.image(position, s))
                                     for s in maps])
        for i, s in enumerate(maps):
            if found.found[i]:
                value = int(found.value[i])
                return table, s, _VALUES[value], _depth(game, value, int(found.depth[i]))
    return None


def _depth(game: GridGame, value: int, depth: int) -> int | None:
    """A stored depth as answers give it: none for a draw by endless play."""
    return None if value == 0 and not game.draws_have_depth else depth


def _probe(game: GridGame, value: Value, depth: int | None, position: Sequence[int]) -> Probe:
    return Probe(value, depth, game.side(position), depth == 0, game.on_board(position))


def probe(game: GridGame, tables: Sequence[StoredTable], position: Sequence[int],
          missing: Missing) -> Probe:
    """Value and depth of `position` for the side to move (depth None: a draw by endless play),
    from the first of `tables` that holds it; `missing(position)` is raised where none does."""
    held = locate(game, tables, position)
    if held is None:
        raise missing(tuple(position))
    return _probe(game, held[2], held[3], position)


def moves(game: GridGame, tables: Sequence[StoredTable], position: Sequence[int],
          missing: Missing, database: str) -> tuple[Probe, list[MoveInfo], StoredTable]:
    """`probe`, every legal move, best first, each valued for the player making it, and the
    table that holds them (a table holds every position play reaches from one it holds)."""
    held = locate(game, tables, position)
    if held is None:
        raise missing(tuple(position))
    here, found = _moves(game, held, position, held[2], held[3], database)
    return here, found, held[0]


def _moves(game: GridGame, held: Held, position: Sequence[int], value: Value,
           depth: int | None, database: str) -> tuple[Probe, list[MoveInfo]]:
    """`moves` of a position `held`'s table holds (under `held`'s map), whose own `value` and
    `depth` are known: its children's answers in one look-up."""
    here = _probe(game, value, depth, position)
    if here.terminal:
        return here, []
    table, s = held[0], held[1]
    # The game is not over (the table says so): every move the rules allow is legal.
    legal = game.continuations(position)
    children = game.children(position, legal)
    code = table.root.position_code
    found = table.reader.lookup([code(game.image(p, s)) if s else code(p) for p in children])
    if not found.found.all():
        i = int((~found.found).nonzero()[0][0])
        raise damaged(database, table, f"it holds {game.text(position)!r} but not"
                                       f" {game.text(children[i])!r}, one move later")
    scored = []
    for i, move in enumerate(legal):
        theirs = int(found.value[i])
        after = _depth(game, theirs, int(found.depth[i]))
        mine = _VALUES[-theirs]
        scored.append((score(mine, 0 if after is None else after + 1), move, mine, after))
    # Best first; ties in the order of the cell played to, then of the cell a stone leaves.
    scored.sort(key=lambda s: (-s[0], s[1].cell, -1 if s[1].start is None else s[1].start))
    top = scored[0][0]
    return here, [MoveInfo(game.name(move), move.cell, mine, after, key == top, move.start,
                           move.take)
                  for key, move, mine, after in scored]


def line(game: GridGame, tables: Sequence[StoredTable], position: Sequence[int],
         missing: Missing, database: str) -> tuple[list[Step], bool]:
    """A perfect line from `position` (the first best move each time): to the end of the game,
    or for a draw by endless play until a position comes back (then True)."""
    held = locate(game, tables, position)
    if held is None:
        raise missing(tuple(position))
    current = tuple(position)
    seen = {current}
    here, options = _moves(game, held, current, held[2], held[3], database)
    steps: list[Step] = []
    while options:
        best = options[0]
        current = game.played(current, turns.of(best))
        steps.append(Step(best.move, best.cell, here.to_move, best.value, best.depth, current))
        if current in seen:
            return steps, True
        seen.add(current)
        # The position after the best move: its answer is that move's, for the other side.
        here, options = _moves(game, held, current, Value(-best.value), best.depth, database)
    return steps, False
