"""Morris tables against tests/reference_morris.py's plain solver (the rules written again,
dictionaries over every position, no symmetry): every position play reaches, value and depth,
as `probe` answers it; and every position's moves as `moves` lists them, against the plain
solver's. The larger games (six men's morris with 3 and 4 stones, nine men's with 3) are in `make bench
SECTION=morris` (tests/bench_morris.py)."""
from __future__ import annotations

import pytest

from tablebase.query.cli import main
from tablebase.query.tablebase import open_tablebase
from tests.reference_morris import MorrisGame as PlainMorris

WORDS = {1: "win", 0: "draw", -1: "loss"}
GAMES = ["three-mens-morris", "tapatan", "achi", "three-mens-morris+misere", "tapatan+misere",
         "achi+misere", "three-mens-morris+stones4"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("morris") / "morris.db")
    for spec in GAMES:
        assert main(["build", spec, "--db", path, "--quiet"]) == 0
    return path


@pytest.mark.parametrize("spec", GAMES)
def test_every_position_equals_the_plain_solver(db: str, spec: str) -> None:
    truth = PlainMorris(spec).solve()
    with open_tablebase(db) as tb:
        answers = tb.game(spec)
        wrong = []
        for text, (value, depth) in truth.items():
            probe = answers.probe(text)
            if (probe.value.word, probe.depth) != (WORDS[value], depth):
                wrong.append((text, probe.value.word, probe.depth, value, depth))
        assert wrong == []
        table = answers.tables()[0]
        # Stored by ranked tiers: every arrangement of each tier's stones, one an orbit of
        # the board's symmetries, reached by play or not: at least the orbits play reaches.
        game = answers.game
        tiers = game.tiers()
        assert tiers is not None
        located = set()
        for text in truth:
            try:
                located.add(tiers.locate(game.read(text)))
            except ValueError:  # over by a count of stones: no tier holds it
                assert game.outcome(game.read(text)) is not None
    assert table.layout == "tiered-8192" and table.reachable >= len(located) > 0


@pytest.mark.parametrize("spec", ["achi"])
def test_every_move_equals_the_plain_solvers(db: str, spec: str) -> None:
    plain = PlainMorris(spec)
    truth = plain.solve()
    with open_tablebase(db) as tb:
        answers = tb.game(spec)
        for text in truth:
            found = {(m.move, m.position, m.value.word, m.depth) for m in answers.moves(text)[1]}
            expected = set()
            for move, after in plain.moves(text):
                value, depth = truth[after]
                # A move's value is for its mover: the position after it, seen from the other side.
                expected.add((move, after, WORDS[-value], depth))
            assert found == expected, text

