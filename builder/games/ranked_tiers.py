"""What the builder's ranked solver (builder/ranked.py) asks of a game solved tier by tier over
perfect indices: each tier's positions are the integers below its size (every index a
position, as a morris sector ranks its stones), its moves either stay in the tier (where
positions can come back) or leave it for a tier solved before (a capture), whose scores the
tier reads. A family gives these from its folder; the solver never asks which it holds.

Scores: RANKED_WIN - d a win in d plies for the side to move, d - RANKED_WIN a loss, 0 a draw
by endless play (or, while solving, not decided yet).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import numpy as np

RANKED_WIN = 30000  # int16 scores: depths up to some 2,700 plies
# A tier's exit state (int16) where a move leaving the tier reaches a draw and none a lost
# position (a lost child: its least depth + 1, a win; only won children: minus their greatest
# depth + 1; no move leaves: 0).
DRAW_EXIT = -32768
# The score of a copy: an index whose position is stored at another index too (a ranking of
# positions up to symmetry keeps an index for every image of a symmetric position); no move
# reaches it and no one reads it.
HOLE = -32768


class RankedTier(Protocol):
    """One tier: its name (a file name), its size, the tiers it reads, and its kernels, each
    over a range of its indices on one core (the solver splits them over both). Every index
    is a position; a position stored at two indices scores HOLE at all but one."""

    name: str
    size: int
    room: int  # at most this many parents in the tier of one position
    reads: tuple[str, ...]  # the tiers whose scores `first` reads, solved before this one

    def first(self, lo: int, hi: int, earlier: Mapping[str, np.ndarray], counts: np.ndarray,
              scores: np.ndarray, exits: np.ndarray) -> None:
        """For indices lo..hi-1 (the int16 outputs indexed from 0): counts, the moves that
        stay in the tier (the distinct positions they reach); scores, a finished position's
        score (no move: lost), HOLE for a copy, else 0; exits, the exit state of the moves that
        leave it (read in `earlier`'s scores; DRAW_EXIT for a copy)."""
        ...

    def parents(self, level: np.ndarray, out: np.ndarray) -> int:
        """For each index level[i], its distinct parents in the tier (positions one move before
        it by a move that stays in the tier, each by the index `first` counts it under, never a
        copy) into out[0], i into out[1] (an
        int64 (2, room * len(level)) array); return how many."""
        ...


class LoopFreeTier(Protocol):
    """A tier no move stays in (room 0): each position's score is its children's, all in
    tiers solved before. It is scored in pieces the family chooses (in an order that reads
    its children from cache), each on one core."""

    name: str
    size: int
    room: int  # 0
    reads: tuple[str, ...]
    pieces: int  # how many pieces `settle` takes

    def settle(self, lo: int, hi: int, earlier: Mapping[str, np.ndarray],
               scores: np.ndarray) -> None:
        """Score the positions of pieces lo..hi-1, each at its own index in `scores` (int16,
        the whole tier's, HOLE where no piece scores an index: a copy)."""
        ...


class RankedGame(Protocol):
    """A game (or the part of one) solved as ranked tiers."""

    name: str

    def ranked_tiers(self) -> list[RankedTier | LoopFreeTier]:
        """Every tier, in an order where each reads only tiers before it."""
        ...

    def locate(self, position: object) -> tuple[str, int]:
        """(tier, index) where a position of the game is stored; ValueError where no tier
        holds it (the game is over there, say, by a rule no tier keeps)."""
        ...

    def position(self, tier: str, index: int) -> object | None:
        """The position of the game stored at `index` of `tier` (one of its orbit; at an
        index whose score is HOLE, a copy of one stored elsewhere), or None where the index
        holds none the game can write (a side to move that has already won, say)."""
        ...


def score_outcome(score: int) -> tuple[int, int | None]:
    """A score's value for the side to move (+1, 0, -1) and depth (None: a draw by endless
    play)."""
    if score == 0:
        return 0, None
    return (1, RANKED_WIN - score) if score > 0 else (-1, RANKED_WIN + score)
