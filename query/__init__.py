"""Answers from built tables: the probing API (`open_tablebase`), position notation, export,
the interactive game, and the `tablebase` command (query.cli)."""
from __future__ import annotations

from query.errors import (IllegalMoveError, ImpossiblePositionError, MissingPositionError,
                          NotationError, QueryError)
from query.tablebase import ManyProbes, MoveInfo, Probe, Step, Tablebase, open_tablebase

__all__ = [
    "IllegalMoveError", "ImpossiblePositionError", "ManyProbes", "MissingPositionError",
    "MoveInfo", "NotationError", "Probe", "QueryError", "Step", "Tablebase", "open_tablebase",
]
