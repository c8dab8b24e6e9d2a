"""Textbook solvers, for small boards only: minimax, negamax, boolean AND/OR search, alpha-beta
and alpha-beta with transposition tables.

Each answers one position from scratch by search, independently of any stored table, and counts the
nodes it visits; they serve as references for the built tables and as worked examples of the lectures.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from tablebase.builder.games.grid import EMPTY, Spec
from tablebase.query.audit.solvers import (
    alphabeta,
    alphabeta_sym,
    alphabeta_tt,
    boolean,
    depth,
    minimax,
    negamax,
)
from tablebase.query.audit.solvers.common import SearchTooLargeError, SolverResult

Solver = Callable[[Spec, Sequence[int]], SolverResult]

SOLVERS: dict[str, Solver] = {
    "minimax": minimax.solve,
    "negamax": negamax.solve,
    "boolean": boolean.solve,
    "alphabeta": alphabeta.solve,
    "alphabeta-tt": alphabeta_tt.solve,
    "alphabeta-sym": alphabeta_sym.solve,
    "depth": depth.solve,
}


class UnknownSolverError(KeyError):
    """A solver name that is not in SOLVERS."""


def get_solver(name: str) -> Solver:
    """The solver called `name`; raise UnknownSolverError (a KeyError) naming the known ones."""
    try:
        return SOLVERS[name]
    except KeyError:
        raise UnknownSolverError(
            f"no solver named {name!r}; known solvers: {', '.join(SOLVERS)}") from None


def node_counts(spec: Spec) -> dict[str, int]:
    """Nodes each solver visits from the empty board of `spec`, by solver name.

    Solvers that refuse the board as too large for them are left out.
    """
    empty = (EMPTY,) * spec.cells
    counts = {}
    for name, solve in SOLVERS.items():
        try:
            counts[name] = solve(spec, empty).nodes
        except SearchTooLargeError:
            continue
    return counts


__all__ = ["SOLVERS", "SearchTooLargeError", "Solver", "SolverResult", "UnknownSolverError",
           "get_solver", "node_counts"]
