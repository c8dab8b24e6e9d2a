"""The board as the compiled search keeps it: placing and taking back a stone (keeping the
lines' stone counts and the board's cell sets, masks.py), whether a stone completes a line
(counted here, decided by the rules kernel's `ends_clear` under +exact), the playable cells
and the order moves are tried in (numba). The backup of a score is the rules kernel's."""
from __future__ import annotations

import numpy as np

from tablebase.builder.games.grid.kernel import backup, ends_clear, invert
from tablebase.compiled import njit
from tablebase.query.search.masks import add_cell, drop_cell

__all__ = ["backup", "invert"]  # re-exported: the search's modules take them from here


@njit(cache=True, nogil=True)
def place(par, cl_off, cl_idx, ends, perms, board, cnt, st, bx, bo, cell, player):  # type: ignore[no-untyped-def]
    """Put `player`'s stone on `cell`; whether it completes one of that player's lines.
    st: stones, then the lines still open (no stone of the other side) for x and for o;
    ends: geometry.line_ends (the cells a line's player must not hold beyond it, +exact)."""
    board[cell] = player
    st[0] += 1
    p = player - 1
    made = False
    for j in range(cl_off[cell], cl_off[cell + 1]):
        line = cl_idx[j]
        if cnt[p, line] == 0:
            st[2 - p] -= 1  # the line was open for the other side: now closed to it
        cnt[p, line] += 1
        if cnt[p, line] == par[3] and ends_clear(board, ends, line, player):
            made = True
    for g in range(par[6]):
        add_cell(bx if player == 1 else bo, g, perms[g, cell])
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
        drop_cell(bx if player == 1 else bo, g, perms[g, cell])


@njit(cache=True, nogil=True, inline="always")
def completes(cnt, board, cl_off, cl_idx, ends, k, cell, me):  # type: ignore[no-untyped-def]
    """Whether a stone of player index `me` on empty `cell` completes a line of theirs (the
    cell lies inside the line, so its ends are as they were before the stone)."""
    for j in range(cl_off[cell], cl_off[cell + 1]):
        line = cl_idx[j]
        if cnt[me, line] == k - 1 and cnt[1 - me, line] == 0 \
                and ends_clear(board, ends, line, me + 1):
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
    mine, theirs = cnt[me], cnt[1 - me]
    for i in range(m):
        c = moves[i]
        key = 0
        # Without branches, and through unsigned indices (numba tests a signed index for a
        # negative value): the same sum, some 30% sooner; it is a tenth of the prover's time.
        for j in range(np.uint64(cl_off[c]), np.uint64(cl_off[c + 1])):
            line = np.uint64(cl_idx[j])
            a, b = mine[line], theirs[line]
            key += (b == 0) * (np.int64(1) << min(2 * a + 1, 40)) \
                + (a == 0) * (np.int64(1) << min(2 * b, 40))
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
