"""A game given as a Python class (`PATH.py:Class`, `package.module:Class`): loaded, and
wrapped so that every fault of its code is one line naming the class, the method and the
position (adapter.py). docs/games.md is the protocol such a class follows."""
