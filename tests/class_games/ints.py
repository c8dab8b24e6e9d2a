"""A game class whose positions are ints, slow past a point: for interrupting a build while
its walk runs in compiled code (tests/test_class_numbers.py)."""
from __future__ import annotations

import os
import time
from pathlib import Path


class SlowTree:
    """A ternary tree of ints (0 -> 1, 2, 3; p -> 3p + 1, 3p + 2, 3p + 3), 12 plies deep, every
    leaf a loss for the side to move. Past position 100,000 (well into the walk's compiled part)
    each `moves` takes a few milliseconds and leaves the file TABLEBASE_TEST_MARK names."""

    name = "slow-tree"
    LEAVES_FROM = (3 ** 12 - 1) // 2  # the first int of the twelfth ply

    def start(self) -> int:
        return 0

    def outcome(self, p: int) -> int | None:
        return -1 if p >= self.LEAVES_FROM else None

    def moves(self, p: int) -> list[tuple[str, int]]:
        if p >= 100_000:
            mark = os.environ.get("TABLEBASE_TEST_MARK")
            if mark:
                Path(mark).touch()
            time.sleep(0.003)
        return [(str(k), 3 * p + k) for k in (1, 2, 3)]

    def text(self, p: int) -> str:
        return str(p)

    def read(self, text: str) -> int:
        if not text.isdigit():
            raise ValueError("expected a number")
        return int(text)
