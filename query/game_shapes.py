"""The JSON shapes of answers about a game given as a class (docs/games.md), written once for
the command line's `--json` and the HTTP API: a position is its text, values are words ('win',
'draw', 'loss'; a position's for the side to move, a move's for the player making it) and a
draw by endless play has a null depth."""
from __future__ import annotations

import re
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


def drawn_moves_json(data: dict[str, Any], drawing: dict[str, Any], marks: str
                     ) -> dict[str, Any]:
    """`data`, a `moves --json` object of a game with a board to draw (its `drawing`), with
    what stands on each point (`marks`, one character a point) and each move's `points`: the
    indices of the points its name names, in the order they are clicked (a move names the
    points it touches, left to right: `d2-d3xg7` is d2, d3, g7)."""
    names = [p["name"] for p in drawing["points"]]
    index = {name: i for i, name in enumerate(names)}
    # The longest names first, so `a10` is never read as `a1` and a stray `0`.
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
    moves = [{**m, "points": [index[found] for found in pattern.findall(m["move"])]}
             for m in data["moves"]]
    return {**data, "marks": marks, "moves": moves}
