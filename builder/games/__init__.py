"""The games: the `Game` protocol every generic layer answers through, the registry that maps a
spec to its family, and one folder a family. A leaf: the standard library only.

A game given as a Python class (`PATH.py:Class`, `package.module:Class`) enters through
user/; docs/games.md is its protocol, with a worked example.
"""
from __future__ import annotations

from tablebase.builder.games.protocol import Game, GameFault
from tablebase.builder.games.registry import class_game, is_class_spec

__all__ = ["Game", "GameFault", "class_game", "is_class_spec"]
