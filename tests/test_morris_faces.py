"""The faces on morris games (builder/games/morris/ through the layers of keyed games): GTP with
captures, an endgame table from a position, verify (and a damaged table), export, audit of a
solver, strategy and play, `--moves` and one-line errors."""
from __future__ import annotations

import json
import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tablebase.query.cli import main
from tablebase.query.play.game_gtp import GameGtpSession
from tablebase.query.tablebase import open_tablebase

SIX = "six-mens-morris+stones3"
# x: a1 c1 e3; o: a5 b4 d4; x to move (docs/morris.md): e3-e1 closes the bottom mill.
STEPPING = "o../o.o/...x/.../xx. x"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("morris") / "morris.db")
    for spec in (SIX, "achi", "tapatan"):
        assert main(["build", spec, "--db", path, "--quiet"]) == 0
    return path


def test_gtp_plays_captures_by_name(db: str) -> None:
    with open_tablebase(db) as tb:
        session = GameGtpSession(tb.game(SIX), rng=random.Random(1))
        # x a1, o a5, x c1, o c5, then x's e1 closes a1-c1-e1 and must take a stone.
        for line in ("play b a1", "play w a5", "play b c1", "play w c5"):
            assert session.handle(line) == "=\n\n"
        assert session.handle("play b e1") == ("? illegal move 'e1': e1 closes a mill: name"
                                               " the stone it takes, `e1x` and a point\n\n")
        assert session.handle("play b e1xe5") == "? illegal move 'e1xe5': e5 holds no stone" \
            " of the other side\n\n"
        assert session.handle("play b e1xc5") == "=\n\n"
        assert session.handle("showboard") == "=\ngame over\no../.../..../.../xxx o 0 1\n\n"
        # o has one stone on the board and one to place: fewer than three, the game is over.
        assert session.handle("genmove w") == "? the game is over: no move can be played\n\n"


def test_an_endgame_table_from_a_position(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "e.db")
    assert main(["build", SIX, "--from", STEPPING, "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["probe", SIX, STEPPING, "--db", db, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert (found["value"], found["depth"]) == ("win", 1)
    assert main(["probe", SIX, "--db", db]) == 2  # the start: no table of its own here
    assert "no table holds '.../.../..../.../... x 3 3'" in capsys.readouterr().err


def test_verify_export_and_a_damaged_table(db: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "achi", "--db", db]) == 0
    # Its tiers hold every arrangement of 4 stones a side, one an orbit of the board's 8
    # symmetries (those where the side to move has a line are no position of the game).
    assert "all 750 positions verified" in capsys.readouterr().out
    assert main(["export", "achi", "--db", db, "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 750 and {r["value"] for r in rows} == {"win", "loss"}
    assert {r["ply"] for r in rows} == {None}  # tiers keep no ply
    with open_tablebase(db) as tb:
        for r in rows[::50]:  # the export says what a probe says
            probe = tb.game("achi").probe(r["position"])
            assert (probe.value.word, probe.depth) == (r["value"], r["depth"])
    damaged = str(tmp_path / "d.db")
    assert main(["build", "tapatan", "--db", damaged, "--quiet"]) == 0
    with closing(sqlite3.connect(damaged)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games").fetchone()
        conn.execute(f'UPDATE "{table}" SET chk = chk + 1')
        conn.commit()
    capsys.readouterr()
    assert main(["verify", "tapatan", "--db", damaged]) == 2
    err = capsys.readouterr().err
    assert "damaged" in err and err.count("\n") == 1


def test_audit_strategy_and_moves(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "says_win.py").write_text("def solve(text):\n    return 'win'\n")
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "achi", "--solver", "says_win:solve", "--db", db, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["by_kind"] == {"wrong-value": report["positions"] - report["agreed"]}
    assert main(["strategy", "achi", "--side", "x", "--db", db, "--quiet"]) == 0
    assert "first move b2" in capsys.readouterr().out  # the centre: every other first move loses
    assert main(["moves", SIX, "--moves", "a1 a5 c1 c5 e1xa5", "--db", db, "--json"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["position"] == ".o./.../..../.../xxx o 0 1" and after["terminal"]
    assert main(["moves", SIX, "--moves", "a1 h9", "--db", db]) == 2
    assert capsys.readouterr().err == (
        "tablebase: error: six-mens-morris+stones3: 'h9' at '.../.../..../.../x.. o 2 3': h9 is"
        " not a point of the board (a5 c5 e5 b4 c4 d4 a3 b3 d3 e3 b2 c2 d2 a1 c1 e1)\n")


def test_bad_specs_and_positions_are_one_line(db: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    for args, said in ((["probe", "achi+stones9"], "achi has 3 to 4 stones a side"),
                       (["probe", "achi", "xxxx/.../... o"], "the board is 3 rows"),
                       (["probe", "six-mens-morris+misere"], "misere is for the 3x3 boards"),
                       (["build", "nine-mens-morris", "--memory", "1"],
                        "tier 8-8+1-0 holds 603,332,730 positions while it is solved")):
        assert main([*args, "--db", db]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1 and "Traceback" not in err


def test_verify_with_other_symmetries_finds_problems(db: str, tmp_path: Path) -> None:
    """verify keys every image of each stored position up front: a game whose symmetries
    differ from the table's (here, the board's without the colours swapped) is caught. The
    table is walked (a class with no ranked tiers); the tiered one of the same game cannot be
    read by a class that gives none: one error."""
    from tablebase.builder.games.morris.game import MorrisGame
    from tablebase.builder.games.user.adapter import ClassGame
    from tablebase.builder.graph_build import build_game
    from tablebase.db.errors import DatabaseError
    from tablebase.query.game_answers import GameAnswers
    from tablebase.query.verify.game_tables import verify_game

    class Walked(MorrisGame):
        ranked = None  # built by a walk of the positions play reaches

    class Uncoloured(Walked):
        def symmetries(self, position: int) -> list[int]:
            return [q for q in super().symmetries(position)
                    if (q >> self.rules.x_place_at) or (q ^ position) & self.rules.side_bit == 0]

    walked = str(tmp_path / "walked.db")
    build_game(ClassGame(Walked("achi"), "Walked", "achi"), walked)
    with open_tablebase(walked) as tb:
        good = verify_game(GameAnswers(ClassGame(Walked("achi"), "Walked", "achi"), tb._store))
        assert good.ok and good.positions == 750
        other = GameAnswers(ClassGame(Uncoloured("achi"), "Uncoloured", "achi"), tb._store)
        report = verify_game(other)
        assert not report.ok and any("not stored" in p or "orbit's key" in p
                                     for p in report.problems)
    with open_tablebase(db) as tb:
        with pytest.raises(DatabaseError, match="stored by ranked tiers"):
            GameAnswers(ClassGame(Walked("achi"), "Walked", "achi"), tb._store).probe(None)
