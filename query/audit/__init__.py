"""The audit: another solver's or engine's answers checked against a built table.

`positions` judges answers position by position, `games` by playing whole games against the
table; `candidates` turns a solver (a Python function, a GTP program, a textbook solver) into
something that answers (`reaching` finds the moves that put an engine into a position where
stones move); `selection` picks the positions; `solvers/` are the textbook solvers.
"""
from __future__ import annotations

from tablebase.query.audit.candidates import (
                                              BUILTIN_PREFIX,
                                              DEFAULT_TIMEOUT,
                                              BuiltinCandidate,
                                              Candidate,
                                              EngineCandidate,
                                              FunctionCandidate,
                                              moves_to,
                                              open_candidate,
                                              open_gtp_engine,
                                              read_return,
)
from tablebase.query.audit.positions import (
                                              CHECKS,
                                              KINDS,
                                              AuditReport,
                                              BuiltinAudit,
                                              Counterexample,
                                              audit,
                                              audit_builtins,
                                              builtin_names,
                                              judge,
)
from tablebase.query.audit.selection import Selection, orientations, parse_selection, select_positions
from tablebase.query.errors import AuditInputError

__all__ = ["AuditInputError", "AuditReport", "BUILTIN_PREFIX", "BuiltinAudit", "BuiltinCandidate",
           "CHECKS", "Candidate", "Counterexample", "DEFAULT_TIMEOUT", "EngineCandidate",
           "FunctionCandidate", "KINDS",
           "Selection", "audit", "audit_builtins", "builtin_names", "judge", "moves_to",
           "open_candidate", "open_gtp_engine", "orientations", "parse_selection", "read_return",
           "select_positions"]
