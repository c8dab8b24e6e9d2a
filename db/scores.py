"""The solver's score byte, the form in which a table stores a value and a depth, and the one
place that fixes the order of outcomes.

A value is always for the side to move. Depth is plies to the end under perfect
play: the winner takes the shortest win, the loser the longest loss, and a draw
always runs to a full board. Value and depth fold into one small signed score:

    win in d   ->  WIN_SCORE - d     (shorter wins score higher)
    draw       ->  0
    loss in d  ->  d - WIN_SCORE     (longer losses score higher)

so "better for the side to move" is simply "larger score", and a parent's
score is the maximum over its children of `backup(child score)`. Values are the ints -1, 0
and 1 (the games' Value is an IntEnum of them).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

# Larger than any depth (at most 39 plies where stones are only placed), small enough for int8.
WIN_SCORE = 64
# The depth of a draw by endless play, which has none (where stones move).
NO_DEPTH = -1


def score(value: int, depth: int) -> int:
    """The score of a value reached in `depth` plies, for the side to move."""
    if value == 1:
        return WIN_SCORE - depth
    if value == -1:
        return depth - WIN_SCORE
    return 0


def backup(child_scores: np.ndarray) -> np.ndarray:
    """Scores of moves for the mover, from the scores of the children they lead to."""
    flipped = -np.asarray(child_scores)
    # One more ply to the end: a win moves down by one, a loss up by one, a draw stays.
    return flipped - np.sign(flipped)


def value_of(scores: np.ndarray) -> np.ndarray:
    """The value (-1, 0, 1) of each score."""
    return np.sign(scores).astype(np.int8, copy=False)


def depth_of(scores: np.ndarray, empties: np.ndarray | int) -> np.ndarray:
    """The depth of each score; a draw's depth is the number of empty cells."""
    scores = np.asarray(scores)
    if scores.dtype == np.int8 and np.ndim(empties) == 0:  # a ply's scores: one look-up each
        return _depths(int(empties))[scores.view(np.uint8)]
    scores = scores.astype(np.int16)
    return np.where(scores == 0, empties, WIN_SCORE - np.abs(scores)).astype(np.int8)


def score_answer(score: int, empties: int) -> tuple[int, int]:
    """`value_of` and `depth_of` of one stored score, as plain ints (a probe's one answer)."""
    return (score > 0) - (score < 0), int(_depths(empties)[score & 0xFF])


@lru_cache(maxsize=64)
def _depths(empties: int) -> np.ndarray:
    """depth_of of every int8 score, indexed by its byte."""
    return depth_of(np.arange(256, dtype=np.uint8).view(np.int8).astype(np.int16), empties)
