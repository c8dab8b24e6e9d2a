"""The compiled first pass of `verify`: each stored position re-derived from its children and
the rules, one position at a time in machine code (numba), flagging the rows that fail.

Written apart from the builder's kernels, as verify.py is apart from its search: a position
here is a whole board (the root's stones included), a line is a list of board cells, a
child's canonical code is the smallest of its images' codes, children are found in a hash
table of the next tier's rows or, without room for one, by binary search (a group of rows'
children at once), and the outcome rule is spelt out on values and depths. Flagged rows go
back through checks.py's numpy check, which words the problem; rows that pass are not looked
at again.
"""
from __future__ import annotations

import numpy as np

from tablebase.builder.games.grid.geometry import line_ends, lines
from tablebase.builder.games.grid.kernel import distinct_images, made_line
from tablebase.builder.games.grid.root import Root
from tablebase.builder.games.registry import grid_game
from tablebase.builder.games.tier_lookup import prefetch
from tablebase.builder.kernels import split_rows
from tablebase.compiled import njit
from tablebase.query.verify import lookup
from tablebase.query.verify.plain import MOVING_DEEPEST

WIN, DRAW, LOSS = 1, 0, -1

@njit(cache=True, nogil=True)
def _images(d: np.ndarray, pows: np.ndarray, images: np.ndarray) -> int:
    """images[s]: the code of the board under map s (pows[s, i] = 3**(where map s sends free
    cell i)); returns the smallest, the canonical code."""
    best = -1
    for s in range(pows.shape[0]):
        code = 0
        for i in range(d.shape[0]):
            code += d[i] * pows[s, i]
        images[s] = code
        if best < 0 or code < best:
            best = code
    return best




@njit(cache=True, nogil=True, inline="always")
def _line_made(board: np.ndarray, masks: np.ndarray, beyond: np.ndarray, player: int) -> bool:
    """Whether `player` has made a line on `board` (cells, at most 63): all of some masks[i]
    theirs and none of beyond[i] (the line's cells and the cells past its ends, as bitmasks
    made by `line_masks`). Every line looked at without a branch: 6x5's 39 lines in a few
    nanoseconds, where a cell-by-cell walk took some 140."""
    mine = np.int64(0)
    for c in range(board.shape[0]):
        mine |= np.int64(board[c] == player) << c
    made = False
    for i in range(masks.shape[0]):
        made |= (mine & masks[i] == masks[i]) & (mine & beyond[i] == 0)
    return made


