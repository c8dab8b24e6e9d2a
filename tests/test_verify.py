"""`verify` re-derives a table from scratch: clean tables pass, every kind of tampering is caught."""
from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.pipeline import build
from tablebase.db.blocks import HEADER, BlockRow, pack_block, unpack_block
from tablebase.db.ranking import FREE
from tablebase.query.tablebase import open_tablebase
from tablebase.query.verify.checks import VerifyReport, verify_table
from tests.reference import Game


def _verify(path: Path | str, spec: str) -> VerifyReport:
    """Verify with the compiled first pass (the default budget: children found in a hash
    table), with it finding children by search (no room for the hash table) and with numpy
    alone (a budget under 512 MiB): all must find exactly the same problems."""
    from tablebase.query.verify.first_pass import TierChecker
    with open_tablebase(str(path)) as tb:
        compiled = verify_table(tb, parse_spec(spec))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("tablebase.query.verify.checks._compiled_checker",
                          lambda root, hash_bytes: TierChecker(root, 0))
            searched = verify_table(tb, parse_spec(spec))
        plain = verify_table(tb, parse_spec(spec), memory_budget=256 << 20)

    def found(report: VerifyReport) -> tuple[object, ...]:
        return (report.positions, report.problems, report.by_kind,
                [(p.kind, p.code, p.ply, p.message) for p in report.first])
    assert found(compiled) == found(searched) == found(plain)
    return compiled


@pytest.mark.parametrize("spec", ["3x3k3", "3x3k3+misere", "3x3k3+gravity", "4x3k3"])
def test_clean_tables_pass(table_db: Callable[[str], str], spec: str) -> None:
    report = _verify(table_db(spec), spec)
    assert report.ok, report.first
    assert report.positions == {"3x3k3": 765, "3x3k3+misere": 765, "3x3k3+gravity": 359,
                                "4x3k3": 28275}[spec]


