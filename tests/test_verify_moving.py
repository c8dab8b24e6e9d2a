"""`verify` on games whose stones move: clean tables of small games pass (whole board and
endgame tables), and every kind of tampering in the movement phase is caught and named, the
value a tampered row should have being the plain retrograde solver's (tests/reference_moving.py).

    3x3k3+stones3, o to move      o . x      every stone is down: the movement phase, stored
    ('o.x/xx./o.o o')             x x .      as two plies (6: x to move, 7: o to move, the
                                  o . o      side's digit counted as a stone)
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.stones.notation import read_moving
from tablebase.builder.pipeline import build
from tablebase.db.blocks import HEADER, BlockRow, pack_block, unpack_block
from tablebase.db.ranking import FREE
from tablebase.db.records import GameRecord, PlyCounts
from tablebase.query.cli import main
from tablebase.query.tablebase import open_tablebase
from tablebase.query.verify.checks import VerifyReport, verify_table
from tests.conftest import stored_rows
from tests.reference import Game
from tests.reference_moving import DRAW, LOSS, WIN, MovingGame, solved_game

SPEC = "3x3k3+stones3"
CELLS = 9
SIDE = 3 ** CELLS  # a code's side-to-move digit: o to move in the movement phase
WIN_SCORE = 64  # docs/storage.md: a win in d scores 64 - d, a loss in d scores d - 64


def _verify(path: Path | str, spec: str, root: str | None = None) -> VerifyReport:
    """Verify three ways, which must find exactly the same problems: children found in a hash
    table (the default budget), by search (no room for a hash table: the movement tier's
    fenced search too), and the placement plies by numpy alone (a budget under 512 MiB)."""
    from tablebase.query.verify.first_pass import TierChecker
    with open_tablebase(str(path)) as tb:
        compiled = verify_table(tb, parse_spec(spec), root=root, limit=100)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("tablebase.query.verify.checks._compiled_checker",
                          lambda table, hash_bytes: TierChecker(table, 0))
            searched = verify_table(tb, parse_spec(spec), root=root, limit=100)
        plain = verify_table(tb, parse_spec(spec), root=root, limit=100,
                             memory_budget=256 << 20)

    def found(report: VerifyReport) -> tuple[object, ...]:
        return (report.positions, report.problems, report.by_kind,
                [(p.kind, p.code, p.ply, p.message) for p in report.first])
    assert found(compiled) == found(searched) == found(plain)
    return compiled


def _canonical(game: Game, board: tuple[int, ...], side: int, stones: int) -> int:
    """The stored code by the reference's own symmetry and codec (tests/test_moving.py's):
    Game.canonical, the smallest code of its naive images."""
    moving_phase = sum(1 for v in board if v) == 2 * stones
    return game.canonical(board) + (SIDE if moving_phase and side == 2 else 0)


@pytest.mark.parametrize("spec", ["3x3k3+stones3", "3x3k3+stones4", "3x3k3+stones3+jump",
                                  "4x3k3+stones3", "3x3k3+stones3+misere"])
def test_clean_tables_pass_with_the_reference_count(table_db: Callable[[str], str],
                                                    spec: str) -> None:
    """Clean, with as many positions as the plain solver's positions have orbits."""
    report = _verify(table_db(spec), spec)
    assert report.ok, report.first
    reference = MovingGame(spec)
    plain = Game(f"{reference.w}x{reference.h}k{reference.k}")
    orbits = {_canonical(plain, board, side, reference.stones)
              for board, side in reference.reachable()}
    assert report.positions == len(orbits)


def test_teekos_little_board_passes(table_db: Callable[[str], str]) -> None:
    """4x4k4+stones4+square: 301,114 positions, the squares as lines."""
    report = _verify(table_db("4x4k4+stones4+square"), "4x4k4+stones4+square")
    assert report.ok and report.positions == 301_114, report.first


@pytest.mark.parametrize("root", ["o.x/xx./o.o o", ".../.x./o..", "xo./.xo/x.o x"])
def test_endgame_tables_pass(tmp_path: Path, root: str) -> None:
    """From a position in the movement phase (its tier is the table's only one, the start its
    root) and from one in the placement phase."""
    db = tmp_path / "end.db"
    built = build(SPEC, str(db), root=read_moving(parse_spec(SPEC), root))
    report = _verify(db, SPEC, root)
    assert report.ok and report.positions == built.canonical, report.first


# -- tampering: blocks written again under a valid check (what a faulty writer leaves) --------

