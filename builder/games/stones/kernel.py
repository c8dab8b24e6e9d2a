"""The compiled part of the rules of games whose stones move (builder/games/stones/rules.py): one
code's children (steps) and parents (un-steps: a stone of the side that moved last goes back to
a cell it could have come from), each as the canonical code of the whole board under the
table's symmetry maps (`weights`: Root.image_weights of the whole board), with the side to
move's digit; and a code's score at the end of the game. Kept apart from the rules' Python
so that importing them (every probe does) imports no numba.
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from tablebase.builder.games.grid.kernel import made_mask
from tablebase.builder.games.stones.rules import MOVING_WIN
from tablebase.compiled import njit


@njit(cache=True, nogil=True, inline="always")
def unpack(code, cells, weights, img):  # type: ignore[no-untyped-def]
    """A movement code's board images (into img, one per map), the bitmasks of x's and o's
    stones, and its side-to-move digit."""
    maps = img.shape[0]
    for s in range(maps):
        img[s] = 0
    xs = np.int64(0)
    os_ = np.int64(0)
    c = np.uint64(code)
    for i in range(cells):
        q = c // np.uint64(3)
        d = np.int64(c - q * np.uint64(3))
        c = q
        if d != 0:
            for s in range(maps):
                img[s] += d * weights[i, s]
            if d == 1:
                xs |= np.int64(1) << i
            else:
                os_ |= np.int64(1) << i
    return xs, os_, np.int64(c)


@njit(cache=True, nogil=True, inline="always")
def _moved(img, weights, start, to, value, extra):  # type: ignore[no-untyped-def]
    """The canonical code of the board `img` shows after `value`'s stone goes from `start` to
    `to`, plus `extra` (the side-to-move digit's weight)."""
    best = np.int64(-1)
    for s in range(img.shape[0]):
        c = img[s] + value * (weights[to, s] - weights[start, s])
        if best < 0 or c < best:
            best = c
    return best + extra


@njit(cache=True, nogil=True, inline="always")
def _slides(img, weights, moves, stones, value, empty, extra, out):  # type: ignore[no-untyped-def]
    """The canonical code (plus `extra`) after each stone of `stones` (of `value`) goes to an
    empty cell it can reach, into `out`; return how many. A step and an un-step are both this:
    an un-step is a step back of a stone of the side that moved last."""
    n = 0
    while stones:
        start = trailing_zeros(stones)
        stones &= stones - 1
        targets = moves[start] & empty
        while targets:
            to = trailing_zeros(targets)
            targets &= targets - 1
            out[n] = _moved(img, weights, start, to, value, extra)
            n += 1
    return n


@njit(cache=True, nogil=True)
def step_children(code, cells, weights, moves, side_weight, img, out):  # type: ignore[no-untyped-def]
    """The canonical codes of every step's child of `code` into `out` (duplicates and all);
    return how many."""
    xs, os_, side = unpack(code, cells, weights, img)
    empty = ~(xs | os_) & ((np.int64(1) << cells) - 1)
    extra = 0 if side else side_weight  # the child's side to move: the other
    return _slides(img, weights, moves, os_ if side else xs, 2 if side else 1, empty, extra, out)


@njit(cache=True, nogil=True)
def step_parents(code, cells, weights, moves, side_weight, img, out):  # type: ignore[no-untyped-def]
    """The canonical codes of every movement position one step before `code` into `out`: a
    stone of the side that moved last goes back to a cell it could have come from (steps are
    symmetric: `to` is in `moves[start]` exactly when `start` is in `moves[to]`); return how
    many (duplicates and all)."""
    xs, os_, side = unpack(code, cells, weights, img)
    empty = ~(xs | os_) & ((np.int64(1) << cells) - 1)
    extra = 0 if side else side_weight  # the parent's side to move: the one that moved
    return _slides(img, weights, moves, xs if side else os_, 1 if side else 2, empty, extra, out)


@njit(cache=True, nogil=True)
def step_outcome(code, cells, weights, moves, masks, ends, misere, img):  # type: ignore[no-untyped-def]
    """A movement code's score at the end of the game on MOVING_WIN's scale (a line made by
    the side that moved last: a loss in 0 plies, misère a win; no step: a loss), or 0 when the
    game goes on."""
    xs, os_, side = unpack(code, cells, weights, img)
    theirs = xs if side else os_
    if made_mask(theirs, masks, ends):
        return MOVING_WIN if misere else -MOVING_WIN
    mine = os_ if side else xs
    empty = ~(xs | os_) & ((np.int64(1) << cells) - 1)
    while mine:
        start = trailing_zeros(mine)
        mine &= mine - 1
        if moves[start] & empty:
            return 0
    return -MOVING_WIN


@njit(cache=True, nogil=True, inline="always")
def distinct(values, n):  # type: ignore[no-untyped-def]
    """Sort values[:n] in place (few: a position's moves) and return how many differ."""
    for i in range(1, n):
        v = values[i]
        j = i - 1
        while j >= 0 and values[j] > v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v
    count = 0
    for i in range(n):
        if i == 0 or values[i] != values[i - 1]:
            values[count] = values[i]
            count += 1
    return count