@pytest.fixture(scope="module")
def rows_4x3k3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4x3k3 table in the rows layout, built once for the module; tests change copies."""
    path = tmp_path_factory.mktemp("rows") / "rows.db"
    build(parse_spec("4x3k3"), str(path), layout="rows")
    return path


@pytest.fixture
def tampered(tmp_path: Path, rows_4x3k3: Path) -> tuple[Path, str]:
    """A private 4x3k3 table in the rows layout (a copy of the module's: copying is cheaper
    than building), which SQL can change row by row, and the name of its positions table."""
    path = tmp_path / "copy.db"
    shutil.copyfile(rows_4x3k3, path)
    with closing(sqlite3.connect(path)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games WHERE spec='4x3k3'").fetchone()
    return path, table


def _sql(path: Path, statement: str, *params: object) -> None:
    with closing(sqlite3.connect(path)) as conn:
        conn.execute(statement, params)
        conn.commit()


def _a_position(path: Path, table: str, where: str) -> tuple[int, int, int, int]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute(f'SELECT code, ply, value, depth FROM "{table}" WHERE {where}'
                            " ORDER BY code LIMIT 1 OFFSET 7").fetchone()


def test_clean_rows_table_passes(tampered: tuple[Path, str]) -> None:
    """A table of rows (read in code order and filed by ply, not streamed by ply) as it was
    built: clean, every count and the checksum matching."""
    report = _verify(tampered[0], "4x3k3")
    assert report.ok and report.positions == 28275, report.first


def test_flipped_value_is_caught(tampered: tuple[Path, str]) -> None:
    path, table = tampered
    code, ply, value, _ = _a_position(path, table, "ply = 6 AND value = 1")
    _sql(path, f'UPDATE "{table}" SET value = -1 WHERE code = ?', code)
    report = _verify(path, "4x3k3")
    assert not report.ok
    assert {"value", "checksum", "count"} <= set(report.by_kind)
    assert any(p.code == code and p.kind == "value" for p in report.first)


def test_changed_depth_is_caught(tampered: tuple[Path, str]) -> None:
    path, table = tampered
    code, _, _, depth = _a_position(path, table, "ply = 5 AND value = 1")
    _sql(path, f'UPDATE "{table}" SET depth = ? WHERE code = ?', depth + 2, code)
    report = _verify(path, "4x3k3")
    assert any(p.code == code and p.kind == "depth" for p in report.first)


def test_wrong_terminal_score_is_caught(tampered: tuple[Path, str]) -> None:
    path, table = tampered
    code, *_ = _a_position(path, table, "ply = 12")
    _sql(path, f'UPDATE "{table}" SET value = 1, depth = 0 WHERE code = ?', code)
    assert "terminal" in _verify(path, "4x3k3").by_kind


def test_deleted_row_is_caught(tampered: tuple[Path, str]) -> None:
    path, table = tampered
    code, *_ = _a_position(path, table, "ply = 7")
    _sql(path, f'DELETE FROM "{table}" WHERE code = ?', code)
    report = _verify(path, "4x3k3")
    assert {"missing-child", "count", "checksum"} <= set(report.by_kind)


def test_deleted_root_is_caught(tampered: tuple[Path, str]) -> None:
    path, table = tampered
    _sql(path, f'DELETE FROM "{table}" WHERE code = 0')
    assert "root" in _verify(path, "4x3k3").by_kind


def test_bogus_rows_are_caught(tampered: tuple[Path, str]) -> None:
    path, table = tampered
    game = Game("4x3k3")
    # An unreachable but well-formed canonical position: x has two separate lines.
    #   x x x .
    #   o o . .
    #   x x x o   <- with o to move after x's last stone, and the counts right
    board = (1, 1, 1, 0, 2, 2, 0, 0, 1, 1, 1, 2)
    assert sum(1 for v in board if v == 1) == 6 and sum(1 for v in board if v == 2) == 3
    bogus = game.canonical(board)
    _sql(path, f'INSERT INTO "{table}" (code, ply, value, depth) VALUES (?, 9, -1, 0)', bogus)
    report = _verify(path, "4x3k3")
    assert {"count", "checksum"} <= set(report.by_kind)
    assert "unreachable" in report.by_kind or "bad-row" in report.by_kind
    # A row that is not even a canonical code
    _sql(path, f'DELETE FROM "{table}" WHERE code = ?', bogus)
    _sql(path, f'INSERT INTO "{table}" (code, ply, value, depth) VALUES (?, 1, 0, 11)', 3 ** 11)
    assert "bad-row" in _verify(path, "4x3k3").by_kind


def test_changed_count_is_caught(tampered: tuple[Path, str]) -> None:
    path, _ = tampered
    # The catalogue row and its per-ply counts are under the row's check: a changed count is
    # damage to the catalogue (a changed table shows as count findings: above).
    _sql(path, "UPDATE games SET wins = wins + 1 WHERE spec = '4x3k3'")
    report = _verify(path, "4x3k3")
    assert report.by_kind == {"damaged": 1} and "catalogue row" in report.first[0].message
    _sql(path, "UPDATE games SET wins = wins - 1 WHERE spec = '4x3k3'")
    _sql(path, "UPDATE game_plies SET draws = draws + 1 WHERE ply = 4 AND game_id ="
               " (SELECT id FROM games WHERE spec = '4x3k3')")
    report = _verify(path, "4x3k3")
    assert report.by_kind == {"damaged": 1} and "catalogue row" in report.first[0].message


def test_report_orders_problems_by_stones(tampered: tuple[Path, str]) -> None:
    path, table = tampered
    for ply in (9, 3, 6):
        code, *_ = _a_position(path, table, f"ply = {ply} AND value = 0")
        _sql(path, f'UPDATE "{table}" SET value = 1 WHERE code = ?', code)
    plies = [p.ply for p in _verify(path, "4x3k3").first if p.ply is not None]
    assert plies == sorted(plies) and plies[0] <= 3


def test_verify_within_a_small_memory_budget(table_db: Callable[[str], str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Tier by tier under --memory: the same clean verdict, in small chunks."""
    from tablebase.query.cli import main
    db = table_db("4x3k3")
    assert main(["verify", "4x3k3", "--db", db, "--memory", "0.0625", "--quiet"]) == 0
    assert "all 28,275 positions verified" in capsys.readouterr().out
    with open_tablebase(db) as tb:
        report = verify_table(tb, parse_spec("4x3k3"), chunk=300, memory_budget=1 << 26)
    assert report.ok and report.positions == 28275


# A packed table is read ply by ply, its blocks decoded on two threads: the same damage, planted
# in a block written again with a valid check, is caught as in a table of rows.

