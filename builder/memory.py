"""Peak resident memory of this process, resettable per stage where Linux allows."""
from __future__ import annotations

import resource
import sys


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


def reset_peak() -> bool:
    """Reset the peak to the current size (Linux only); return whether it worked."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
        return True
    except OSError:
        return False
