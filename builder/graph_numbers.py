"""The walk of a game whose positions are small non-negative ints (builder/graph.py), carried
on in compiled code once it is large: the class's `outcome` and `moves` are called as before,
once a position, a batch of positions at a time; the children they give are numbered by a
compiled hash table rather than a dict (which, a random access a child, costs about half the
floor's time on a large game). The calls are made by forked worker processes, one a core (they
hold the class as this process does; positions go as int64 and come back as int64), while this
process numbers what they give, in order. The numbering is the breadth-first walk's own, so the
graph is the one the plain walk makes.

Anything the table cannot hold the walk does not guess at: a child that is not an int from 0 to
below NUMBER_KEYS_BELOW, or a call that raises, ends this walk (`NotNumbers`), and the plain
walk starts again from the start (naming a fault of the class as it does).
"""
from __future__ import annotations

import signal
from array import array
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from tablebase.builder.games.errors import BuildTooLargeError
from tablebase.builder.games.protocol import NUMBER_KEYS_BELOW, Game, GameFault
from tablebase.builder.games.tier_lookup import home
from tablebase.builder.memory import current_bytes
from tablebase.compiled import njit

# Positions a batch: their calls in Python, then their children numbered in one compiled call.
BATCH = 1 << 13
_EMPTY = -1  # in `slots`: no position
# Batches each worker has in hand (so none waits for the next to be sent).
_AHEAD = 2


class NotNumbers(Exception):
    """The walk met a child it cannot number here, or a call that raised."""


@njit(cache=True, nogil=True)
def _number(children: np.ndarray, counts: np.ndarray, start: int, keys: np.ndarray,
            slots: np.ndarray, shift: int, order: np.ndarray, ply: np.ndarray, n: int,
            kids: np.ndarray) -> int:
    """Number the children (`counts[a]` of them for position start + a, in order): each one's
    number in `kids`, a child met for the first time numbered n, n + 1, ... (appended to
    `order`, one ply past its parent's); the new n."""
    mask = keys.shape[0] - 1
    k = 0
    for a in range(counts.shape[0]):
        depth = ply[start + a] + 1
        for _ in range(counts[a]):
            c = children[k]
            h = home(c, shift)
            while True:
                j = slots[h]
                if j == _EMPTY:
                    keys[h], slots[h] = c, n
                    order[n], ply[n] = c, depth
                    kids[k] = n
                    n += 1
                    break
                if keys[h] == c:
                    kids[k] = j
                    break
                h = (h + 1) & mask
            k += 1
    return n


@njit(cache=True, nogil=True)
def _insert_all(order: np.ndarray, n: int, keys: np.ndarray, slots: np.ndarray,
                shift: int) -> None:
    """Put order[:n] (distinct) into an empty table, numbered by their places."""
    mask = keys.shape[0] - 1
    for i in range(n):
        c = order[i]
        h = home(c, shift)
        while slots[h] != _EMPTY:
            h = (h + 1) & mask
        keys[h], slots[h] = c, i


class _Table:
    """The positions met so far (`order`, `ply`: their first n) and their index, grown as
    needed: the index at most half full."""

    def __init__(self, order: np.ndarray, ply: np.ndarray) -> None:
        self.n = len(order)
        self.order, self.ply = _grown(order, 2 * self.n + BATCH), _grown(ply, 2 * self.n + BATCH)
        self._index(self.n)

    def _index(self, room: int) -> None:
        bits = max(10, (2 * room - 1).bit_length())
        self.shift = 64 - bits
        self.keys = np.empty(1 << bits, dtype=np.int64)
        self.slots = np.full(1 << bits, _EMPTY, dtype=np.int64)
        _insert_all(self.order, self.n, self.keys, self.slots, self.shift)

    def make_room(self, more: int) -> None:
        """Room for `more` positions beyond n."""
        need = self.n + more
        if need > len(self.order):
            self.order = _grown(self.order[:self.n], 2 * need)
            self.ply = _grown(self.ply[:self.n], 2 * need)
        if 2 * need > len(self.keys):
            self._index(need)


