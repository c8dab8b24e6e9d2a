"""The registry: which family a spec names. `WxHkK[+flags]` and its aliases name the grid
families (builder/games/grid/spec.py); `PATH.py:Class` and `package.module:Class` a game given as a
Python class (builder/games/user/).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the protocol's classes load with a class game, not with every command
    from collections.abc import Sequence

    from tablebase.builder.games.grid.game import GridGame
    from tablebase.builder.games.grid.spec import Spec
    from tablebase.builder.games.protocol import Game
    from tablebase.builder.games.tier_kernels import TableRoot

# A class spec: a module (a path ending in .py, or a dotted import name) and a class name.
_CLASS_SPEC = re.compile(r"(?P<module>.+\.py|[A-Za-z_][\w.]*):(?P<name>[A-Za-z_]\w*)")


def is_keyed_spec(text: str) -> bool:
    """Whether `text` names a game whose positions are Python values, served by the keyed
    layers: a class (`PATH.py:Class`, `pkg.mod:Class`) or a morris game
    (`nine-mens-morris+stones3`: builder/games/morris/)."""
    return isinstance(text, str) and (_CLASS_SPEC.fullmatch(text.strip()) is not None
                                      or is_named_game(text))


def is_named_game(text: str) -> bool:
    """Whether `text` names a keyed game by a word of its family (`nine-mens-morris`), not by
    a class to load: a server may serve such a game by the name a request gives."""
    from tablebase.builder.games.morris import is_morris

    return isinstance(text, str) and is_morris(text)


def keyed_game(text: str) -> Game | None:
    """The game `text` names, loaded and wrapped in the checks of the game protocol
    (InvalidSpecError naming why it cannot be), or None where it names none of the keyed
    layers' games (`is_keyed_spec`)."""
    if not isinstance(text, str):
        return None
    from tablebase.builder.games.user.adapter import ClassGame, load_class_game

    if is_named_game(text):
        from tablebase.builder.games.morris.game import MorrisGame

        return ClassGame(MorrisGame(text), "MorrisGame", text.strip())
    match = _CLASS_SPEC.fullmatch(text.strip())
    if match is None:
        return None
    return load_class_game(match.group("module"), match.group("name"))


@lru_cache(maxsize=None)
def grid_game(spec: Spec) -> GridGame:
    """The grid game a Spec names: its family's object (stones that move: stones/game.py;
    stones that drop: gravity/game.py; else m,n,k: grid/game.py). Made once a spec."""
    if spec.stones:
        from tablebase.builder.games.stones.game import SteppingGame

        return SteppingGame(spec)
    if spec.gravity:
        from tablebase.builder.games.gravity.game import GravityGame

        return GravityGame(spec)
    from tablebase.builder.games.grid.game import GridGame

    return GridGame(spec)


def table_root(spec: object, position: Sequence[int] | None = None) -> TableRoot:
    """The root of a table to build of a game solved tier by tier (`spec` its text or a parsed
    Spec): the game's start where `position` is None or empty, else the position, checked
    (InvalidPositionError naming why it cannot root a table; WholeBoardTooLargeError where a
    whole game's codes would not fit)."""
    from tablebase.builder.games.grid.spec import parse_spec

    if isinstance(spec, str):
        spec = parse_spec(spec)
    return grid_game(spec).build_root(position)
