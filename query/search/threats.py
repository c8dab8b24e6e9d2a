"""Threat-space search for the attacker (victory by continuous fours, VCF): a sequence of
moves each making a four (a line one stone short, its last cell empty) that the defender must
block, ending in a double four; found by a bounded depth-first search (numba, no recursion).
A win found is a real win: every defender's reply is forced (anything else lets the four be
completed), the defender never has a line to complete instead (checked before each reply), and
a block that gives the defender a four of its own ends the line of search (the attacker would
have to answer it). Used by prover.py to disprove defender's nodes fast; never in a proof."""
from __future__ import annotations

import numpy as np

from tablebase.compiled import njit
from tablebase.query.search.masks import bit, get, has, join, none_like
from tablebase.query.search.moves import place, remove
from tablebase.query.search.proofs import NO_REFCOUNTS


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def count_fours(cnt, board, lines, k, p):  # type: ignore[no-untyped-def]
    """(how many distinct empty cells complete a line of player index p (at most 2), one)."""
    count, first = 0, -1
    for line in range(lines.shape[0]):
        if cnt[p, line] != k - 1 or cnt[1 - p, line] != 0:
            continue
        for c in lines[line]:
            if board[c] == 0 and c != first:
                if count == 0:
                    first = c
                count += 1
                if count >= 2:
                    return 2, first
    return count, first


@njit(cache=True, nogil=True)
def _four_cells(cnt, board, lines, k, a, out, kind):  # type: ignore[no-untyped-def]
    """The empty cells where player index `a` makes a four, into `out`; their number (`kind`:
    a cell set of the board's kind, masks.py)."""
    seen = none_like(kind)
    m = 0
    for line in range(lines.shape[0]):
        if cnt[a, line] != k - 2 or cnt[1 - a, line] != 0:
            continue
        for c in lines[line]:
            if board[c] == 0 and not has(seen, c):
                seen = join(seen, bit(seen, c))
                out[m] = c
                m += 1
    return m


@njit(cache=True, nogil=True)
def vcf(par, lines, cl_off, cl_idx, ends, perms, board, cnt, st, bx, bo, a, depth, budget):  # type: ignore[no-untyped-def]
    """Whether player index `a`, to move, wins by continuous fours within `depth` of its
    moves and `budget` placed stones; the caller has checked that neither side can complete
    a line at once. The board is left as it was."""
    n, k = par[0], par[3]
    d = 1 - a
    cells = np.zeros((depth, n), dtype=np.int64)
    count = np.zeros(depth, dtype=np.int64)
    at = np.zeros(depth, dtype=np.int64)
    block = np.zeros(depth, dtype=np.int64)
    s, spent = np.int64(0), 0  # typed: a literal 0 would make _unwind compile for it
    count[0] = _four_cells(cnt, board, lines, k, a, cells[0], get(bx, 0))
    at[0] = 0
    while s >= 0:
        if at[s] >= count[s] or spent >= budget:
            s -= 1  # no four left here: take back the move that led to this level
            if s >= 0:
                remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, block[s])
                remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cells[s, at[s] - 1])
            continue
        c = cells[s, at[s]]
        at[s] += 1
        spent += 1
        place(par, cl_off, cl_idx, ends, perms, board, cnt, st, bx, bo, c, a + 1)
        fours, t = count_fours(cnt, board, lines, k, a)
        mine, _ = count_fours(cnt, board, lines, k, d)
        if fours >= 2 and mine == 0:  # a double four the defender cannot answer with a line
            remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, c)
            _unwind(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cells, at, block, s)
            return True
        if fours == 0 or mine > 0 or s + 1 >= depth:
            remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, c)
            continue
        made = place(par, cl_off, cl_idx, ends, perms, board, cnt, st, bx, bo, t, d + 1)
        theirs, _ = count_fours(cnt, board, lines, k, d)
        if made or theirs > 0:  # the block made a line, or a four the attacker must answer
            remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, t)
            remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, c)
            continue
        block[s] = t
        s += 1
        count[s] = _four_cells(cnt, board, lines, k, a, cells[s], get(bx, 0))
        at[s] = 0
    return False


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _unwind(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cells, at, block, s):  # type: ignore[no-untyped-def]
    """Take back the moves of levels below `s` (each a four and its block)."""
    for j in range(s - 1, -1, -1):
        remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, block[j])
        remove(par, cl_off, cl_idx, perms, board, cnt, st, bx, bo, cells[j, at[j] - 1])