@pytest.fixture
def packed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private 3x3k3+stones3 table in blocks of 64 positions (several a ply)."""
    monkeypatch.setattr("tablebase.db.blocks.BLOCK_POSITIONS", 64)
    path = tmp_path / "packed.db"
    build(SPEC, str(path))
    return path


def _blocks(conn: sqlite3.Connection, ply: int) -> Iterator[BlockRow]:
    (table,) = conn.execute("SELECT positions_table FROM games WHERE spec = ?", (SPEC,)).fetchone()
    for row in conn.execute(f'SELECT first_code, ply, count, data FROM "{table}" WHERE ply = ?'
                            " ORDER BY first_code", (ply,)).fetchall():
        yield BlockRow(*row)


def _edit(path: Path, ply: int, code: int,
          change: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]) -> None:
    """Write the block of `ply` that holds `code` again, its codes and scores changed by
    `change`, under a valid check."""
    with closing(sqlite3.connect(path)) as conn:
        (table,) = conn.execute("SELECT positions_table FROM games WHERE spec = ?",
                                (SPEC,)).fetchone()
        row = [b for b in _blocks(conn, ply) if b.first <= code][-1]
        block = unpack_block(row, str)
        digits = row.data[7]  # the header's count of a code's digits, then the support map
        supports = tuple(-1 if b == FREE else b for b in row.data[HEADER.size:HEADER.size + digits])
        codes, scores = change(block.codes.copy(), block.scores.copy())
        new = pack_block(ply, block.index, codes, scores, block.next, supports)
        conn.execute(f'UPDATE "{table}" SET first_code = ?, count = ?, data = ? WHERE'
                     " first_code = ? AND ply = ?", (new.first, new.count, new.data, row.first, ply))
        conn.commit()


def _rescore(path: Path, ply: int, code: int, score: int) -> None:
    def change(codes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scores[int(np.searchsorted(codes, code))] = score
        return codes, scores
    _edit(path, ply, code, change)


@cache
def _solved() -> dict[int, tuple[int, int | None]]:
    """The plain solver's value and depth of every stored code (worked out once a process:
    read it, never change it)."""
    plain = Game("3x3k3")
    return {_canonical(plain, board, side, 3): outcome
            for (board, side), outcome in solved_game(SPEC)[1].items()}


def _pick(path: Path, ply: int, value: int, over: bool = False) -> tuple[int, int]:
    """The first stored code of `ply` with `value`, the game over there (depth 0) or not, and
    its depth."""
    rows = stored_rows(path, SPEC)
    return next((c, d) for c, (p, v, d) in sorted(rows.items())
                if p == ply and v == value and (d == 0) == over)


def _said(value: int, depth: int | None) -> str:
    return "draw (endless play)" if value == DRAW else \
        f"{'win' if value == WIN else 'loss'} in {depth}"


def _finding(report: VerifyReport, kind: str, code: int) -> str:
    found = [p for p in report.first if p.kind == kind and p.code == code]
    assert found, (kind, code, report.by_kind, report.first)
    return found[0].message


@pytest.mark.parametrize("ply", [6, 7])
def test_a_steps_value_changed_is_caught(packed: Path, ply: int) -> None:
    """A won position of the movement phase said lost: its children still give the plain
    solver's win, and say so."""
    code, depth = _pick(packed, ply, WIN)
    _rescore(packed, ply, code, depth - WIN_SCORE)
    report = _verify(packed, SPEC)
    assert {"value", "checksum", "count"} <= set(report.by_kind)
    message = _finding(report, "value", code)
    assert message == f"the table says loss in {depth}, but its children give" \
        f" {_said(*_solved()[code])}"
    assert [p.ply for p in report.first if p.code == code] == [ply]


def test_a_depth_off_by_one_is_caught(packed: Path) -> None:
    code, depth = _pick(packed, 7, LOSS)
    _rescore(packed, 7, code, depth + 1 - WIN_SCORE)
    message = _finding(_verify(packed, SPEC), "depth", code)
    assert message == f"the table says loss in {depth + 1}, but its children give" \
        f" {_said(*_solved()[code])}"


def test_a_draw_by_endless_play_said_won_is_caught(packed: Path) -> None:
    code, _ = _pick(packed, 6, DRAW)
    _rescore(packed, 6, code, WIN_SCORE - 1)
    message = _finding(_verify(packed, SPEC), "value", code)
    assert _solved()[code] == (DRAW, None)
    assert message == "the table says win in 1, but its children give draw (endless play)"


def test_a_finished_game_said_open_is_caught(packed: Path) -> None:
    """A position where the side that moved last has a line: lost in 0, not won in 1."""
    code, _ = _pick(packed, 7, LOSS, over=True)
    assert _solved()[code] == (LOSS, 0)
    _rescore(packed, 7, code, WIN_SCORE - 1)
    report = _verify(packed, SPEC)
    assert _finding(report, "terminal", code) == \
        "the game is over here (loss in 0 for the side to move) but the table says win in 1"
    # The finding's picture shows whose turn it is, which the stones do not say.
    assert next(p.picture for p in report.first if p.code == code).endswith("o to move")


def test_a_placement_before_the_movement_phase_is_checked_as_today(packed: Path) -> None:
    """Ply 5 (o places its last stone) against the movement phase's x-to-move ply."""
    code, depth = _pick(packed, 5, WIN)
    _rescore(packed, 5, code, depth - WIN_SCORE)
    assert _finding(_verify(packed, SPEC), "value", code) == \
        f"the table says loss in {depth}, but its children give {_said(*_solved()[code])}"


