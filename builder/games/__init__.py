"""The games: the `Game` protocol every generic layer answers through, the registry that maps a
spec to its family, and one folder a family. A leaf: the standard library only.

A game given as a Python class (`PATH.py:Class`, `package.module:Class`) enters through
user/; docs/games.md is its protocol, with a worked example.
"""
from __future__ import annotations

# Nothing imported here: every command asks the registry which family a spec names, and a
# probe of tablebase's own games should not pay for the protocol's classes (the modules:
# protocol.py, registry.py, user/).
