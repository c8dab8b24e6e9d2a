"""The GTP engine and `genmove` of games given as Python classes (query/play/game_gtp.py,
game_classes.py): moves by the class's names, x first; genmove plays a best move as `moves`
marks them (the winner hurries, the loser delays); one '?' line for a bad command; a real
`tablebase gtp` process answers a whole session."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tablebase.query.cli import main
from tablebase.query.play.game_classes import choose_game_move
from tablebase.query.play.game_gtp import GameGtpSession
from tablebase.query.tablebase import open_tablebase
from tests.class_games.tictactoe import PlainTicTacToe
from tests.reference_games import solve

HERE = Path(__file__).resolve().parent
PLAIN = f"{HERE / 'class_games' / 'tictactoe.py'}:PlainTicTacToe"
INF = f"{HERE / 'class_games' / 'ttt_inf.py'}:TicTacToeInfinite"
GRAPH7 = f"{HERE / 'class_games' / 'graphs.py'}:Graph7"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("gtp") / "classes.db")
    for spec in (PLAIN, INF, GRAPH7):
        assert main(["build", spec, "--db", path, "--quiet"]) == 0
    return path


def _answers(session: GameGtpSession, *lines: str) -> list[str | None]:
    return [session.handle(line) for line in lines]


def test_a_session_in_process(db: str) -> None:
    with open_tablebase(db) as tb:
        session = GameGtpSession(tb.game(PLAIN), rng=random.Random(1))
        assert _answers(session, "1 name", "play x b2", "showboard", "# a comment", "") == [
            "=1 tablebase\n\n", "=\n\n", "=\no to move\n.../.x./... o\n\n", None, None]
        # The only replies that keep the draw are the corners.
        reply = session.handle("genmove o")
        assert reply in ("= a3\n\n", "= c3\n\n", "= a1\n\n", "= c1\n\n")
        assert session.handle("solve") == "= draw " + session.answers.moves(
            session.answers.game.text(session.position))[1][0].move + "\n\n"
        assert session.handle("undo") == "=\n\n"
        assert session.handle("play o b3") == "=\n\n"  # an edge: x wins now
        assert session.handle("solve").startswith("= x ")
        assert session.handle("clear_board") == "=\n\n"
        assert session.handle("showboard") == "=\nx to move\n.../.../... x\n\n"


@pytest.mark.parametrize("line, error", [
    ("play x z9", "? illegal move 'z9': the moves here are a3, b3, c3, a2, b2, c2, a1, b1, c1"),
    ("play o b2", "? it is x's turn, not o's"),
    ("play red b2", "? invalid color 'red': expected x, o, b, w, black or white"),
    ("genmove", "? genmove takes a color, e.g. genmove x"),
    ("frobnicate", "? unknown command 'frobnicate'"),
    ("set_game chess", "? this engine plays class-tictactoe-plain, not chess"),
    ("undo", "? cannot undo: no move has been played"),
])
def test_bad_commands_are_one_error_line(db: str, line: str, error: str) -> None:
    with open_tablebase(db) as tb:
        assert GameGtpSession(tb.game(PLAIN)).handle(line) == error + "\n\n"


def test_genmove_hurries_to_win_and_keeps_draws(db: str) -> None:
    """Perfect play against itself: tic-tac-toe is drawn, and infinite tic-tac-toe is won
    by x in exactly its depth of 13 plies; after the game, a genmove is an error."""
    with open_tablebase(db) as tb:
        session = GameGtpSession(tb.game(PLAIN), rng=random.Random(3))
        for ply in range(9):
            assert session.handle(f"genmove {'xo'[ply % 2]}").startswith("= ")
        assert PlainTicTacToe().outcome(session.position) == 0
        assert session.handle("genmove o") == "? the game is over: no move can be played\n\n"
        session = GameGtpSession(tb.game(INF), rng=random.Random(3))
        for ply in range(13):
            assert session.handle(f"genmove {'bw'[ply % 2]}").startswith("= ")
        assert session.handle("showboard").startswith("=\ngame over\n")


def test_the_winner_hurries_and_the_loser_delays(db: str) -> None:
    """Level 10 plays a move to a position the plain solver values best for the mover: the
    fastest win, the slowest loss; level 0 plays every move."""
    game = PlainTicTacToe()
    truth = solve(game)
    choices = 0
    with open_tablebase(db) as tb:
        answers = tb.game(PLAIN)
        for position, (value, depth) in sorted(truth.items()):
            kids = [truth[c] for _, c in game.moves(position)] if depth else []
            if value == 0 or len({d for _, d in kids}) < 2:
                continue
            _, child = choose_game_move(answers, position, 10, random.Random(0))
            after = [d for v, d in kids if v == -value]
            assert truth[child] == (-value, min(after) if value > 0 else max(after))
            choices += 1
        assert choices > 1000
        seen = {choose_game_move(answers, game.start(), 0, random.Random(i))[0].move
                for i in range(60)}
        assert len(seen) == 9


def test_genmove_command(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["genmove", PLAIN, "xx./oo./... x", "--db", db]) == 0
    assert capsys.readouterr().out == "c3\n"
    assert main(["genmove", PLAIN, "xx./oo./x.. o", "--level", "10", "--json", "--db", db]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["move"], data["value"], data["depth"], data["best"]) == ("c2", "win", 0, True)
    assert main(["genmove", PLAIN, "xxx/oo./... o", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the game is over" in err


def test_a_real_session(db: str, tmp_path: Path) -> None:
    """`tablebase gtp PATH.py:Class` in its own process, on a loopy graph."""
    commands = "protocol_version\nshowboard\n2 genmove x\nsolve\nplay o nowhere\nquit\n"
    done = subprocess.run([sys.executable, "-m", "tablebase", "gtp", GRAPH7, "--db", db,
                           "--seed", "1"], input=commands, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    replies = done.stdout.split("\n\n")
    assert replies[:2] == ["= 2", "=\nx to move\nn0"]
    assert replies[2] == "=2 to9"  # n0's only best move: a draw in 3 plies
    assert replies[3].startswith("= draw ")
    assert replies[4].startswith("? illegal move 'nowhere': the moves here are ")
    assert replies[5:] == ["=", ""]


def test_gtp_on_a_class_not_built_is_one_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    unbuilt = f"{HERE / 'class_games' / 'tictactoe.py'}:TicTacToe"
    assert main(["gtp", unbuilt, "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has not been built" in err
