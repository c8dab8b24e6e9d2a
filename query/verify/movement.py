"""verify's check of the movement phase of a game whose stones move (`+stonesN`): its two stored
plies (every stone down; x to move, then o, the side's digit counted as a stone) held as one
tier whose steps lead within it, so that positions repeat.

Every row is checked against its children, which the rules kernel's steps give
(builder/games/stones/rules.py: `step_children`, canonical, with the side to move's digit), found
among the tier's rows as first_pass.py finds them (lookup.py: a hash table, or a fenced search):

    over        the side that moved last has a line: a loss in 0 (misère: a win in 0); the
                side to move has no step: a loss in 0
    win in d    a lost child at d - 1, none shallower
    loss in d   every child won, the slowest at d - 1
    draw        no lost child, and not every child won (so one is drawn): a draw by endless
                play, whose depth is none and is not looked at

These local checks are enough, cycles and all, once every child is stored: by induction on the
depth a row claims, a row said won or lost at d is won or lost in at most d plies (its
witnesses claim less); by induction on the true depth, a position won or lost in d plies is
said so, at d (its witnesses are, and none could claim less); so a row said drawn is drawn.

Reachability is a breadth-first walk from the positions the last placement reaches (the
parents of the placement plies marked them), which checks each row as it comes to it: a row
the walk never reaches is checked after it and reported unreachable.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from tablebase.builder.games.grid.geometry import line_ends, lines
from tablebase.builder.games.grid.kernel import distinct_images
from tablebase.builder.games.grid.root import Root
from tablebase.builder.games.stones.kernel import step_children, unpack
from tablebase.builder.games.stones.rules import max_steps, step_masks
from tablebase.builder.kernels import split_rows
from tablebase.compiled import njit
from tablebase.query.verify import lookup
from tablebase.query.verify.first_pass import line_masks
from tablebase.query.verify.plain import MOVING_DEEPEST, Found, said

WIN, DRAW, LOSS = 1, 0, -1
# Why the compiled pass flags a row: what it is not, the game over, a child not stored, a value
# or depth other than its children's.
BAD_ROW, TERMINAL, MISSING, WRONG = 1, 2, 3, 4
_ROWS = 1 << 17  # rows of a breadth-first level checked at once


@njit(cache=True, nogil=True, inline="always")
def _ones(bits):  # type: ignore[no-untyped-def]
    n = 0
    while bits:
        bits &= bits - 1
        n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def _made(bits, masks, beyond):  # type: ignore[no-untyped-def]
    """Whether the stones `bits` make a line: all of some masks[i], none of beyond[i]."""
    made = False
    for i in range(masks.shape[0]):
        made |= (bits & masks[i] == masks[i]) & (bits & beyond[i] == 0)
    return made


@njit(cache=True, nogil=True)
def _check(handles, expand, hashing, keys, fence, states, table, shift,  # type: ignore[no-untyped-def]
           cells, weights, moves, side_weight, masks, beyond, stones, misere, room, flagged, why,
           want, pushed, counts):
    """Check the rows `handles` (slots of the hash table, or indices of keys). A flagged row's
    handle goes into `flagged`, with its reason (`why`) and what its children give (`want`:
    value and depth; a missing child's code); with `expand`, each child not yet REACHED is
    marked and its handle goes into `pushed`. counts[side]: positions (orbits), terminal
    positions, terminal rows. Returns (flagged rows, pushed handles)."""
    img = np.empty(weights.shape[1], np.int64)
    kids = np.empty(room, np.int64)
    at = np.empty(room, np.int64)
    nf = 0
    npushed = 0
    m = 0
    for r in range(handles.shape[0]):
        h = handles[r]
        if hashing:
            code = table[h] >> lookup.STATE
            state = table[h] & ((1 << lookup.STATE) - 1)
        else:
            code = keys[h]
            state = states[h]
        v, d = lookup.outcome(state)
        xs, os_, side = unpack(code, cells, weights, img)
        orbit = distinct_images(img)
        s = min(side, 1)
        counts[s, 0] += orbit
        canonical = img.min() + side * side_weight
        if (side > 1 or _ones(xs) != stones or _ones(os_) != stones or code != canonical
                or v > WIN or (v != DRAW and d > MOVING_DEEPEST)):
            flagged[nf], why[nf], want[nf, 0], want[nf, 1] = h, BAD_ROW, 0, 0
            nf += 1
            continue
        over = True
        if _made(xs if side else os_, masks, beyond):  # the side that moved last
            wv = WIN if misere else LOSS
        else:
            m = step_children(code, cells, weights, moves, side_weight, img, kids)
            wv = LOSS
            over = m == 0
        if over:
            counts[s, 1] += orbit
            counts[s, 2] += 1
            if v != wv or d != 0:
                flagged[nf], why[nf], want[nf, 0], want[nf, 1] = h, TERMINAL, wv, 0
                nf += 1
            continue
        if hashing:  # the probe reads each child's entry: its state comes with it
            lookup.probe(table, shift, kids, m, at)
        else:
            lookup.fenced_search(keys, fence, kids, m, at)
        any_loss = False
        any_draw = False
        unknown = False
        missing = -1
        fastest = 1 << 30
        slowest = -1
        for j in range(m):
            k = at[j]
            if hashing:
                if k == table.shape[0]:
                    missing = kids[j]
                    continue
                kid = table[k]
                if expand and kid & lookup.REACHED == 0:
                    table[k] = kid | lookup.REACHED
                    pushed[npushed] = k
                    npushed += 1
            else:
                if k >= keys.shape[0] or keys[k] != kids[j]:
                    missing = kids[j]
                    continue
                kid = states[k]
                if expand and kid & lookup.REACHED == 0:
                    states[k] = kid | lookup.REACHED
                    pushed[npushed] = k
                    npushed += 1
            kv, kd = lookup.outcome(kid & ((1 << lookup.STATE) - 1))
            if kv > WIN:
                unknown = True  # the child's own row is flagged: this one is not judged
            elif kv == LOSS:  # the child's value is the opponent's: its loss is our win
                any_loss = True
                fastest = min(fastest, kd + 1)
            elif kv == DRAW:
                any_draw = True
            else:
                slowest = max(slowest, kd + 1)
        if missing >= 0:
            flagged[nf], why[nf], want[nf, 0], want[nf, 1] = h, MISSING, missing, 0
            nf += 1
            continue
        if unknown:
            continue
        if any_loss:
            wv, wd = WIN, fastest
        elif any_draw:
            wv, wd = DRAW, d  # a draw by endless play: no depth to compare
        else:
            wv, wd = LOSS, slowest
        if v != wv or d != wd:
            flagged[nf], why[nf], want[nf, 0], want[nf, 1] = h, WRONG, wv, wd
            nf += 1
    return nf, npushed


@njit(cache=True, nogil=True)
def _unreached_slots(table, out):  # type: ignore[no-untyped-def]
    """The slots of the hash table's entries not REACHED into out; how many."""
    n = 0
    for h in range(table.shape[0]):
        if table[h] >= 0 and table[h] & lookup.REACHED == 0:
            out[n] = h
            n += 1
    return n


def _distinct(handles: np.ndarray) -> np.ndarray:
    """Sorted handles, each once (both cores may push a row at once), so that the next level
    reads its rows in order. A sort: numpy's unique hashes, several times slower here."""
    handles = np.sort(handles)
    return handles[np.concatenate(([True], handles[1:] != handles[:-1]))] if len(handles) \
        else handles


class Flagged(NamedTuple):
    """The rows the compiled pass flags: their codes, reasons (BAD_ROW...) and what their
    children give (value, depth; a missing child's code), in code order."""

    codes: np.ndarray
    why: np.ndarray
    want: np.ndarray


class Movement:
    """The movement tier's rows (`codes` sorted, their values and depths) and how a child is
    found among them: a hash table when `hash_bytes` holds one, else the fenced search."""

    def __init__(self, root: Root, codes: np.ndarray, value: np.ndarray, depth: np.ndarray,
                 reached: np.ndarray, hash_bytes: int) -> None:
        spec = root.spec
        self.codes = np.ascontiguousarray(codes, np.int64)
        line_cells = np.ascontiguousarray(lines(spec), np.int64)
        masks, beyond = line_masks(line_cells, np.ascontiguousarray(line_ends(spec), np.int64),
                                   spec.cells)
        self._rules = (spec.cells, np.ascontiguousarray(root.image_weights),
                       np.ascontiguousarray(step_masks(spec)), 3 ** spec.cells, masks, beyond,
                       (root.ply + root.last_ply) // 2, spec.misere, max(max_steps(spec), 1))
        self.room = self._rules[-1]
        states = lookup.states(value, depth)
        states[reached] |= lookup.REACHED  # where the walk starts
        self.hashing = lookup.fits(2 * 3 ** spec.cells) and \
            lookup.table_bytes(len(codes)) <= hash_bytes
        if self.hashing:
            self.table, self.shift = lookup.hashed(self.codes, states)
            self.fence, self.states = np.empty(0, np.int64), np.empty(0, np.uint16)
            seeds = self.codes[reached]
            self.start = np.empty(len(seeds), np.int64)
            lookup.probe(self.table, self.shift, seeds, len(seeds), self.start)
        else:
            self.table, self.shift = np.empty(0, np.int64), 0
            self.fence = np.ascontiguousarray(self.codes[::lookup.STEP])
            self.states = states
            self.start = np.flatnonzero(reached).astype(np.int64)

    def check(self, counts: np.ndarray, tick: Callable[[int], None]) -> Flagged:
        """Walk from the start rows, checking each row reached, then check the rest; afterwards
        `reached()` tells which rows the walk came to. counts[side] gets each side's positions,
        terminal positions and terminal rows; `tick(rows)` as rows are checked."""
        found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        level = _distinct(self.start)
        while len(level):
            pushed = [self._run(level[a:a + _ROWS], True, counts, found, tick)
                      for a in range(0, len(level), _ROWS)]
            level = _distinct(np.concatenate(pushed))
        self._run(self._unreached(), False, counts, found, tick)
        handles = np.concatenate([f[0] for f in found]) if found else np.empty(0, np.int64)
        codes = self._codes_of(handles)
        order = np.argsort(codes, kind="stable")
        why = np.concatenate([f[1] for f in found]) if found else np.empty(0, np.int8)
        want = np.concatenate([f[2] for f in found]) if found else np.empty((0, 2), np.int64)
        return Flagged(codes[order], why[order], want[order])

    def reached(self) -> np.ndarray:
        """Which rows (in code order) the walk came to."""
        if self.hashing:
            mark = np.ones(len(self.codes), dtype=bool)
            mark[np.searchsorted(self.codes, lookup.unreached(self.table))] = False
            return mark
        return (self.states & lookup.REACHED) != 0

    def _unreached(self) -> np.ndarray:
        if not self.hashing:
            return np.flatnonzero((self.states & lookup.REACHED) == 0).astype(np.int64)
        out = np.empty(len(self.codes), np.int64)
        return out[:_unreached_slots(self.table, out)]

    def _codes_of(self, handles: np.ndarray) -> np.ndarray:
        return self.table[handles] >> lookup.STATE if self.hashing else self.codes[handles]

    def _run(self, handles: np.ndarray, expand: bool, counts: np.ndarray,
             found: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
             tick: Callable[[int], None]) -> np.ndarray:
        """Check `handles` on both cores; what they flag into `found`; the handles they
        pushed."""
        def piece(_: int, a: int, b: int) -> tuple[np.ndarray, ...]:
            n = b - a
            flagged, why = np.empty(n, np.int64), np.empty(n, np.int8)
            want, part = np.empty((n, 2), np.int64), np.zeros((2, 3), np.int64)
            pushed = np.empty(n * self.room if expand else 0, np.int64)
            nf, np_ = _check(handles[a:b], expand, self.hashing, self.codes, self.fence,
                             self.states, self.table, self.shift, *self._rules, flagged, why,
                             want, pushed, part)
            return flagged[:nf], why[:nf], want[:nf], pushed[:np_], part
        pieces = split_rows(len(handles), piece)
        for flagged, why, want, _, part in pieces:
            counts += part
            if len(flagged):
                found.append((flagged, why, want))
        tick(len(handles))
        return np.concatenate([p[3] for p in pieces]) if pieces else np.empty(0, np.int64)


def check_movement(root: Root, tier: tuple[np.ndarray, ...], cut: int, found: Found,
                   hash_bytes: int, tick: Callable[[int], None]) -> np.ndarray:
    """Check the movement tier (codes, values, depths, has_parent: x's rows, then from `cut`
    o's), walking from the rows has_parent marks (those the last placement reaches); after it,
    has_parent marks every row the walk came to. Problems go to `found`; returns each stored
    ply's (x's, o's) positions, terminal positions and terminal rows."""
    codes, value, depth, has_parent = tier
    spec = root.spec
    ply, side = root.ply + root.last_ply, 3 ** spec.cells  # every stone down: the placing plies
    # A row whose code's side digit is not its ply's is no position of that ply.
    wrong = np.concatenate([codes[:cut] >= side, (codes[cut:] < side) | (codes[cut:] >= 2 * side)])
    for i in np.flatnonzero(wrong).tolist():
        stored = ply + int(i >= cut)
        found.add("bad-row", f"code {int(codes[i])} at ply {stored} is not a position of that"
                  f" ply ({'x' if stored == ply else 'o'} to move, every stone down)",
                  int(codes[i]), stored)
    good = ~wrong
    movement = Movement(root, codes[good], value[good], depth[good], has_parent[good], hash_bytes)
    counts = np.zeros((2, 3), np.int64)
    flagged = movement.check(counts, tick)
    has_parent[good] |= movement.reached()
    kept_value, kept_depth = value[good], depth[good]
    for code, why, (want, want_depth) in zip(flagged.codes.tolist(), flagged.why.tolist(),
                                              flagged.want.tolist()):
        i = int(np.searchsorted(movement.codes, code))
        v, d, at = int(kept_value[i]), int(kept_depth[i]), ply + int(code >= side)
        if why == BAD_ROW:
            found.add("bad-row", f"row (ply {at}, {said(v, d, True)}) is not a canonical position with"
                      f" {ply // 2} stones a side, or its value or depth is out of range",
                      code, at)
        elif why == TERMINAL:
            found.add("terminal", f"the game is over here ({said(want, 0, True)} for the side to move)"
                      f" but the table says {said(v, d, True)}", code, at)
        elif why == MISSING:
            found.add("missing-child", f"the child after a step (canonical code {want}) is not"
                      " stored", code, at)
        else:
            found.add("value" if v != want else "depth", f"the table says {said(v, d, True)}, but its"
                      f" children give {said(want, want_depth, True)}", code, at)
    return counts

