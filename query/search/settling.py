"""Settling one position's value with every method the project has for it, within one budget:
the alpha-beta search (solving.py) and, side by side with it on games the prover takes, the
prover's two draw proofs (proving.py): "the side to move cannot win", then "the other side
cannot win" after one of the mover's moves. What each found is joined into one answer
(`Settled`), the same kind of answer the search alone gives.

Why side by side: each settles boards the other does not within any budget worth waiting for
(the empty 8x8k5, a draw, by the prover in minutes where the search is still unknown after
hours; a deep win's depth, as 9x4k4's 23 plies, by the search alone), and no cheap test tells
them apart before trying. So the search goes first alone for a head start (HEAD_START nodes,
at most HEAD_SHARE of the time: most positions one asks about end there, answered as the
search alone answers them), then the prover starts beside it, both within the same wall time
(--nodes bounds each one's nodes apart: their nodes are not alike). While the prover runs, the
search runs at a lower priority, on the CPU the prover leaves; once the prover is done short
of a draw (a win or a loss, whose depth only the search gives; or its budget spent), the
search goes on at full priority. The price: a win the search would find past its head start
comes later by about the prover's time to find it (docs/benchmarks.md has both sides measured).
"""
from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tablebase.builder.games.grid import Spec, Value, outcome
from tablebase.builder.games.grid.boards import place
from tablebase.builder.games.grid.notation import move_name, to_move_name
from tablebase.builder.games.grid.position_text import Reading
from tablebase.query.search.proving import (
    DEFAULT_MEMORY,
    ProofBudget,
    ProofRefusedError,
    Proved,
    check_provable,
    first_moves,
    prove_no_win,
)
from tablebase.query.search.solving import (
    Searched,
    budget,
    refuse_unsearchable,
    searcher,
    solve,
)

if TYPE_CHECKING:
    from tablebase.query.search.searcher import Progress
    from tablebase.query.tablebase import Tablebase

# The search's nodes before the prover starts beside it (a second or two on 8x8k5), and at most
# this share of a time budget.
HEAD_START, HEAD_SHARE = 1 << 18, 0.25
# A time budget below this leaves the prover out: starting it (its compiled kernels loaded, its
# threads and tables made) and stopping it take a good part of a second, which such a budget
# cannot spare (`--time 1` ended 1.4 s late under load with it).
PROVER_SECONDS = 2.0
# How much nicer the search runs while the prover runs beside it (nice 10 weighs a tenth of
# nice 0 in Linux's scheduler), and how often the thread waiting for it looks at the prover.
BESIDE_NICE, _POLL = 10, 0.05
# (first moves proved, of how many, nodes so far) of the proof under way, and what it is of:
# "x cannot win" or "o cannot win after d4".
ProofProgress = Callable[[str, int, int, int], None]


@dataclass
class Proofs:
    """What the prover found: `mover`, its proof that the side to move cannot win (None: not
    run), then `others`, for each of the mover's moves tried (one of each symmetric set, best
    first), its proof that the other side cannot win after it, until one is proved (`move`)
    or the budget ran out; `moves`: how many the mover has (all disproved: a loss)."""

    mover: Proved | None = None
    others: list[tuple[int, Proved]] = field(default_factory=list)
    moves: int = 0

    @property
    def move(self) -> int | None:
        """The mover's move (cell) after which the other side is proved unable to win."""
        return next((m for m, p in self.others if p.outcome == "proved"), None)

    @property
    def low(self) -> Value:
        """The least the value can be, for the side to move, by the proofs."""
        if self.mover is not None and self.mover.outcome == "disproved":
            return Value.WIN
        return Value.DRAW if self.move is not None else Value.LOSS

    @property
    def high(self) -> Value:
        """The most the value can be, for the side to move, by the proofs."""
        if self.mover is None or self.mover.outcome != "proved":
            return Value.WIN
        lost = self.moves > 0 and len(self.others) == self.moves and all(
            p.outcome == "disproved" for _, p in self.others)
        return Value.LOSS if lost else Value.DRAW

    @property
    def nodes(self) -> int:
        """The prover's nodes, all its proofs together."""
        return sum(p.nodes for p in self._runs())

    @property
    def seconds(self) -> float:
        """The prover's seconds, all its proofs together."""
        return sum(p.seconds for p in self._runs())

    def _runs(self) -> list[Proved]:
        return ([] if self.mover is None else [self.mover]) + [p for _, p in self.others]


