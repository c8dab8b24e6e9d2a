"""Queries next to builds: read-only opening, answers while another game is written to the same
file, and a game swapped by a rebuild seen whole (old or new table), never a mixture."""
from __future__ import annotations

import hashlib
import random
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.pipeline import build
from tablebase.query import open_tablebase
from tests.conftest import game_row, stored_rows
from tests.reference import Game
from tests.stored import count_block_positions

ROOT = Path(__file__).resolve().parents[1]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_queries_leave_the_file_untouched(tmp_path: Path, table_db: Callable[[str], str]) -> None:
    path = tmp_path / "t.db"
    shutil.copy(table_db("4x3k3"), path)
    before = _digest(path)
    with open_tablebase(str(path)) as tb:
        tb.probe("4x3k3", "..../..../....")
        tb.moves("4x3k3", "x.../..../....")
        tb.line("4x3k3", "..../..../....")
        tb.table("4x3k3").probe_many([0, 1, 3])
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.db"]


@pytest.mark.slow
def test_answers_stay_right_while_another_game_is_built(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    build(parse_spec("4x3k3"), str(path))
    truth = stored_rows(path, "4x3k3")
    game = Game("4x3k3")
    codes = random.Random(1).sample(sorted(truth), 400)
    # 4x4k3 (a few seconds; 4x4k4 took 45 s of both cores, for no more of a test).
    writer = subprocess.Popen([sys.executable, "-m", "tablebase", "build", "4x4k3", "--db", str(path),
                               "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    answered = 0
    with open_tablebase(str(path)) as tb:
        while writer.poll() is None or answered < len(codes):
            code = codes[answered % len(codes)]
            probe = tb.probe("4x3k3", board_text(parse_spec("4x3k3"), game.board(code)))
            assert (int(probe.value), probe.depth) == truth[code][1:]
            answered += 1
    assert writer.wait() == 0, writer.stderr.read() if writer.stderr else ""
    assert answered > len(codes)
    # Complete: its blocks, each intact, hold every canonical position (too many to decode here).
    row = game_row(path, "4x4k3")
    assert row is not None and row["status"] == "complete" and row["layout"] == "packed"
    with closing(sqlite3.connect(path)) as conn:
        blocks = conn.execute(f'SELECT data FROM "{row["positions_table"]}"')
        assert count_block_positions(blocks) == row["canonical"] > 10**5  # type: ignore[operator]


# The rival swaps the 4x3k3 table back and forth, through the real writer, between the true
# table and one whose wins and losses are all 40 plies longer (which keeps every move's order),
# so any answer mixing the two shows. Both are packed: a rows table checks each row it reads,
# and such depths are no position's (a packed table stores scores, and a draw's depth is its
# empty cells, so draws stay as they are).
SWAPPER = textwrap.dedent("""
    import sys
    import numpy as np
    from tablebase.db.engine import open_database
    from tablebase.db.reader import UrlStore
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.root import Root
    from tablebase.db.records import TableCodes
    from tablebase.db.store import complete_tables
    from tablebase.db.writer import (GameParams, GameSummary, begin_build, finish_build,
                                     write_tier)
    path, rounds = sys.argv[1], int(sys.argv[2])
    with open_database(path, writable=True) as engine:
        store = UrlStore(engine, path, 3)
        game = complete_tables(store, "4x3k3")[0]
        root = Root.whole(parse_spec("4x3k3"))
        codes, ply, value, depth = store.reader(
            game, TableCodes(3 ** root.code_digits, root.stored_plies, root.answer_possible)).load()
        depth = depth.astype(np.int64)
        plies = store.plies(game)
        params = GameParams("4x3k3", 4, 3, 3, False, False)
        print("ready", flush=True)  # the reader starts now: before, it had no write to meet
        for i in range(rounds):
            shifted = np.where(depth > 0, depth + (40 if i % 2 == 0 else 0), 0)
            scores = np.where(value == 1, 64 - shifted, np.where(value == -1, shifted - 64, 0))
            handle = begin_build(engine, params, force=True, coded_cells=12)
            for p in np.unique(ply).tolist():
                at = ply == p
                write_tier(engine, handle, p, codes[at], scores[at].astype(np.int8))
            finish_build(engine, handle, GameSummary(
                game.reachable, game.canonical, game.terminal, game.terminal_canonical,
                game.wins, game.draws, game.losses, game.root_value, game.root_depth,
                "test", 0.0, {}, game.checksum), plies)
""")


@pytest.mark.slow
def test_a_rebuilt_game_is_seen_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    build(parse_spec("4x3k3"), str(path))
    truth = stored_rows(path, "4x3k3")
    spec, game = parse_spec("4x3k3"), Game("4x3k3")
    codes = [c for c in random.Random(2).sample(sorted(truth), 300) if truth[c][2] > 2]
    rival = subprocess.Popen([sys.executable, "-c", SWAPPER, str(path), "12"], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Its imports and its read of the table take a second or more, with no write to read
    # beside: the reader waits for them (its table stays the true one until the first swap).
    assert rival.stdout is not None and rival.stdout.readline() == "ready\n", (
        rival.stderr.read() if rival.stderr else "")
    shifted = plain = 0
    with open_tablebase(str(path)) as tb:
        deadline = time.monotonic() + 120
        i = 0
        while rival.poll() is None and time.monotonic() < deadline:
            code = codes[i % len(codes)]
            i += 1
            text = board_text(spec, game.board(code))
            line = tb.line(spec, text)
            # One snapshot: the line is the true table's line, and the depths along it count
            # down by one (all shifted by 40, or none).
            base = truth[code][2]
            offset = len(line) - base
            assert offset == 0, "a line is played out in the true table's moves"
            depths = [step.depth for step in line]
            assert depths in ([base - 1 - j for j in range(base)],
                              [base - 1 - j + 40 for j in range(base - 1)] + [0]), depths
            moves = tb.moves(spec, text)
            kinds = {m.depth >= 40 for m in moves if m.depth != 0 and m.value != Value.DRAW}
            assert len(kinds) <= 1, [(m.move, m.depth) for m in moves]
            shifted += kinds == {True}
            plain += kinds == {False}
    assert rival.wait(timeout=60) == 0, rival.stderr.read() if rival.stderr else ""
    assert shifted and plain  # both tables were really seen


SWAPPED_GAME = '''
class Swapped:
    """The start moves to a finished game whose outcome is RESULT (for the side then to move)."""
    name = "swapped"

    def start(self):
        return 0

    def moves(self, p):
        return [("go", 1)] if p == 0 else []

    def outcome(self, p):
        return RESULT if p == 1 else None

    def text(self, p):
        return f"p{p}"

    def read(self, text):
        if text not in ("p0", "p1"):
            raise ValueError("expected p0 or p1")
        return int(text[1:])
'''


def test_a_rebuilt_class_game_is_answered_from_its_new_table(tmp_path: Path) -> None:
    """A reader of a game class's table that has kept its blocks follows a `build --force`
    of another process to the new table, rather than answering from what it kept."""
    source = tmp_path / "swapped.py"
    spec, db = f"{source}:Swapped", str(tmp_path / "t.db")

    def built(result: int) -> None:
        source.write_text(f"RESULT = {result}\n" + SWAPPED_GAME)
        done = subprocess.run([sys.executable, "-m", "tablebase", "build", spec, "--db", db,
                               "--force", "--quiet"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    built(-1)  # the mover at p1 has lost: the start wins in 1
    with open_tablebase(db) as tb:
        answers = tb.game(spec)
        assert (answers.probe(None).value, answers.probe(None).depth) == (Value.WIN, 1)
        table = answers.tables()[0].positions_table
        built(1)  # now p1 is won for its mover: the start loses in 1
        assert (answers.probe(None).value, answers.probe(None).depth) == (Value.LOSS, 1)
        assert [m.value for m in answers.moves("p0")[1]] == [Value.LOSS]
        assert answers.tables()[0].positions_table != table
