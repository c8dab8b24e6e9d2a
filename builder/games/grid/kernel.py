"""The rules as compiled kernels see them, written once: whether a player has made a line (on
a board of cell values, or on a bitmask of their stones), the backup of a score by one ply and
its inverse. Called by the tier kernels,
move orders, verify's first pass and the search (numba; importing the rules' Python modules
does not import this one).

A line is a row of `lines` (k cells) with its row of `ends` (geometry.line_ends: the two
cells beyond it that must not be the player's, -1 for none). Scores are db/scores.py's: a win in
d plies scores WIN_SCORE - d for the side to move (the search's scale uses its own constant,
and the backup is the same on any scale).
"""
from __future__ import annotations

import numpy as np

from tablebase.compiled import njit


@njit(cache=True, nogil=True, inline="always")
def ends_clear(board, ends, line, player):  # type: ignore[no-untyped-def]
    """Whether neither cell beyond `line` holds `player`'s stone (always, without +exact)."""
    for j in range(2):
        e = ends[line, j]
        if e >= 0 and board[e] == player:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def line_made(board, lines, ends, line, player):  # type: ignore[no-untyped-def]
    """Whether `line` (a row of `lines`) is `player`'s made line: every cell theirs, and
    neither of its ends."""
    for j in range(lines.shape[1]):
        if board[lines[line, j]] != player:
            return False
    return ends_clear(board, ends, line, player)


@njit(cache=True, nogil=True)
def made_line(board, lines, ends, player):  # type: ignore[no-untyped-def]
    """Whether `player` has made a line on `board` (cell values): one of `lines`."""
    for i in range(lines.shape[0]):
        if line_made(board, lines, ends, i, player):
            return True
    return False


@njit(cache=True, nogil=True)
def made_line_at(board, lines, ends, first, through, cell, player):  # type: ignore[no-untyped-def]
    """Whether `player` has made a line through `cell` on `board`: `made_line` over only the
    lines through it (geometry.lines_through: `first`, `through`), all a move there can make."""
    # line_made written out, not called: called in this loop (inlined or not) it took some 0.9 us
    # a move on 7x6k4 against 15 ns (numba keeps the call's array arguments alive at each of
    # them), most of reading a file of positions given as moves. The same test: every cell
    # of the line the player's, and neither end.
    for t in range(first[cell], first[cell + 1]):
        line = through[t]
        made = True
        for j in range(lines.shape[1]):
            if board[lines[line, j]] != player:
                made = False
                break
        if made:
            for j in range(2):
                e = ends[line, j]
                if e >= 0 and board[e] == player:
                    made = False
            if made:
                return True
    return False


@njit(cache=True, nogil=True, inline="always")
def made_mask(stones, masks, ends):  # type: ignore[no-untyped-def]
    """Whether the bitmask `stones` (one player's) makes a line: all of some `masks[i]` and
    none of `ends[i]` (the same lines as bitmasks over cells: Root.line_rules)."""
    # Every line looked at, without a branch: the compiler checks several at once (most
    # boards make no line, so stopping at the first made saved little: 6x5's 39 lines, 7 ns
    # a board against 18).
    made = False
    for i in range(masks.shape[0]):
        made |= (stones & masks[i] == masks[i]) & (stones & ends[i] == 0)
    return made


@njit(cache=True, nogil=True, inline="always")
def backup(child):  # type: ignore[no-untyped-def]
    """A move's score from its child's: one more ply to the end, seen from the other side
    (db/scores.py's backup, one score at a time)."""
    if child > 0:
        return -child + 1
    if child < 0:
        return -child - 1
    return 0


@njit(cache=True, nogil=True, inline="always")
def invert(score):  # type: ignore[no-untyped-def]
    """The child's score a move of `score` needs (the inverse of `backup`; a window bound)."""
    if score > 0:
        return -score - 1
    if score < 0:
        return -score + 1
    return 0


@njit(cache=True, nogil=True, inline="always")
def distinct_images(img: np.ndarray) -> int:
    """How many distinct codes `img` holds (its orbit size, for a code's images)."""
    distinct = 0
    for s in range(img.shape[0]):
        seen = False
        for t in range(s):
            if img[t] == img[s]:
                seen = True
                break
        if not seen:
            distinct += 1
    return distinct
