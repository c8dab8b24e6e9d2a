"""Move orders: for a board, an order of alternating moves from a root (the empty board, or
the root of an endgame table: builder/games/grid/root.py) that builds it through unfinished positions,
so that every move is legal: the board must hold the root's stones, and the other stones go in
an alternating order where no board on the way has a line (under normal rules any order of a
board without one; with gravity, one that stacks every column bottom up on the root's stones);
where the last mover has made a line, one of their stones on every such line goes last, and it
is not one of the root's.

`move_orders` runs over many boards at once in machine code (numba), for the `moves` column of
an export of a whole table; `stone_order` is one board's; `order_status` says only whether an
order was found, none exists, or the search gave up. The kernel is compiled (or loaded from
numba's cache) on first use, so that importing the rules costs no numba import.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from tablebase.builder.games.errors import InvalidPositionError, SearchLimitError
from tablebase.builder.games.grid.geometry import line_ends, lines
from tablebase.builder.games.grid.spec import Spec

# The rules kernel's compiled line test, put here by _kernel() before it compiles the functions
# below (imported there: importing the rules must not import numba).
made_line: Any = None

# A row's status, as the kernel leaves it.
FOUND, NONE, GAVE_UP = 0, 1, 2
# Column states a gravity search may visit on one board before it gives up (its hash table
# holds twice as many slots): far more than any reachable board needs. Read at each call and
# passed to the kernel (a compiled function would freeze a global), so that tests can lower it.
STATES = 1 << 19
# The states a first search of each board may visit (see _run).
FIRST_STATES = 1 << 12


def _first_visit(keys: np.ndarray, stamps: np.ndarray, stamp: int, key: np.uint64) -> bool:
    """Whether `key` is new in this row's table (and add it); the table has room (checked)."""
    mask = np.uint64(len(keys) - 1)
    slot = (key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40) & mask
    while stamps[slot] == stamp:
        if keys[slot] == key:
            return False
        slot = (slot + np.uint64(1)) & mask
    stamps[slot] = stamp
    keys[slot] = key
    return True


def _no_line(b: np.ndarray, lines_: np.ndarray, ends: np.ndarray) -> bool:
    """Whether neither player has made a line on `b` (a position the game goes on from)."""
    return not made_line(b, lines_, ends, np.int64(1)) and not made_line(b, lines_, ends, np.int64(2))


