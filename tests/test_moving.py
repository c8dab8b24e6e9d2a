"""Games whose stones move (+stonesN): every stored position of small games equal, value and
depth, to tests/reference_moving.py's plain retrograde solver (dictionaries, no symmetry), and
the table's counts to the positions it reaches; the spec's flags and their refusals.

    3x3k3+stones3, o to move      x o .      x placed a3, b2, a1; o b3, c2, c1:
    ('xo./.xo/x.o o')             . x o      every stone is down, so the text says whose
                                  x . o      turn it is
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablebase import build, open_tablebase
from tablebase.builder.games.grid import InvalidSpecError, parse_spec
from tests.reference import Game
from tests.reference_moving import DRAW, solved_game

SMALL = ["3x3k3+stones3", "3x3k3+stones4", "3x3k3+stones3+jump", "4x3k3+stones3",
         "3x3k3+stones3+misere", "3x3k3+stones3+exact", "4x3k3+stones4+square"]


def _stored_code(game: Game, board: tuple[int, ...], side: int, moving_phase: bool) -> int:
    """The canonical code by the reference's own symmetry and codec: the smallest image's
    code (Game.canonical: its naive images, each read through a map of cells), plus 3**cells
    where o is to move once every stone is down."""
    return game.canonical(board) + (3 ** game.n if moving_phase and side == 2 else 0)


@pytest.mark.parametrize("spec", SMALL)
def test_every_position_equals_the_plain_retrograde_solver(spec: str, tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    report = build(spec, db)
    reference, solved = solved_game(spec)
    plain = Game(f"{reference.w}x{reference.h}k{reference.k}")
    with open_tablebase(db) as tb:
        stored = tb.table(spec).load()
    table = {int(c): (int(v), int(d)) for c, v, d in zip(stored.codes, stored.value, stored.depth)}
    seen = set()
    for (board, side), (value, depth) in solved.items():
        code = _stored_code(plain, board, side, sum(1 for v in board if v) == 2 * reference.stones)
        seen.add(code)
        assert code in table, (spec, board, side)
        got_value, got_depth = table[code]
        assert got_value == value, (spec, board, side)
        if value != DRAW:
            assert got_depth == depth, (spec, board, side)
    # Nothing stored that play does not reach, and every orbit counted.
    assert seen == set(table)
    assert report.reachable == len(solved)
    root_value, root_depth = solved[reference.root()]
    assert int(report.root_value) == root_value
    assert (report.root_depth if root_value != DRAW else None) == root_depth


def test_answers_agree_with_the_reference_position_by_position(tmp_path: Path) -> None:
    """probe and moves, as a user asks them, on a sample of positions in their own orientation:
    the same values and depths (none for a draw) as the plain solver's."""
    spec = "3x3k3+stones3"
    db = str(tmp_path / "t.db")
    build(spec, db)
    reference, solved = solved_game(spec)
    rng = np.random.default_rng(7)
    positions = list(solved)
    with open_tablebase(db) as tb:
        for i in rng.choice(len(positions), 200, replace=False):
            board, side = positions[int(i)]
            value, depth = solved[(board, side)]
            probe = tb.probe(spec, [*board, side])
            assert (int(probe.value), probe.depth) == (value, depth)
            moves = tb.moves(spec, [*board, side])
            kids = {m: solved[reference.child(board, side, m)] for m in reference.moves(board, side)}
            assert len(moves) == len(kids)
            for m in moves:
                kid_value, kid_depth = kids[(m.start, m.cell)]
                assert (int(m.value), m.depth) == (-kid_value, kid_depth)


def test_teeko_names_steeles_game() -> None:
    spec = parse_spec("teeko")
    assert spec.name == "5x5k4+stones4+square"
    assert (spec.stones, spec.square, spec.jump, spec.moving) == (4, True, False, True)
    assert parse_spec("3x3k3+jump+stones3+misere").name == "3x3k3+misere+stones3+jump"


