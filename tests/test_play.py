"""The interactive game, scripted: input comes from a list, output goes into one."""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from tablebase.builder.games.grid import Value
from tablebase.query import MoveInfo, Probe, Tablebase, open_tablebase
from tablebase.query.cli import main
from tablebase.query.play.terminal import judge, play_game


@pytest.fixture(scope="module")
def tb(table_db: Callable[[str], str]) -> Iterator[Tablebase]:
    table_db("3x3k3")
    with open_tablebase(table_db("4x4k4+gravity")) as opened:
        yield opened


class Script:
    """Feeds `lines` to the game; after them, plays the first hinted move until the game ends."""

    def __init__(self, lines: list[str], perfect_after: bool = False) -> None:
        self.lines = list(lines)
        self.perfect_after = perfect_after
        self.out: list[str] = []

    def read(self, prompt: str) -> str:
        if self.lines:
            return self.lines.pop(0)
        if not self.perfect_after:
            raise EOFError
        last = self.out[-1]
        if last.startswith("perfect moves: "):
            return last.split()[2]
        return "hint"

    def write(self, text: str) -> None:
        self.out.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.out)


def test_perfect_play_against_perfect_play_is_a_draw(tb: Tablebase) -> None:
    script = Script([], perfect_after=True)
    record = play_game(tb, "3x3k3", "x", read=script.read, write=script.write)
    assert record.result == "draw" and len(record.moves) == 9
    assert "game over: a draw" in script.text
    assert "that move turned" not in script.text
    assert script.text.count("a perfect move: it keeps a draw") == 5


def test_a_blunder_is_named_and_punished(tb: Tablebase) -> None:
    # The computer (x) opens in a corner, a3 (the first best move in cell order). o must take
    # the centre; the edge b3 loses, and the computer then wins however well o defends.
    script = Script(["b3"], perfect_after=True)
    record = play_game(tb, "3x3k3", "o", read=script.read, write=script.write)
    assert record.moves[:2] == ("a3", "b3")
    assert "that move turned a draw into a loss in 6 plies" in script.text
    assert "a perfect move: the longest resistance (a loss in 4 plies)" in script.text
    assert record.result == "x" and len(record.moves) == 7
    assert "game over: the computer wins (x won)" in script.text


def test_hint_undo_quit_and_bad_input(tb: Tablebase) -> None:
    script = Script(["undo", "hint", "e9", "b2", "undo", "a1", "", "quit"])
    record = play_game(tb, "3x3k3", "x", read=script.read, write=script.write)
    assert "nothing to undo" in script.text
    assert "perfect moves: a3 b3 c3 a2 b2 c2 a1 b1 c1 (draw in 9 plies)" in script.text
    assert "move 'e9' is off the 3x3 board" in script.text
    assert "took back your last move" in script.text
    assert record.result == "quit" and record.moves == ("a1", "b2")


def test_end_of_input_quits(tb: Tablebase) -> None:
    script = Script([])
    assert play_game(tb, "3x3k3", "o", read=script.read, write=script.write).result == "quit"
    assert "computer (x) plays a3" in script.text  # as o, the computer opens


def test_gravity_by_column_letter(tb: Tablebase) -> None:
    # Connect Four on 4x4: the computer stacks column a, o follows in column b with bare
    # column letters, and fails to block a4.
    script = Script(["b", "b", "b"])
    record = play_game(tb, "4x4k4+gravity", "o", read=script.read, write=script.write)
    assert record.moves == ("a1", "b1", "a2", "b2", "a3", "b3", "a4")
    assert "that move turned a draw into a loss in 2 plies" in script.text
    assert record.result == "x"


def test_a_seeded_computer_picks_among_the_best(tb: Tablebase) -> None:
    seen = set()
    for seed in range(8):
        script = Script([])
        record = play_game(tb, "3x3k3", "o", read=script.read, write=script.write,
                           rng=random.Random(seed))
        seen.add(record.moves[0])
    assert len(seen) > 1  # every first move draws, so the choice varies


def test_judge_wording() -> None:
    draw = Probe(Value.DRAW, 6, "o", False, 3)
    assert judge(draw, MoveInfo("c1", 8, Value.DRAW, 5, True)) == "a perfect move: it keeps a draw"
    assert judge(draw, MoveInfo("b3", 1, Value.LOSS, 1, False)) == \
        "that move turned a draw into a loss in 2 plies"
    win = Probe(Value.WIN, 3, "x", False, 4)
    assert judge(win, MoveInfo("a1", 6, Value.WIN, 4, False)) == \
        "that move keeps the win, but slower: in 5 plies instead of 3"
    assert judge(win, MoveInfo("a2", 3, Value.DRAW, 5, False)) == \
        "that move turned a win in 3 plies into a draw"
    loss = Probe(Value.LOSS, 4, "o", False, 3)
    assert judge(loss, MoveInfo("a3", 0, Value.LOSS, 3, True)) == \
        "a perfect move: the longest resistance (a loss in 4 plies)"
    assert judge(loss, MoveInfo("b3", 1, Value.LOSS, 1, False)) == \
        "that move keeps the loss, but sooner: in 2 plies instead of 4"


def test_the_play_command(table_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    answers = iter(["b2", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    status = main(["play", "tictactoe", "--db", table_db("3x3k3"), "--seed", "1"])
    out = capsys.readouterr().out
    assert status == 0
    assert "you are x" in out and "a perfect move: it keeps a draw" in out
    assert "game abandoned" in out