def _orders(boards: np.ndarray, root: np.ndarray, lines_: np.ndarray, ends: np.ndarray,
            width: int, height: int, gravity: bool, exact: bool, limit: int, out: np.ndarray,
            status: np.ndarray, keys: np.ndarray, stamps: np.ndarray) -> None:
    n, cells = boards.shape
    bit = np.empty(cells, dtype=np.int64)
    b = np.empty(cells, dtype=np.uint8)
    heights = np.zeros(width, dtype=np.int64)
    floor = np.zeros(width, dtype=np.int64)  # the root's stones in each column
    weight = np.empty(width, dtype=np.uint64)
    choice = np.empty(cells + 1, dtype=np.int64)
    start = 0  # stones on the root
    for i in range(cells):
        start += root[i] != 0
    first = 1 if start % 2 == 0 else 2  # the player who moves first from the root
    for c in range(width):
        weight[c] = np.uint64(height + 1) ** np.uint64(c)
        for row in range(height - 1, -1, -1):
            if root[row * width + c] == 0:
                break
            floor[c] += 1
    for r in range(n):
        status[r] = NONE
        for i in range(cells):
            b[i] = boards[r, i]
        xs = 0
        os_ = 0
        held = True
        for i in range(cells):
            xs += b[i] == 1
            os_ += b[i] == 2
            if root[i] != 0 and b[i] != root[i]:
                held = False
        ply = xs + os_
        if not held or not (xs == os_ or xs == os_ + 1):
            continue
        moves = ply - start  # the stones played from the root
        last = 1 if ply % 2 == 1 else 2  # the player who moved last (x moves at even plies)
        if moves > 0 and made_line(b, lines_, ends, 3 - last):
            continue  # the other player's line: the game ended before the last move
        won = moves > 0 and made_line(b, lines_, ends, last)
        if not gravity and exact:
            status[r] = _exact_order(b, root, lines_, ends, moves, ply, limit, out[r], keys,
                                     stamps, r + 1, choice, bit)
            continue
        if not gravity:
            # Without gravity any alternating order of a line-free board will do; on a won board
            # the last stone must be one of the moves whose removal leaves no line.
            final = -1
            if won:
                for i in range(cells):
                    if b[i] == last and root[i] == 0:
                        b[i] = 0
                        broken = not made_line(b, lines_, ends, last)
                        b[i] = last
                        if broken:
                            final = i
                            break
                if final < 0:
                    continue
            nfirst = 0
            nsecond = 0
            for i in range(cells):
                if i == final or root[i] != 0 or b[i] == 0:
                    continue
                if b[i] == first:
                    out[r, 2 * nfirst] = i
                    nfirst += 1
                else:
                    out[r, 2 * nsecond + 1] = i
                    nsecond += 1
            if final >= 0:
                out[r, moves - 1] = final
            status[r] = FOUND
            continue
        # Gravity: backwards, depth first, take off a top stone of the last mover (never one
        # of the root's) until only the root is left; a column state (its heights) once left is
        # never tried again. Under normal rules a board without a line has none in any of its
        # subsets, so only the first stone taken off needs a look; under +exact a subset may
        # hold a run of exactly k that the whole board overgrew, so every step does.
        floating = False
        key = np.uint64(0)
        for c in range(width):
            heights[c] = 0
            for row in range(height - 1, -1, -1):
                if b[row * width + c] == 0:
                    break
                heights[c] += 1
            for row in range(height - 1 - heights[c], -1, -1):
                if b[row * width + c] != 0:
                    floating = True
            key += np.uint64(heights[c]) * weight[c]
        if floating:
            continue
        stamp = r + 1
        visited = 0
        depth = 0
        choice[0] = -1
        while True:
            if depth == moves:
                status[r] = FOUND
                break
            mover = 1 if (ply - depth) % 2 == 1 else 2
            c = choice[depth] + 1
            while c < width:
                if heights[c] > floor[c]:
                    cell = (height - heights[c]) * width + c
                    if b[cell] == mover:
                        usable = True
                        if exact or (depth == 0 and won):
                            b[cell] = 0
                            usable = _no_line(b, lines_, ends)
                            b[cell] = mover
                        if usable:
                            visited += 1
                            if visited > limit:
                                break
                            if _first_visit(keys, stamps, stamp, key - weight[c]):
                                break
                c += 1
            if visited > limit:
                status[r] = GAVE_UP
                break
            if c < width:
                choice[depth] = c
                out[r, moves - 1 - depth] = (height - heights[c]) * width + c
                b[out[r, moves - 1 - depth]] = 0
                heights[c] -= 1
                key -= weight[c]
                depth += 1
                choice[depth] = -1
            elif depth == 0:
                break  # no order builds this board
            else:
                depth -= 1
                heights[choice[depth]] += 1
                key += weight[choice[depth]]
                b[out[r, moves - 1 - depth]] = 1 if (ply - depth) % 2 == 1 else 2


def _exact_order(b: np.ndarray, root: np.ndarray, lines_: np.ndarray, ends: np.ndarray,
                 moves: int, ply: int, limit: int, out: np.ndarray, keys: np.ndarray,
                 stamps: np.ndarray, stamp: int, choice: np.ndarray, bit: np.ndarray) -> int:
    """The status of one board without gravity under +exact, its order into `out`: backwards,
    depth first, take off a stone of the player who moved last (never one of the root's) such
    that nobody has a line on what is left; a set of stones once left is never tried again."""
    cells = b.shape[0]
    count = 0
    for i in range(cells):
        bit[i] = -1
        if root[i] == 0 and b[i] != 0:
            bit[i] = count
            count += 1
    if count > 64:
        return GAVE_UP  # the sets of stones taken off are keyed by a 64-bit mask
    key = np.uint64(0)
    visited = 0
    depth = 0
    choice[0] = -1
    while True:
        if depth == moves:
            return FOUND
        mover = 1 if (ply - depth) % 2 == 1 else 2
        c = choice[depth] + 1
        while c < cells:
            if b[c] == mover and bit[c] >= 0:
                b[c] = 0
                if _no_line(b, lines_, ends):
                    visited += 1
                    if visited > limit:
                        b[c] = mover
                        return GAVE_UP
                    if _first_visit(keys, stamps, stamp, key | (np.uint64(1) << np.uint64(bit[c]))):
                        break  # taken off: b keeps it off while the search goes deeper
                b[c] = mover
            c += 1
        if c < cells:
            choice[depth] = c
            out[moves - 1 - depth] = c
            key |= np.uint64(1) << np.uint64(bit[c])
            depth += 1
            choice[depth] = -1
        elif depth == 0:
            return NONE  # no order builds this board
        else:
            depth -= 1
            c = choice[depth]
            b[c] = 1 if (ply - depth) % 2 == 1 else 2
            key &= ~(np.uint64(1) << np.uint64(bit[c]))


_COMPILED = ("_first_visit", "_no_line", "_exact_order", "_orders")
_compiling = threading.Lock()


