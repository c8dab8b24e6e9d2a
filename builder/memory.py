"""Memory: peak resident size per stage, and the plan that splits a build's budget."""
from __future__ import annotations

import ctypes
import os
import resource
import sys
from dataclasses import dataclass

# Below this much working memory the build still runs, in very small chunks.
MIN_WORKING = 1 << 18


def peak_bytes() -> int:
    """The process's peak resident set size since start or the last `reset_peak`, in bytes."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def current_bytes() -> int:
    """The process's resident set size now, in bytes."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return peak_bytes()


def reset_peak() -> bool:
    """Reset the peak to the current size (Linux only); return whether it worked."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


# glibc's malloc gives every array above its mmap threshold fresh pages from the kernel (a page
# fault per 4 KiB written) and returns them on free; the threshold grows to 32 MiB only once
# such arrays are freed, and Dask's worker processes pin it at 128 KiB (their environment sets
# MALLOC_TRIM_THRESHOLD_). Measured, packing one 31.6 M-position tier of 5x4k4: 2.6 s in a
# worker's environment, 0.95 s by default, 0.71 s with these settings.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_steady = False


def steady_malloc() -> None:
    """Let this process reuse freed arrays of up to 32 MiB instead of faulting in new pages
    for each (glibc only; elsewhere, nothing)."""
    global _steady
    if _steady:
        return
    _steady = True
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 64 << 20)
    except (OSError, AttributeError):
        pass


def machine_bytes() -> int:
    """Physical memory of the machine, in bytes."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


@dataclass(frozen=True)
class MemoryPlan:
    """How a build spends its budget: `working` is what is left after the interpreter itself."""

    budget: int
    working: int

    @classmethod
    def for_budget(cls, budget: int | None) -> MemoryPlan:
        """A plan for `budget` bytes in all (default: half the machine's memory)."""
        total = budget if budget is not None else machine_bytes() // 2
        return cls(total, max(total - current_bytes(), MIN_WORKING))

    def chunk_rows(self, cells: int, symmetries: int) -> int:
        """Parents expanded at once: each costs its images, digits and one cell's children."""
        per_row = 3 * 8 * symmetries + 3 * cells + 32
        return int(min(max(self.working // 16 // per_row, 64), 1 << 18))

    @property
    def buffer_items(self) -> int:
        """Child codes gathered before they are sorted into a run."""
        return int(min(max(self.working // 8 // 8, 1024), 1 << 26))

    @property
    def run_items(self) -> int:
        """Codes kept in sorted runs in memory before the runs go to disk."""
        return int(max(self.working // 4 // 8, 1024))

    def fits(self, nbytes: int) -> bool:
        """Whether an array of `nbytes` is read into memory rather than mapped from disk."""
        return nbytes <= self.working // 8

    def direct_fits(self, table_bytes: int) -> bool:
        """Whether a direct table of `table_bytes` (one byte per possible code) fits."""
        return table_bytes <= self.working // 2
