"""What a verify of a game class's table reports, and a position's value and depth derived from
its moves' stored answers by the definitions: shared by the keyed tables' verify
(game_tables.py) and the tiered tables' (tiered_tables.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class GameVerifyReport:
    """The outcome of verifying one table of a game class."""

    name: str
    positions: int = 0
    problems: list[str] = field(default_factory=list)
    # What was checked besides each value and depth, in words.
    checked: str = ("every move's position stored; every stored position reached from the"
                    " start; checksum matches")
    which: str = ""  # which positions, where not all: " sampled"

    @property
    def ok(self) -> bool:
        """Whether the table passed every check."""
        return not self.problems


def derive(value_of_moves: list[tuple[int, int | None]], outcome: int | None
           ) -> tuple[int, int | None]:
    """A position's (value, depth) for the side to move from its outcome, or from its moves'
    stored answers (value for the side to move after the move, depth or None)."""
    if outcome is not None:
        return outcome, 0
    if not value_of_moves:
        return -1, 0
    losses = [d for v, d in value_of_moves if v == -1]
    if losses:
        return 1, 1 + min(d or 0 for d in losses)
    if all(v == 1 for v, _ in value_of_moves):
        return -1, 1 + max(d or 0 for _, d in value_of_moves)
    drawn = [d for v, d in value_of_moves if v == 0 and d is not None]
    return 0, (1 + min(drawn)) if drawn else None


def words(value: int, depth: int | None) -> str:
    """A value and depth in words."""
    word = {1: "win", 0: "draw", -1: "loss"}[value]
    return f"{word} (endless play)" if depth is None else f"{word} in {depth}"
