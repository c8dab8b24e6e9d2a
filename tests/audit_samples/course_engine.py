"""An exact engine in the course's GTP dialect, for tests/test_course_dialect.py and for 7x7
endgames: colours b/w (black = x, moves first), GTP coordinates (columns A.. skipping I, rows
from 1 at the bottom), `boardsize N`, `timelimit S` (accepted, ignored: it is exact), `solve`
answered `= b C3`, `= w`, `= draw C3` (the move given when the side to play wins or draws).
k comes from the command line, as course engines fix their game:

    python course_engine.py --k 5 [--wrong-at BOARD] [--unknown-from N] [--strict-timelimit]
                                  [--answer-twice COMMAND] [--log FILE]

With --wrong-at (board text, rows top to bottom, such as x../.o./...) it answers `solve` wrongly
on exactly that board; with --unknown-from N it answers `= unknown` on boards with N or more
empty cells, as an engine that runs out of time does; with --strict-timelimit it refuses a
`timelimit` outside the course's 1 to 100 seconds, as some course engines do; with
--answer-twice COMMAND it sends two responses to that command, as an engine that prints an
error and then its answer does, so that every later reply is off by one; with --log FILE it
appends every command it receives to FILE, so that a test can see what reached it. The search
is alpha-beta over bitboards with a transposition table, an immediate-win check and forced
blocks, so an endgame of about 20 empty cells takes seconds.
Standalone on purpose: it imports nothing of the project.
"""
from __future__ import annotations

import argparse
import sys

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
EXACT, LOWER, UPPER = 0, 1, 2


