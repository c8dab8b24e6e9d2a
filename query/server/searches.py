"""Searches off the event loop: a bounded pool of threads that run the searches of positions no
table holds, so that table answers, /health and the page never wait behind one. A search that
cannot start at once is refused (BusyError, 503 with Retry-After), never queued; a client that
goes away stops its search. The search kernel releases the GIL, so the threads use every core.
"""
from __future__ import annotations

import asyncio
import math
import os
import sys
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from tablebase.query.errors import QueryError

T = TypeVar("T")

# How often a waiting request looks whether its client is still there.
_DISCONNECT_POLL = 0.1
# Search threads run this much nicer than the event loop (Linux: per thread), so that on a
# machine whose cores they fill the table answers still get a core at once.
SEARCH_NICENESS = 10
# Seconds a thread may keep the GIL while another waits for it (Python's default is 0.005):
# the search threads' Python between kernel calls otherwise holds the event loop up to that
# long each time (table answers' p99 on two busy cores: 27-34 ms at 0.005, 16 ms at this).
SWITCH_INTERVAL = 0.0005


class BusyError(QueryError):
    """Every search slot is taken: the request may be tried again after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def default_searches(processes: int = 1) -> int:
    """One search at a time per core, shared among `processes` server processes (at least 1)."""
    return max(1, (os.cpu_count() or 1) // max(1, processes))


class SearchPool:
    """At most `size` searches at once, each on a thread of its own, none queued."""

    def __init__(self, size: int, seconds: float) -> None:
        if size < 1:
            raise ValueError(f"a search pool needs at least one thread, found {size}")
        self.size = size
        self.seconds = seconds  # a search's budget: how long a refused client should wait
        self._running = 0  # touched on the event loop only
        self._executor = ThreadPoolExecutor(size, thread_name_prefix="search",
                                            initializer=_lower_priority)
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))

    @property
    def running(self) -> int:
        """Searches running now (slots taken)."""
        return self._running

    async def run(self, work: Callable[[threading.Event], T],
                  gone: Callable[[], Awaitable[bool]]) -> T:
        """work(cancel) on a search thread, or BusyError at once when every slot is taken;
        `cancel` is set when gone() finds the client went away (or this request is cancelled),
        and the slot is free again only when the thread has finished."""
        if self._running >= self.size:
            raise BusyError(
                f"busy: {self._running} search{'es' if self._running != 1 else ''} running,"
                f" the most this server runs at once; try again in {self.retry_after} s",
                self.retry_after)
        self._running += 1
        cancel = threading.Event()
        future = asyncio.get_running_loop().run_in_executor(self._executor, work, cancel)
        future.add_done_callback(self._release)
        try:
            while True:
                done, _ = await asyncio.wait({future}, timeout=_DISCONNECT_POLL)
                if done:
                    return future.result()
                if not cancel.is_set() and await gone():
                    cancel.set()  # the search stops within a few milliseconds, then is dropped
        finally:
            cancel.set()  # a request cancelled while waiting stops its search too

    def _release(self, _: object) -> None:
        self._running -= 1

    @property
    def retry_after(self) -> int:
        """Whole seconds after which a slot is sure to be free again: one search's budget."""
        return max(1, math.ceil(self.seconds))

    def close(self) -> None:
        """Stop taking searches; those running finish (each within its budget)."""
        self._executor.shutdown(wait=False, cancel_futures=True)


def _lower_priority() -> None:
    """Make the calling search thread yield the CPU to the event loop: on Linux a thread's
    nice value is its own (elsewhere this changes nothing, or the whole process: skipped)."""
    if sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), SEARCH_NICENESS)
        except OSError:
            pass  # not allowed here: searches then share the CPU evenly
