"""Tables of ranked tiers (db/tiered.py, builder/ranked_table.py): a morris game built by
`tablebase build` is solved tier by tier and stored by tier and index; its answers are the
plain solver's (tests/test_morris_tables.py holds every reachable position of the 3x3 games
to it); here the layout's own promises: an interrupted build leaves no table and resumes, two
builds store the same bytes, and a damaged, cut or missing block is one error, never another
answer."""
from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tablebase.builder import ranked_table
from tablebase.builder.workdir import work_path
from tablebase.db.keyed import KeyedBlock
from tablebase.db.tiered import ScoreBlock, block_key, decode_scores
from tablebase.query.cli import main
from tablebase.query.tablebase import open_tablebase
from tests.reference_morris import MorrisGame as PlainMorris

GAME = "six-mens-morris+stones3"


def _table(db: str) -> tuple[str, str, str]:
    with closing(sqlite3.connect(db)) as conn:
        layout, table, checksum = conn.execute(
            "SELECT layout, positions_table, checksum FROM games").fetchone()
    return layout, table, checksum


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("tiered") / "t.db")
    assert main(["build", GAME, "--db", path, "--quiet"]) == 0
    return path


def test_a_sample_of_positions_equals_the_plain_solver(db: str) -> None:
    truth = PlainMorris(GAME).solve()
    words = {1: "win", 0: "draw", -1: "loss"}
    with open_tablebase(db) as tb:
        answers = tb.game(GAME)
        for text in list(truth)[::7]:
            probe = answers.probe(text)
            assert (probe.value.word, probe.depth) == (words[truth[text][0]], truth[text][1])
            assert probe.ply is None  # tiers keep no ply


