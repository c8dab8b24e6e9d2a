"""Morris games: boards of points and lines, placing then stepping, mills that capture
(boards.py, rules.py, notation.py; game.py: the family's game object). Its names are here,
where the registry reads them without loading the rules."""
from __future__ import annotations

# name: (board, stones a side, the least and most stones a side may have, flying)
GAMES: dict[str, tuple[str, int, int, int, bool]] = {
    "three-mens-morris": ("three-mens-morris", 3, 3, 4, False),
    "tapatan": ("tapatan", 3, 3, 4, False),
    "achi": ("tapatan", 4, 3, 4, False),
    "six-mens-morris": ("six-mens-morris", 6, 3, 8, False),
    "nine-mens-morris": ("nine-mens-morris", 9, 3, 12, True),
}
LINE_GAMES = ("three-mens-morris", "tapatan")  # boards on which a line wins at once

TITLES = {"three-mens-morris": "Three Men's Morris", "tapatan": "Tapatan", "achi": "Achi",
          "six-mens-morris": "Six Men's Morris", "nine-mens-morris": "Nine Men's Morris"}


def is_morris(text: str) -> bool:
    """Whether `text` names a morris game (a name of GAMES, with or without flags)."""
    return isinstance(text, str) and text.strip().split("+")[0] in GAMES
