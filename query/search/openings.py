"""Each first move of a position settled on its own, within one budget (`settle_moves`): for
each of the side to move's moves (one of each symmetric set, nearest the centre first), whether
the mover wins after it, cannot win after it, or it is still open, by the prover ("the mover
cannot win" after it, on games it takes) and the alpha-beta search (the other side's value
after it) side by side on two threads, the first to settle stopping the other (where the
prover does not take the game, two moves at once, by the search alone). The budget's time is
shared out evenly over the moves still to try, so a move settled early leaves its time to the
rest."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tablebase.builder.games.grid import Spec, Value, canonical_board, outcome
from tablebase.builder.games.grid.boards import place
from tablebase.query.errors import QueryError
from tablebase.query.search import prooftable
from tablebase.query.search.proving import (
    DEFAULT_MEMORY,
    ProofRefusedError,
    ProofTable,
    check_provable,
)
from tablebase.query.search.solving import budget, refuse_unsearchable, searcher, solve

if TYPE_CHECKING:
    from tablebase.query.search.searcher import Searcher

# What is known of the mover after one of its moves, in words.
WINS, NO_WIN, OPEN = "wins", "cannot win", "open"
# Searches run at once where the prover does not run beside them (the machine's two cores).
SEARCHES_ALONE = 2


@dataclass(frozen=True)
class MoveSettled:
    """One first move (`move`, a cell) and what was found after it, for the side that played
    it: `result` WINS, NO_WIN or OPEN; `by` 'prover' or 'search' (None while open); the nodes
    of both methods together and the seconds it took (wall time)."""

    move: int
    result: str
    by: str | None
    nodes: int
    seconds: float


def canonical_moves(spec: Spec, board: Sequence[int]) -> list[int]:
    """The empty cells of `board`, one of each set its symmetries make equal (the first of each
    in cell order), nearest the board's centre first."""
    seen: set[int] = set()
    moves = []
    for cell in (c for c, v in enumerate(board) if v == 0):
        code = canonical_board(spec, place(tuple(board), cell))
        if code not in seen:
            seen.add(code)
            moves.append(cell)

    def distance(cell: int) -> tuple[float, int]:
        row, col = divmod(cell, spec.width)
        return (abs(row - (spec.height - 1) / 2) + abs(col - (spec.width - 1) / 2), cell)
    return sorted(moves, key=distance)


def settle_moves(spec: Spec, board: Sequence[int], seconds: float, nodes: int | None = None,
                 memory: int = DEFAULT_MEMORY,
                 settled: Callable[[MoveSettled, int, int], None] | None = None
                 ) -> list[MoveSettled]:
    """Each first move of the side to move on `board` (a position not over), in
    canonical_moves' order, settled within an even share of `seconds` of wall time (what the
    moves before left, over the moves left), `nodes` for each method on each move (None: no
    limit), the prover's table of `memory` bytes (kept from move to move); where the prover
    does not take the game, SEARCHES_ALONE moves at once, by the search alone. The search runs
    without the stored tables. `settled(found, done, of)` after each move, in the order they
    end (on the caller's thread or a worker's)."""
    refuse_unsearchable(spec)
    board = tuple(int(v) for v in board)
    if outcome(spec, board) is not None:
        raise QueryError(f"{spec.name}: the position is over: nothing to settle")
    try:
        check_provable(spec)
        table: ProofTable | None = ProofTable(spec, memory)
    except ProofRefusedError:
        table = None  # the search alone: gravity, misere, +exact or moving stones
    mover = sum(1 for v in board if v) % 2
    moves = canonical_moves(spec, board)
    # Without the prover, two searches at once (each move on one core), each with its own
    # transposition table; with it, one move at a time, the prover beside the search.
    workers = 1 if table is not None else SEARCHES_ALONE
    end = time.monotonic() + seconds
    pending = list(moves)
    found: dict[int, MoveSettled] = {}
    lock = threading.Lock()
    failed: list[BaseException] = []  # an error on a worker's thread, raised on this one

    def work() -> None:
        engine = searcher(None, spec, False)
        while True:
            with lock:
                if not pending or failed:
                    return
                # The time left over the rounds left (a round: a move for every worker).
                rounds = -(-len(pending) // workers)
                share = max(0.0, (end - time.monotonic()) / rounds)
                cell = pending.pop(0)
            try:
                one = _settle_one(spec, place(board, cell), cell, mover, share, nodes, table,
                                  engine)
            except BaseException as e:  # raised again on the caller's thread, below
                with lock:
                    failed.append(e)
                return
            with lock:
                found[cell] = one
                if settled is not None:
                    settled(one, len(found), len(moves))
    threads = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        raise failed[0]
    return [found[c] for c in moves]


def _settle_one(spec: Spec, child: tuple[int, ...], cell: int, mover: int, seconds: float,
                nodes: int | None, table: ProofTable | None, engine: Searcher) -> MoveSettled:
    """The mover's move `cell` (leading to `child`) settled within `seconds`: the prover on a
    thread of its own ("the mover cannot win", where `table`), the search on this one."""
    start = time.monotonic()
    stop_search = threading.Event()
    proved: list[int] = []  # the prover's: 1 proved, -1 disproved, 0 stopped

    def prove() -> None:
        assert table is not None
        proved.append(table.run(child, mover, nodes))
        if proved[0] != 0:
            stop_search.set()
    prover, before = None, 0 if table is None else table.nodes
    if table is not None and outcome(spec, child) is None:
        prover = threading.Thread(target=prove, daemon=True)
        prover.start()

    def stop_prover() -> None:
        if table is not None:
            table.ctl[prooftable.STOP] = 1
    # The search stops the prover when it settles; a timer stops the prover at the deadline.
    timer = threading.Timer(seconds, stop_prover)
    timer.start()
    try:
        searched = solve(None, spec, child, budget(seconds, nodes, stop_search),
                         engine=engine, started=start)
        s = searched.solution
        stop_prover()  # settled by the search, or out of time
    finally:
        timer.cancel()
        stop_prover()
        if prover is not None:
            prover.join()
        if table is not None:
            table.ctl[prooftable.STOP] = 0
    spent = time.monotonic() - start
    node_count = s.nodes + (0 if table is None else table.nodes - before)
    if proved and proved[0] != 0:
        return MoveSettled(cell, NO_WIN if proved[0] == 1 else WINS, "prover", node_count, spent)
    # The search's bounds are for the other side, to move after `cell`.
    if s.high == Value.LOSS:
        return MoveSettled(cell, WINS, "search", node_count, spent)
    if s.low >= Value.DRAW:
        return MoveSettled(cell, NO_WIN, "search", node_count, spent)
    return MoveSettled(cell, OPEN, None, node_count, spent)
