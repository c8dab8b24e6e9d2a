"""Proving that the side to move wins, and writing the proof as query/win_check.py reads it: a
walk from the root over the won positions, each written once (keyed by its canonical code, as
every proof keys positions), children before parents. The alpha-beta search
(compiled_search.py, its transposition table kept for the whole walk) finds each position's
exact depth and a move that keeps it; the rules alone decide the rest:

- the winner completes a line: `win`;
- the winner plays a move leaving two cells where it completes a line: `fork`;
- the winner plays the move: `play`; where the loser then has one cell to block and the block
  leads to a position not written yet, the walk follows the block and the next move in the
  same line (`forced`), writing no position between;
- the loser faces two cells where the winner completes a line: `double`; one: only the block
  is followed (`block`); none: every reply (`every`).

Every bound written is the position's exact depth, so the root's is the win's depth."""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tablebase.builder.games.grid import Spec, canonical_board, canonical_board_map, outcome
from tablebase.builder.games.grid.symmetry import permutations
from tablebase.query.errors import QueryError
from tablebase.query.proof_check import FORMAT, attacker_name
from tablebase.query.search import control
from tablebase.query.search.board import Board
from tablebase.query.search.control import WS
from tablebase.query.search.proof_writer import (
    WRITTEN_EVERY,
    ProofWriteError,
    open_proof,
    writable,
    write_whole,
)
from tablebase.query.search.proving import check_provable


@dataclass(frozen=True)
class WinProof:
    """What `write_win_proof` wrote: the win's depth (plies, the root's bound), the file's
    positions and bytes, the search's nodes, and the seconds it all took."""

    depth: int
    path: str
    positions: int
    size: int
    nodes: int
    seconds: float


def write_win_proof(spec: Spec, board: Sequence[int], path: str | Path,
                    deadline: float | None = None,
                    written: Callable[[int], None] | None = None) -> WinProof:
    """Prove that the side to move on `board` wins and write the proof to `path` (.gz:
    compressed); `written(count)` every WRITTEN_EVERY positions. ProofWriteError where the side
    to move does not win, or the walk is not done by `deadline` (a time.monotonic(); None: no
    limit); no file is left at `path` then."""
    check_provable(spec)
    board = tuple(int(v) for v in board)
    if outcome(spec, board) is not None:
        raise QueryError(f"{spec.name}: the position is over: nothing to prove")
    writable(path)
    started = time.monotonic()
    walk = _WinWalk(spec, board, deadline, written)
    positions = write_whole(path, walk.write)
    return WinProof(walk.depth, str(path), positions, os.path.getsize(path), walk.nodes,
                    time.monotonic() - started)


