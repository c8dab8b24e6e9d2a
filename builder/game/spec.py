"""The game spec: board size, k in a row and rule flags, parsed from strings like `4x3k3+gravity`.

Spec strings read width first, as Connect Four's "7x6" does: `4x3k3` is 4 columns by 3 rows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from tablebase.builder.game.errors import InvalidSpecError

# A code is a base-3 number with one digit per cell; 3**39 < 2**63 <= 3**40. A whole-board
# table codes every cell; an endgame table codes only its root's empty cells, so bigger boards
# are fine there, up to the notation's limits: columns a-z, rows numbered 1-99.
MAX_CELLS = 39
MAX_WIDTH, MAX_HEIGHT = 26, 99

ALIASES = {"tictactoe": "3x3k3", "tic-tac-toe": "3x3k3"}
FLAGS = ("gravity", "misere", "exact")

_SPEC_RE = re.compile(r"(\d{1,6})x(\d{1,6})k(\d{1,6})((?:\+[^+]*)*)")


@dataclass(frozen=True)
class Spec:
    """A game: `width` columns, `height` rows, `k` in a row wins (or loses, with `misere`);
    with `gravity` a stone falls to the lowest empty cell of its column; with `exact` only a
    run of exactly k counts (an overline of more than k neither wins nor loses)."""

    width: int
    height: int
    k: int
    gravity: bool = False
    misere: bool = False
    exact: bool = False

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1:
            raise InvalidSpecError(
                f"board {self.width}x{self.height} has a side of zero; both sides must be at least 1")
        if self.k < 1:
            raise InvalidSpecError(f"k={self.k}: k must be at least 1")
        if self.k > max(self.width, self.height):
            raise InvalidSpecError(
                f"k={self.k} is larger than both sides of the {self.width}x{self.height} board,"
                " so nobody could ever win")
        # Narrow boards that a whole-board table could hold may be wider than a-z (aa, ab, ...).
        if (self.width > MAX_WIDTH or self.height > MAX_HEIGHT) and self.cells > MAX_CELLS:
            raise InvalidSpecError(
                f"board {self.width}x{self.height} is too large: at most {MAX_WIDTH} columns"
                f" (letters a-z) and {MAX_HEIGHT} rows, or at most {MAX_CELLS} cells")

    @property
    def cells(self) -> int:
        """Number of cells on the board."""
        return self.width * self.height

    @property
    def whole_board_fits(self) -> bool:
        """Whether a whole-board table (a code digit for every cell) can be built."""
        return self.cells <= MAX_CELLS

    @property
    def name(self) -> str:
        """The canonical spec string, e.g. `4x4k4+gravity`."""
        flags = "".join(f"+{flag}" for flag in FLAGS if getattr(self, flag))
        return f"{self.width}x{self.height}k{self.k}{flags}"

    def __str__(self) -> str:
        return self.name


def parse_spec(text: str) -> Spec:
    """Parse `WxHkK[+gravity][+misere][+exact]` (or the alias `tictactoe`); raise
    InvalidSpecError naming the fault."""
    if not isinstance(text, str):
        raise InvalidSpecError(f"a spec is a string such as 3x3k3, found {type(text).__name__}")
    cleaned = text.strip().lower()
    cleaned = ALIASES.get(cleaned, cleaned)
    shown = text if len(text) <= 40 else text[:37] + "..."
    match = _SPEC_RE.fullmatch(cleaned)
    if match is None:
        raise InvalidSpecError(
            f"cannot read spec {shown!r}: expected WIDTHxHEIGHTkK with optional {_known()},"
            " e.g. 3x3k3, 4x3k3, 4x4k4+gravity, or tictactoe")
    width, height, k = (int(match.group(i)) for i in (1, 2, 3))
    flags = match.group(4).split("+")[1:]
    seen: set[str] = set()
    for flag in flags:
        if flag not in FLAGS:
            raise InvalidSpecError(
                f"unknown flag +{flag} in spec {shown!r}; known flags: {_known()}")
        if flag in seen:
            raise InvalidSpecError(f"flag +{flag} appears twice in spec {shown!r}")
        seen.add(flag)
    return Spec(width, height, k, **{flag: flag in seen for flag in FLAGS})


def _known() -> str:
    return ", ".join(f"+{flag}" for flag in FLAGS)
