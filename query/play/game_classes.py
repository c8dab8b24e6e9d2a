"""Playing a game given as a Python class (docs/games.md) in the terminal, against perfect play:
the table's best moves, chosen among equals at random (a seed makes it repeatable). You type a
move's name, or `hint`, `undo`, `quit`. A position that comes up a third time is a draw, as
in tablebase's own games (query/turns.py). `choose_game_move` is graded play (levels.py) for
`genmove` and the GTP engine.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Hashable

from tablebase.builder.games.errors import IllegalMoveError
from tablebase.query.answer_records import GameMove
from tablebase.query.game_answers import GameAnswers
from tablebase.query.play.levels import MAX_LEVEL, check_level, pick

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
            reason = answers.game.refusal(answers.position(history[-1]), said,
                                          [m.move for m in moves])
            write(f"no move {said!r} here: {reason}")
            continue
        history.append(chosen.position)
        humans_turn = False


def choose_game_move(answers: GameAnswers, position: Hashable, level: int = MAX_LEVEL,
                     rng: random.Random | None = None) -> tuple[GameMove, Hashable]:
    """The move a player of `level` (0 random .. 10 perfect, levels.py) plays from `position`
    (as the class holds it), for the side to move, drawn with `rng`, beside the position it
    leads to. A best move is one `moves` marks best: the winner hurries, the loser delays.

    Without `rng`, level 10 plays the first best move as `moves` ranks them and other levels
    draw from a fresh unseeded generator. Raises IllegalMoveError when the game is over,
    LevelError for a level outside 0..10.
    """
    check_level(level)
    probe, scored = answers.scored_moves(position)
    if not scored:
        raise IllegalMoveError(f"no move to choose from {probe.position!r:.80}"
                               f" ({answers.game.name}): the game is over")
    if rng is None:
        if level == MAX_LEVEL:
            return scored[0]
        rng = random.Random()
    chosen = pick([m for m, _ in scored], level, rng)
    return next(pair for pair in scored if pair[0] is chosen)