class Board:
    def __init__(self, n: int, k: int) -> None:
        self.n, self.k = n, k
        self.full = (1 << n * n) - 1
        lines = []
        for r in range(n):
            for c in range(n):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + dr * i, c + dc * i) for i in range(k)]
                    if all(0 <= y < n and 0 <= x < n for y, x in cells):
                        lines.append(sum(1 << (y * n + x) for y, x in cells))
        self.lines = lines
        self.through = [[m for m in lines if m >> i & 1] for i in range(n * n)]
        middle = (n - 1) / 2
        # Central cells first: they lie on the most lines, so cut-offs come sooner.
        self.order = sorted(range(n * n), key=lambda i: abs(i // n - middle) + abs(i % n - middle))
        self.table: dict[tuple[int, int], tuple[int, int]] = {}
        self.black = self.white = 0

    # -- notation ------------------------------------------------------------------
    def cell(self, vertex: str) -> int:
        col, row = COLUMNS.index(vertex[0].upper()), int(vertex[1:])
        if not (col < self.n and 1 <= row <= self.n):
            raise ValueError(vertex)
        return (self.n - row) * self.n + col

    def vertex(self, cell: int) -> str:
        return f"{COLUMNS[cell % self.n]}{self.n - cell // self.n}"

    def text(self) -> str:
        chars = ["x" if self.black >> i & 1 else "o" if self.white >> i & 1 else "."
                 for i in range(self.n * self.n)]
        return "/".join("".join(chars[r * self.n:(r + 1) * self.n]) for r in range(self.n))

    # -- rules ---------------------------------------------------------------------
    def wins(self, bits: int, cell: int) -> bool:
        return any(bits & m == m for m in self.through[cell])

    def has_line(self, bits: int) -> bool:
        return any(bits & m == m for m in self.lines)

    def to_move(self) -> tuple[int, int, str]:
        """(own bits, opponent bits, colour) of the side to move."""
        if bin(self.black).count("1") == bin(self.white).count("1"):
            return self.black, self.white, "b"
        return self.white, self.black, "w"

    # -- search --------------------------------------------------------------------
    def search(self, me: int, opp: int, alpha: int, beta: int) -> int:
        """The value (1, 0, -1) for the side to move, whose opponent has not just won."""
        empty = self.full & ~(me | opp)
        if not empty:
            return 0
        key = (me, opp)
        hit = self.table.get(key)
        if hit is not None:
            value, flag = hit
            if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
                return value
        moves = [c for c in self.order if empty >> c & 1]
        for c in moves:
            if self.wins(me | 1 << c, c):
                self.table[key] = (1, EXACT)
                return 1
        # A side with no line left free of the other's stones cannot win: bounds for free.
        mine = [m for m in self.lines if not m & opp]
        theirs = [m for m in self.lines if not m & me]
        if not mine and not theirs:
            return 0
        if not mine and alpha >= 0:
            return 0  # at most a draw, and the caller has a draw already
        if not theirs and beta <= 0:
            return 0  # at least a draw, and the caller will not allow more
        # Cells on many live lines, with stones already on them, first.
        weight = dict.fromkeys(moves, 0)
        for m in mine:
            w = 1 + bin(m & me).count("1") ** 2
            for c in moves:
                if m >> c & 1:
                    weight[c] += w
        for m in theirs:
            w = 1 + bin(m & opp).count("1") ** 2
            for c in moves:
                if m >> c & 1:
                    weight[c] += w
        moves.sort(key=weight.__getitem__, reverse=True)
        threats = [c for c in moves if self.wins(opp | 1 << c, c)]
        if len(threats) > 1:
            self.table[key] = (-1, EXACT)
            return -1
        if threats:
            moves = threats
        start, best = alpha, -2
        for c in moves:
            value = -self.search(opp, me | 1 << c, -beta, -alpha)
            if value > best:
                best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
        self.table[key] = (best, UPPER if best <= start else LOWER if best >= beta else EXACT)
        return best

    def solve(self) -> tuple[int, int | None]:
        """(value for the side to move, a move that keeps it) of the current board."""
        me, opp, _ = self.to_move()
        if self.has_line(opp):
            return -1, None
        empty = self.full & ~(me | opp)
        if not empty:
            return 0, None
        alpha, best_cell = -2, None
        for c in [c for c in self.order if empty >> c & 1]:
            value = 1 if self.wins(me | 1 << c, c) else -self.search(opp, me | 1 << c, -1, -alpha)
            if value > alpha:
                alpha, best_cell = value, c
                if alpha == 1:
                    break
        return alpha, best_cell


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--k", type=int, required=True)
    parser.add_argument("--wrong-at")
    parser.add_argument("--unknown-from", type=int)
    parser.add_argument("--strict-timelimit", action="store_true")
    parser.add_argument("--answer-twice")
    parser.add_argument("--log")
    args = parser.parse_args()
    board: Board | None = None
    commands = ("protocol_version", "name", "list_commands", "known_command", "boardsize",
                "clear_board", "play", "genmove", "timelimit", "solve", "quit")

    command = ""

    def reply(text: str = "", ok: bool = True) -> None:
        sys.stdout.write(f"{'=' if ok else '?'} {text}".rstrip() + "\n\n")
        if command == args.answer_twice:
            sys.stdout.write(f"{'=' if ok else '?'} {text}".rstrip() + "\n\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if args.log:
            with open(args.log, "a", encoding="utf-8") as log:
                log.write(line.strip() + "\n")
        command = words[0].lower()
        if command == "quit":
            reply()
            return
        if command == "protocol_version":
            reply("2")
        elif command == "name":
            reply("course_engine")
        elif command == "list_commands":
            reply("\n".join(commands))
        elif command == "known_command":
            reply("true" if words[1:] and words[1] in commands else "false")
        elif command == "boardsize" and len(words) == 2 and words[1].isdigit():
            board = Board(int(words[1]), args.k)
            reply()
        elif command == "timelimit":
            if args.strict_timelimit and not (len(words) == 2 and words[1].isdigit()
                                              and 1 <= int(words[1]) <= 100):
                reply("timelimit must be 1 to 100 seconds", ok=False)
                continue
            reply()
        elif command == "clear_board" and board:
            board.black = board.white = 0
            reply()
        elif command == "play" and board and len(words) == 3 and words[1].lower() in ("b", "w"):
            try:
                c = board.cell(words[2])
            except (ValueError, IndexError):
                reply("invalid vertex", ok=False)
                continue
            if (board.black | board.white) >> c & 1:
                reply("illegal move", ok=False)
                continue
            if words[1].lower() == "b":
                board.black |= 1 << c
            else:
                board.white |= 1 << c
            reply()
        elif command in ("solve", "genmove") and board:
            empty = board.n * board.n - bin(board.black | board.white).count("1")
            if command == "solve" and args.unknown_from is not None and empty >= args.unknown_from:
                reply("unknown")
                continue
            value, cell = board.solve()
            colour = board.to_move()[2]
            other = "w" if colour == "b" else "b"
            if command == "genmove":
                if cell is None:
                    reply("pass")
                    continue
                if colour == "b":
                    board.black |= 1 << cell
                else:
                    board.white |= 1 << cell
                reply(board.vertex(cell))
                continue
            if args.wrong_at and board.text() == args.wrong_at:
                value, cell = (-1, None) if value >= 0 else (0, cell)
            word = colour if value == 1 else other if value == -1 else "draw"
            reply(word if cell is None or value == -1 else f"{word} {board.vertex(cell)}")
        else:
            reply("unknown command", ok=False)


if __name__ == "__main__":
    main()
