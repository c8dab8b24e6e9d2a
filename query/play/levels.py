"""Graded play: a move chosen as a player of a level from 0 (random) to 10 (perfect) would
choose it, read from the table. `genmove`, `play --level` and the GTP engine all use
`choose_move`.

A player of level L plays, at each turn:

    with probability L/10      a best move (fastest win, slowest loss), at random among equals
    otherwise                  a legal move uniformly at random (which may be a best move too)

So level 10 never leaves perfect play, level 0 is uniformly random, and every step up moves
a tenth of the choices from random to perfect: against a perfect opponent, who never gives
back what a mistake lost, the expected score rises with the level (`make bench` measures it).
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol, TypeVar

from tablebase.builder.games.errors import IllegalMoveError
from tablebase.builder.games.grid import Spec
from tablebase.builder.games.grid.notation import board_text
from tablebase.query.errors import QueryError

if TYPE_CHECKING:
    from tablebase.query.tablebase import MoveInfo, Position, Tablebase

MIN_LEVEL, MAX_LEVEL = 0, 10


class Ranked(Protocol):
    """A move as the tables rank it: whether it is a best move (a grid game's MoveInfo, a game
    class's GameMove)."""

    @property
    def best(self) -> bool: ...


R = TypeVar("R", bound=Ranked)


class LevelError(QueryError, ValueError):
    """A level outside 0..10."""


def check_level(level: int) -> int:
    """`level` itself if it is an int from 0 to 10; raise LevelError otherwise."""
    if isinstance(level, bool) or not isinstance(level, int) or not MIN_LEVEL <= level <= MAX_LEVEL:
        raise LevelError(f"a level is a whole number from {MIN_LEVEL} (random) to {MAX_LEVEL}"
                         f" (perfect), found {level!r}")
    return level


def move_odds(moves: Sequence[MoveInfo], level: int) -> dict[int, Fraction]:
    """The chance (exact) that a player of `level` picks each move, by cell, given every legal
    move as `Tablebase.moves` reports it."""
    check_level(level)
    if not moves:
        return {}
    best = [m for m in moves if m.best]
    perfect = Fraction(level, MAX_LEVEL)
    odds = {m.cell: (1 - perfect) / len(moves) for m in moves}
    for m in best:
        odds[m.cell] += perfect / len(best)
    return odds


def pick(moves: Sequence[R], level: int, rng: random.Random) -> R:
    """A move drawn for a player of `level` from `moves` (every legal move, as `Tablebase.moves`
    or `GameAnswers.moves` reports them) using `rng`: the documented mixture of best and
    random moves."""
    check_level(level)
    if not moves:
        raise IllegalMoveError("there is no move to choose: the game is over")
    # Level 10 draws no random number for the mixture, so a seeded perfect game is the same
    # whatever the level of its opponent.
    if level == MAX_LEVEL or (level > MIN_LEVEL and rng.random() * MAX_LEVEL < level):
        return rng.choice([m for m in moves if m.best])
    return rng.choice(list(moves))


def choose_move(tb: Tablebase, spec: str | Spec, board: Position, level: int = MAX_LEVEL,
                rng: random.Random | None = None) -> MoveInfo:
    """The move a player of `level` (0 random .. 10 perfect) plays from `board`, for the side
    to move, drawn with `rng`.

    Without `rng`, level 10 plays the first best move in cell order and other levels draw from
    a fresh unseeded generator. Raises IllegalMoveError when the game is over, LevelError for a
    level outside 0..10.
    """
    check_level(level)
    spec = tb.spec(spec)
    moves = tb.moves(spec, board)
    if not moves:
        raise IllegalMoveError(
            f"no move to choose from {board_text(spec, tb.read_board(spec, board))!r}"
            f" ({spec.name}): the game is over")
    if rng is None:
        if level == MAX_LEVEL:
            return moves[0]
        rng = random.Random()
    return pick(moves, level, rng)