def _grown(a: np.ndarray, size: int) -> np.ndarray:
    out = np.empty(size, dtype=a.dtype)
    out[:len(a)] = a
    return out


Calls = tuple[Callable[[Any], object], Callable[[Any], Any], Callable[[Any, object], Any]]


def _calls(calls: Calls, batch: list[int]) -> tuple[np.ndarray, array, array]:
    """The batch's children (int64, in order), how many each position has, and each one's end
    (-1, 0, +1, or 2 where play goes on). GameFault for a wrong outcome; NotNumbers where a call
    raised or a child is not an int from 0 to below NUMBER_KEYS_BELOW."""
    outcome, moves, checked_outcome = calls
    flat: list[Any] = []
    counts = array("q")
    ends = array("b")
    try:
        for p in batch:
            o = outcome(p)
            if o is None:
                children = [c for _name, c in moves(p)]
                flat += children
                counts.append(len(children))
                ends.append(2)  # graph.OPEN
            else:
                counts.append(0)
                ends.append(checked_outcome(p, o) or 0)  # a fault of the class: raised
    except GameFault:
        raise
    except Exception as e:  # named by the plain walk
        raise NotNumbers from e
    if not set(map(type, flat)) <= {int}:
        raise NotNumbers
    try:
        found = np.array(flat, dtype=np.int64)
    except OverflowError as e:
        raise NotNumbers from e
    if len(found) and not (0 <= int(found.min()) and int(found.max()) < NUMBER_KEYS_BELOW):
        raise NotNumbers
    return found, counts, ends


_worker: Calls | None = None  # a worker process's: the class's calls, inherited as it forks


def _start_worker(calls: Calls) -> None:
    global _worker
    _worker = calls
    # Ctrl-C is the build's to handle (it stops the workers): none prints a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _in_worker(batch: np.ndarray) -> tuple[np.ndarray, array, array] | None:
    """`_calls` in a worker; None where it raised (the walk calls again, and names it)."""
    assert _worker is not None
    try:
        return _calls(_worker, batch.tolist())
    except Exception:
        return None


