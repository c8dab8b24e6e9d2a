"""The answering core (the `Tablebase` probing API, table selection, notation, records,
export, errors), the rooms built on it (`audit`, `play`, `verify`), the JSON shapes, and the
two faces: the `tablebase` command (`cli`) and the HTTP app (`server`)."""
from __future__ import annotations

from tablebase.query.errors import (
                                    IllegalMoveError,
                                    ImpossiblePositionError,
                                    MissingPositionError,
                                    MissingTableError,
                                    NotationError,
                                    QueryError,
)
from tablebase.query.records import ManyProbes, MoveInfo, Probe, Step, TableInfo
from tablebase.query.tablebase import Tablebase, open_tablebase

__all__ = [
    "IllegalMoveError", "ImpossiblePositionError", "ManyProbes", "MissingPositionError",
    "MissingTableError", "MoveInfo", "NotationError", "Probe", "QueryError", "Step", "TableInfo",
    "Tablebase", "open_tablebase",
]
