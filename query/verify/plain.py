"""verify's numpy check, which words what is wrong with the rows the compiled pass flags
(first_pass.py), or checks every row itself under a small memory budget (`Checker`): children are
made by adding a stone to the parent's digits and canonicalised through the symmetry maps,
looked up by binary search, and the outcome rule is spelt out on values and depths."""
from __future__ import annotations

from typing import Protocol

import numpy as np

from tablebase.builder.games.grid.codec import encode_many
from tablebase.builder.games.grid.geometry import line_ends, lines
from tablebase.builder.games.grid.root import Root
from tablebase.builder.games.grid.spec import Spec
from tablebase.builder.games.grid.symmetry import orbit_sizes
from tablebase.builder.games.registry import grid_game
from tablebase.db.scores import WIN_SCORE

WIN, DRAW, LOSS = 1, 0, -1
# Where stones move, a win or loss may be this many plies away (db/scores.py's scale).
MOVING_DEEPEST = WIN_SCORE - 1


class Found(Protocol):
    """Where problems go (checks.py's collector)."""

    def add(self, kind: str, message: str, code: int | None = None,
            ply: int | None = None) -> None: ...


class Checker:
    """Verify without the compiled pass: numpy checks every row (`flag` gives None). The
    movement tier of a game whose stones move is checked compiled all the same (movement.py),
    with a hash table of its rows when one takes at most `hash_bytes`."""

    def __init__(self, root: Root, hash_bytes: int) -> None:
        self.root, self.hash_bytes = root, hash_bytes

    def flag(self, codes: np.ndarray, value: np.ndarray, depth: np.ndarray, ply: int,
             below: tuple[np.ndarray, ...]) -> tuple[np.ndarray | None, np.ndarray]:
        """None (numpy checks every row) and the chunk's positions (then no terminal counts:
        `check_chunk` gives them)."""
        return None, np.array([self.orbit_sizes(codes).sum(), 0, 0], np.int64)

    def settle(self, below: tuple[np.ndarray, ...]) -> None:
        """Nothing: numpy marks has_parent itself."""

    def orbit_sizes(self, codes: np.ndarray) -> np.ndarray:
        """How many positions each code stands for (a board's: a side-to-move digit aside)."""
        return orbit_sizes(self.root.images_many(codes % 3 ** self.root.cells))


def _words(value: int) -> str:
    return {WIN: "win", DRAW: "draw", LOSS: "loss"}.get(int(value), f"value {value}")


def said(value: int, depth: int, endless: bool = False) -> str:
    """'win in 5', 'draw in 9'; with `endless` (stones that move) a draw is 'draw (endless
    play)', which has no depth."""
    if endless and value == DRAW:
        return "draw (endless play)"
    return f"{_words(value)} in {int(depth)}"


def _has_line(spec: Spec, boards: np.ndarray, player: int) -> np.ndarray:
    """Whether `player` has made a line, line by line (independent of the builder's bitmasks):
    k in a row (with +square, a 2x2 square too), and under +exact neither cell beyond its ends
    theirs."""
    found = np.zeros(len(boards), dtype=bool)
    for line, ends in zip(lines(spec), line_ends(spec)):
        made = np.all(boards[:, line] == player, axis=1)
        for end in ends[ends >= 0]:
            made &= boards[:, end] != player
        found |= made
    return found


