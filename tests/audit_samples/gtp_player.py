"""A move-only GTP engine for tests/test_audit_players.py, in the plain dialect: it knows
`genmove` but not `solve`, as most playing programs do. It plays a best move by memoised negamax,
or with --blunder the first empty cell (top left first), which throws games away.

    python gtp_player.py [--blunder]

It keeps its own board, so it serves both a position audit (clear_board, play ..., genmove)
and audit by play (clear_board, then play and genmove in turn).
"""
from __future__ import annotations

import argparse
import sys

from fake_engine import Game  # the sibling sample's rules and negamax

COMMANDS = ("protocol_version", "name", "list_commands", "known_command", "boardsize", "set_game",
            "clear_board", "play", "genmove", "quit")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--blunder", action="store_true")
    args = parser.parse_args()
    game: Game | None = None
    cells = ""

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
        if command == "protocol_version":
            reply("2")
        elif command == "name":
            reply("gtp_player")
        elif command == "list_commands":
            reply("\n".join(COMMANDS))
        elif command == "known_command":
            reply("true" if words[1:] and words[1] in COMMANDS else "false")
        elif command == "boardsize":
            reply()
        elif command == "set_game":
            game = Game(words[1])
            cells = "." * (game.w * game.h)
            reply()
        elif command == "clear_board" and game:
            cells = "." * (game.w * game.h)
            reply()
        elif command == "play" and game and len(words) == 3:
            i = game.cell(words[2])
            if cells[i] != ".":
                reply("illegal move", ok=False)
                continue
            cells = cells[:i] + words[1] + cells[i + 1:]
            reply()
        elif command == "genmove" and game and len(words) == 2:
            me = words[1]
            if game.over(cells, me) is not None:
                reply("pass")
                continue
            cell = game.moves(cells)[0] if args.blunder else game.solve(cells, me)[1]
            cells = cells[:cell] + me + cells[cell + 1:]
            reply(game.name(cell))
        else:
            reply("unknown command", ok=False)


if __name__ == "__main__":
    main()
