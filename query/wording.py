"""Answers in words, for every game: plies, an outcome ('win in 7 plies'), who won a finished
game, and what a JSON value is (for messages). How a grid game writes its boards and moves is
builder/games/grid/notation.py's."""
from __future__ import annotations

from tablebase.builder.games.values import Value


def plies(n: int) -> str:
    """'1 ply', '7 plies'."""
    return f"{n} pl{'y' if n == 1 else 'ies'}"


def outcome_text(value: int | Value, depth: int | None) -> str:
    """'win in 7 plies', 'draw in 9 plies', 'loss in 0 plies' for the side to move; a draw with
    no depth (stones that move) is 'draw (endless play)'."""
    if depth is None:
        return f"{Value(value).word} (endless play)"
    return f"{Value(value).word} in {plies(depth)}"


def game_over_text(value: int | Value, to_move: str) -> str:
    """Who won a finished game, from its value for `to_move`, the side that would move next:
    'game over: x won' or 'game over: a draw'."""
    if Value(value) == Value.DRAW:
        return "game over: a draw"
    other = "o" if to_move == "x" else "x"
    return f"game over: {to_move if Value(value) == Value.WIN else other} won"


def json_kind(value: object) -> str:
    """What a value is, in the words of JSON (batches of boards arrive as JSON)."""
    return {dict: "an object", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)

