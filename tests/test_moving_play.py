"""Playing games whose stones move (`+stonesN`): `play` (placements, then steps `a1-b2`; a game
that repeats is a draw by the rules of play), `genmove` and the GTP engine (`play b a1-b2`,
steps from `genmove`, the side to move on `showboard`). Every answer is checked against the
table's values and the rules kernel's moves (the table itself is checked elsewhere)."""
from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator

import pytest

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.builder.games.registry import grid_game
from tablebase.builder.games.stones import rules
from tablebase.builder.games.stones.notation import play_moving, read_moving
from tablebase.query import Tablebase, open_tablebase, turns
from tablebase.query.answer_records import known_depth
from tablebase.query.cli import main
from tablebase.query.play.gtp_engine import GtpSession, serve
from tablebase.query.play.terminal import play_game
from tablebase.query.wording import plies

MORRIS = "3x3k3+stones3"  # Three Men's Morris: a draw
WON = "4x3k3+stones3"  # x wins from the empty board


@pytest.fixture(scope="module")
def tb(table_db: Callable[[str], str]) -> Iterator[Tablebase]:
    table_db(WON)
    with open_tablebase(table_db(MORRIS)) as opened:
        yield opened


class Script:
    """Feeds `lines` to the game; after them, asks for a hint and plays its first move."""

    def __init__(self, lines: list[str], perfect_after: bool = True) -> None:
        self.lines, self.perfect_after, self.out = list(lines), perfect_after, []

    def read(self, prompt: str) -> str:
        if self.lines:
            return self.lines.pop(0)
        if not self.perfect_after:
            raise EOFError
        last = self.out[-1]
        return last.split()[2] if last.startswith("perfect moves: ") else "hint"

    def write(self, text: str) -> None:
        self.out.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.out)


def _replayed(spec: str, moves: tuple[str, ...]) -> list[tuple[int, ...]]:
    """Every position of a game, replayed by the rules kernel from its move names."""
    s = parse_spec(spec)
    positions = [grid_game(s).start()]
    for name in moves:
        positions.append(play_moving(s, name, positions[-1]))
    return positions


def test_perfect_play_of_a_drawn_game_ends_by_repetition(tb: Tablebase) -> None:
    script = Script([])
    record = play_game(tb, MORRIS, "x", read=script.read, write=script.write)
    assert tb.probe(MORRIS, grid_game(parse_spec(MORRIS)).start()).value == Value.DRAW
    assert record.result == "draw" and record.reason == "the same position came up a third time"
    positions = _replayed(MORRIS, record.moves)
    # The game stops at the first position to come up a third time, and not before.
    assert positions.count(positions[-1]) == 3
    assert all(positions[:i + 1].count(p) < 3 for i, p in enumerate(positions[:-1]))
    assert any("-" in m for m in record.moves)  # it got to the steps
    assert "that move turned" not in script.text
    assert "game over: a draw by the rules of play" in script.text
    assert "x to move: draw (endless play)" in script.text


def test_perfect_play_of_a_won_game_takes_the_tables_depth(tb: Tablebase) -> None:
    script = Script([])
    record = play_game(tb, WON, "o", read=script.read, write=script.write)
    empty = tb.probe(WON, grid_game(parse_spec(WON)).start())
    assert empty.value == Value.WIN and empty.depth is not None
    assert record.result == "x" and len(record.moves) == empty.depth
    final = _replayed(WON, record.moves)[-1]
    assert rules.outcome_of(parse_spec(WON), final) is not None
    assert "game over: the computer wins (x won)" in script.text


