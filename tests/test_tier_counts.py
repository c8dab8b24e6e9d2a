"""A table of ranked tiers keeps its counts a tier (wins, draws, losses, lost at once): `info`
lists them (text and JSON), the page draws them, `verify` holds them to the blocks, and a table
built before they were kept still reads and verifies."""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import fields, replace
from pathlib import Path

import pytest
import zstandard

from tablebase.builder.games.morris.game import MorrisGame
from tablebase.db.records import GameRecord, PlyCounts
from tablebase.db.tiered import decode_block
from tablebase.query.cli import main

GAME = "six-mens-morris+stones3"
LOST_AT_ONCE = -30000  # ranked_tiers.py's score of a position lost with no move


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("counts") / "t.db")
    assert main(["build", GAME, "--db", path, "--quiet"]) == 0
    return path


def _blocks_by_tier(db: str) -> dict[str, list[int]]:
    """Each tier's [win, draw, loss, lost at once], counted from the stored blocks' bytes."""
    with closing(sqlite3.connect(db)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games").fetchone()
        rows = conn.execute(f'SELECT first_key, count, data FROM "{table}"').fetchall()
    found: dict[str, list[int]] = {}
    for key, count, data in rows:
        scores = decode_block(zstandard.ZstdDecompressor().decompress(data), count)
        seen = found.setdefault(key.rpartition(":")[0], [0, 0, 0, 0])
        for k, n in enumerate([(scores > 0).sum(), (scores == 0).sum(),
                               ((scores < 0) & (scores > -32768)).sum(),
                               (scores == LOST_AT_ONCE).sum()]):
            seen[k] += int(n)
    return found


def test_info_lists_each_tier_as_its_blocks_hold_it(db: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["info", GAME, "--db", db, "--json"]) == 0
    (table,) = json.loads(capsys.readouterr().out)
    tiers = table["per_tier"]
    order = [t.name for t in MorrisGame(GAME).ranked().ranked_tiers()]
    assert [t["tier"] for t in tiers] == order and table["per_ply"] == []
    held = _blocks_by_tier(db)
    for t in tiers:
        assert [t["win"], t["draw"], t["loss"], t["lost_at_once"]] == held[t["tier"]], t
        assert t["positions"] == t["win"] + t["draw"] + t["loss"]
    assert sum(t["positions"] for t in tiers) == table["reachable"]
    assert sum(t["lost_at_once"] for t in tiers) == table["terminal"]
    assert main(["info", GAME, "--db", db]) == 0
    lines = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()
             if line.startswith("  ") and line.split()[0] in order}
    assert {name: [int(n.replace(",", "")) for n in row] for name, row in lines.items()} == {
        t["tier"]: [t["positions"], t["lost_at_once"], t["win"], t["draw"], t["loss"]]
        for t in tiers}


def _rewrite_counts(db: str, change: Callable[[list[PlyCounts]], list[PlyCounts]]) -> None:
    """The table's counts changed by `change`, its games row's check made to match (as a
    build that counted wrongly would write them)."""
    with closing(sqlite3.connect(db)) as conn:
        names = [f.name for f in fields(GameRecord)]
        row = conn.execute(f"SELECT {', '.join(names)} FROM games").fetchone()
        record = GameRecord(**dict(zip(names, row)))
        plies = [PlyCounts(*r) for r in conn.execute(
            "SELECT ply, reachable, canonical, terminal, wins, draws, losses FROM game_plies"
            " ORDER BY ply")]
        plies = change(plies)
        conn.execute("DELETE FROM game_plies")
        conn.executemany("INSERT INTO game_plies VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         [(record.id, *(getattr(p, f.name) for f in fields(PlyCounts)))
                          for p in plies])
        conn.execute("UPDATE games SET row_check = ?", (record.row_digest(plies),))
        conn.commit()


def test_verify_holds_the_counts_to_the_blocks(db: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    wrong = str(tmp_path / "wrong.db")
    Path(wrong).write_bytes(Path(db).read_bytes())
    _rewrite_counts(wrong, lambda plies: [replace(p, wins=p.wins + 1) if p.ply == 2 else p
                                          for p in plies])
    capsys.readouterr()
    assert main(["verify", GAME, "--db", wrong, "--sample", "5"]) == 1
    out = capsys.readouterr().out
    assert "its blocks hold" in out and "the table's counts say" in out, out
    # One tier's row left out: the rows and the game's tiers disagree, one line, no answer.
    _rewrite_counts(wrong, lambda plies: plies[:-1])
    assert main(["info", GAME, "--db", wrong]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rebuild the table with --force" in err, err


def test_a_table_built_before_the_counts_reads_and_verifies(db: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    old = str(tmp_path / "old.db")
    Path(old).write_bytes(Path(db).read_bytes())
    _rewrite_counts(old, lambda plies: [])
    capsys.readouterr()
    assert main(["info", GAME, "--db", old]) == 0
    assert "no counts by tier" in capsys.readouterr().out
    assert main(["info", GAME, "--db", old, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["per_tier"] == []
    assert main(["verify", GAME, "--db", old]) == 0
