"""The audit: another solver's or engine's answers checked against a built table.

`positions` judges answers position by position, `by_play` by playing whole games against the
table; `candidates` turns a solver (a Python function, a GTP program, a textbook solver) into
something that answers (`reaching` finds the moves that put an engine into a position where
stones move); `selection` picks the positions; `solvers/` are the textbook solvers.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

# Public name -> the module that defines it: imported on first use, so that a command that
# names a module of the audit (its selection's limits, say) does not import all of it.
_NAMES = {
    **dict.fromkeys(["BUILTIN_PREFIX", "DEFAULT_TIMEOUT", "BuiltinCandidate", "Candidate",
                     "EngineCandidate", "FunctionCandidate", "moves_to", "open_candidate",
                     "open_gtp_engine", "read_return"], "tablebase.query.audit.candidates"),
    **dict.fromkeys(["CHECKS", "KINDS", "AuditReport", "BuiltinAudit", "Counterexample", "audit",
                     "audit_builtins", "builtin_names", "judge"], "tablebase.query.audit.positions"),
    **dict.fromkeys(["Selection", "orientations", "parse_selection", "select_positions"],
                    "tablebase.query.audit.selection"),
    "AuditInputError": "tablebase.query.errors",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    """The public name `name`, imported from its module on first use."""
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'tablebase.query.audit' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