def test_placements_then_steps_with_errors_undo_and_a_blunder(tb: Tablebase) -> None:
    spec = parse_spec(MORRIS)
    script = Script(["b2", "b2-a2", "undo", "b2"], perfect_after=False)
    record = play_game(tb, MORRIS, "x", read=script.read, write=script.write)
    assert "move 'b2-a2': x still has stones to place; write the cell, such as b2" in script.text
    assert script.text.count("took back your last move") == 1
    assert record.result == "quit" and len(record.moves) == 2 and record.moves[0] == "b2"
    # The movement phase, o to move: every move the table lists is a step the rules allow.
    #   3 | x o .
    #   2 | . x o      o wins by b3-c3 (c3 c2 c1); b3-a2 throws that away
    #   1 | x . o
    board = read_moving(spec, "xo./.xo/x.o o")
    moves = {m.move: m for m in tb.moves(MORRIS, board)}
    assert set(moves) == {grid_game(spec).name(m) for m in rules.legal(spec, board)}
    assert all("-" in m for m in moves)
    script = Script(["a1-b1", "c2-c1", "b3-a2"], perfect_after=False)
    record = play_game(tb, MORRIS, "o", read=script.read, write=script.write, start=board)
    text = script.text
    assert "move 'a1-b1': a1 holds no stone of o (x's stone)" in text
    assert "move 'c2-c1': c1 is occupied" in text
    assert record.moves[0] == "b3-a2"
    before, chosen = tb.probe(MORRIS, board), moves["b3-a2"]
    assert before.value == Value.WIN and not chosen.best and chosen.depth is not None
    assert (f"that move turned a win in {plies(known_depth(before.depth))} into a"
            f" {chosen.value.word} in {plies(chosen.depth + 1)}") in text


