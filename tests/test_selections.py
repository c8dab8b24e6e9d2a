"""Which positions an audit shows (`--positions`): every kind and their combinations select
exactly the positions the table says they should, `file:` reads boards and move lists, and
`hardest:N` finds what a horizon gets wrong where a sample does not."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder.games.grid import Spec, parse_spec
from tablebase.query.audit import (
    AuditInputError,
    Selection,
    audit,
    open_candidate,
    parse_selection,
    select_positions,
)
from tablebase.query.cli import main
from tablebase.query.tablebase import Tablebase, open_tablebase
from tests.reference import Game, parse, play

SAMPLES = Path(__file__).resolve().parent / "audit_samples"
# Tic-tac-toe: 765 stored positions, 138 of them terminal.
STORED, NON_TERMINAL = 765, 627


@pytest.fixture
def tb(table_db: Callable[[str], str]) -> Iterator[Tablebase]:
    with open_tablebase(table_db("3x3k3")) as opened:
        yield opened


def test_selections(tb: Tablebase) -> None:
    spec = parse_spec("3x3k3")
    assert parse_selection(None) == Selection() and parse_selection("all") == Selection("all")
    assert parse_selection("sample:50") == Selection("sample", 50)
    assert parse_selection("ply:3") == Selection("ply", 3)
    for bad in ("some", "sample:", "sample:0", "ply:x", "ply:-1", "ply:3,ply:4",
                "sample:5,hardest:5", "file:", "file:x,", "ply:3,,sample:5"):
        if bad == "file:x,":
            continue  # a path may end with a comma: read as the path 'x,'
        with pytest.raises(AuditInputError):
            parse_selection(bad)
    assert len(select_positions(tb, spec, Selection()).codes) == NON_TERMINAL
    assert len(select_positions(tb, spec, Selection("all")).codes) == STORED
    sample = select_positions(tb, spec, Selection("sample", 50), seed=3)
    assert len(sample.codes) == 50 and (sample.depth > 0).all()
    assert np.array_equal(select_positions(tb, spec, Selection("sample", 50), seed=3).codes,
                          sample.codes)
    ply3 = select_positions(tb, spec, Selection("ply", 3))
    assert set(ply3.ply.tolist()) == {3} and (ply3.depth > 0).all()
    with pytest.raises(AuditInputError, match="no stored non-terminal position with 9 stones"):
        select_positions(tb, spec, Selection("ply", 9))


def test_depth_selections(tb: Tablebase) -> None:
    spec = parse_spec("3x3k3")
    table = tb.table(spec).load()
    assert parse_selection("depth:3") == Selection("depth", 3)
    assert parse_selection("depth:2-4") == Selection("depth", 2, 4)
    assert parse_selection("depth:2-4").option == "depth:2-4"
    for bad in ("depth:", "depth:4-2", "depth:x", "depth:1-"):
        with pytest.raises(AuditInputError):
            parse_selection(bad)
    for selection, low, high in ((Selection("depth", 3), 3, 3), (Selection("depth", 2, 4), 2, 4)):
        chosen = select_positions(tb, spec, selection)
        want = table.codes[(table.depth >= low) & (table.depth <= high) & (table.depth > 0)]
        assert np.array_equal(chosen.codes, want) and len(want) > 0
        assert str(selection).startswith("the stored non-terminal positions of depth")
    with pytest.raises(AuditInputError, match="no stored non-terminal position of that depth"):
        select_positions(tb, spec, Selection("depth", 30))


def test_combinations_narrow_then_pick(tb: Tablebase) -> None:
    """Narrowing parts all apply, in any order; a pick chooses among what they leave."""
    spec = parse_spec("3x3k3")
    table = tb.table(spec).load()
    live = table.depth > 0
    both = parse_selection("ply:5,depth:2-4")
    assert both == parse_selection("depth:2-4,ply:5") and both.option == "ply:5,depth:2-4"
    want = table.codes[live & (table.ply == 5) & (table.depth >= 2) & (table.depth <= 4)]
    assert np.array_equal(select_positions(tb, spec, both).codes, want) and len(want) > 10
    picked = parse_selection("sample:10,ply:5")
    assert picked.option == "ply:5,sample:10" and "with 5 stones" in str(picked)
    sample = select_positions(tb, spec, picked, seed=1)
    assert len(sample.codes) == 10 and set(sample.codes.tolist()) <= set(
        table.codes[live & (table.ply == 5)].tolist())
    with_terminal = select_positions(tb, spec, parse_selection("all,ply:5"))
    assert np.array_equal(with_terminal.codes, table.codes[table.ply == 5])
    hardest = select_positions(tb, spec, parse_selection("ply:4,hardest:3"))
    fours = live & (table.ply == 4) & (table.value != 0)
    assert (hardest.ply == 4).all() and sorted(hardest.depth.tolist()) == sorted(
        table.depth[fours].tolist())[-3:]
    with pytest.raises(AuditInputError, match="has none of"):
        select_positions(tb, spec, parse_selection("ply:8,depth:5"))


def test_file_of_boards_and_moves(tb: Tablebase, tmp_path: Path) -> None:
    """file:PATH lists boards and move lists in any orientation; each becomes the stored
    position of its orbit (checked with the plain code), terminal ones included."""
    spec, game = parse_spec("3x3k3"), Game("3x3k3")
    lines = ["# positions to audit", "x../.o./...", "", "..x/.o./...",  # the same orbit
             "b2 a1 c3", "xxx/oo./...", "  a1 b1 a2 b2 a3  "]  # these two also

    path = tmp_path / "positions.txt"
    path.write_text("\n".join(lines) + "\n")
    boards = [parse(game, "x../.o./..."), play(game, "b2 a1 c3"), parse(game, "xxx/oo./..."),
              play(game, "a1 b1 a2 b2 a3")]
    want = sorted({game.canonical(b) for b in boards})
    over = {game.canonical(b) for b in boards if game.terminal_value(b) is not None}
    selection = parse_selection(f"file:{path}")
    chosen = select_positions(tb, spec, selection)
    assert chosen.codes.tolist() == want and set(chosen.codes[chosen.depth == 0].tolist()) == over
    assert len(over) == 1 and len(want) == 3
    assert str(selection) == f"the stored positions listed in {path}"
    only = select_positions(tb, spec, parse_selection(f"ply:3,file:{path}"))
    assert only.codes.tolist() == [game.canonical(play(game, "b2 a1 c3"))]
    for text, message in (("x../.o./...\nxx./.../...", "line 2: .*does not hold"),
                          ("a1 a1", "line 1: .*occupied"), ("# nothing", "lists no position"),
                          ("xo", "line 1: board 'xo' has 2 cells")):
        path.write_text(text + "\n")
        with pytest.raises(AuditInputError, match=message):
            select_positions(tb, spec, parse_selection(f"file:{path}"))
    with pytest.raises(AuditInputError, match="cannot read positions from .*nowhere"):
        select_positions(tb, spec, parse_selection(f"file:{tmp_path / 'nowhere'}"))


def test_the_command_audits_a_file(tb: Tablebase, table_db: Callable[[str], str], tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "few.txt"
    path.write_text("b2\nb2 a1\n")
    monkeypatch.chdir(SAMPLES)
    argv = ["audit", "3x3k3", "--solver", "user_negamax:solve", "--db", table_db("3x3k3"),
            "--quiet", "--positions", f"ply:2,file:{path}"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"the stored positions listed in {path} and with 2 stones" in out
    assert main([*argv[:-1], "ply:3,file:" + str(path)]) == 2
    assert "has none of" in capsys.readouterr().err


def _horizon(tb: Tablebase, spec: Spec) -> None:
    table = tb.table(spec).load()
    hardest = select_positions(tb, spec, Selection("hardest", 50))
    decided = np.sort(table.depth[(table.depth > 0) & (table.value != 0)])[::-1]
    assert len(hardest.codes) == 50 and (hardest.value != 0).all()
    assert sorted(hardest.depth.tolist(), reverse=True) == decided[:50].tolist()
    assert parse_selection("hardest:50") == Selection("hardest", 50)
    with open_candidate("depth_limited:solve", spec, directory=str(SAMPLES)) as c:
        caught = audit(tb, spec, c, selection=Selection("hardest", 50), check="value")
        sampled = audit(tb, spec, c, selection=Selection("sample", 50), check="value")
        near = audit(tb, spec, c, selection=parse_selection("depth:1-4,sample:100"),
                     check="value")
    assert caught.mismatched_positions == 50 and "hardest" in str(caught.selection)
    assert sampled.mismatched_positions < 50 * 0.5  # most of a sample ends within the horizon
    assert near.ok  # every game ends within the horizon


def test_hardest_positions_find_a_horizon(table_db: Callable[[str], str]) -> None:
    """hardest:N takes the longest wins and losses first, then the deepest draws (checked
    against the table), and there a solver whose search stops at 4 plies is wrong on every one,
    where it is right on most of a sample and on every game that ends within 4 plies."""
    spec = parse_spec("4x4k4")
    with open_tablebase(table_db("4x4k4")) as tb:
        _horizon(tb, spec)


def test_a_sample_is_spread_over_plies_and_values(tb: Tablebase) -> None:
    """sample:N takes one position of every (ply, value) in turn, so early plies and rare values
    are in it; uniform:N draws from all alike."""
    spec = parse_spec("3x3k3")
    table = tb.table(spec).load()
    live = table.depth > 0
    strata = set(zip(table.ply[live].tolist(), table.value[live].tolist()))
    sample = select_positions(tb, spec, Selection("sample", 50), seed=5)
    assert len(sample.codes) == 50 == len(set(sample.codes.tolist())) and (sample.depth > 0).all()
    assert set(zip(sample.ply.tolist(), sample.value.tolist())) == strata  # every one of them
    uniform = select_positions(tb, spec, Selection("uniform", 50), seed=5)
    assert len(uniform.codes) == 50 and parse_selection("uniform:50") == Selection("uniform", 50)
    assert set(uniform.codes.tolist()) <= set(table.codes[live].tolist())