@pytest.fixture(scope="module")
def packed_4x3k3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4x3k3 table in the packed layout, in blocks of 512 positions (many a ply), built once
    for the module; tests change copies."""
    path = tmp_path_factory.mktemp("packed") / "packed.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("tablebase.db.blocks.BLOCK_POSITIONS", 512)
        build(parse_spec("4x3k3"), str(path))
    return path


@pytest.fixture
def packed(tmp_path: Path, packed_4x3k3: Path) -> Path:
    """A private copy of the module's packed 4x3k3 table, in blocks of 512 positions."""
    path = tmp_path / "packed.db"
    shutil.copyfile(packed_4x3k3, path)
    return path


def _repack(path: Path, ply: int, change: Callable[[np.ndarray, np.ndarray],
                                                   tuple[np.ndarray, np.ndarray]]) -> None:
    """Write the second block of `ply` again with its codes and scores changed by `change`,
    under a valid check (what a faulty writer, not a damaged disk, would leave)."""
    with closing(sqlite3.connect(path)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games WHERE spec='4x3k3'").fetchone()
        row = BlockRow(*conn.execute(f'SELECT first_code, ply, count, data FROM "{table}" WHERE'
                                     " ply = ? ORDER BY first_code LIMIT 1 OFFSET 1",
                                     (ply,)).fetchone())
        block = unpack_block(row, str)
        digits = row.data[7]  # the header's count of a code's digits, then the support map
        supports = tuple(-1 if b == FREE else b for b in row.data[HEADER.size:HEADER.size + digits])
        codes, scores = change(block.codes.copy(), block.scores.copy())
        new = pack_block(ply, block.index, codes, scores, block.next, supports)
        conn.execute(f'UPDATE "{table}" SET first_code = ?, count = ?, data = ? WHERE'
                     " first_code = ?", (new.first, new.count, new.data, row.first))
        conn.commit()


def test_packed_flipped_value_is_caught(packed: Path) -> None:
    def flip(codes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        i = int(np.flatnonzero(scores > 0)[3])
        flipped.append(int(codes[i]))
        scores[i] = -scores[i]  # a win becomes a loss in as many plies
        return codes, scores
    flipped: list[int] = []
    _repack(packed, 6, flip)
    report = _verify(packed, "4x3k3")
    assert {"value", "checksum", "count"} <= set(report.by_kind)
    assert any(p.code == flipped[0] and p.kind == "value" for p in report.first)


def test_packed_dropped_position_is_damage(packed: Path) -> None:
    """A block short of one position no longer adds up to its ply's count: found once plies
    above it are checked, reported alone, with every other damaged block."""
    _repack(packed, 7, lambda codes, scores: (np.delete(codes, 1), np.delete(scores, 1)))
    report = _verify(packed, "4x3k3")
    assert report.by_kind == {"damaged": 1} and "ply 7" in report.first[0].message


def test_compiled_look_ups_find_what_searchsorted_does() -> None:
    """The compiled pass's two ways to find a child among the next tier's rows, the fenced
    search (every STEP-th key, then a segment) and the hash table, against numpy's search, for
    codes asked before, between, on and after the stored ones."""
    from tablebase.query.verify.lookup import STEP, fenced_search
    rng = np.random.default_rng(7)
    for n in (0, 1, 5, STEP - 1, STEP, STEP + 1, 3 * STEP, 1000):
        keys = np.unique(rng.integers(0, 5000, n)).astype(np.int64)
        kids = np.concatenate([rng.integers(0, 5010, 300), keys[:50]]).astype(np.int64)
        where = np.searchsorted(keys, kids)
        base = np.empty(len(kids), np.int64)
        fenced_search(keys, np.ascontiguousarray(keys[::STEP]), kids, len(kids), base)
        assert np.array_equal(base, where), n
        _assert_hashed_like_searchsorted(keys, kids)


def _assert_hashed_like_searchsorted(keys: np.ndarray, kids: np.ndarray) -> None:
    """Every kid stored in `keys` found in the hash table with its own row's value and depth,
    every other kid not found, as numpy's search says; the rows no kid reached are the ones
    `unreached` names."""
    from tablebase.query.verify.lookup import REACHED, STATE, hashed, outcome, probe, states, unreached
    rng = np.random.default_rng(len(keys))
    value = rng.integers(-1, 2, len(keys)).astype(np.int8)
    depth = rng.integers(0, 43, len(keys)).astype(np.int8)
    table, shift = hashed(keys, states(value, depth))
    assert (table >= 0).sum() == len(keys)
    base = np.empty(len(kids), np.int64)
    probe(table, shift, kids, len(kids), base)
    where = np.searchsorted(keys, kids)
    stored = where < len(keys)
    stored[stored] = keys[where[stored]] == kids[stored]
    assert np.array_equal(base < len(table), stored)
    for j in np.flatnonzero(stored):
        assert table[base[j]] >> STATE == kids[j]
        assert outcome(table[base[j]]) == (value[where[j]], depth[where[j]])
        table[base[j]] |= REACHED
    assert np.array_equal(unreached(table), np.setdiff1d(keys, kids[stored]))


@pytest.mark.parametrize("n", [20_000, 100_000])
def test_the_hash_table_filled_on_two_cores_finds_every_code(
        monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """Each part of verify's hash table emptied and filled by its own thread, the rows whose
    probe crosses into the next part (or past the end) placed after: every row is found with
    its value and depth, every code not stored is not, as numpy's search says."""
    from tablebase.builder import threads
    monkeypatch.setattr(threads, "THREADS", 2)
    monkeypatch.setattr(threads, "PARALLEL_ROWS", 1_000)
    rng = np.random.default_rng(n)
    keys = np.unique(rng.integers(0, 3 ** 20, 2 * n))[:n].astype(np.int64)
    kids = np.concatenate([keys[::3], rng.integers(0, 3 ** 20, 5_000)]).astype(np.int64)
    _assert_hashed_like_searchsorted(keys, kids)


def test_a_row_without_value_or_depth_has_no_outcome() -> None:
    """A stored row whose value or depth no position has is read back as having none (value
    2), so the rows that lead to it are looked at again by numpy, which words the problem."""
    from tablebase.query.verify.lookup import outcome, states
    value = np.array([1, 0, -1, 1, 2, -2, 1], np.int8)
    depth = np.array([3, 20, 0, 127, 3, 3, -1], np.int8)
    assert [outcome(s) for s in states(value, depth)] == [
        (1, 3), (0, 20), (-1, 0), (1, 127), (2, 0), (2, 0), (2, 0)]


@pytest.mark.parametrize("name", ["3x3k3", "3x3k2+exact", "4x4k3+exact", "7x6k4+gravity"])
def test_verify_sees_a_line_where_the_plain_rules_do(name: str) -> None:
    """verify's line check on bitmasks against the plain rules (tests/reference.py), on random
    boards of every fill."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.geometry import line_ends, lines
    from tablebase.query.verify.first_pass import _line_made, line_masks
    from tests.reference import Game
    spec, game = parse_spec(name), Game(name)
    cells = np.ascontiguousarray(lines(spec), np.int64)
    masks, beyond = line_masks(cells, np.ascontiguousarray(line_ends(spec), np.int64),
                                spec.cells)
    rng = np.random.default_rng(5)
    seen = set()
    for fill in np.linspace(0.1, 0.9, 300):
        board = rng.choice([0, 1, 2], spec.cells, p=[1 - fill, fill / 2, fill / 2])
        for player in (1, 2):
            want = game.wins(tuple(int(v) for v in board), player)
            assert _line_made(board.astype(np.int64), masks, beyond, player) == want
            seen.add(want)
    assert seen == {True, False}


def test_codes_too_long_for_a_hash_entry_are_searched_for() -> None:
    """A hash entry holds a code above its value and depth: on a board of more free cells than
    its code bits allow (6x6, 36), the compiled pass finds children by search instead."""
    from tablebase.builder.games.grid.root import Root
    from tablebase.query.verify.first_pass import TierChecker
    keys = np.array([3, 3 ** 35], np.int64)
    value, depth = np.zeros(2, np.int8), np.zeros(2, np.int8)
    for name, hashing in (("6x5k4", True), ("6x6k4", False)):
        checker = TierChecker(Root.whole(parse_spec(name)), 1 << 30)
        _, _, table, _ = checker._index(keys, value, depth)
        assert (len(table) > 0) == hashing, name
