"""Playing a game given as a Python class (docs/games.md) in the terminal, against perfect play:
the table's best moves, chosen among equals at random (a seed makes it repeatable). You type a
move's name, or `hint`, `undo`, `quit`. A position that comes up a third time is a draw, as
in tablebase's own games (query/turns.py).
"""
from __future__ import annotations

import random
from collections.abc import Callable

from tablebase.query.game_answers import GameAnswers

# A position's third time ends the game drawn (the rule of play of tablebase's own games).
REPEATS = 3


def play_class_game(answers: GameAnswers, human_first: bool = True, *,
                    read: Callable[[str], str] = input, write: Callable[[str], None] = print,
                    rng: random.Random | None = None, start: str | None = None) -> str:
    """Play one game of `answers`' class against the table, the human moving first (or
    second); return 'you win', 'the computer wins' or 'a draw'. `read(prompt)` gives one line
    (EOFError ends the game as `quit`); `write` shows a block of text."""
    rng = rng or random.Random()
    name = answers.game.name
    write(f"{name}: you move {'first' if human_first else 'second'}; type a move's name, or"
          " hint, undo, quit")
    history = [answers.probe(start).position]
    humans_turn = human_first
    while True:
        text = history[-1]
        probe, moves = answers.moves(text)
        write(f"{text}  {probe}")
        if probe.terminal or history.count(text) >= REPEATS:
            if not probe.terminal or probe.value.word == "draw":
                verdict = "a draw" + ("" if probe.terminal else " (the position came back a"
                                                                " third time)")
            else:  # the side to move has won or lost
                verdict = "you win" if (probe.value.word == "win") == humans_turn \
                    else "the computer wins"
            write(f"game over: {verdict}")
            return verdict.split(" (")[0]
        if not humans_turn:
            move = rng.choice([m for m in moves if m.best])
            write(f"the computer plays {move.move}")
            history.append(move.position)
            humans_turn = True
            continue
        try:
            said = read("your move: ").strip()
        except EOFError:
            said = "quit"
        if said == "quit":
            write("game over: you stopped")
            return "stopped"
        if said == "hint":
            write("best: " + ", ".join(f"{m.move} ({m.value.word})" for m in moves if m.best))
            continue
        if said == "undo":
            if len(history) >= 3:
                del history[-2:]
            continue
        chosen = next((m for m in moves if m.move == said), None)
        if chosen is None:
            write(f"no move {said!r} here; moves: {', '.join(m.move for m in moves)}")
            continue
        history.append(chosen.position)
        humans_turn = False