def _kernel():  # type: ignore[no-untyped-def]
    """The compiled `_orders` (its helpers compiled first, so that it calls them compiled)."""
    names = globals()
    with _compiling:
        if not hasattr(names["_orders"], "py_func"):
            from tablebase.builder.games.grid.kernel import made_line
            from tablebase.compiled import njit
            names["made_line"] = made_line
            for name in _COMPILED:
                names[name] = njit(cache=True, nogil=True)(names[name])
    return names["_orders"]


def _run(spec: Spec, boards: np.ndarray, root: Sequence[int] | None = None
         ) -> tuple[np.ndarray, np.ndarray]:
    """(orders, status) of boards from `root` (None: the empty board), as the kernel leaves
    them."""
    boards = np.ascontiguousarray(np.asarray(boards, dtype=np.uint8).reshape(-1, spec.cells))
    if spec.gravity and (spec.height + 1) ** spec.width >= 1 << 63:
        raise SearchLimitError(f"{spec.name} is too wide to search for an order of its columns")
    start = np.zeros(spec.cells, dtype=np.uint8) if root is None else np.asarray(root, np.uint8)
    if start.shape != (spec.cells,):
        raise InvalidPositionError(f"a root of {spec.name} has {spec.cells} cells, found"
                                   f" {start.size}")
    rules = (np.ascontiguousarray(start), np.ascontiguousarray(lines(spec), dtype=np.int64),
             np.ascontiguousarray(line_ends(spec), dtype=np.int64), spec.width, spec.height,
             spec.gravity, spec.exact)

    def search(rows: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
        out = np.full((len(rows), spec.cells), -1, dtype=np.int16)
        status = np.empty(len(rows), dtype=np.int8)
        slots = 2 << max(limit - 1, 0).bit_length() if spec.gravity or spec.exact else 1  # 2**n
        _kernel()(rows, *rules, limit, out, status, np.zeros(slots, dtype=np.uint64),
                  np.zeros(slots, dtype=np.int64))
        return out, status

    # First FIRST_STATES states a board, then STATES for those that gave up: the search is the
    # same either way (its table, twice the states, never fills), but the table is zeroed at
    # every call, and STATES' 16 MiB cost one board 0.7 ms where it needs a few hundred states.
    first = min(STATES, FIRST_STATES)
    out, status = search(boards, first)
    again = np.flatnonzero(status == GAVE_UP) if first < STATES else ()
    if len(again):
        out[again], status[again] = search(boards[again], STATES)
    return out, status


def order_status(spec: Spec, boards: np.ndarray, root: Sequence[int] | None = None
                 ) -> np.ndarray:
    """For each board (rows of cell values), FOUND where an order of alternating moves builds
    it from `root` (None: the empty board; else a position, cell values, that every board must
    hold), NONE where none does (it cannot be reached from there), GAVE_UP where the search
    stopped at its limit (STATES) without knowing, or cannot search a board this wide."""
    try:
        return _run(spec, boards, root)[1]
    except SearchLimitError:
        return np.full(len(np.asarray(boards).reshape(-1, spec.cells)), GAVE_UP, dtype=np.int8)


def reachable(spec: Spec, boards: np.ndarray) -> np.ndarray:
    """Whether each board can arise in play from the empty board (counted as reachable where
    the search gave up)."""
    return order_status(spec, boards) != NONE


def move_orders(spec: Spec, boards: np.ndarray, root: Sequence[int] | None = None) -> np.ndarray:
    """For each board (rows of cell values), the cells of an alternating order of moves from
    `root` (None: the empty board) that reaches it (a row padded with -1 past its moves);
    raises InvalidPositionError naming the first board no order builds, SearchLimitError where
    the search gave up."""
    out, status = _run(spec, boards, root)
    failed = np.flatnonzero(status != FOUND)
    if len(failed):
        first = int(failed[0])
        if status[first] == GAVE_UP:
            raise SearchLimitError(
                f"gave up looking for an order of alternating moves that stacks board"
                f" {first + 1} after {STATES:,} states: whether it can be reached is not"
                " known")
        origin = ", x first," if root is None or not any(root) else " from the root"
        raise InvalidPositionError(
            f"board {first + 1}: no order of alternating moves{origin} builds it without the"
            " game ending first: the position cannot be reached")
    return out


def stone_order(spec: Spec, board: Sequence[int], root: Sequence[int] | None = None
                ) -> list[int] | None:
    """The cells of one board's order of moves from `root` (see move_orders), or None when
    there is none; raises SearchLimitError when the search gives up, so that "unreachable" is
    never said of a board that was not searched to the end."""
    try:
        row = move_orders(spec, np.asarray(board, dtype=np.uint8)[None, :], root)[0]
    except InvalidPositionError:
        return None
    return [int(c) for c in row if c >= 0]