class _WinWalk:
    """The walk: the kernel's arrays with the position being walked loaded on them."""

    def __init__(self, spec: Spec, board: tuple[int, ...], deadline: float | None,
                 written: Callable[[int], None] | None) -> None:
        self.spec, self.root, self.deadline, self.written = spec, board, deadline, written
        self.b = Board(spec)
        self.perms = permutations(spec).tolist()
        self.winner = sum(1 for v in board if v) % 2
        self.w, self.lo = self.winner + 1, 2 - self.winner  # the sides' cell values
        self.depths: dict[int, int] = {}  # canonical code -> the exact depth written
        self.depth = 0
        self.count = 0
        self.out: TextIO | None = None

    @property
    def nodes(self) -> int:
        """The kernel's nodes so far."""
        return int(self.b.ctl[control.NODES])

    def write(self, path: Path) -> int:
        """The whole proof written to `path`; the number of positions."""
        self.b.load(self.root)
        self.b.ctl[control.LIMIT] = 1 << 62
        timer = None
        if self.deadline is not None:
            timer = threading.Timer(max(0.0, self.deadline - time.monotonic()),
                                    lambda: self.b.ctl.__setitem__(control.STOP, 1))
            timer.start()
        try:
            with open_proof(path) as out:
                self.out = out
                self.depth = 1 if self._completions(self.w) else self._depth()
                out.write(f"{FORMAT}\nspec {self.spec.name}\nclaim"
                          f" {attacker_name(self.winner)} wins within {self.depth}\n"
                          f"root {canonical_board(self.spec, self.root)}\n")
                self._winner()
                out.write(f"end {self.count}\n")
        finally:
            if timer is not None:
                timer.cancel()
            self.b.ctl[control.STOP] = 0
        return self.count

    # --- the rules on the loaded board -------------------------------------------------

    def _key(self) -> tuple[int, list[int]]:
        """The loaded board's canonical code and the map of its cells onto that code's board."""
        code, g = canonical_board_map(self.spec, self.b.board.tolist())
        return code, self.perms[g]

    def _empties(self) -> list[int]:
        return [c for c, v in enumerate(self.b.board.tolist()) if v == 0]

    def _completions(self, side: int) -> list[int]:
        """The empty cells where `side` (a cell value) completes a line: the empty cell of each
        line holding k - 1 of its stones and none of the other side's (the kernel's line
        counts; a line's k cells are then those stones and one empty cell)."""
        b, p = self.b, side - 1
        full = (b.cnt[p] == self.spec.k - 1) & (b.cnt[1 - p] == 0)
        if not full.any():
            return []
        cells = b.lines[full].ravel()
        return sorted({int(c) for c in cells[b.board[cells] == 0]})

    def _search(self, alpha: int, beta: int) -> int:
        """The kernel's score of the loaded board (not over); ProofWriteError past the
        deadline."""
        score = self.b.search(alpha, beta)
        if self.b.ctl[control.ABORTED]:
            self.b.ctl[control.ABORTED] = 0
            raise ProofWriteError(f"{self.spec.name}: the win proof was not written within the"
                                  " time: no proof written")
        return score

    def _depth(self, bound: int | None = None) -> int:
        """The loaded board's exact depth (the winner to move, no line to complete at once):
        the least d for which the search proves a win within d plies (null windows, d = 3,
        5, ...: a failed one is cut off at its depth). With `bound`, a depth it is known not
        to pass (its parent's proof), the search stops below it: none found, it is the bound.
        (One search in the window of the depths up to the bound cost twice the nodes.)"""
        last = len(self._empties()) if bound is None else bound - 2
        for d in range(3, last + 1, 2):
            if self._search(WS - d - 1, WS - d) >= WS - d:
                return d
        if bound is not None:
            return bound
        raise ProofWriteError(f"{self.spec.name}: a position of the proof is not a win for"
                              f" {attacker_name(self.winner)}: the search disagrees with itself")

    def _keeping(self, d: int) -> int:
        """A move of the winner's (on the loaded board, exact depth d) after which the loser
        loses within d - 1 plies."""
        if d == 3:
            # A win in 3 is a move leaving two cells where the winner completes a line (one
            # the loser blocks, and the winner then has none: a completing cell after the block
            # was one before it), and none for the loser: found by the rules, not searched.
            for c in self._empties():
                self.b.place(c, self.w)
                double = len(self._completions(self.w)) >= 2 and not self._completions(self.lo)
                self.b.remove(c)
                if double:
                    return c
        for c in self.b.ordered_moves():
            if self.b.place(c, self.w):
                self.b.remove(c)
                continue
            full = self.b.placed == self.spec.cells
            kept = not full and self._search(-(WS - d + 1), -(WS - d + 1) + 1) <= -(WS - d + 1)
            self.b.remove(c)
            if kept:
                return c
        raise ProofWriteError(f"{self.spec.name}: no move keeps a win in {d} plies: the search"
                              " disagrees with itself")

    # --- the positions -----------------------------------------------------------------

    def _winner(self, bound: int | None = None) -> int:
        """Write the loaded position (the winner to move, a win within `bound` plies where
        given) if not written yet; its code."""
        code, perm = self._key()
        if code in self.depths:
            return code
        ends = self._completions(self.w)
        if ends:
            self._emit(code, "win", 1, str(perm[ends[0]]))
            return code
        # No line at once, so a bound of 3 is the depth (a win takes an odd number of plies).
        d = 3 if bound == 3 else self._depth(bound)
        if d == 3:  # a move to a double threat: one `fork` line, the loser's position unwritten
            m = self._keeping(3)
            self.b.place(m, self.w)
            threats = self._completions(self.w)
            self.b.remove(m)
            self._emit(code, "fork", 3, f"{perm[m]} {perm[threats[0]]} {perm[threats[1]]}")
            return code
        moves: list[int] = []
        placed: list[int] = []  # cells played on the way, taken off at the end
        while True:
            m = self._keeping(d - 2 * len(moves))
            self.b.place(m, self.w)
            moves.append(m)
            placed.append(m)
            blocks = self._completions(self.w)
            if len(blocks) != 1 or self._completions(self.lo) or self._key()[0] in self.depths:
                break
            # One cell to block: follow it, unless the position after it was written already
            # (the sequence then ends at this loser position, a `block`). The winner has no
            # line to complete after the block (a cell completing one would have been a
            # second cell to block before it); looked at all the same, as the check does.
            self.b.place(blocks[0], self.lo)
            if self._completions(self.w) or self._key()[0] in self.depths:
                self.b.remove(blocks[0])
                break
            placed.append(blocks[0])
        child = self._loser(d - 2 * (len(moves) - 1) - 1)
        for c in reversed(placed):
            self.b.remove(c)
        depth = 2 * (len(moves) - 1) + 1 + self.depths[child]
        if depth != d:
            raise ProofWriteError(f"{self.spec.name}: position {code}'s proof gives {depth}"
                                  f" plies, not its depth {d}: the search disagrees with itself")
        kind = "play" if len(moves) == 1 else "forced"
        self._emit(code, kind, d, " ".join(str(perm[m]) for m in moves) + f" {child}")
        return code

    def _loser(self, depth: int) -> int:
        """Write the loaded position (the loser to move, lost in `depth` plies) if not written
        yet; its code."""
        code, perm = self._key()
        if code in self.depths:
            return code
        if self._completions(self.lo):
            raise ProofWriteError(f"{self.spec.name}: the loser completes a line at position"
                                  f" {code}: the search disagrees with itself")
        threats = self._completions(self.w)
        if len(threats) >= 2:
            self._emit(code, "double", 2, f"{perm[threats[0]]} {perm[threats[1]]}")
            return code
        replies = threats or self._empties()
        children = []
        for r in replies:
            self.b.place(r, self.lo)
            children.append((r, self._winner(depth - 1)))
            self.b.remove(r)
        worst = 1 + max(self.depths[child] for _, child in children)
        if threats:
            self._emit(code, "block", max(2, worst), f"{perm[threats[0]]} {children[0][1]}")
        else:
            self._emit(code, "every", worst,
                       " ".join(f"{perm[r]}:{child}" for r, child in children))
        return code

    def _emit(self, code: int, kind: str, depth: int, rest: str) -> None:
        assert self.out is not None
        self.out.write(f"{code} {kind} {depth} {rest}\n")
        self.depths[code] = depth
        self.count += 1
        if self.written is not None and self.count % WRITTEN_EVERY == 0:
            self.written(self.count)
