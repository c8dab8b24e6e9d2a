"""Games given as Python classes (docs/games.md): built by the generic graph builder and
answered from the keyed layout, every position equal to tests/reference_games.py's plain
solver (dictionaries, no symmetry); tic-tac-toe's golden counts; one position an orbit with
symmetries; endgame tables from a position; every fault of a class one line naming the class,
the method and the position, exit 2, nothing written; a damaged row an error."""
from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tablebase.builder.games.user.adapter import ClassGame
from tablebase.builder.graph_build import build_game
from tablebase.db.store import open_store
from tablebase.query.cli import main
from tablebase.query.game_answers import GameAnswers
from tablebase.query.tablebase import open_tablebase
from tests.class_games.graphs import RandomGraph
from tests.class_games.tictactoe import PlainTicTacToe, TicTacToe
from tests.reference_games import solve

HERE = Path(__file__).resolve().parent
TTT = f"{HERE / 'class_games' / 'tictactoe.py'}:TicTacToe"
PLAIN = f"{HERE / 'class_games' / 'tictactoe.py'}:PlainTicTacToe"
FAULTY = HERE / "class_games" / "faulty.py"


OBJECTS = f"{HERE / 'class_games' / 'tictactoe.py'}:ObjectTicTacToe"


@pytest.fixture(scope="module")
def ttt_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("class") / "ttt.db")
    for spec in (TTT, PLAIN, OBJECTS):
        assert main(["build", spec, "--db", db, "--quiet"]) == 0
    return db


def test_tictactoe_golden_counts(ttt_db: str) -> None:
    with closing(sqlite3.connect(ttt_db)) as conn:
        rows = dict(conn.execute("SELECT spec, reachable || ' ' || canonical || ' ' || terminal"
                                 " || ' ' || root_value || ' ' || root_depth FROM games"))
    # 5,478 positions, 765 up to symmetry, 958 terminal; the empty board a draw in 9 plies.
    assert rows == {"class-tictactoe": "5478 765 958 0 9",
                    "class-tictactoe-plain": "5478 5478 958 0 9",
                    "class-tictactoe-objects": "5478 765 958 0 9"}


def test_every_position_equals_the_plain_solver(ttt_db: str) -> None:
    plain = PlainTicTacToe()
    truth = solve(plain)
    assert len(truth) == 5478
    with open_tablebase(ttt_db) as tb:
        for spec in (TTT, PLAIN, OBJECTS):  # plain values stored by repr, objects by text
            answers = tb.game(spec)
            for position, (value, depth) in truth.items():
                probe = answers.probe(plain.text(position))
                assert (int(probe.value), probe.depth) == (value, depth), plain.text(position)


SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
def test_loopy_graphs_equal_the_plain_solver(tmp_path: Path, seed: int) -> None:
    instance = RandomGraph(seed)
    game = ClassGame(instance, "RandomGraph", f"graphs.py:RandomGraph({seed})")
    db = str(tmp_path / "g.db")
    report = build_game(game, db)
    assert report.canonical == answers_equal_the_plain_solver(game, instance, db)


def answers_equal_the_plain_solver(game: ClassGame, instance: Any, db: str) -> int:
    """Assert every position's stored value and depth equal the plain solver's; how many."""
    truth = solve(instance)
    store = open_store(db)
    answers = GameAnswers(game, store)
    try:
        for position, (value, depth) in truth.items():
            probe = answers.probe(instance.text(position))
            assert (int(probe.value), probe.depth) == (value, depth), position
    finally:
        answers.close()
        store.close()
    return len(truth)


def test_the_graphs_hold_every_kind_of_answer() -> None:
    """The seeds above are worth their time: draws by endless play, draws that reach a
    finished draw, and decided positions deeper than 3 plies all occur among them."""
    kinds = {"endless" if depth is None else "tie" if value == 0 and depth else
             "deep" if depth > 3 else "other"
             for seed in SEEDS for value, depth in solve(RandomGraph(seed)).values()}
    assert kinds >= {"endless", "tie", "deep"}


