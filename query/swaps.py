"""Reads that follow a forced rebuild: a long-lived reader runs each read in one snapshot of a
game's tables, and where a `build --force` of another process has swapped in a new table since
they were opened, opens them again and reads again (each retry follows another swap). A reader
sees the old complete table or the new one, never a mixture, nor what it kept of a replaced one.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, ExitStack
from typing import Protocol, TypeVar

from tablebase.db.errors import DatabaseError

# A table swapped under a read this many times in a row is an error.
SWAPS_FOLLOWED = 8

T = TypeVar("T")
Tables = TypeVar("Tables")


class Snapshots(Protocol):
    """A table's reader, as far as its snapshots go."""

    def snapshot(self) -> AbstractContextManager[None]:
        """Read inside one transaction (DatabaseError once the table has been replaced)."""
        ...


def read_following_swaps(opened: Callable[[], Tables],
                         readers: Callable[[Tables], Sequence[Snapshots]],
                         swapped: Callable[[Tables], bool], read: Callable[[Tables], T]) -> T:
    """`read(tables)` in one snapshot of the `readers` of the tables `opened()` gives; on
    DatabaseError, `swapped(tables)` forgets them and says whether the game now has others, and
    if so the read runs again on those."""
    for attempt in range(SWAPS_FOLLOWED):
        tables = opened()
        try:
            each = readers(tables)
            if len(each) == 1:  # most games: one snapshot, without a stack (a probe's cost)
                with each[0].snapshot():
                    return read(tables)
            with ExitStack() as stack:
                for reader in each:
                    stack.enter_context(reader.snapshot())
                return read(tables)
        except DatabaseError:
            if attempt == SWAPS_FOLLOWED - 1 or not swapped(tables):
                raise
    raise AssertionError("unreachable")
