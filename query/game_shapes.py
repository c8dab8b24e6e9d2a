"""The JSON shapes of answers about a game given as a class (docs/games.md), written once for
the command line's `--json` and the HTTP API: a position is its text, values are words ('win',
'draw', 'loss'; a position's for the side to move, a move's for the player making it) and a
draw by endless play has a null depth."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablebase.query.answer_records import GameMove, GameProbe


def game_probe_json(name: str, probe: GameProbe) -> dict[str, Any]:
    """The `probe --json` object: spec (the game's name), position, ply, value, depth,
    terminal."""
    return {"spec": name, "position": probe.position, "ply": probe.ply,
            "value": probe.value.word, "depth": probe.depth, "terminal": probe.terminal,
            "source": "table"}


def game_move_json(move: GameMove) -> dict[str, Any]:
    """One move: its name, value for the mover, depth after it, best or not, and the position
    it leads to."""
    return {"move": move.move, "value": move.value.word, "depth": move.depth,
            "best": move.best, "position": move.position}


def game_moves_json(name: str, probe: GameProbe, moves: Sequence[GameMove]) -> dict[str, Any]:
    """The `moves --json` object: the probe object plus every move, best first."""
    return {**game_probe_json(name, probe), "moves": [game_move_json(m) for m in moves]}


def game_line_json(name: str, probe: GameProbe, line: Sequence[GameMove],
                   repeats: bool) -> dict[str, Any]:
    """The `line --json` object: the probe object plus a perfect line, move by move, and
    whether it stops because a position came back (a draw by endless play)."""
    return {**game_probe_json(name, probe), "line": [game_move_json(m) for m in line],
            "repeats": repeats}
