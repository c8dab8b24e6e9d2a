"""A GTP-style engine for tests/test_audit.py, speaking the dialect the README documents: it
solves any WxHkK[+gravity][+misere][+exact] game by memoised negamax, except where told to misbehave.

    python fake_engine.py [--wrong BOARD] [--hang BOARD] [--crash BOARD] [--nonsense BOARD]
                          [--refuse GAME]

BOARD is board text such as .../.x./...; the engine misbehaves on every symmetric image of it.
Standalone on purpose: it imports nothing of the project.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from functools import lru_cache


class Game:
    def __init__(self, spec: str) -> None:
        m = re.fullmatch(r"(\d+)x(\d+)k(\d+)((?:\+\w+)*)", spec)
        if not m:
            raise ValueError(spec)
        self.w, self.h, self.k = int(m[1]), int(m[2]), int(m[3])
        flags = set(m[4].split("+")[1:])
        self.gravity, self.misere = "gravity" in flags, "misere" in flags
        self.exact = "exact" in flags  # a line wins only with no own stone just beyond it
        self.lines = set()
        for r in range(self.h):
            for c in range(self.w):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + dr * i, c + dc * i) for i in range(-1, self.k + 1)]
                    inside = [0 <= y < self.h and 0 <= x < self.w for y, x in cells]
                    if all(inside[1:-1]):
                        flat = [y * self.w + x if ok else -1 for (y, x), ok in zip(cells, inside)]
                        ends = tuple(e for e in (flat[0], flat[-1]) if e >= 0 and self.exact)
                        self.lines.add((tuple(flat[1:-1]), ends))
        self.solve = lru_cache(maxsize=None)(self._solve)

    def cell(self, move: str) -> int:
        col, row = ord(move[0]) - ord("a"), int(move[1:])
        return (self.h - row) * self.w + col

    def name(self, cell: int) -> str:
        return "abcdefghij"[cell % self.w] + str(self.h - cell // self.w)

    def over(self, cells: str, me: str) -> int | None:
        last = "o" if me == "x" else "x"
        if any(all(cells[i] == last for i in line) and all(cells[e] != last for e in ends)
               for line, ends in self.lines):
            return 1 if self.misere else -1
        return 0 if "." not in cells else None

    def moves(self, cells: str) -> list[int]:
        return [i for i, c in enumerate(cells) if c == "." and (
            not self.gravity or i + self.w >= len(cells) or cells[i + self.w] != ".")]

    def _solve(self, cells: str, me: str) -> tuple[int, int | None]:
        done = self.over(cells, me)
        if done is not None:
            return done, None
        best, best_cell = -2, None
        for i in self.moves(cells):
            value, _ = self.solve(cells[:i] + me + cells[i + 1:], "o" if me == "x" else "x")
            if -value > best:
                best, best_cell = -value, i
        return best, best_cell

    def images(self, text: str) -> set[str]:
        rows = text.split("/")
        grids = {tuple(rows)}
        for _ in range(4):
            for g in list(grids):
                grids.add(tuple(r[::-1] for r in g))           # mirror left-right
                grids.add(tuple(g[::-1]))                      # mirror up-down
                if len(g) == len(g[0]):
                    grids.add(tuple("".join(r[i] for r in g) for i in range(len(g))))  # transpose
        return {"".join(g) for g in grids}


def main() -> None:
    parser = argparse.ArgumentParser()
    for flag in ("--wrong", "--hang", "--crash", "--nonsense", "--refuse"):
        parser.add_argument(flag)
    parser.add_argument("--chatter", action="store_true",
                        help="print search progress on stdout before each answer to solve, as"
                             " real course engines do")
    args = parser.parse_args()
    game: Game | None = None
    cells = ""
    special: dict[str, set[str]] = {}

    def reply(text: str = "", ok: bool = True) -> None:
        sys.stdout.write(f"{'=' if ok else '?'} {text}".rstrip() + "\n\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "quit":
            reply()
            return
        if command == "boardsize":
            reply()
        elif command == "set_game":
            if words[1] == args.refuse:
                reply("unsupported game", ok=False)
                continue
            game = Game(words[1])
            cells = "." * (game.w * game.h)
            special = {name: game.images(board) for name in ("wrong", "hang", "crash", "nonsense")
                       if (board := getattr(args, name))}
            reply()
        elif command == "clear_board" and game:
            cells = "." * (game.w * game.h)
            reply()
        elif command == "play" and game:
            i = game.cell(words[2])
            if cells[i] != ".":
                reply("illegal move", ok=False)
                continue
            cells = cells[:i] + words[1] + cells[i + 1:]
            reply()
        elif command == "solve" and game:
            me = "x" if cells.count("x") == cells.count("o") else "o"
            if cells in special.get("hang", ()):
                time.sleep(3600)
            if cells in special.get("crash", ()):
                sys.stderr.write("fake engine: crashing as asked\n")
                sys.exit(3)
            if cells in special.get("nonsense", ()):
                sys.stdout.write("I think x is doing well\n\n")
                sys.stdout.flush()
                continue
            value, cell = game.solve(cells, me)
            if args.chatter:
                sys.stdout.write(f"0 {cells.count('.')}\nsearching {cells}\n")
            if cells in special.get("wrong", ()):
                value = 1 if value <= 0 else -1
                cell = None
            winner = {1: me, -1: "o" if me == "x" else "x", 0: "draw"}[value]
            reply(winner + ("" if cell is None else " " + game.name(cell)))
        else:
            reply("unknown command", ok=False)


if __name__ == "__main__":
    main()
