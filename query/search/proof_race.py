"""Proving a position either way on both cores: the prover (that the side to move cannot win,
proving.py, its proof written by proof_writer.py) and the win writer (that it wins,
win_writer.py) side by side from the start; the first to settle writes its proof and stops the
other (`prove_either`).

How the two cores are shared. Nothing cheap tells a draw from a win before trying, and each
side costs the other: the win writer is one thread, the prover two (each proving first moves).
On a win the prover's work is waste (it only disproves "cannot win", and that by the one thread
on the winning first move: the other thread's moves are not needed); on a draw the win writer's
is (it never ends). So the win writer first runs at full priority beside one prover thread for
WIN_HEAD seconds (a win of that size is found in the time the prover alone took before to
disprove "cannot win", and both cores work), then the prover's second thread starts and the
win writer goes on at the lowest priority (nice 19: some 1.5% of a core beside the prover's
threads) until the prover is done. By design a draw pays WIN_HEAD / 2 seconds (one core of
two for WIN_HEAD seconds) and the win writer's crumbs, and a win gains up to the prover's time
to disprove "cannot win"; measured on a loaded machine (docs/benchmarks.md), 8x8k5's draw came
1.17 times later (more than the design's 20 s, within the noise of that load), 9x4k4's win
0.91 times as late, and 10x4k4's 1.18 times later (its disproof came from a move the held-back
second thread takes, and at nice 19 the win writer did next to nothing meanwhile). Once the
prover has disproved "cannot win" the win writer runs alone, at full priority again where the
system allows it.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tablebase.builder.games.grid import Spec, outcome
from tablebase.query.errors import QueryError
from tablebase.query.search.proof_writer import (
    ProofRun,
    ProofWriteError,
    writable,
    write_proof,
)
from tablebase.query.search.proving import (
    Progress,
    ProofBudget,
    Proved,
    check_provable,
    prove_no_win,
)
from tablebase.query.search.win_writer import WinProof, write_win_proof

# Seconds the win writer runs at full priority beside one prover thread (at most half of a
# time budget), and its nice value after them; how often the caller's thread looks at both.
WIN_HEAD, HEAD_SHARE, BESIDE_NICE, _POLL = 40.0, 0.5, 19, 0.05


@dataclass(frozen=True)
class EitherProof:
    """What `prove_either` did: the prover's part (`run`: its outcome 'unknown' where the win
    writer settled first; the file where it proved the side to move cannot win), and the win's
    proof where the side to move wins (`won`; None otherwise)."""

    run: ProofRun
    won: WinProof | None


def prove_either(spec: Spec, board: Sequence[int], path: str | Path, budget: ProofBudget,
                 progress: Progress | None = None,
                 written: Callable[[int], None] | None = None) -> EitherProof:
    """Prove that the side to move on `board` cannot win, or that it wins, whichever is true
    and found first within `budget` (its seconds, wall time, bound both; its nodes, threads and
    memory are the prover's), and write the proof to `path`: the prover (`progress` as
    prove_no_win's) and the win writer side by side (`written(count)`: positions written by
    whichever writes). A path that cannot be written is refused before either starts; where
    neither settles, no file is written."""
    check_provable(spec)  # refused here, not on a thread
    board = tuple(int(v) for v in board)
    if outcome(spec, board) is not None:
        raise QueryError(f"{spec.name}: the position is over: nothing to prove")
    writable(path)
    started = time.monotonic()
    deadline = None if budget.seconds is None else started + budget.seconds
    head = WIN_HEAD if budget.seconds is None else min(WIN_HEAD, budget.seconds * HEAD_SHARE)
    stop_prover, stop_win, held = threading.Event(), threading.Event(), threading.Event()
    limits = ProofBudget(budget.seconds, budget.nodes, budget.memory, budget.threads,
                         stop_prover, held)
    proved: list[Proved] = []
    won: list[WinProof] = []
    failed: list[ProofWriteError] = []  # the win writer's (no win; stopped; out of time)
    broke: list[BaseException] = []  # any other error on either thread, raised on this one
    native: list[tuple[int, int]] = []  # the win writer's thread id and its nice value

    def prove() -> None:
        try:
            proved.append(prove_no_win(spec, board, limits, progress))
        except BaseException as e:
            broke.append(e)
            stop_win.set()

    def win() -> None:
        me = threading.get_native_id()
        native.append((me, _nice(me)))
        try:
            won.append(write_win_proof(spec, board, path, deadline, written, stop_win))
        except ProofWriteError as e:
            failed.append(e)
        except BaseException as e:
            broke.append(e)
            stop_prover.set()
    prover = threading.Thread(target=prove, daemon=True)
    writer = threading.Thread(target=win, daemon=True)
    writer.start()
    prover.start()
    lowered = False
    try:
        while prover.is_alive() or writer.is_alive():
            (prover if prover.is_alive() else writer).join(_POLL)
            if won and prover.is_alive():
                stop_prover.set()  # the win is proved and written: nothing left to prove
            if not held.is_set() and (not writer.is_alive()
                                      or time.monotonic() - started >= head):
                held.set()  # the prover's other threads start: the head is over
                if writer.is_alive() and native:
                    lowered = _renice(native[0][0], max(native[0][1], BESIDE_NICE))
            if proved and writer.is_alive():
                if proved[0].outcome != "disproved":
                    # Cannot win (the writer would search for ever), or the budget is spent
                    # (--nodes bounds the prover: its end is the run's).
                    stop_win.set()
                elif lowered:
                    _renice(*native[0])  # alone now: its priority back where allowed
                    lowered = False
    finally:  # Ctrl-C included: both stopped before leaving
        stop_prover.set()
        stop_win.set()
        held.set()
        prover.join()
        writer.join()
    if broke:
        raise broke[0]
    p = proved[0]
    if won:
        return EitherProof(ProofRun(p, None, 0, 0, 0.0), won[0])
    if p.outcome == "disproved" and failed and (deadline is None
                                                or time.monotonic() < deadline):
        raise failed[0]  # the side to move wins, yet the writer failed within the time
    if p.outcome != "proved":
        return EitherProof(ProofRun(p, None, 0, 0, 0.0), None)
    writing = time.monotonic()
    positions = write_proof(p, path, written, deadline)
    return EitherProof(ProofRun(p, str(path), positions, os.path.getsize(path),
                                time.monotonic() - writing), None)


def _nice(thread: int) -> int:
    """`thread`'s nice value (a native thread id; 0 where it cannot be read)."""
    try:
        return os.getpriority(os.PRIO_PROCESS, thread) if sys.platform.startswith("linux") else 0
    except OSError:
        return 0


def _renice(thread: int, nice: int) -> bool:
    """Set `thread`'s (a native thread id) nice value; whether it was set. On Linux a
    thread's nice value is its own; elsewhere, or where it is refused (raising it back needs
    the right to), nothing changes."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, thread, nice)
    except OSError:
        return False
    return True
