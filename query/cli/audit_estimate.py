"""The note `audit --builtin` prints on stderr before a long run: which textbook solvers will take
minutes here, estimated from node counts (tablebase.query.audit.estimate)."""
from __future__ import annotations

import sys
from typing import Any

from tablebase.builder.game import Spec
from tablebase.query.audit.estimate import estimate_builtins
from tablebase.query.tablebase import Tablebase

# Warn when the audit is expected to take longer than this many seconds.
SLOW = 60.0


def warn_slow(tb: Tablebase, spec: Spec, names: list[str], options: dict[str, Any]) -> None:
    """Print one note on stderr when the named solvers are expected to take minutes."""
    estimates = estimate_builtins(tb, spec, names, options["selection"], options["seed"],
                                  options["every_orientation"])
    total = sum(e.seconds for e in estimates)
    if total < SLOW:
        return
    slow = ", ".join(f"{e.name} ~{_duration(e.seconds)}" for e in estimates if e.seconds >= SLOW / 4)
    print(f"tablebase: note: the textbook solvers may take about {_duration(total)} on"
          f" {spec.name} (estimated from node counts on sample positions: {slow}); --positions"
          " sample:N or ply:P audits fewer positions", file=sys.stderr)


def _duration(seconds: float) -> str:
    if seconds >= 7200:
        return f"{seconds / 3600:,.0f} hours"
    if seconds >= 120:
        return f"{seconds / 60:,.0f} minutes"
    return f"{seconds:,.0f} seconds"
