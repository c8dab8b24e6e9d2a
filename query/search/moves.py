"""The rules as the compiled search sees them: placing and taking back a stone (keeping the
lines' stone counts and the board's bitmasks), whether a stone completes a line, the playable
cells, the order moves are tried in, and the backup of a score by one ply (numba)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def backup(child: int) -> int:
    """A move's score from its child's: one more ply to the end, seen from the other side."""
    if child > 0:
        return -child + 1
    if child < 0:
        return -child - 1
    return 0


@njit(cache=True, nogil=True, inline="always")
def invert(score: int) -> int:
    """The child's score a move of `score` needs (the inverse of `backup`; a window bound)."""
    if score > 0:
        return -score - 1
    if score < 0:
        return -score + 1
    return 0


@njit(cache=True, nogil=True)
def place(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cell, player):  # type: ignore[no-untyped-def]
    """Put `player`'s stone on `cell`; whether it completes one of that player's lines.
    st: stones, then the lines still open (no stone of the other side) for x and for o."""
    board[cell] = player
    st[0] += 1
    p = player - 1
    made = False
    for j in range(cl_off[cell], cl_off[cell + 1]):
        line = cl_idx[j]
        if cnt[p, line] == 0:
            st[2 - p] -= 1  # the line was open for the other side: now closed to it
        cnt[p, line] += 1
        if cnt[p, line] == par[3]:
            made = True
    for g in range(par[6]):
        bit = np.uint64(1) << np.uint64(perms[g, cell])
        if player == 1:
            bx[g] |= bit
        else:
            bo[g] |= bit
    return made


@njit(cache=True, nogil=True)
def remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cell):  # type: ignore[no-untyped-def]
    """Take the stone off `cell` (the inverse of `place`)."""
    player = board[cell]
    board[cell] = 0
    st[0] -= 1
    p = player - 1
    for j in range(cl_off[cell], cl_off[cell + 1]):
        line = cl_idx[j]
        cnt[p, line] -= 1
        if cnt[p, line] == 0:
            st[2 - p] += 1
    for g in range(par[6]):
        bit = ~(np.uint64(1) << np.uint64(perms[g, cell]))
        if player == 1:
            bx[g] &= bit
        else:
            bo[g] &= bit


@njit(cache=True, nogil=True, inline="always")
def completes(cnt, cl_off, cl_idx, k, cell, me):  # type: ignore[no-untyped-def]
    """Whether a stone of player index `me` on empty `cell` completes a line of theirs."""
    for j in range(cl_off[cell], cl_off[cell + 1]):
        line = cl_idx[j]
        if cnt[me, line] == k - 1 and cnt[1 - me, line] == 0:
            return True
    return False


@njit(cache=True, nogil=True)
def candidates(par, board, out):  # type: ignore[no-untyped-def]
    """The playable cells into `out`, in cell order; their number."""
    n, w, h = par[0], par[1], par[2]
    m = 0
    if par[4]:
        for col in range(w):
            for row in range(h - 1, -1, -1):
                if board[row * w + col] == 0:
                    out[m] = row * w + col
                    m += 1
                    break
    else:
        for c in range(n):
            if board[c] == 0:
                out[m] = c
                m += 1
    return m


@njit(cache=True, nogil=True)
def order(par, cl_off, cl_idx, cnt, moves, keys, m, first, me):  # type: ignore[no-untyped-def]
    """Sort moves[:m] best first: `first` (the table's best move) leads, then by the lines the
    move builds and blocks (a heuristic: it only orders, never prunes)."""
    k = par[3]
    for i in range(m):
        c = moves[i]
        key = 0
        for j in range(cl_off[c], cl_off[c + 1]):
            line = cl_idx[j]
            a, b = cnt[me, line], cnt[1 - me, line]
            if b == 0:
                key += 1 << min(2 * a + 1, 40)
            if a == 0:
                key += 1 << min(2 * b, 40)
        if par[5]:
            key = -key  # misere: the quiet cells first
        if c == first:
            key = 1 << 50
        keys[i] = key
        j = i
        while j > 0 and keys[j - 1] < key:  # insertion sort, descending
            keys[j] = keys[j - 1]
            moves[j] = moves[j - 1]
            j -= 1
        keys[j] = key
        moves[j] = c