def test_an_unreachable_position_and_a_lost_one_are_caught(packed: Path) -> None:
    """A stored position swapped for one no play reaches (both sides have a line: the game
    ended at the first), under the same check: the swapped-in row is unreachable (the walk by
    steps never comes to it), and the parents of the one swapped out miss a child.

        x x x
        . . .     x to move
        o o o
    """
    game = Game("3x3k3")
    bogus = _canonical(game, (1, 1, 1, 0, 0, 0, 2, 2, 2), 1, 3)
    rows = stored_rows(packed, SPEC)
    assert bogus not in rows and bogus not in _solved()
    gone = max(c for c, (p, _, _) in rows.items() if p == 6 and c < bogus)

    def swap(codes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        i = int(np.searchsorted(codes, gone))
        codes[i], scores[i] = bogus, -WIN_SCORE  # o has a line: x to move has lost
        return codes, scores
    _edit(packed, 6, gone, swap)
    report = _verify(packed, SPEC)
    assert {"unreachable", "missing-child", "checksum"} <= set(report.by_kind)
    assert _finding(report, "unreachable", bogus).startswith("no walk by steps")
    assert any(f"(canonical code {gone})" in p.message for p in report.first
               if p.kind == "missing-child")


def _plies(conn: sqlite3.Connection) -> list[PlyCounts]:
    return [PlyCounts(*row) for row in conn.execute(
        "SELECT ply, reachable, canonical, terminal, wins, draws, losses FROM game_plies WHERE"
        " game_id = (SELECT id FROM games WHERE spec = ?) ORDER BY ply", (SPEC,))]


def _resign(path: Path) -> None:
    """Write the catalogue row's check again (what a faulty writer, not damage, leaves)."""
    with closing(sqlite3.connect(path)) as conn:
        conn.row_factory = sqlite3.Row
        row = dict(conn.execute("SELECT * FROM games WHERE spec = ?", (SPEC,)).fetchone())
        digest = GameRecord(**row).row_digest(_plies(conn))
        conn.execute("UPDATE games SET row_check = ? WHERE spec = ?", (digest, SPEC))
        conn.commit()


def _copy(table_db: Callable[[str], str], tmp_path: Path, *statements: str) -> Path:
    path = tmp_path / "copy.db"
    path.write_bytes(Path(table_db(SPEC)).read_bytes())
    with closing(sqlite3.connect(path)) as conn:
        for statement in statements:
            conn.execute(statement, (SPEC,))
        conn.commit()
    return path


@pytest.mark.parametrize("column", ["terminal", "reachable"])
def test_a_count_off_in_the_catalogue_is_caught(table_db: Callable[[str], str], tmp_path: Path,
                                                column: str) -> None:
    """o's movement ply said to hold one more position: damage to the catalogue row as it is
    (its check fails), and with the check written again, a count finding that names the ply.
    (A ply's canonical count is its blocks' too: off by one, the ply reads as damaged.)"""
    path = _copy(table_db, tmp_path, f"UPDATE game_plies SET {column} = {column} + 1 WHERE"
                 " ply = 7 AND game_id = (SELECT id FROM games WHERE spec = ?)")
    report = _verify(path, SPEC)
    assert report.by_kind == {"damaged": 1} and "catalogue row" in report.first[0].message
    _resign(path)
    with closing(sqlite3.connect(path)) as conn:
        recorded = getattr(next(p for p in _plies(conn) if p.ply == 7), column)
    report = _verify(path, SPEC)
    assert report.by_kind == {"count": 1}, report.first
    assert report.first[0].message == f"{column} positions at ply 7: the game record says" \
        f" {recorded}, the table has {recorded - 1}"


def test_the_roots_record_is_checked(table_db: Callable[[str], str], tmp_path: Path) -> None:
    """The catalogue says the empty board is won in 5 (under a check written again): the
    stored root is a draw by endless play, as the plain solver has it."""
    path = _copy(table_db, tmp_path,
                 "UPDATE games SET root_value = 1, root_depth = 5 WHERE spec = ?")
    _resign(path)
    report = _verify(path, SPEC)
    assert solved_game(SPEC)[1][MovingGame(SPEC).root()] == (DRAW, None)
    assert report.by_kind == {"root": 1}, report.first
    assert report.first[0].message == "the game record says the root is win in 5, the table" \
        " has draw (endless play)"


def test_the_command_line_names_the_movement_phases_findings(
        packed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, depth = _pick(packed, 7, WIN)
    _rescore(packed, 7, code, depth - WIN_SCORE)
    assert main(["verify", SPEC, "--db", str(packed), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert f"value at ply 7, code {code}: the table says loss in {depth}" in out
    assert "    o to move" in out


def test_a_cyclic_tier_without_its_familys_checker_is_refused(
        table_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """verify's checker of a cyclic tier knows one family's rules: a family that names none
    of verify's checkers has its tables refused in one line, not checked by another's rules."""
    from tablebase.builder.games.registry import grid_game
    db = table_db("3x3k3+stones3")
    monkeypatch.setattr(grid_game(parse_spec("3x3k3+stones3")), "cyclic_checker", None)
    assert main(["verify", "3x3k3+stones3", "--db", db, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "no independent checker" in err and err.count("\n") == 1