@dataclass(frozen=True)
class Settled:
    """A position's answer by every method: `answer` joins what the search proved (its nodes,
    table hits and seconds) with what the prover proved (`proofs`; None where it did not run:
    a game or position it does not take, or one the search settled in its head start);
    `method` says what settled what the answer says:
    'search' (the search alone), or 'proof' (the value, or a bound of it, by the prover)."""

    answer: Searched
    proofs: Proofs | None
    method: str


def settle(tb: Tablebase | None, spec: Spec, position: Reading | Sequence[int], *,
           seconds: float | None = None, nodes: int | None = None,
           memory: int = DEFAULT_MEMORY, threads: int = 2, use_tables: bool = True,
           progress: Progress | None = None, proving: ProofProgress | None = None
           ) -> Settled:
    """The value of a position that can arise in play (checked, unless its Reading was
    `played`) for the side to move, by the search (tables at its leaves unless `use_tables`
    is False) and, on games the prover takes, the prover beside it on `threads` threads with
    proof tables of `memory` bytes: within `seconds` of wall time (None: no limit) from the
    call, and `nodes` nodes for each (None: no limit). A draw the prover settles stops the
    search (its depth is the empty cells, its move the one the other side's proof follows);
    a win or loss it settles leaves the search on, for the depth."""
    started = time.monotonic()
    refuse_unsearchable(spec)
    board = tuple(position.board) if isinstance(position, Reading) else tuple(
        int(v) for v in position)
    try:
        check_provable(spec)
    except ProofRefusedError:
        provable = False
    else:
        provable = outcome(spec, board) is None and (seconds is None or seconds >= PROVER_SECONDS)
    engine = searcher(tb, spec, use_tables)
    # The search alone first, for HEAD_START nodes (at most HEAD_SHARE of the time): the
    # answers it gives in them (most positions one asks about) are the search's as before,
    # node for node, whichever of the two would have been faster. It checks the position too
    # (it can arise in play), before the prover is given it.
    head = budget(seconds, nodes) if not provable else budget(
        None if seconds is None else seconds * HEAD_SHARE,
        HEAD_START if nodes is None else min(nodes, HEAD_START))
    first = solve(tb, spec, position, head, progress, engine=engine, started=started)
    if not provable or first.solution.value is not None:
        return Settled(first, None, "search")
    deadline = None if seconds is None else started + seconds
    found = Proofs()
    stop_search, stop_proofs = threading.Event(), threading.Event()
    limits = ProofBudget(None, nodes, memory, threads, stop_proofs)

    failed: list[BaseException] = []  # an error on the prover's thread, raised on this one

    def prove() -> None:
        try:
            _prove(spec, board, deadline, limits, found, proving)
        except BaseException as e:  # raised again on the caller's thread, below
            failed.append(e)
        if found.low == found.high == Value.DRAW:
            stop_search.set()
    prover = threading.Thread(target=prove, daemon=True)
    prover.start()
    # While the prover runs, the search goes on beside it at a lower priority, on the CPU the
    # prover leaves: at the same priority it took a third of two cores from the prover's two
    # threads (the empty 8x8k5's proof took 1.5 times as long). Once the prover is done (a
    # win or a loss: the search goes on for the depth), at full priority again, restarted
    # with its transposition table kept.
    resumed = threading.Event()
    try:
        searched, cut = _go_on(first, lambda left, stop: solve(
            tb, spec, position, budget(seconds, left, stop), progress, engine=engine,
            started=started), nodes, stop_search, prover)
        # Cut short when the prover ended: the value, the depth or the move may be missing.
        s = searched.solution
        whole = s.value is not None and s.depth is not None and s.move is not None
        if cut and not whole and not found.low == found.high == Value.DRAW:
            searched, _ = _go_on(searched, lambda left, stop: solve(
                tb, spec, position, budget(seconds, left, stop), progress, engine=engine,
                started=started), nodes, resumed, None)
        if searched.solution.value is not None:
            stop_proofs.set()  # settled: nothing the prover finds would change it
        prover.join()
    finally:  # Ctrl-C included: both stopped before leaving
        stop_search.set()
        resumed.set()
        stop_proofs.set()
        prover.join()
    if failed:
        raise failed[0]
    return _joined(spec, searched, found)


