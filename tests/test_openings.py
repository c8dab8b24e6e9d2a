"""Each first move settled on its own (query/search/openings.py, `solve --each-move`): every
result against tests/reference.py's plain search (can_force_line) on random positions of small
boards, the moves one of each symmetric set, and on the command line a line a move and the
position's proof written and checked where the moves settle it."""
from __future__ import annotations

from pathlib import Path

import pytest

from tablebase.builder.games.grid import canonical_board, parse_spec
from tablebase.builder.games.grid.boards import place
from tablebase.query.cli import main
from tablebase.query.proof_check import check_proof
from tablebase.query.search import openings
from tablebase.query.search.openings import NO_WIN, OPEN, WINS, canonical_moves, settle_moves
from tablebase.query.search.proving import ProofRefusedError, first_moves
from tests.reference import can_force_line, random_positions, shared_game

# The plain search's memo a game, kept for the module: both parametrizations below ask about
# the same positions.
_MEMO: dict[str, dict] = {}


def _forces_line(text: str, board: tuple[int, ...], player: int) -> bool:
    """Whether `player`, who just moved to `board`, wins it: tests/reference.py's plain search
    of a forced line (the sign of the negamax's value without its depths, a quarter of its
    time)."""
    return can_force_line(shared_game(text), board, player, 3 - player, _MEMO.setdefault(text, {}))


@pytest.mark.parametrize("by", ["prover", "search"])
def test_each_moves_result_is_the_plain_negamaxs(by: str, monkeypatch: pytest.MonkeyPatch
                                                 ) -> None:
    """By the prover and the search side by side, and by the search alone (the prover
    refused, as under gravity)."""
    if by == "search":
        def refused(spec: object) -> None:
            raise ProofRefusedError("refused for the test")
        monkeypatch.setattr(openings, "check_provable", refused)
    seen = set()
    for text, stones in (("4x4k3", range(4, 8)), ("4x4k4", range(6, 11))):
        game, spec = shared_game(text), parse_spec(text)
        for board in random_positions(game, stones, 10, seed=len(text) + stones.start):
            mover = game.stones(board) % 2 + 1
            for found in settle_moves(spec, board, 20.0):
                child = place(board, found.move)
                truth = WINS if _forces_line(text, child, mover) else NO_WIN
                assert found.result in (truth, OPEN)
                assert found.by in ((by, None) if by == "search" else ("prover", "search", None))
                seen.add(found.result)
    assert seen == {WINS, NO_WIN}


def test_the_moves_are_one_of_each_symmetric_set() -> None:
    for text in ("4x4k3", "6x5k4", "7x7k5", "9x9k5"):
        spec = parse_spec(text)
        moves = canonical_moves(spec, (0,) * spec.cells)
        def code(cell: int) -> int:
            return canonical_board(spec, place((0,) * spec.cells, cell))
        assert len(moves) == len({code(c) for c in moves}) == len(
            {code(c) for c in range(spec.cells)})
        # the prover's first moves (past 64 cells too): the same sets
        assert {code(c) for c in moves} == {
            code(c) for c in first_moves(spec, (0,) * spec.cells)}
    assert len(canonical_moves(parse_spec("9x9k5"), (0,) * 81)) == 15


def test_the_cli_settles_each_move_and_writes_the_proof(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.proof.gz"
    assert main(["solve", "6x5k4", "--each-move", "--time", "20", "--proof", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["move", "x", "after", "it", "by", "nodes", "seconds"]
    assert len(out) == 2 + 9 + 2 and out[-1].startswith("proof: ") and "x wins within 11" in \
        out[-1]
    assert check_proof(path).depth == 11
    draw = tmp_path / "d.proof"
    assert main(["solve", "5x4k4", "--each-move", "--time", "20", "--proof", str(draw)]) == 0
    assert "x cannot win" in capsys.readouterr().out.splitlines()[-1]
    assert check_proof(draw).depth is None
    assert main(["solve", "5x4k4", "--each-move"]) == 2  # no --time to share out
