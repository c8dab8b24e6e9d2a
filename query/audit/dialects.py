"""The two GTP dialects an engine may speak: the plain one (`x`/`o`, our move names, `set_game
SPEC`) and the course one (`b`/`w`, GTP coordinates, `boardsize N`, `timelimit S`); see
gtp_client.py for the exchange."""
from __future__ import annotations

import re
from dataclasses import dataclass

from tablebase.builder.games.grid import Spec
from tablebase.builder.games.grid.notation import GTP_COLUMNS, column_name
from tablebase.builder.games.registry import grid_game
from tablebase.query.audit.processes import GameRefusedError

__all__ = ["COURSE_TIMELIMIT", "DIALECTS", "Dialect", "GTP_COLUMNS", "told_timelimit"]

DIALECTS = ("auto", "plain", "course")
# The course dialect's `timelimit` takes whole seconds from 1 to 100.
COURSE_TIMELIMIT = 100
# One of our move names: column letters, then the row number.
_NAME_RE = re.compile(r"([a-z]+)(\d+)")


@dataclass(frozen=True)
class Dialect:
    """How moves, players and the game are written to an engine: 'plain' or 'course'."""

    name: str

    @property
    def colours(self) -> tuple[str, str]:
        """The words for x and o."""
        return ("x", "o") if self.name == "plain" else ("b", "w")

    def colour(self, player: str) -> str:
        """The engine's word for player 'x' or 'o'."""
        return self.colours["xo".index(player)]

    def player(self, word: str) -> str | None:
        """'x' or 'o' for the engine's word for a player (None if it is not one)."""
        word = word.lower()
        if self.name == "course":
            word = {"black": "b", "white": "w"}.get(word, word)
        return "xo"[self.colours.index(word)] if word in self.colours else None

    def handshake(self, spec: Spec, timeout: float,
                  timelimit: int | None = None) -> list[tuple[str, bool]]:
        """The commands that tell the engine the game, each with whether '?' refuses the game;
        the course dialect's `timelimit` is `timelimit` seconds as told_timelimit keeps it."""
        if self.name == "plain":
            return [(f"boardsize {spec.width} {spec.height}", True), (f"set_game {spec.name}", True)]
        if spec.width != spec.height or spec.misere or not grid_game(spec).moves_anywhere:
            raise GameRefusedError(
                f"the course dialect plays N x N boards without gravity, misere or stones that"
                f" move; {spec.name} needs the plain dialect (--dialect plain)")
        return [(f"boardsize {spec.width}", True),
                (f"timelimit {told_timelimit(timeout, timelimit)}", False)]

    def timelimit(self, timeout: float, timelimit: int | None) -> str | None:
        """The command that sets the engine's time, or None in the plain dialect (it has none)."""
        return None if self.name == "plain" else f"timelimit {told_timelimit(timeout, timelimit)}"

    def move_out(self, name: str) -> str:
        """Our move name (b2) as the engine writes it (plain: b2; course: B2, columns skip I)."""
        m = _NAME_RE.fullmatch(name)
        if self.name == "plain" or m is None:
            return name
        col = 0
        for ch in m.group(1):
            col = col * 26 + ord(ch) - ord("a") + 1
        return f"{GTP_COLUMNS[col - 1]}{m.group(2)}"

    def move_in(self, text: str) -> str:
        """The engine's move as our move name; unreadable text is passed on for the judge to refuse."""
        if self.name == "plain":
            return text.lower()
        m = re.fullmatch(r"([A-Za-z])(\d+)", text)
        if m is None or m.group(1).upper() not in GTP_COLUMNS:
            return text.lower()
        return f"{column_name(GTP_COLUMNS.index(m.group(1).upper()))}{m.group(2)}"


def told_timelimit(timeout: float, wanted: int | None = None) -> int:
    """The seconds a course engine is told: `wanted` (None: as long as the timeout allows), at
    most a second under the audit's `timeout` and within the course's 1 to 100."""
    # The audit's own timeout stays in force whatever the engine was told: the engine gets a
    # second less, so that its answer (often '= unknown' at its limit) arrives in time.
    under = max(1, int(timeout) - 1)
    return max(1, min(COURSE_TIMELIMIT, under, under if wanted is None else wanted))