def check_chunk(root: Root, part: np.ndarray, value: np.ndarray, depth: np.ndarray,
                below: tuple[np.ndarray, ...], found: Found, ply: int | None = None) -> np.ndarray:
    """Check one chunk of a tier (its codes, values and depths) against `below`, the next
    tier as (codes, values, depths, has_parent), marking the rows of `below` it leads to;
    return the terminal positions and rows among its rows that are positions (`Checker`'s
    counts without the orbits). Where stones move, these are the placement plies: a win or a
    loss may lie further away than the empty cells, and a draw is by endless play."""
    spec = root.spec
    n, cells = len(part), spec.cells
    codes, kid_values, kid_depths, has_parent = below
    boards = root.boards_of(part)  # whole boards, the root's stones too
    stones = np.count_nonzero(boards, axis=1)
    declared = stones if ply is None else np.full(n, ply)
    xs, os_ = np.count_nonzero(boards == 1, axis=1), np.count_nonzero(boards == 2, axis=1)
    repeats = grid_game(spec).positions_repeat  # then a draw is one by endless play
    deepest = MOVING_DEEPEST if repeats else cells - stones
    bad = ((stones != declared) | ~((xs == os_) | (xs == os_ + 1))
           | ~np.isin(value, (WIN, DRAW, LOSS)) | (depth < 0) | (depth > deepest))
    bad |= root.canonical_many(part) != part
    for i in np.flatnonzero(bad):
        found.add("bad-row", f"row (ply {int(declared[i])}, {_words(value[i])},"
                  f" depth {int(depth[i])}) is not a canonical position with that many"
                  " stones, or its value or depth is out of range", int(part[i]), int(stones[i]))
    ok = ~bad
    last = np.where(stones % 2 == 1, 1, 2)
    mover = 3 - last
    won = np.zeros(n, dtype=bool)
    for player in (1, 2):
        won |= (last == player) & _has_line(spec, boards, player) & (stones > 0)
    full = stones == cells
    terminal = ok & (won | full)
    want_value = np.where(won, WIN if spec.misere else LOSS, DRAW)
    for i in np.flatnonzero(terminal & ((value != want_value) | (depth != 0))):
        found.add("terminal", f"the game is over here ({_words(want_value[i])} for the side to"
                  f" move, depth 0) but the table says {said(value[i], depth[i], repeats)}",
                  int(part[i]), int(stones[i]))
    counts = np.array([0, 0, np.count_nonzero(terminal)], np.int64)
    if terminal.any():
        counts[1] = orbit_sizes(root.images_many(part[terminal])).sum()
    open_rows = np.flatnonzero(ok & ~terminal)
    if open_rows.size == 0:
        return counts
    b = boards[open_rows]
    any_loss = np.zeros(len(open_rows), dtype=bool)
    any_draw = np.zeros(len(open_rows), dtype=bool)
    fastest = np.full(len(open_rows), 1 << 30)
    slowest = np.full(len(open_rows), -1)
    drops = grid_game(spec).drops
    for cell in root.free.tolist():  # the root's stones never move: only its free cells play
        legal = b[:, cell] == 0
        if drops and cell + spec.width < cells:
            legal &= b[:, cell + spec.width] != 0
        at = np.flatnonzero(legal)
        if at.size == 0:
            continue
        kid_boards = b[at].copy()
        kid_boards[:, cell] = mover[open_rows[at]]
        kids = root.canonical_many(encode_many(kid_boards[:, root.free]))
        if len(codes):
            where = np.minimum(np.searchsorted(codes, kids), len(codes) - 1)
            present = codes[where] == kids
        else:
            where, present = np.zeros(len(kids), dtype=np.int64), np.zeros(len(kids), dtype=bool)
        for j in np.flatnonzero(~present)[:3]:
            found.add("missing-child", f"the child after a stone on cell {cell} (canonical code"
                      f" {int(kids[j])}) is not stored", int(part[open_rows[at[j]]]),
                      int(stones[open_rows[at[j]]]))
        has_parent[where[present]] = True
        at, where = at[present], where[present]
        kid_value, kid_depth = kid_values[where], kid_depths[where].astype(np.int64)
        # The child's value is the opponent's: its loss is our win, and so on.
        any_loss[at] |= kid_value == LOSS
        any_draw[at] |= kid_value == DRAW
        fastest[at] = np.where(kid_value == LOSS, np.minimum(fastest[at], kid_depth + 1), fastest[at])
        slowest[at] = np.where(kid_value == WIN, np.maximum(slowest[at], kid_depth + 1), slowest[at])
    want_v = np.where(any_loss, WIN, np.where(any_draw, DRAW, LOSS))
    want_d = np.where(any_loss, fastest, np.where(any_draw, cells - stones[open_rows], slowest))
    got_v, got_d = value[open_rows], depth[open_rows]
    if repeats:  # a draw by endless play has no depth to compare
        want_d = np.where(want_v == DRAW, got_d, want_d)
    for i in np.flatnonzero((got_v != want_v) | (got_d != want_d)):
        found.add("value" if got_v[i] != want_v[i] else "depth",
                  f"the table says {said(got_v[i], got_d[i], repeats)}, but its children give"
                  f" {said(want_v[i], want_d[i], repeats)}",
                  int(part[open_rows[i]]), int(stones[open_rows[i]]))
    return counts