def test_not_adjacent_and_the_ply_limit(tb: Tablebase, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = parse_spec(MORRIS)
    board = read_moving(spec, "o.x/xx./o.o x")
    script = Script(["a2-c2", "quit"], perfect_after=False)
    play_game(tb, MORRIS, "x", read=script.read, write=script.write, start=board)
    assert "move 'a2-c2': c2 is not next to a2" in script.text
    # With a limit of 12 plies, perfect play of the drawn game is cut short there.
    monkeypatch.setattr(turns, "PLY_LIMIT", 12)
    script = Script([])
    record = play_game(tb, MORRIS, "x", read=script.read, write=script.write)
    assert record.result == "draw" and len(record.moves) == 12
    assert record.reason == "12 plies were played"


def test_drawn_by_play() -> None:
    a, b = (1, 0, 2), (0, 1, 2)
    assert turns.drawn_by_play([a, b, a, b]) is None
    assert turns.drawn_by_play([a, b, a, b, a]) == "the same position came up a third time"


def test_the_play_command_with_steps(table_db: Callable[[str], str],
                                     monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    answers = iter(["hint", "b3-c3"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    status = main(["play", MORRIS, "xo./.xo/x.o o", "--as", "o", "--db", table_db(MORRIS)])
    out = capsys.readouterr().out
    assert status == 0
    assert "then move one a turn, written FROM-TO" in out
    assert "perfect moves: b3-c3 (win in 1 ply)" in out
    assert "game over: you win (o won)" in out


def test_genmove_steps_at_every_level(tb: Tablebase, table_db: Callable[[str], str],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    spec = parse_spec(MORRIS)
    text = "xo./.xo/x.o o"
    board = read_moving(spec, text)
    moves = tb.moves(MORRIS, board)
    best = {m.move for m in moves if m.best}
    legal = {grid_game(spec).name(m) for m in rules.legal(spec, board)}
    db = table_db(MORRIS)
    assert main(["genmove", MORRIS, text, "--level", "10", "--seed", "3", "--json",
                 "--db", db]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["board"] == text and data["to_move"] == "o" and data["move"] in best
    seen = set()
    for seed in range(30):
        assert main(["genmove", MORRIS, text, "--level", "0", "--seed", str(seed),
                     "--db", db]) == 0
        seen.add(capsys.readouterr().out.strip())
    assert seen <= legal and len(seen) > 2  # random legal steps
    # A draw by endless play has no depth: null in JSON.
    assert main(["genmove", MORRIS, "--moves", "b2 a1", "--json", "--db", db]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == "draw" and data["depth"] is None
    assert main(["genmove", MORRIS, "xo./.xo/x.o", "--db", db]) == 2
    assert "add ' x' or ' o' after the board" in capsys.readouterr().err


def _talk(session: GtpSession, *commands: str) -> list[str]:
    out: list[str] = []
    serve(session, commands, out.append)
    return [o.rstrip("\n") for o in out]


def test_gtp_play_b_a1_b2(tb: Tablebase) -> None:
    spec = parse_spec(MORRIS)
    s = GtpSession(tb, spec, rng=random.Random(1))
    # x: a1, b3, c2; o: a3, c3, c1 (no line); then x steps a1-b2 (course colours, our names).
    answers = _talk(s, "play b a1", "play w a3", "play b b3", "play w c3", "play b c2",
                    "play w c1", "showboard", "play b a1-b2", "showboard")
    assert answers[:6] == ["="] * 6
    assert answers[6].split("\n")[1] == "b to move"
    assert answers[7] == "="
    expected = play_moving(spec, "a1 a3 b3 c3 c2 c1 a1-b2", grid_game(spec).start())
    assert s.board == expected and grid_game(spec).side(s.board) == "o"
    assert answers[8].split("\n")[1] == "w to move"
    # In GTP coordinates too, and the errors, one line each.
    answers = _talk(s, "play w C3-C2", "play w c1-b1", "play x b2-a1", "play o a3-c1",
                    "play o a3-b3", "play o b1", "undo", "play x b2-a2")
    assert answers[0] == "? move 'c3-c2': c2 is occupied"
    assert answers[1] == answers[2] == "="
    assert answers[3] == "? move 'a3-c1': c1 is not next to a3 (a stone steps to one of the 8" \
                         " cells around it)"
    assert answers[4] == "? move 'a3-b3': b3 is occupied"
    assert answers[5].startswith("? move 'b1': every stone is down")
    assert answers[6:] == ["=", "="]  # undo takes back b2-a1; b2-a2 instead
    assert all("\n" not in a for a in answers)
    assert s.board == play_moving(spec, "a1 a3 b3 c3 c2 c1 a1-b2 c1-b1 b2-a2", grid_game(spec).start())


def test_gtp_genmove_and_solve_answer_steps_from_the_table(tb: Tablebase) -> None:
    spec = parse_spec(MORRIS)
    rng = random.Random(5)
    s = GtpSession(tb, spec, level=0, rng=rng)
    for _ in range(15):
        _talk(s, "clear_board")
        for _ in range(rng.randrange(6, 16)):
            if not grid_game(spec).legal(s.board):
                break
            colour = grid_game(spec).side(s.board)
            answer = _talk(s, f"genmove {colour}")[0]
            before = s.history[-2]
            name = answer[2:]
            assert grid_game(spec).played(before, grid_game(spec).read_move(before, name)) == s.board
            if sum(1 for v in before[:spec.cells] if v) == 2 * spec.stones:
                assert "-" in name  # every stone down: a step
        if not grid_game(spec).legal(s.board):
            continue
        probe = tb.probe(MORRIS, s.board)
        solved = _talk(s, "solve")[0].split()
        winner = {Value.WIN: probe.to_move, Value.DRAW: "draw",
                  Value.LOSS: "o" if probe.to_move == "x" else "x"}[probe.value]
        assert solved[1] == winner
        if probe.value != Value.LOSS:
            best = {m.move for m in tb.best_moves(MORRIS, s.board)}
            assert solved[2] in best


def test_gtp_engine_passes_the_audit(table_db: Callable[[str], str],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    db = table_db(MORRIS)
    engine = f"{sys.executable} -m tablebase gtp {MORRIS} --db {db}"
    assert main(["audit", MORRIS, "--engine", engine, "--db", db, "--positions", "sample:60",
                 "--orientations", "all", "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mismatched"] == 0 and report["agreed"] == report["boards"] > 60
    assert "set_game 3x3k3+stones3" in report["asked"]