def _go_on(sofar: Searched, search: Callable[[int | None, threading.Event], Searched],
           nodes: int | None, stop: threading.Event, beside: threading.Thread | None
           ) -> tuple[Searched, bool]:
    """The search continued from `sofar` by search(nodes left, stop), within `nodes` in all
    (None: no limit), on a thread of its own: while `beside` (the prover) runs, at a lower
    priority, and stopped when it ends; with `beside` None, at the caller's priority. Also
    whether it was stopped for `beside`'s end."""
    left = None if nodes is None else nodes - sofar.solution.nodes
    if left is not None and left <= 0:
        return sofar, False
    box: list[Searched] = []
    failed: list[BaseException] = []  # an error on the search's thread, raised on this one

    def run() -> None:
        if beside is not None:
            _lower_priority()
        try:
            box.append(search(left, stop))
        except BaseException as e:  # raised again on the caller's thread, below
            failed.append(e)
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    cut = False
    while worker.is_alive():
        worker.join(_POLL)
        if beside is not None and not beside.is_alive() and not stop.is_set():
            cut = True
            stop.set()
    if failed:
        raise failed[0]
    return _added(sofar, box[0]), cut


def _lower_priority() -> None:
    """This thread, and the threads it starts (the search runs its kernel on one), BESIDE_NICE
    steps nicer: on Linux a thread's nice value is its own, and new threads take their
    maker's. Elsewhere, or where it is refused, nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me,
                       min(19, os.getpriority(os.PRIO_PROCESS, me) + BESIDE_NICE))
    except OSError:
        pass


def _added(first: Searched, then: Searched) -> Searched:
    """The search's answer over its two calls: the second's, its bounds narrowed by the
    first's, the nodes, table hits and seconds of both."""
    a, b = first.solution, then.solution
    low, high = max(a.low, b.low), min(a.high, b.high)
    both = b._replace(low=low, high=high, nodes=a.nodes + b.nodes,
                      table_hits=a.table_hits + b.table_hits, seconds=a.seconds + b.seconds)
    return Searched(then.spec, then.board, both)


def _prove(spec: Spec, board: tuple[int, ...], deadline: float | None, limits: ProofBudget,
           found: Proofs, proving: ProofProgress | None) -> None:
    """The prover's part: "the mover cannot win"; where proved, "the other side cannot win"
    after each of the mover's moves in turn, until one is proved (a draw), all are disproved
    (a loss), or the budget runs out. Results land in `found` as they come."""
    ply = sum(1 for v in board if v)

    def left() -> ProofBudget | None:
        """The budget that is left, or None when none is."""
        seconds = None if deadline is None else deadline - time.monotonic()
        nodes = None if limits.nodes is None else limits.nodes - found.nodes
        if (seconds is not None and seconds <= 0) or (nodes is not None and nodes <= 0) or (
                limits.cancel is not None and limits.cancel.is_set()):
            return None
        return ProofBudget(seconds, nodes, limits.memory, limits.threads, limits.cancel)

    def shown(what: str) -> Callable[[int, int, int], None] | None:
        if proving is None:
            return None
        return lambda done, moves, nodes: proving(what, done, moves, nodes)
    room = left()
    if room is None:
        return
    claim = f"{to_move_name(ply)} cannot win"
    found.mover = prove_no_win(spec, board, room, shown(claim))
    found.mover.tables.clear()  # no proof is written: its tables' memory goes back now
    if found.mover.outcome != "proved":
        return
    moves = first_moves(spec, board)
    found.moves = len(moves)
    for cell in moves:
        room = left()
        if room is None:
            return
        child = place(board, cell)
        # The mover's moves make no line (that would be a win, and the mover cannot win): a
        # child that is over is a full board, a draw, which the other side has not won.
        if outcome(spec, child) is not None:
            found.others.append((cell, Proved(spec, child, "proved", 0, 0, 0, 0.0)))
            return
        other = f"{to_move_name(ply + 1)} cannot win after {move_name(spec, cell)}"
        proof = prove_no_win(spec, child, room, shown(other))
        proof.tables.clear()
        found.others.append((cell, proof))
        if proof.outcome != "disproved":
            return  # proved (a draw) or out of budget


def _joined(spec: Spec, search: Searched, found: Proofs) -> Settled:
    """The search's answer with the proofs' bounds added (its nodes, hits and seconds kept)."""
    s = search.solution
    if s.value is not None:
        return Settled(search, found, "search")
    low, high = max(s.low, found.low), min(s.high, found.high)
    if low > high:  # two sound methods cannot disagree: a bug in one of them
        raise AssertionError(f"{spec.name}: the search proved [{s.low.word}, {s.high.word}],"
                             f" the prover [{found.low.word}, {found.high.word}]")
    if (low, high) == (s.low, s.high):
        return Settled(search, found, "search")
    depth, move = s.depth, s.move
    if low == high == Value.DRAW:  # a draw fills the board; the other side's proof, its move
        depth, move = spec.cells - sum(1 for v in search.board if v), found.move
    joined = s._replace(low=low, high=high, depth=depth, move=move)
    return Settled(Searched(spec, search.board, joined), found, "proof")