@pytest.mark.parametrize("text, expected", [
    ("3x3k3+stones3+gravity", "+gravity"),
    ("3x3k3+stones5", "at most 4 a side"),
    ("3x3k3+jump", "+stonesN"),
    ("3x3k3+square", "+stonesN"),
    ("3x3k3+stones", "takes a number"),
    ("3x3k3+stones3+stones2", "twice"),
])
def test_bad_flags_are_refused_in_one_line(text: str, expected: str) -> None:
    with pytest.raises(InvalidSpecError) as e:
        parse_spec(text)
    assert expected in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("spec, start", [
    ("3x3k3+stones3", ((2, 0, 1, 1, 1, 0, 2, 0, 2), 2)),  # the movement phase: o.x/xx./o.o o
    ("3x3k3+stones3+jump", ((0, 1, 0, 0, 2, 0, 0, 0, 0), 1)),  # two stones placed, x to move
])
def test_an_endgame_table_holds_what_play_reaches_from_its_start(
        spec: str, start: tuple[tuple[int, ...], int], tmp_path: Path) -> None:
    """Every position reachable from the start (the reference's moves), stored once per orbit
    with the value and depth of the whole game; nothing else."""
    db = str(tmp_path / "t.db")
    board, side = start
    report = build(spec, db, root=[*board, side])
    reference, solved = solved_game(spec)
    plain = Game(f"{reference.w}x{reference.h}k{reference.k}")
    # The table keeps the board maps that fix its start: by the reference's own list of maps.
    kept = [i for i, image in enumerate(plain.images(board)) if image == board]
    reached, frontier = {start}, {start}
    while frontier:  # each level once, duplicates dropped (many parents share a child)
        frontier = {reference.child(*pos, m) for pos in frontier
                    for m in reference.moves(*pos)} - reached
        reached |= frontier
    with open_tablebase(db) as tb:
        stored = tb.table(spec, [*board, side]).load()
    table = {int(c): (int(v), int(d)) for c, v, d in zip(stored.codes, stored.value, stored.depth)}
    codes = set()
    for b, s in reached:
        images = plain.images(b)
        code = min(plain.code(images[i]) for i in kept) \
            + (3 ** plain.n if s == 2 and sum(1 for v in b if v) == 2 * reference.stones else 0)
        codes.add(code)
        value, depth = solved[(b, s)]
        assert table[code][0] == value and (value == DRAW or table[code][1] == depth)
    assert codes == set(table) and report.reachable == len(reached)
    assert (int(report.root_value), report.root_depth) == solved[start]


def test_an_alias_takes_more_flags() -> None:
    assert parse_spec("teeko+misere").name == "5x5k4+misere+stones4+square"
    assert parse_spec("Teeko+jump") == parse_spec("5x5k4+stones4+square+jump")


def test_a_build_interrupted_after_its_movement_tier_resumes_to_the_same_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The movement tier is solved and packed first; stopped while the next tier is written,
    the build resumes without it in hand (its stored parts found again for its counts) and
    stores what a build in one go stores."""
    import sqlite3
    import sys

    from tests.conftest import game_row
    spec = "4x3k3+stones3"
    fresh, path = str(tmp_path / "fresh.db"), str(tmp_path / "t.db")
    build(spec, fresh)
    module = sys.modules["tablebase.builder.pipeline"]
    real, calls = module.write_tier, []  # type: ignore[attr-defined]

    def interrupt(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 3:  # the movement tier's two stored plies went before
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    with monkeypatch.context() as patch:
        patch.setattr("tablebase.builder.pipeline.write_tier", interrupt)
        with pytest.raises(KeyboardInterrupt):
            build(spec, path)
    report = build(spec, path, resume=True)
    assert report.resumed_stage is not None and report.resumed_stage.startswith("solve")
    kept = ("reachable", "canonical", "terminal", "wins", "draws", "losses", "root_value",
            "checksum")
    assert {k: game_row(path, spec)[k] for k in kept} == \
        {k: game_row(fresh, spec)[k] for k in kept}  # type: ignore[index]

    def plies(db: str) -> list[tuple[object, ...]]:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT * FROM game_plies ORDER BY 1, 2").fetchall()
    assert plies(path) == plies(fresh)
