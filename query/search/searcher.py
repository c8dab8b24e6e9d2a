"""Solving one position by search: its exact value for the side to move, its depth where the
search proves it, and a move that keeps them; within a budget of seconds and nodes, past which
the answer is what was proved so far, never a guess.

Gravity boards that fit 64 bits (Connect Four) go to the bitboard kernel (gravity.py), whose
whole solve is one compiled call per thread (bitsolver.py runs it on idle cores, stopped at the
budget; many positions in one call); the order below is compiled_search.py's, for every other game.

The order of the work: a first look for a draw (two null windows of some thousand nodes, on
boards without gravity), then deepening (a null window at WS - d for d = 1, 2, ...: a win, or
a loss, within d plies, cut off at that depth by the kernel's bounds; the first found is the
exact depth) and the value by two null windows (is it at least a draw? a win?) in turns of
growing numbers of nodes, until one settles the board (a draw by the value; a win or a loss
by the deepening, which goes on alone once the value is known); last a move whose child has
the score found. The transposition table is kept between
calls, so asking about a position's children after the position costs little.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypeVar, cast

import numpy as np

from tablebase.builder.games.grid import Spec, Value, outcome
from tablebase.builder.games.registry import grid_game
from tablebase.query.search import bitsolver, control, gravity
from tablebase.query.search.bitboard_arrays import Bitboards, fits, score_outcomes
from tablebase.query.search.bitsolver import Run, Watch, cells_of, run
from tablebase.query.search.control import PLAIN, WS, ZONES, LeafTable
from tablebase.query.wording import outcome_text

if TYPE_CHECKING:
    from tablebase.query.search.board import Board

# A deepening step costs at most this many nodes before the value search takes a turn of as
# many; then both go on with DEEPEN_GROWTH times the nodes (the value once known, the depth
# search goes on without a cap).
DEEPEN_NODES, DEEPEN_GROWTH = 1 << 18, 4
# Before deepening, boards without gravity get a first look for a draw of this many nodes a
# null window (proofs without search settle most drawn m,n,k positions in a few thousand).
QUICK_NODES = 1 << 14
# How often a timed search looks at the clock (and the progress line is redrawn).
_POLL = 0.05

Progress = Callable[[int, int], None]  # (nodes so far, table hits so far)
T = TypeVar("T")


class OutOfBudget(Exception):
    """The budget ran out in the middle of a search (internal to this module and fallback)."""


@dataclass(frozen=True)
class Budget:
    """How much a search may spend: seconds and nodes (None: no limit), and a flag another
    thread may set to stop it as if its time were up (a client that went away)."""

    seconds: float | None = None
    nodes: int | None = None
    cancel: threading.Event | None = None


class Solution(NamedTuple):
    """What search proved about one position: the value lies in [low, high] (for the side to
    move; equal once known), the depth (plies to the end, None until proved) and a move (cell)
    that keeps them (None on a finished game, or when the budget ran out first)."""

    low: Value
    high: Value
    depth: int | None
    move: int | None
    nodes: int
    table_hits: int
    seconds: float

    @property
    def value(self) -> Value | None:
        """The value, or None while only bounds are known."""
        return self.low if self.low == self.high else None

    @property
    def known(self) -> str:
        """What is known, in words: 'win in 7 plies', 'win (depth not proved)', 'unknown: not
        a loss', 'unknown'."""
        if self.value is not None:
            if self.depth is not None:
                return outcome_text(self.value, self.depth)
            return f"{self.value.word} (depth not proved)"
        if self.low == Value.DRAW:
            return "unknown: not a loss"
        if self.high == Value.DRAW:
            return "unknown: not a win"
        return "unknown"

    @property
    def rate(self) -> float:
        """Nodes a second."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class Searcher:
    """Searches positions of one game, keeping its transposition table between them: gravity
    boards that fit 64 bits on bitboards (gravity.py, `threads` sharing the table), others
    on compiled_search.py's arrays, where `proofs` says what the kernel may prove without search
    (board.py: PLAIN, PAIRINGS, ZONES, the default)."""

    def __init__(self, spec: Spec, leaves: Sequence[LeafTable] = (),
                 slots_log2: int | None = None, threads: int | None = None,
                 proofs: int = ZONES) -> None:
        self.spec = spec
        self.bits: Bitboards | None = None
        self.arrays: Board | Bitboards
        if fits(spec):
            self.bits = self.arrays = Bitboards(
                spec, leaves, **({} if slots_log2 is None else {"slots_log2": slots_log2}),
                **({} if threads is None else {"threads": threads}))
            # A batch's scores as values and depths, held here: looked up by spec in each batch,
            # the table cost a tenth of a batch of easy positions on cold caches.
            self._outcomes = score_outcomes(spec)
        else:
            # Imported here: a gravity board's search never loads the m,n,k kernel's modules.
            from tablebase.query.search.board import Board

            self._board = self.arrays = Board(spec, leaves, slots_log2, proofs)
        self._deadline: float | None = None
        # What a run out of budget answers: (low, high, depth, move) proved so far.
        self._partial: tuple[Value, Value, int | None, int | None] = (
            Value.LOSS, Value.WIN, None, None)
        self._cancel: threading.Event | None = None
        self._progress: Progress | None = None

    # --- the kernel, under the budget ----------------------------------------------

    def _run(self, alpha: int, beta: int) -> int:
        """One kernel search; OutOfBudget when it was stopped."""
        a = self._board
        if self._deadline is None and self._progress is None and self._cancel is None:
            score = a.search(alpha, beta)
        else:
            if self._stopped():
                raise OutOfBudget
            box: list[int] = []
            worker = threading.Thread(target=lambda: box.append(a.search(alpha, beta)))
            worker.start()
            try:
                while worker.is_alive():
                    # Wake at the deadline itself, not at the next poll: a budget of many short
                    # searches (every move of a position) would otherwise overrun by a poll each.
                    wait = _POLL if self._deadline is None else min(
                        _POLL, self._deadline - time.monotonic())
                    worker.join(max(wait, 0.0))
                    if self._progress is not None:
                        self._progress(int(a.ctl[control.NODES]), int(a.ctl[control.TABLE_HITS]))
                    if self._stopped():
                        a.ctl[control.STOP] = 1
            finally:  # Ctrl-C included: stop the kernel before leaving it running
                a.ctl[control.STOP] = 1
                worker.join()
                a.ctl[control.STOP] = 0
            score = box[0] if box else 0
        if a.ctl[control.ABORTED]:
            a.ctl[control.ABORTED] = 0
            raise OutOfBudget
        return score

    def _stopped(self) -> bool:
        """Whether the budget's time is up or its search was cancelled."""
        return ((self._deadline is not None and time.monotonic() >= self._deadline)
                or (self._cancel is not None and self._cancel.is_set()))

    def _child(self, cell: int, alpha: int, beta: int) -> int:
        """The score of the loaded board's child after `cell`, searched in (alpha, beta)."""
        a = self._board
        player = 1 if a.placed % 2 == 0 else 2
        made = a.place(cell, player)
        try:
            if made:
                return WS if self.spec.misere else -WS
            if a.placed == self.spec.cells:
                return 0
            return self._run(alpha, beta)
        finally:
            a.remove(cell)

    def _wins_within(self, d: int) -> bool:
        return self._run(WS - d - 1, WS - d) >= WS - d

    def _loses_within(self, d: int) -> bool:
        return self._run(-(WS - d), -(WS - d) + 1) <= -(WS - d)

    # --- one position --------------------------------------------------------------

    def solve(self, board: Sequence[int], budget: Budget = Budget(),
              progress: Progress | None = None, known: tuple[Value, Value] | None = None,
              depth: bool = True, move: bool = True) -> Solution:
        """What search proves about `board` (a legal position) within `budget`. `known`: bounds
        on its value proved elsewhere (a move's child is no better for the player moving than
        the position: the tests they decide are skipped); `depth` and `move`: whether to go on,
        once the value is known, to prove the depth and to find a move that keeps them (the
        bitboard search of gravity boards proves them together, always)."""
        self._deadline = None if budget.seconds is None else time.monotonic() + budget.seconds
        self._cancel = budget.cancel
        self._progress = progress
        if self.bits is not None:
            return self._solve_bits(self.bits, board, budget.nodes, known)
        a = self._board
        start = time.monotonic()
        nodes0, hits0 = int(a.ctl[control.NODES]), int(a.ctl[control.TABLE_HITS])
        a.ctl[control.LIMIT] = (1 << 62) if budget.nodes is None else nodes0 + budget.nodes
        lo, hi = known or (Value.LOSS, Value.WIN)
        low, high, found_depth, found_move = lo, hi, None, None
        empties = self.spec.cells - sum(1 for v in board if v)
        over = outcome(self.spec, board)
        if over is not None:
            low = high = over
            found_depth = 0
        else:
            a.load(board)
            try:
                low, high, found_depth, found_move = self._solve(empties, lo, hi, depth, move)
            except OutOfBudget:
                low, high, found_depth, found_move = self._partial
        return Solution(low, high, found_depth, found_move, int(a.ctl[control.NODES]) - nodes0,
                        int(a.ctl[control.TABLE_HITS]) - hits0, time.monotonic() - start)

    def solve_many(self, boards: Sequence[Sequence[int]] | np.ndarray, budget: Budget = Budget()
                   ) -> list[Solution]:
        """`solve` of each board (legal positions; or an (n, cells) array of them), each within
        `budget`. On bitboards the first nodes of every board's solve (bitsolver.INLINE_NODES)
        run in one compiled call, where most boards end; the others go on one at a time with
        the rest of their budget. A Solution's seconds are then its share of that call (the
        call's time over the boards) plus its own after it."""
        bits = self.bits
        if bits is None or not len(boards) or budget.cancel is not None or (
                budget.seconds is not None and not Watch(time.monotonic() + budget.seconds).roomy()):
            rows = boards.tolist() if isinstance(boards, np.ndarray) else boards
            return [self.solve(board, budget) for board in rows]
        start = time.monotonic()
        most = bitsolver.INLINE_NODES
        outs = bits.solve_many(boards, most if budget.nodes is None else min(budget.nodes, most))
        share = (time.monotonic() - start) / len(boards)
        # Most boards end in the batch with their exact score: their Solutions made here, in
        # one pass over the rows (a batch of easy positions costs about as much in Python as
        # in the search); the others after it.
        found: list[Solution | None] = []
        later, total, outcomes, c, over = [], bits.total, self._outcomes, self.spec.cells, gravity.OVER
        # A Solution made in C, without the named tuple's Python-level constructor: 3-5% of a
        # cold batch of easy positions (docs/benchmarks.md).
        new = tuple.__new__
        for _, low, high, _, aborted, stones, cell, done, hits in outs:
            total += done
            if aborted or low != high or low == over:
                later.append(len(found))
                found.append(None)
                continue
            value, depth = outcomes[stones][low + c]  # type: ignore[misc]  # a score's stones
            found.append(new(Solution, (value, value, depth, None if cell < 0 or depth == 0
                                        else cell, done, hits, share)))
        bits.total = total
        for i in later:
            out = outs[i]
            done, hits = out[gravity.DONE], out[gravity.DONE + 1]
            if out[gravity.ABORTED] and (budget.nodes is None or done < budget.nodes):
                self._deadline = None if budget.seconds is None else \
                    time.monotonic() + max(0.0, budget.seconds - share)
                self._cancel = self._progress = None
                then = self._solve_bits(bits, boards[i], None if budget.nodes is None
                                        else budget.nodes - done, inline=False)
                found[i] = then._replace(nodes=then.nodes + done, table_hits=then.table_hits + hits,
                                         seconds=then.seconds + share)
            else:
                found[i] = self._solution((out, done, hits), share)
        return cast(list[Solution], found)  # every None replaced

    # --- gravity boards on bitboards: the whole solve in one compiled call per thread ------

    def _solve_bits(self, bits: Bitboards, board: Sequence[int], nodes: int | None,
                    known: tuple[Value, Value] | None = None, inline: bool = True) -> Solution:
        """`solve` on bitboards (bitsolver.py's run)."""
        start = time.monotonic()
        ran = run(bits, cells_of(board), nodes, Watch(self._deadline, self._cancel,
                                                      self._progress), inline)
        return self._solution(ran, time.monotonic() - start, known)

    def _solution(self, ran: Run, seconds: float, known: tuple[Value, Value] | None = None
                  ) -> Solution:
        """The kernel's score (stones) as value and depth, and its move, as a Solution."""
        out, done, hits = ran
        low, high, stones, cell = out[gravity.LOW], out[gravity.HIGH], out[gravity.STONES], \
            out[gravity.CELL]
        depth: int | None = None
        if low == high == gravity.OVER:
            vlow = vhigh = Value.LOSS
            depth = 0
        elif low == high:
            vlow, depth = self._outcomes[stones][low + self.spec.cells]  # type: ignore[misc]
            vhigh = vlow
        else:  # the budget ran out: what the null windows proved, and what was known before
            vlow = Value.WIN if low > 0 else Value.DRAW if low == 0 else Value.LOSS
            vhigh = Value.WIN if high > 0 else Value.DRAW if high == 0 else Value.LOSS
            if known is not None:
                vlow, vhigh = max(vlow, known[0]), min(vhigh, known[1])
        move = None if cell < 0 or depth is None or depth == 0 else cell
        return Solution(vlow, vhigh, depth, move, done, hits, seconds)

    def _solve(self, empties: int, lo: Value, hi: Value, want_depth: bool, want_move: bool
               ) -> tuple[Value, Value, int | None, int | None]:
        self._partial = (lo, hi, empties if lo == hi == Value.DRAW else None, None)
        score, tried, cap = (0 if lo == hi == Value.DRAW else None), 0, DEEPEN_NODES
        if score is None and lo == Value.LOSS and hi >= Value.DRAW \
                and not (grid_game(self.spec).drops or self.spec.misere
                         or self._board.par[8] == PLAIN) and self._quick_draw(hi):
            score, tried = 0, empties  # a draw: no short win to look for
        while score is None:
            # Deepening: a win (or loss) within d plies for d = 1, 2, ...; the first found is
            # the exact depth, every step before proving none shorter. Each step may cost `cap`
            # nodes; no cap once the value is known and its depth wanted (all that is left).
            while tried < empties:
                d, endless = tried + 1, lo == hi and want_depth
                step = self._capped(1 << 62 if endless else cap, lambda: (
                    WS - d if hi == Value.WIN and self._wins_within(d)
                    else d - WS if lo == Value.LOSS and self._loses_within(d) else 0))
                if step is None:
                    break  # too costly a step for now: the value search takes a turn
                tried = d  # no win or loss within d plies (or the one found)
                if step:
                    score = step
                    break
            else:
                score = 0 if score is None else score  # no win or loss within every ply left
            if score is not None:
                break
            # The value by null windows (is it at least a draw? a win?), each within `cap`
            # nodes: where it settles first (a draw by proofs without search) it ends the
            # deepening; otherwise both go on with four times the nodes.
            while lo != hi:
                bounds = self._capped(cap, lambda: self._narrow(lo, hi))
                if bounds is None:
                    break
                lo, hi = bounds
                self._partial = (lo, hi, None, None)
            cap *= DEEPEN_GROWTH
            if lo == hi == Value.DRAW:
                score = 0
            elif lo == hi and not want_depth:
                return self._partial
            elif lo == hi and want_move and self._partial[3] is None:
                self._partial = (lo, hi, None, self._keeping(int(lo), sign_only=True))
        value = Value(1 if score > 0 else -1 if score < 0 else 0)
        depth = empties if score == 0 else WS - abs(score)
        self._partial = (value, value, depth, None)
        return value, value, depth, self._keeping(score) if want_move else None

    def _narrow(self, lo: Value, hi: Value) -> tuple[Value, Value]:
        """[lo, hi] narrowed by one null window: is the loaded board at least a draw (while a
        loss is possible)? else a win?"""
        if lo == Value.LOSS:
            return (Value.LOSS, Value.LOSS) if self._run(-1, 0) <= -1 else (Value.DRAW, hi)
        return (Value.WIN, Value.WIN) if self._run(0, 1) >= 1 else (lo, Value.DRAW)

    def _capped(self, nodes: int, work: Callable[[], T]) -> T | None:
        """work() within `nodes` more nodes of the kernel's, or None when those ran out first
        (OutOfBudget when the budget itself did)."""
        a = self._board
        limit = int(a.ctl[control.LIMIT])
        a.ctl[control.LIMIT] = min(limit, int(a.ctl[control.NODES]) + nodes)
        try:
            return work()
        except OutOfBudget:
            if self._stopped() or int(a.ctl[control.NODES]) >= limit:
                raise
            return None
        finally:
            a.ctl[control.LIMIT] = limit

    def _quick_draw(self, hi: Value) -> bool:
        """Whether two null windows of QUICK_NODES nodes each prove the loaded board a draw
        (neither side can win: a pairing or dead lines in a few plies, as in most drawn m,n,k
        positions); False when they do not, or run out of their nodes first."""
        if not self._capped(QUICK_NODES, lambda: self._run(-1, 0) >= 0):
            return False
        self._partial = (Value.DRAW, hi, None, None)  # not a loss, proved
        return bool(self._capped(QUICK_NODES, lambda: self._run(0, 1) <= 0))

    def _keeping(self, score: int, sign_only: bool = False) -> int | None:
        """A move of the loaded board whose score is `score` (or, with `sign_only`, of its
        sign; any move of a lost board)."""
        from tablebase.query.search.moves import invert  # loaded with the m,n,k kernel

        moves = self._board.ordered_moves()
        if sign_only and score < 0:
            return moves[0]
        for cell in moves:
            if sign_only:
                child = self._child(cell, -1, 1) if score == 0 else self._child(cell, -1, 0)
                if (child == 0) if score == 0 else (child < 0):
                    return cell
                continue
            # The board's score is proved exactly, so no child is better for the mover than
            # `want`: a null window asks whether this one is as good.
            want = invert(score)
            if self._child(cell, want, want + 1) <= want:
                return cell
        raise AssertionError("no move keeps the score the search proved")
