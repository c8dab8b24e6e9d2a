"""Random game graphs written as game classes (docs/games.md): positions are numbers, a move
goes to another number, some numbers end the game (won, drawn or lost for the side to move)
and the rest may loop back: draws by endless play, draws that reach a finished draw, wins and
losses of every depth. `RandomGraph(seed)` is one such game; `Graph7` the one the docs show."""
from __future__ import annotations

import random


class RandomGraph:
    name = "random-graph"

    def __init__(self, seed: int = 7, size: int = 60) -> None:
        rng = random.Random(seed)
        self.size = size
        self.edges = {i: [rng.randrange(size) for _ in range(rng.choice((0, 1, 1, 2, 2, 3)))]
                      for i in range(size)}
        self.ends = {i: rng.choice((-1, 0, 0, 1)) for i in rng.sample(range(1, size), size // 6)}
        self.name = f"random-graph-{seed}-{size}"

    def start(self) -> int:
        return 0

    def outcome(self, p: int) -> int | None:
        return self.ends.get(p)

    def moves(self, p: int) -> list[tuple[str, int]]:
        return [(f"to{c}", c) for c in self.edges[p]]

    def text(self, p: int) -> str:
        return f"n{p}"

    def read(self, text: str) -> int:
        if not (text.startswith("n") and text[1:].isdigit() and int(text[1:]) < self.size):
            raise ValueError(f"expected n0 to n{self.size - 1}")
        return int(text[1:])


class Graph7(RandomGraph):
    def __init__(self) -> None:
        super().__init__(7)


class Graph7Changed(Graph7):
    """`Graph7` after its author changed a rule (and kept its name): its tables no longer
    match its moves."""

    def __init__(self) -> None:
        super().__init__()
        for p, kids in self.edges.items():
            if kids and p not in self.ends:
                kids[0] = (kids[0] + 1) % self.size