def test_symmetries_store_one_position_an_orbit(ttt_db: str) -> None:
    """Every image of a position is answered from its orbit's one row, in the asked text."""
    game = TicTacToe()
    with open_tablebase(ttt_db) as tb:
        answers = tb.game(TTT)
        for text in ("x../.../... o", "..x/.../... o", ".../.../x.. o", ".../.../..x o"):
            probe = answers.probe(text)
            assert probe.position == text
            assert (probe.value.word, probe.depth) == ("draw", 8)
        keys = {min(game.text(q) for q in [p, *game.symmetries(p)])
                for p in (game.read(t) for t in ("x../.../... o", ".../.../..x o"))}
        assert len(keys) == 1


def test_moves_and_line_from_the_class(ttt_db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", TTT, "x.o/.x./... o", "--db", ttt_db, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["spec"], data["position"], data["value"], data["depth"]) == (
        "class-tictactoe", "x.o/.x./... o", "draw", 6)
    # o must block the diagonal: c1 keeps the draw, every other move loses in 1 ply.
    assert [(m["move"], m["value"], m["depth"], m["best"]) for m in data["moves"]][:2] == [
        ("c1", "draw", 5, True), ("b3", "loss", 1, False)]
    assert {m["value"] for m in data["moves"][1:]} == {"loss"}
    assert main(["line", PLAIN, "--db", ttt_db, "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert len(line["line"]) == 9 and line["line"][-1]["depth"] == 0 and not line["repeats"]
    assert line["line"][-1]["position"].count(".") == 0


def test_endgame_table_from_a_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "e.db")
    assert main(["build", PLAIN, "--from", "x.o/.x./... o", "--db", db, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "from 'x.o/.x./... o'" in out and "draw in 6 plies" in out
    truth = solve(PlainTicTacToe(), PlainTicTacToe().read("x.o/.x./... o"))
    with open_tablebase(db) as tb:
        answers = tb.game(PLAIN)
        for position, (value, depth) in truth.items():
            probe = answers.probe(PlainTicTacToe().text(position))
            assert (int(probe.value), probe.depth) == (value, depth)
    # The start of the whole game is not in this table.
    assert main(["probe", PLAIN, "--db", db]) == 2
    assert "no table holds '.../.../... x'" in capsys.readouterr().err


@pytest.mark.parametrize("cls, method", [
    ("MovesRaise", "moves"), ("MovesNotPairs", "moves"), ("TextNotRead", "read"),
    ("BadOutcome", "outcome"), ("Unhashable", "moves"), ("StartRaises", "start"),
    ("NotAGroup", "symmetries"), ("SameText", "read"), ("ObjectSameText", "text")])
def test_a_fault_of_the_class_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          cls: str, method: str) -> None:
    db = tmp_path / "f.db"
    assert main(["build", f"{FAULTY}:{cls}", "--db", str(db), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tablebase: error: ")
    assert f"{cls}.{method}()" in err
    if method != "start":
        assert "at position '" in err or "at position (" in err or "at position [" in err
    assert not db.exists()  # nothing written


def test_bad_specs_and_text_are_one_line(ttt_db: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    cases = [(["probe", TTT, "x.o/.x", "--db", ttt_db], "cannot read 'x.o/.x': expected three"),
             (["build", f"{HERE}/class_games/nothing.py:Game", "--db", str(tmp_path / "n.db")],
              "no such file"),
             (["build", f"{FAULTY}:Missing", "--db", str(tmp_path / "n.db")], "has no class Missing"),
             (["probe", TTT, "x../.../... x", "--db", ttt_db], "no table holds 'x../.../... x'")]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("damage", ["data = substr(data, 1, 20) || X'00' || substr(data, 22)",
                                    "chk = chk + 1", "count = count - 1"])
def test_a_damaged_block_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     damage: str) -> None:
    db = str(tmp_path / "d.db")
    assert main(["build", PLAIN, "--db", db, "--quiet"]) == 0
    key = repr(PlainTicTacToe().read("x.o/.x./... o"))  # plain values: stored by their repr
    with closing(sqlite3.connect(db)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games").fetchone()
        (first,) = conn.execute(f'SELECT first_key FROM "{table}" WHERE first_key <= ? ORDER BY'
                                " first_key DESC LIMIT 1", (key,)).fetchone()
        (other,) = conn.execute(f'SELECT first_key FROM "{table}" WHERE first_key != ?'
                                " LIMIT 1", (first,)).fetchone()
        conn.execute(f'UPDATE "{table}" SET {damage} WHERE first_key = ?', (first,))
        conn.commit()
    assert main(["probe", PLAIN, "x.o/.x./... o", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "is damaged" in err and err.count("\n") == 1
    other_text = PlainTicTacToe().text(eval(other))  # noqa: S307 (a repr of ours, read back)
    assert main(["probe", PLAIN, other_text, "--db", db]) == 0  # other blocks still read


def test_export_and_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "x.db")
    graph = f"{HERE / 'class_games' / 'graphs.py'}"
    assert main(["build", f"{graph}:Graph7", "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["export", f"{graph}:Graph7", "--db", db, "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    game = RandomGraph(7)
    truth = solve(game)
    assert {r["position"]: (r["value"], r["depth"]) for r in rows} == {
        game.text(p): ({1: "win", 0: "draw", -1: "loss"}[v], d) for p, (v, d) in truth.items()}
    assert main(["verify", f"{graph}:Graph7", "--db", db]) == 0
    assert "positions verified" in capsys.readouterr().out
    # The class changed under its table: verify names positions whose moves disagree.
    assert main(["verify", f"{graph}:Graph7Changed", "--db", db, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["ok"] and report["problems"]


def test_play_against_the_table(ttt_db: str, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    """Perfect play never loses tic-tac-toe: a human playing the table's worst moves loses."""
    with open_tablebase(ttt_db) as tb:
        answers = tb.game(PLAIN)
        typed: list[str] = []

        def worst(prompt: str) -> str:
            position = shown[-1]
            move = answers.moves(position)[1][-1].move  # the last is the worst
            typed.append(move)
            return move
        shown: list[str] = []

        def write(text: str) -> None:
            shown.append(text.split("  ")[0]) if "  side to move" in text else None
        import random

        from tablebase.query.play.game_classes import play_class_game
        assert play_class_game(answers, True, read=worst, write=write,
                               rng=random.Random(1)) == "the computer wins"
        assert typed  # the human moved


def test_audit_a_solver_function(ttt_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "says_draw.py").write_text("def solve(text):\n    return 'draw'\n")
    (tmp_path / "perfect.py").write_text(
        "import sys\nsys.path.insert(0, %r)\n" % str(HERE.parent)
        + "from tests.reference_games import solve as plain\n"
        + "from tests.class_games.tictactoe import PlainTicTacToe\n"
        + "GAME = PlainTicTacToe()\nTRUTH = plain(GAME)\n"
        + "def solve(text):\n    value, depth = TRUTH[GAME.read(text)]\n    return value, None, depth\n")
    monkeypatch.chdir(tmp_path)
    assert main(["audit", PLAIN, "--solver", "perfect:solve", "--db", ttt_db, "--quiet"]) == 0
    assert "agreed: 4,520 of 4,520" in capsys.readouterr().out  # 5,478 less 958 terminal
    assert main(["audit", PLAIN, "--solver", "says_draw:solve", "--db", ttt_db, "--json",
                 "--max-examples", "2"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["by_kind"] == {"wrong-value": report["positions"] - report["agreed"]}
    first = report["examples"][0]
    assert first["ply"] == 2 and first["line"]  # the smallest, refuted by a perfect line


def test_a_walk_past_the_memory_budget_writes_nothing(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    clobber = f"{HERE / 'class_games' / 'clobber.py'}:Clobber5x3"  # 206,805 positions
    assert main(["build", clobber, "--db", str(db), "--memory", "0.01", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "passed the memory budget of 10 MiB" in err
    assert "nothing written" in err and not db.exists()
    assert main(["build", PLAIN, "--from", "x.o/.x", "--db", str(db), "--quiet"]) == 2
    assert "cannot read 'x.o/.x'" in capsys.readouterr().err and not db.exists()
    assert main(["build", PLAIN, "--from", "xxx/oo./... o", "--db", str(db), "--quiet"]) == 2
    assert "already over" in capsys.readouterr().err and not db.exists()
