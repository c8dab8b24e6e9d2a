"""The answering core (the `Tablebase` probing API, table selection, notation, answer records,
export, errors), the rooms built on it (`audit`, `play`, `verify`), the JSON shapes, and the
two faces: the `tablebase` command (`cli`) and the HTTP app (`server`).

The names below are imported on first use (as the top-level package's are), so that a command
that never opens a database (`solve`) does not load the storage layer."""
from __future__ import annotations

from importlib import import_module
from typing import Any

# Public name -> the module that defines it.
_NAMES = {
    **dict.fromkeys(("IllegalMoveError", "ImpossiblePositionError", "MissingPositionError",
                     "MissingTableError", "NotationError", "QueryError"), "errors"),
    **dict.fromkeys(("ManyProbes", "MoveInfo", "Probe", "Step", "TableInfo"), "answer_records"),
    **dict.fromkeys(("Tablebase", "open_tablebase"), "tablebase"),
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    """The name `name`, imported from its module on first use."""
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'tablebase.query' has no attribute {name!r}")
    value = getattr(import_module(f"tablebase.query.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
