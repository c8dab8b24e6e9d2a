"""tablebase: strongly solve tic-tac-toe-like games into a database and answer from it.

This folder is the top-level `tablebase` package itself (pyproject.toml maps it here and the
owner's folders under it: `tablebase.builder`, `tablebase.db`, `tablebase.query`). It holds the
public API, imported on first use so that `tablebase probe` starts without loading the builder:

    >>> import tablebase
    >>> report = tablebase.build("3x3k3", "tablebase.db")
    >>> with tablebase.open_tablebase("tablebase.db") as tb:
    ...     print(tb.probe("3x3k3", "x.o/.x./..."))
    o to move: draw in 6 plies
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

# Public name -> the module that defines it.
_API = {
    "open_tablebase": "tablebase.query.tablebase",
    "Tablebase": "tablebase.query.tablebase",
    "TableView": "tablebase.query.table_view",
    "Probe": "tablebase.query.answer_records",
    "MoveInfo": "tablebase.query.answer_records",
    "Step": "tablebase.query.answer_records",
    "ManyProbes": "tablebase.query.answer_records",
    "TableInfo": "tablebase.query.answer_records",
    "search_position": "tablebase.query.search.solving",
    "search_positions": "tablebase.query.search.solving",
    "Searched": "tablebase.query.search.solving",
    "Solution": "tablebase.query.search.searcher",
    "build": "tablebase.builder.pipeline",
    "BuildReport": "tablebase.builder.pipeline",
    "audit": "tablebase.query.audit",
    "AuditReport": "tablebase.query.audit",
    "Selection": "tablebase.query.audit",
    "FunctionCandidate": "tablebase.query.audit",
    "Value": "tablebase.builder.games.grid",
    "Spec": "tablebase.builder.games.grid",
    "parse_spec": "tablebase.builder.games.grid",
    # Errors: bad input is a ValueError, a missing position or table a KeyError.
    "GameError": "tablebase.builder.games.errors",
    "InvalidSpecError": "tablebase.builder.games.errors",
    "InvalidPositionError": "tablebase.builder.games.errors",
    "StorageError": "tablebase.db.errors",
    "DatabaseError": "tablebase.db.errors",
    "GameNotBuiltError": "tablebase.db.errors",
    "GameExistsError": "tablebase.db.errors",
    "QueryError": "tablebase.query.errors",
    "NotationError": "tablebase.builder.games.errors",
    "IllegalMoveError": "tablebase.builder.games.errors",
    "ImpossiblePositionError": "tablebase.builder.games.errors",
    "MissingPositionError": "tablebase.query.errors",
    "MissingTableError": "tablebase.query.errors",
}

__all__ = ["__version__", *sorted(_API)]


def __getattr__(name: str) -> Any:
    """The public name `name`, imported from its module on first use."""
    if name == "__version__":
        from tablebase.version import tool_version
        return tool_version()
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'tablebase' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
