"""What a build will cost, said before it starts: stored positions (the root's estimate),
work space, table size and time, and whether that is past what a build should start without
being asked twice (a billion positions, or more disk than is free).
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass

from tablebase.builder.games.tier_kernels import LARGE_TABLE, TableRoot
from tablebase.builder.progress import duration
from tablebase.builder.workdir import work_path

# Per stored position, from builds measured here (docs/benchmarks.md): Connect Four 7x4 and 6x5
# peaked at 10.7 and 10.0 bytes of work space, took 2.15 and 2.31 bits of packed table (5x5
# 2.69; a table's bits, rounded up, go into the disk-space check), and built at 4.1 and 4.7
# million positions a second on two cores (5x5 5.4 million): rounded down for a machine that
# runs something else too.
WORK_BYTES = 12
TABLE_BITS = 3
RATE = 3_500_000  # positions a second, on two cores
# Estimates this small are not worth a line of output (about ten seconds of work).
WORTH_SAYING = 10 ** 7


@dataclass(frozen=True)
class BuildEstimate:
    """A build's estimated size and time, and the disk free where its work directory goes."""

    positions: int
    work_bytes: int
    table_bytes: int
    seconds: float
    free_bytes: int | None

    @property
    def worth_saying(self) -> bool:
        """Whether the estimate is big enough to print before building."""
        return self.positions >= WORTH_SAYING

    def text(self) -> str:
        """The estimate in words."""
        free = "" if self.free_bytes is None else f" ({_bytes(self.free_bytes)} free)"
        return (f"about {_count(self.positions)} positions, {_bytes(self.work_bytes)} of work"
                f" space{free} and {_bytes(self.table_bytes)} of table, about"
                f" {duration(self.seconds)} on two cores")

    def refusal(self) -> str | None:
        """Why the build should not start unasked, or None."""
        if self.free_bytes is not None and self.work_bytes + self.table_bytes > self.free_bytes:
            return "more disk than is free"
        if self.positions > LARGE_TABLE:
            return f"more than {_count(LARGE_TABLE)} positions"
        return None


def estimate_build(root: TableRoot, database: str, work_dir: str | None = None) -> BuildEstimate:
    """The estimate for building the table of `root` into `database`."""
    positions = root.stored_estimate()
    if positions >= WORTH_SAYING:  # worth a second of sampling to correct the bound
        positions = root.stored_estimate(refine=True)
    where = work_path(database, root.game_name, work_dir).parent
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        free: int | None = shutil.disk_usage(where).free
    except OSError:
        free = None
    return BuildEstimate(positions, positions * WORK_BYTES, positions * TABLE_BITS // 8,
                         positions / RATE, free)


def _count(n: int) -> str:
    if n < 10 ** 6:
        return f"{n:,}"
    return f"{n:.1e}".replace("e+0", " x 10^").replace("e+", " x 10^")


def _bytes(n: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n / 1e3:,.1f} kB"