def test_info_and_json_say_how_it_is_stored(db: str, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    assert _table(db)[0] == "tiered-8192"
    assert main(["info", GAME, "--db", db]) == 0
    out = capsys.readouterr().out
    assert "positions in ranked tiers" in out and "stored by tier and index" in out
    assert main(["info", "--db", db]) == 0  # the list of tables: the layout its own column
    (row,) = [line for line in capsys.readouterr().out.splitlines() if GAME in line]
    assert row.split()[4:6] == ["tiered-8192", "draw"], row
    assert main(["info", GAME, "--db", db, "--json"]) == 0
    (found,) = json.loads(capsys.readouterr().out)
    assert found["layout"] == "tiered-8192" and found["reachable"] > 0


def test_two_builds_store_the_same_bytes(db: str, tmp_path: Path) -> None:
    again = str(tmp_path / "again.db")
    assert main(["build", GAME, "--db", again, "--quiet"]) == 0
    assert _table(again)[2] == _table(db)[2]


def test_an_interrupted_build_leaves_no_table_and_resumes(
        db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "i.db")
    real = ranked_table.build_tiers
    finished: list[str] = []

    def stopped(*args: object, **kwargs: object) -> object:
        def report(figures: object) -> None:
            finished.append(figures.name)  # type: ignore[attr-defined]
            if len(finished) == 3:
                raise KeyboardInterrupt
        return real(*args, report=report, **kwargs)  # type: ignore[arg-type]
    monkeypatch.setattr(ranked_table, "build_tiers", stopped)
    capsys.readouterr()
    assert main(["build", GAME, "--db", path, "--quiet"]) == 130
    folder = work_path(path, GAME)
    assert capsys.readouterr().err == ("tablebase: interrupted; nothing was written; the 3 tiers"
                                       f" finished are kept in {folder}: the same command"
                                       " resumes there\n")
    assert not Path(path).exists() or main(["probe", GAME, "--db", path]) == 2
    manifest = json.loads((folder / "manifest.json").read_text())
    assert len(manifest["tiers"]) == 3
    for tier in manifest["tiers"]:  # what the earlier command's tiers cost, made unmistakable
        tier["seconds"] = 500.0
    (folder / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(ranked_table, "build_tiers", real)
    assert main(["build", GAME, "--db", path]) == 0
    assert _table(path)[2] == _table(db)[2] and not folder.exists()
    out = capsys.readouterr().out
    assert "resumed: 3 of the " in out, out
    (solve,) = [line.split() for line in out.splitlines() if line.split()[:1] == ["solve"]]
    assert 1500 <= float(solve[1]) < 1500 + 60, out  # the earlier tiers' and this command's
    with closing(sqlite3.connect(path)) as conn:
        (seconds,) = conn.execute("SELECT build_seconds FROM games").fetchone()
    assert seconds >= 1500


def test_a_damaged_cut_or_missing_block_is_one_error(db: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    start = ".../.../..../.../... x 3 3"
    for change in ("UPDATE \"{t}\" SET data = substr(data, 1, length(data) - 3)",
                   "UPDATE \"{t}\" SET chk = chk + 1",
                   "UPDATE \"{t}\" SET count = count - 1",
                   "DELETE FROM \"{t}\"",
                   # Every block under another's id, or naming another block: never its scores.
                   "UPDATE \"{t}\" SET id = id + 1000",
                   "UPDATE \"{t}\" SET first_key = replace(first_key, ':0', ':1')"):
        damaged = str(tmp_path / "d.db")
        Path(damaged).write_bytes(Path(db).read_bytes())
        with closing(sqlite3.connect(damaged)) as conn:
            conn.execute(change.format(t=_table(damaged)[1]))
            conn.commit()
        capsys.readouterr()
        assert main(["probe", GAME, start, "--db", damaged]) == 2, change
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and ("damaged" in err or "missing" in err), err
        # A block that reads but is gone: verify counts what is stored (exit 1, problems).
        assert main(["verify", GAME, "--db", damaged]) == (1 if "DELETE" in change else 2)
        if "DELETE" in change:
            assert "indices are stored, the build recorded" in capsys.readouterr().out


def _blocks(db: str) -> list[tuple[str, int]]:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(f'SELECT first_key, count FROM "{_table(db)[1]}"').fetchall()


def test_a_build_stores_blocks_of_8192(db: str) -> None:
    blocks = _blocks(db)
    assert max(count for _, count in blocks) == 8192
    assert {int(key.rpartition(":")[2]) % 8192 for key, _ in blocks} == {0}
    assert any(key.endswith(":000000008192") for key, _ in blocks)


@pytest.mark.parametrize("layout", ["tiered-ids", "tiered"])
def test_a_table_stored_before_in_blocks_of_4096_reads_the_same(
        db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], layout: str) -> None:
    """Tables built before, in blocks of 4,096 under an id or (earlier still) under their text
    key alone, answer as they did: the same answers, verified whole."""
    old = str(tmp_path / "old.db")
    monkeypatch.setattr(ranked_table, "TABLE_LAYOUT", layout)
    assert main(["build", GAME, "--db", old, "--quiet"]) == 0
    assert _table(old)[0] == layout and _table(old)[2] != _table(db)[2]
    assert max(count for _, count in _blocks(old)) == 4096
    with closing(sqlite3.connect(old)) as conn:
        (ddl,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?",
                              (_table(old)[1],)).fetchone()
    assert ("WITHOUT ROWID" in ddl and " id " not in ddl) == (layout == "tiered")
    with open_tablebase(old) as was, open_tablebase(db) as now:
        for text in list(PlainMorris(GAME).solve())[::23]:
            assert was.game(GAME).probe(text) == now.game(GAME).probe(text)
            assert was.game(GAME).moves(text) == now.game(GAME).moves(text)
    capsys.readouterr()
    assert main(["verify", GAME, "--db", old, "--sample", "5"]) == 0


def test_blocks_are_stored_at_the_tiers_zstd_level(db: str) -> None:
    import zstandard

    from tablebase.db.tiered import TIER_ZSTD_LEVEL
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(f'SELECT data FROM "{_table(db)[1]}" ORDER BY length(data) DESC'
                            " LIMIT 3").fetchall()
    for (data,) in rows:
        raw = zstandard.ZstdDecompressor().decompress(data)
        assert zstandard.ZstdCompressor(level=TIER_ZSTD_LEVEL).compress(raw) == data
        assert zstandard.ZstdCompressor(level=3).compress(raw) != data


def test_a_reader_follows_a_rebuild_to_the_new_table(db: str, tmp_path: Path) -> None:
    """A reader that has read the tiers' numbers and kept blocks answers from the table a
    `build --force` of another process puts in its place."""
    import subprocess
    import sys
    copy = str(tmp_path / "r.db")
    Path(copy).write_bytes(Path(db).read_bytes())
    start = ".../.../..../.../... x 3 3"
    with open_tablebase(copy) as tb:
        answers = tb.game(GAME)
        first = answers.probe(start)
        table = answers.tables()[0].positions_table
        done = subprocess.run([sys.executable, "-m", "tablebase", "build", GAME, "--db", copy,
                               "--force", "--quiet"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert answers.probe(start) == first
        assert answers.tables()[0].positions_table != table


def test_a_block_names_its_tier_and_index() -> None:
    assert block_key("5-4+2-1", 8192 + 5, 8192) == "5-4+2-1:000000008192"
    assert block_key("5-4+2-1", 8192 + 5, 4096) == "5-4+2-1:000000008192"
    assert block_key("5-4+2-1", 4096 + 5, 8192) == "5-4+2-1:000000000000"
    for key in ("5-4", "5-4:000000004096"):  # no index; not the first of a block of 8,192
        with pytest.raises(Exception, match="not a tier's block"):
            decode_scores(KeyedBlock(key, 1, b"", 0), "t", 8192)


def test_a_build_whose_table_would_not_fit_beside_its_tiers_is_refused_before_it_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """The tiers alone fit, the table after them would not: one line, nothing solved, no
    database; with room for both the same build goes through."""
    import shutil

    from tablebase.builder.games.morris.game import MorrisGame

    tiers = MorrisGame(GAME).ranked()
    need = sum(2 * t.size + 128 for t in tiers.ranked_tiers()) + ranked_table.table_bytes(tiers)
    usage = shutil.disk_usage(tmp_path)
    path = str(tmp_path / "t.db")
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=need - 1))
    capsys.readouterr()
    assert main(["build", GAME, "--db", path, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tablebase: error: {GAME}: the tiers left and the table take about")
    assert err.endswith("GiB free: nothing built\n") and err.count("\n") == 1
    assert not Path(path).exists() and not work_path(path, GAME).exists()
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=need))
    assert main(["build", GAME, "--db", path, "--quiet"]) == 0


def test_the_table_is_counted_on_its_own_disk_where_the_tiers_are_elsewhere(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--work-dir on another file system: each disk holds its own share."""
    import os
    import shutil

    from tablebase.builder.games.errors import BuildTooLargeError
    from tablebase.builder.games.morris.game import MorrisGame
    from tablebase.builder.ranked_build import check_room

    other = Path("/dev/shm")
    assert os.stat(other).st_dev != os.stat(tmp_path).st_dev, "a second file system to use"
    tiers = MorrisGame(GAME).ranked()
    disk = sum(2 * t.size + 128 for t in tiers.ranked_tiers())
    table = ranked_table.table_bytes(tiers)
    usage = shutil.disk_usage(tmp_path)

    def free(tiers_free: int, table_free: int) -> None:
        monkeypatch.setattr(shutil, "disk_usage", lambda where: usage._replace(
            free=tiers_free if str(where).startswith(str(tmp_path)) else table_free))

    free(disk, table)  # neither holds both, each holds its own
    check_room(tiers, tmp_path / "work", 1 << 40, table=(other / "new" / "t.db", table))
    free(disk + table, table - 1)
    with pytest.raises(BuildTooLargeError, match=r": the table takes about [\d.]+ GiB, /dev/shm"
                                                 r" has [\d.]+ GiB free: nothing built"):
        check_room(tiers, tmp_path / "work", 1 << 40, table=(other / "new" / "t.db", table))
    free(disk - 1, table)
    with pytest.raises(BuildTooLargeError, match=r": the tiers left take [\d.]+ GiB"):
        check_room(tiers, tmp_path / "work", 1 << 40, table=(other / "new" / "t.db", table))


def test_a_large_build_says_what_it_will_take_before_it_starts(tmp_path: Path) -> None:
    from tablebase.builder.games.morris.game import MorrisGame
    from tablebase.builder.ranked_table import estimate_text

    tiers = MorrisGame("nine-mens-morris").ranked()
    sizes = [t.size for t in tiers.ranked_tiers()]
    said = estimate_text(tiers, tmp_path / "none", 64 << 30)
    assert said is not None and said.startswith(f"{sum(sizes):,} positions in {len(sizes)} tiers;")
    assert f"{2 * sum(sizes) / 2**30:.1f} GiB of tier files" in said and "hours" in said
    assert f"about {ranked_table.table_bytes(tiers) / 2**30:.1f} GiB for the table" in said
    assert estimate_text(MorrisGame("six-mens-morris").ranked(), tmp_path / "none",
                         64 << 30) is None


def test_a_block_codes_every_score_and_reads_it_back() -> None:
    import numpy as np

    from tablebase.db.tiered import decode_block, encode_block

    rng = np.random.default_rng(1)
    blocks = [rng.integers(-32768, 32768, 4096), np.array([0, -32768, 32767, -32767, 1, -1]),
              rng.choice([0, -32768, 29990, 29900, -29950, -29999], 777), np.full(3, -32768)]
    for scores in blocks:
        raw = encode_block(scores.astype(np.int16))
        assert (decode_block(raw, len(scores)) == scores).all()
    # Wins and losses a few plies apart take a byte each; a block cut short is refused.
    assert len(encode_block(blocks[2].astype(np.int16))) == 5 + 777
    with pytest.raises(ValueError, match="disagree"):
        decode_block(encode_block(blocks[2].astype(np.int16))[:-1], 777)
    # A header no writer makes (a negative top: codes that would name no int16) is refused
    # as the block is read, not only where a score is decoded.
    raw = bytearray(encode_block(np.array([5, 4, -3], np.int16)))
    raw[1:3] = (-30000).to_bytes(2, "little", signed=True)
    with pytest.raises(ValueError, match="disagree"):
        ScoreBlock(bytes(raw), 3)
    # So any header read names an int16 with every code: at the extremes, each of the 65,536
    # codes decodes (whole and one at a time) to the score the formula gives, none wrapped.
    codes = np.arange(1 << 16, dtype="<u2").tobytes()
    for top, bottom in ((0, 0), (32767, -32768), (0, -32768), (32767, 0)):
        head = np.array([(2, top, bottom)], [("w", "u1"), ("t", "<i2"), ("b", "<i2")]).tobytes()
        block = ScoreBlock(head + codes, 1 << 16)
        c = np.arange(1 << 16, dtype=np.int64)
        want = np.where(c == 0, 0, np.where(c == 1, -32768, np.where(
            c & 1, bottom + (c >> 1) - 1, top - (c >> 1) + 1)))
        assert want.min() >= -32768 and want.max() <= 32767
        assert np.array_equal(block.scores(), want)
        some = [0, 1, 2, 3, 65534, 65535]
        assert [block.at(i) for i in some] == want[some].tolist()


def test_a_block_whose_gaps_share_a_step_takes_a_byte_a_score() -> None:
    import numpy as np

    from tablebase.db.tiered import STEPPED, decode_block, encode_block

    rng = np.random.default_rng(2)
    # Wins in odd plies, losses in even ones, 200 plies apart: two bytes a code plainly.
    wins = 30000 - (2 * rng.integers(0, 100, 4096) + 1)
    losses = 2 * rng.integers(0, 100, 4096) - 30000
    scores = np.where(rng.random(4096) < 0.5, wins, losses)
    scores[::7] = 0
    scores[::11] = -32768
    raw = encode_block(scores.astype(np.int16))
    assert raw[0] == STEPPED and len(raw) == 6 + 4096
    assert (decode_block(raw, 4096) == scores).all()
    block = ScoreBlock(raw, 4096)
    assert [block.at(i) for i in range(0, 4096, 37)] == scores[::37].tolist()
    for score in (int(losses.min()), int(losses.max()), int(losses.min()) + 1):
        assert block.tally(score)[4] == int(np.count_nonzero(scores == score))
    assert block.tally(-1)[:4] == (int(np.count_nonzero((scores < 0) & (scores > -32768))),
                                   int(np.count_nonzero(scores == 0)),
                                   int(np.count_nonzero(scores > 0)),
                                   int(np.count_nonzero(scores == -32768)))
    # Gaps with no common step, or too wide a range for a byte even stepped: two bytes.
    plain = scores.copy()
    plain[5] = int(wins.max()) - 1
    assert encode_block(plain.astype(np.int16))[0] == 2
    wide = np.array([32767, 32765, 32767 - 2 * 300, -3], np.int16)
    assert encode_block(wide)[0] == 2 and (decode_block(encode_block(wide), 4) == wide).all()
    # A stepped header whose bytes could name a score past int16 is refused as it is read;
    # one that fits decodes every byte (whole and one at a time) in range.
    head = np.dtype([("w", "u1"), ("t", "<i2"), ("b", "<i2"), ("s", "u1")])
    codes = np.arange(256, dtype="u1").tobytes()
    for top, bottom, shift, fits in ((0, 0, 8, True), (32767, -32768, 8, True),
                                     (0, 0, 9, False), (100, -2, 14, False),
                                     (32767, 0, 0, False)):
        raw = np.array([(STEPPED, top, bottom, shift)], head).tobytes() + codes
        if not fits:
            with pytest.raises(ValueError, match="disagree"):
                ScoreBlock(raw, 256)
            continue
        block = ScoreBlock(raw, 256)
        c = np.arange(256, dtype=np.int64)
        gap = ((c >> 1) - 1) << shift
        want = np.where(c == 0, 0, np.where(c == 1, -32768, np.where(
            c & 1, bottom + gap, top - gap)))
        assert want.min() >= -32768 and want.max() <= 32767
        assert np.array_equal(block.scores(), want)
        assert [block.at(i) for i in range(256)] == want.tolist()


def test_verify_a_sample_reads_every_block(db: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["verify", GAME, "--db", db, "--sample", "40"]) == 0
    assert " sampled positions verified" in capsys.readouterr().out
    damaged = str(tmp_path / "d.db")
    Path(damaged).write_bytes(Path(db).read_bytes())
    with closing(sqlite3.connect(damaged)) as conn:  # a block no sample need re-derive
        conn.execute(f'UPDATE "{_table(damaged)[1]}" SET chk = chk + 1 WHERE first_key ='
                     " (SELECT MAX(first_key) FROM \"" + _table(damaged)[1] + "\")")
        conn.commit()
    assert main(["verify", GAME, "--db", damaged, "--sample", "1"]) == 2
    assert "damaged" in capsys.readouterr().err
    # A block moved under another id (its bytes whole, still last in order) is found too.
    Path(damaged).write_bytes(Path(db).read_bytes())
    with closing(sqlite3.connect(damaged)) as conn:
        conn.execute(f'UPDATE "{_table(damaged)[1]}" SET id = id + 1000 WHERE id ='
                     f' (SELECT MAX(id) FROM "{_table(damaged)[1]}")')
        conn.commit()
    assert main(["verify", GAME, "--db", damaged, "--sample", "1"]) == 2
    assert "stored under id" in capsys.readouterr().err
    for args in (["verify", "3x3k3", "--sample", "3"], ["verify", GAME, "--sample", "0"]):
        assert main([*args, "--db", db]) == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_each_tier_s_progress_bar_says_how_far_the_build_is(tmp_path: Path) -> None:
    from collections.abc import Iterator
    from contextlib import contextmanager

    from tablebase.builder.games.morris.game import MorrisGame
    from tablebase.builder.progress import NO_PROGRESS
    from tablebase.builder.ranked_build import build_tiers

    said: list[str] = []

    @contextmanager
    def bars(**kwargs: object) -> Iterator[object]:
        said.append(str(kwargs["desc"]))
        with NO_PROGRESS() as bar:
            yield bar
    tiers = MorrisGame("nine-mens-morris+stones3").ranked()
    build_tiers(tiers, tmp_path, 1 << 32, bars)  # type: ignore[arg-type]
    n = len(tiers.ranked_tiers())
    assert said[0] == f"[1/{n}] moves of tier 3-3" and said[-1].startswith(f"[{n}/{n}] ")