def line_masks(cells_of_lines: np.ndarray, ends: np.ndarray, cells: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Each line's cells and the cells past its ends (-1: none) as bitmasks over the board's
    cells; none at all (empty arrays) on a board of more than 63 cells, which keeps the walk."""
    if cells > 63:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    masks = [sum(1 << int(c) for c in set(line.tolist())) for line in cells_of_lines]
    beyond = [sum(1 << int(e) for e in pair if e >= 0) for pair in ends]
    return np.array(masks, np.int64).reshape(-1), np.array(beyond, np.int64).reshape(-1)


# A code is read 6 digits (one of 729 values) at a time: each value's digits and stones, and
# its share of the code's image under each map, come from tables (`_tables`) rather than a
# division and a product a digit.
PIECE = 6
VALUES = 3 ** PIECE


def _tables(pows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(digits[v]: value v's PIECE digits then its 1's and 2's; shares[s, c, v]: the image
    under map s of value v as the code's c-th piece, pows[s, i] = 3**(where map s sends free
    cell i))."""
    maps, nfree = pows.shape
    v = np.arange(VALUES, dtype=np.int64)
    digits = np.empty((VALUES, PIECE + 2), np.int64)
    digits[:, :PIECE] = (v[:, None] // 3 ** np.arange(PIECE, dtype=np.int64)) % 3
    digits[:, PIECE] = (digits[:, :PIECE] == 1).sum(axis=1)
    digits[:, PIECE + 1] = (digits[:, :PIECE] == 2).sum(axis=1)
    shares = np.zeros((maps, max(1, -(-nfree // PIECE)), VALUES), np.int64)  # one at least
    for i in range(nfree):
        shares[:, i // PIECE, :] += digits[None, :, i % PIECE] * pows[:, i, None]
    return digits, shares


@njit(cache=True, nogil=True)
def _read(code: int, digits: np.ndarray, shares: np.ndarray, free: np.ndarray,
          board: np.ndarray, images: np.ndarray, high: np.ndarray) -> tuple[int, int, int]:
    """The free cells' digits of `code` onto the board, its images under every map into
    images; returns (its 1's, its 2's, the smallest image: the canonical code). Digits past
    the free cells are left out, so a code too large has no image equal to itself.

    A tier's codes come in order, and the next mostly differs from the last in its first piece
    alone: what the pieces above it came to is kept in `high` (high[0]: those pieces as one
    number, -1 before the first code; high[1], high[2]: their 1's and 2's; high[3 + s]: their
    share of image s) and worked out again only when they change."""
    nfree = free.shape[0]
    maps = images.shape[0]
    rest = code // VALUES
    if rest != high[0]:
        high[0] = rest
        for i in range(1, 3 + maps):
            high[i] = 0
        for c in range(1, shares.shape[1]):
            v = rest % VALUES
            rest //= VALUES
            for k in range(min(PIECE, nfree - c * PIECE)):
                board[free[c * PIECE + k]] = digits[v, k]
            high[1] += digits[v, PIECE]
            high[2] += digits[v, PIECE + 1]
            for s in range(maps):
                high[3 + s] += shares[s, c, v]
    v = code - high[0] * VALUES
    for k in range(min(PIECE, nfree)):
        board[free[k]] = digits[v, k]
    best = -1
    for s in range(maps):
        images[s] = high[3 + s] + shares[s, 0, v]
        if best < 0 or images[s] < best:
            best = images[s]
    return high[1] + digits[v, PIECE], high[2] + digits[v, PIECE + 1], best


@njit(cache=True, nogil=True)
def _check(codes: np.ndarray, value: np.ndarray, depth: np.ndarray, ply: int,
           root_board: np.ndarray, free: np.ndarray, pows: np.ndarray, width: int,
           gravity: bool, misere: bool, moving: bool, cells_of_lines: np.ndarray, ends: np.ndarray,
           masks: np.ndarray, beyond: np.ndarray, digits: np.ndarray, shares: np.ndarray,
           keys: np.ndarray, fence: np.ndarray, kid_states: np.ndarray, table: np.ndarray,
           shift: int, flagged: np.ndarray, counts: np.ndarray) -> None:
    """flagged[r]: whether row r fails a check; counts: how many positions the rows stand
    for (their orbits: the images are at hand), and of the rows that are positions, the
    terminal ones' positions and rows. GROUP rows at a time: the rows' own checks and their
    children's canonical codes first, then every child searched for at once, then each row's
    value and depth from its children's. Where stones move (`moving`), these are the placement
    plies, whose wins and losses may lie further away than the board's empty cells."""
    cells = root_board.shape[0]
    nfree = free.shape[0]
    images = np.empty(pows.shape[0], dtype=np.int64)
    high = np.full(3 + pows.shape[0], -1, dtype=np.int64)
    board = root_board.copy()
    kids = np.empty(lookup.GROUP * nfree, dtype=np.int64)
    at = np.empty(lookup.GROUP * nfree, dtype=np.int64)
    first = np.zeros(lookup.GROUP + 1, dtype=np.int64)  # row r's kids: kids[first[r]:first[r + 1]]
    empties = np.zeros(lookup.GROUP, dtype=np.int64)
    playing = np.zeros(lookup.GROUP, dtype=np.bool_)  # whether row r is judged by its children
    root_xs = 0
    root_os = 0
    for c in range(cells):
        root_xs += root_board[c] == 1
        root_os += root_board[c] == 2
    n = codes.shape[0]
    for a in range(0, n, lookup.GROUP):
        b = min(a + lookup.GROUP, n)
        m = np.int64(0)  # not a literal: the callees below are compiled once, for int64
        for r in range(a, b):
            flagged[r] = False
            playing[r - a] = False
            first[r - a] = m
            xs, os_, canonical = _read(codes[r], digits, shares, free, board, images, high)
            xs += root_xs
            os_ += root_os
            stones = xs + os_
            empties[r - a] = cells - stones
            v, dep = value[r], depth[r]
            orbit = distinct_images(images)
            counts[0] += orbit
            deepest = MOVING_DEEPEST if moving else cells - stones
            if (stones != ply or not (xs == os_ or xs == os_ + 1) or v < LOSS or v > WIN
                    or dep < 0 or dep > deepest or canonical != codes[r]):
                flagged[r] = True
                continue
            last = 1 if stones % 2 == 1 else 2
            if stones > 0 and (_line_made(board, masks, beyond, last) if masks.shape[0]
                               else made_line(board, cells_of_lines, ends, last)):
                want = WIN if misere else LOSS
                flagged[r] = v != want or dep != 0
                counts[1] += orbit
                counts[2] += 1
                continue
            if stones == cells:
                flagged[r] = v != DRAW or dep != 0
                counts[1] += orbit
                counts[2] += 1
                continue
            mover = 3 - last
            playing[r - a] = True
            for i in range(nfree):
                cell = free[i]
                if board[cell] != 0:
                    continue
                if gravity and cell + width < cells and board[cell + width] == 0:
                    continue
                # The child's image under each map: the parent's, plus the stone where the
                # map sends its cell; its canonical code, the smallest.
                kid = images[0] + mover * pows[0, i]
                for t in range(1, pows.shape[0]):
                    kid = min(kid, images[t] + mover * pows[t, i])
                kids[m] = kid
                m += 1
        first[b - a] = m
        hashing = table.shape[0] > 0
        if hashing:  # the probe reads each child's entry: its state comes with it
            lookup.probe(table, shift, kids, m, at)
        else:
            lookup.fenced_search(keys, fence, kids, m, at)
            for j in range(m):  # what each child's row holds, asked for before it is read
                prefetch(kid_states, at[j])
        for r in range(a, b):
            if not playing[r - a]:
                continue  # flagged, or a finished game: decided above
            lo, hi = first[r - a], first[r - a + 1]
            any_loss = False
            any_draw = False
            fastest = 1 << 30
            slowest = -1
            for j in range(lo, hi):
                k = at[j]
                if hashing:
                    if k == table.shape[0]:
                        flagged[r] = True
                        continue
                    state = table[k]
                    table[k] = state | lookup.REACHED
                else:
                    if k >= keys.shape[0] or keys[k] != kids[j]:
                        flagged[r] = True
                        continue
                    state = kid_states[k]
                    kid_states[k] = state | lookup.REACHED
                kv, kd = lookup.outcome(state)
                if kv > WIN:  # no value: the child's own row is wrong, and said so
                    flagged[r] = True
                    continue
                # The child's value is the opponent's: its loss is our win, and so on.
                if kv == LOSS:
                    any_loss = True
                    fastest = min(fastest, int(kd) + 1)
                elif kv == DRAW:
                    any_draw = True
                else:
                    slowest = max(slowest, int(kd) + 1)
            if flagged[r]:
                continue
            v, dep = value[r], depth[r]
            if any_loss:
                flagged[r] = v != WIN or dep != fastest
            elif any_draw:
                flagged[r] = v != DRAW or dep != empties[r - a]
            else:
                flagged[r] = v != LOSS or dep != slowest


@njit(cache=True, nogil=True)
def _orbits(codes: np.ndarray, pows: np.ndarray, nfree: int, out: np.ndarray) -> None:
    d = np.empty(nfree, dtype=np.int64)
    images = np.empty(pows.shape[0], dtype=np.int64)
    for r in range(codes.shape[0]):
        code = codes[r]
        for i in range(nfree):
            d[i] = code % 3
            code //= 3
        _images(d, pows, images)
        out[r] = distinct_images(images)


class TierChecker:
    """The compiled check of one table's tiers (`root`: the table's Root; `hash_bytes`: what
    a hash table of the next tier's codes may take, else they are found by search)."""

    def __init__(self, root: Root, hash_bytes: int = 0) -> None:
        self.root = root
        spec = root.spec
        self._board = np.array(root.board, dtype=np.int64)
        self._free = np.asarray(root.free, dtype=np.int64)
        self._pows = (np.int64(3) ** np.asarray(root.symmetries, dtype=np.int64)).astype(np.int64)
        self._lines = np.ascontiguousarray(lines(spec), dtype=np.int64)
        self._ends = np.ascontiguousarray(line_ends(spec), dtype=np.int64)
        self._masks = line_masks(self._lines, self._ends, len(root.board))
        # The tier below: its codes, then how they are found (`_index`).
        self._below: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int] | None = None
        self.hash_bytes = hash_bytes
        self._tables = _tables(self._pows)

    def flag(self, codes: np.ndarray, value: np.ndarray, depth: np.ndarray, ply: int,
             below: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Which rows of a chunk of tier `ply` fail a check against `below` (tier ply+1 as
        codes, values, depths, has_parent), marking the rows their moves reach (in has_parent
        once `settle`d), and the chunk's counts: the positions its rows stand for (the sum of
        their orbits), and of its rows that are positions, the terminal ones' positions and
        rows."""
        kid_codes, kid_values, kid_depths, _ = below
        codes = np.ascontiguousarray(codes, np.int64)
        value, depth = np.ascontiguousarray(value, np.int8), np.ascontiguousarray(depth, np.int8)
        keys = np.ascontiguousarray(kid_codes, np.int64)
        if self._below is None or self._below[0] is not kid_codes:  # a new tier below
            self._below = None  # its table gone before the next is made
            self._below = (kid_codes, *self._index(keys, kid_values, kid_depths))
        _, fence, kid_states, table, shift = self._below
        flagged = np.zeros(len(codes), dtype=np.bool_)
        spec, game = self.root.spec, grid_game(self.root.spec)
        # Both cores: rows are independent, and a child's reached bit is only ever set.
        def piece(_: int, a: int, b: int) -> np.ndarray:
            counts = np.zeros(3, np.int64)
            _check(codes[a:b], value[a:b], depth[a:b], ply, self._board, self._free, self._pows,
                   spec.width, game.drops, spec.misere, game.positions_repeat, self._lines,
                   self._ends,
                   *self._masks, *self._tables, keys, fence, kid_states, table, shift,
                   flagged[a:b], counts)
            return counts
        return flagged, sum(split_rows(len(codes), piece), np.zeros(3, np.int64))

    def settle(self, below: tuple[np.ndarray, ...]) -> None:
        """Mark in has_parent (below's last array) the rows of `below` the compiled pass has
        reached, before anyone asks which are unreached; its index is let go."""
        if self._below is None or self._below[0] is not below[0]:
            return
        _, _, kid_states, table, _ = self._below
        self._below = None
        has_parent = below[3]
        if table.shape[0]:
            reached = np.ones(len(has_parent), dtype=np.bool_)
            reached[np.searchsorted(below[0], lookup.unreached(table))] = False
            has_parent |= reached
        else:
            has_parent |= (kid_states & lookup.REACHED) != 0

    def _index(self, keys: np.ndarray, value: np.ndarray, depth: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """How the next tier's rows are found: (fence, states, hash table, shift); the hash
        table when it fits the budget (and its entries the codes), else the fenced search."""
        kid_states = lookup.states(value, depth)
        # Where stones move, the movement tier's codes hold the side to move's digit too.
        codes = 3 ** len(self._free) * (2 if self.root.cyclic_tier(self.root.last_ply) else 1)
        if lookup.fits(codes) and lookup.table_bytes(len(keys)) <= self.hash_bytes:
            # No states beside the table: an empty array of their type (uint16), so that
            # _check is compiled once for both ways of finding rows.
            return (np.empty(0, np.int64), np.empty(0, kid_states.dtype),
                    *lookup.hashed(keys, kid_states))
        return np.ascontiguousarray(keys[::lookup.STEP]), kid_states, np.empty(0, np.int64), 0

    def orbit_sizes(self, codes: np.ndarray) -> np.ndarray:
        """How many positions each code stands for: its distinct images under the maps."""
        codes = np.ascontiguousarray(codes, np.int64)
        out = np.empty(len(codes), dtype=np.int64)
        split_rows(len(codes), lambda _, a, b: _orbits(codes[a:b], self._pows, len(self._free),
                                                       out[a:b]))
        return out