def walk_numbers(game: Game, order: list[Any], ply: np.ndarray, walked: int, first: array,
                 kids: array, term: array, memory_budget: int,
                 update: Callable[[int], object], workers: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Go on with a walk whose first `walked` positions of `order` (every one an int from 0 to
    below NUMBER_KEYS_BELOW; `ply` theirs) have their children in `first`, `kids` and `term`;
    return first, kids, term, ply and the positions (all int64). The class's calls are made by
    `workers` forked processes (none: 1 or less), a batch each, while this one numbers what
    they give, in order. NotNumbers where the rest cannot be walked here; BuildTooLargeError
    past `memory_budget`. `order` is emptied (the table holds its positions)."""
    table = _Table(np.array(order, dtype=np.int64), ply.astype(np.int32))
    order.clear()
    calls: Calls = (game.fast_outcome, game.fast_moves, game.checked_outcome)
    edges = len(kids)
    s = sent = walked
    pending: deque[tuple[int, Any]] = deque()
    with _pool(calls, workers) as pool:
        while sent < table.n or pending:
            got: tuple[np.ndarray, array, array] | None = None
            if pool is None or pool.lost:
                if pending:  # what a lost worker held is called here, with what was in hand
                    end, job = pending.popleft()
                    got = job.get() if job.ready() and job.successful() else None
                else:
                    end = sent = min(table.n, s + BATCH)
            else:
                # A short batch only where none is in hand: the next ones bring more positions.
                while len(pending) < _AHEAD * workers and \
                        (table.n - sent >= BATCH or (sent < table.n and not pending)):
                    end = min(table.n, sent + BATCH)
                    pending.append((end, pool.submit(table.order[sent:end])))
                    sent = end
                end, job = pending.popleft()
                got = pool.result(job)
            found, counts, ends = got or _calls(calls, table.order[s:end].tolist())
            table.make_room(len(found))
            numbered = np.empty(len(found), dtype=np.int64)
            sizes = np.frombuffer(counts, dtype=np.int64)
            table.n = _number(found, sizes, s, table.keys, table.slots, table.shift, table.order,
                              table.ply, table.n, numbered)
            # Appended to the plain walk's arrays (grown in place, as the plain walk grows them).
            first.frombytes((edges + np.cumsum(sizes)).tobytes())
            edges += len(found)
            kids.frombytes(numbered.tobytes())
            term.extend(ends)
            update(end - s)
            s = end
            if current_bytes() > memory_budget:
                raise BuildTooLargeError.walk_stopped(game.name, table.n, memory_budget)
    n = table.n
    return (np.frombuffer(first, dtype=np.int64), np.frombuffer(kids, dtype=np.int64),
            np.frombuffer(term, dtype=np.int8), table.ply[:n].copy(), table.order[:n].copy())


class _Workers:
    """`workers` forked processes holding the class's calls, each given a batch at a time."""

    def __init__(self, calls: Calls, workers: int) -> None:
        import multiprocessing

        # Forked: the workers hold the class (a user's, loaded from a file) as this process
        # does; only positions and what the calls give are pickled.
        self.pool = multiprocessing.get_context("fork").Pool(workers, _start_worker, (calls,))
        self.pids = self._pids()
        self.lost = False  # a worker died (killed, crashed): its batch will never come back

    def _pids(self) -> set[int]:
        # Pool's own list (private): it replaces a worker that died, and the batch that worker
        # held is never answered, so a changed list is how the loss shows.
        return {p.pid for p in self.pool._pool}  # type: ignore[attr-defined]

    def submit(self, batch: np.ndarray) -> Any:
        """The batch's calls, started on a worker."""
        return self.pool.apply_async(_in_worker, (batch,))

    def result(self, job: Any) -> tuple[np.ndarray, array, array] | None:
        """What a worker gave; None where it raised, its batch could not be pickled, or a
        worker was lost (`lost` then set: the rest is walked here)."""
        from multiprocessing import TimeoutError as Waited

        while True:
            try:
                return job.get(timeout=0.5)
            except Waited:
                if self._pids() != self.pids:
                    self.lost = True
                    return None
            except Exception:
                return None

    def close(self) -> None:
        """The workers stopped once every batch is answered (idle, they wait for the pool's
        word to stop)."""
        self.pool.terminate()
        self.pool.join()

    def kill(self) -> None:
        """The workers killed mid-walk (Ctrl-C, a fault): Pool.terminate could wait for ever
        there. A worker killed while it writes its answer keeps the answers' lock (a semaphore
        shared by the processes), which the pool's task thread then waits on to say it is done,
        and terminate waits on that thread: under load `build` hung after Ctrl-C. So the
        pool's threads are told to stop (the worker thread must not fork new workers), the
        workers are killed and reaped, and the pool's own finalizer is dropped; a thread still
        blocked is a daemon, gone with the process."""
        from multiprocessing import pool as pools

        pool: Any = self.pool  # its private parts: Pool has no way to stop without waiting
        for thread in (pool._worker_handler, pool._task_handler, pool._result_handler):
            thread._state = pools.TERMINATE
        pool._change_notifier.put(None)
        pool._worker_handler.join(timeout=5)
        for process in pool._pool:
            process.kill()
        for process in pool._pool:
            process.join(timeout=5)
        pool._terminate.cancel()
        pool._state = pools.TERMINATE


@contextmanager
def _pool(calls: Calls, workers: int) -> Iterator[_Workers | None]:
    """The workers (None for fewer than 2), stopped at the end: killed where the walk did not
    finish."""
    if workers < 2:
        yield None
        return
    pool = _Workers(calls, workers)
    try:
        yield pool
    except BaseException:
        pool.kill()
        raise
    pool.close()
