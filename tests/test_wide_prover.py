"""The prover past 64 cells (query/search/prover.py on masks.py's two-word cell sets): on small
boards the wide kernels, forced (ProofBudget.words = 2), give what the narrow ones give, node for
node and line for line of the proof file; on 9x9k5 boards with 12 empty cells every claim
against tests/reference.py's plain negamax over those cells (FewEmpty), the proofs written and
checked by query/proof_check.py, a proof with a zone bit cleared refused, and `solve
--each-move` running the prover beside the search."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.boards import place
from tablebase.builder.games.grid.position_text import read_position
from tablebase.query.cli import main
from tablebase.query.proof_check import ProofCheckError, check_proof
from tablebase.query.search import openings
from tablebase.query.search.openings import NO_WIN, WINS, settle_moves
from tablebase.query.search.proof_writer import write_proof
from tablebase.query.search.proving import MAX_PROOF_CELLS, ProofBudget, ProofTable, prove_no_win
from tablebase.query.search.win_writer import write_win_proof
from tests.reference import LOSS, WIN, FewEmpty, Game, can_force_line, random_positions
from tests.search_sets import read_set


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


@pytest.mark.parametrize("text", ["4x4k3", "4x4k4", "5x4k4", "5x5k4"])
def test_the_wide_kernels_prove_what_the_narrow_ones_prove(text: str, tmp_path: Path) -> None:
    """The empty board proved (or disproved) by one thread on each kind: the same outcome,
    nodes and first moves, and the same proof file, which the check accepts."""
    spec = parse_spec(text)
    found = []
    for words in (None, 2):
        proved = prove_no_win(spec, (0,) * spec.cells,
                              ProofBudget(memory=1 << 24, threads=1, words=words))
        assert next(iter(proved.tables.values()), None) is None or \
            next(iter(proved.tables.values())).board.words == (words or 1)
        path = tmp_path / f"{words}.proof"
        if proved.outcome == "proved":
            write_proof(proved, path)
            assert check_proof(path).claim == "x cannot win"
        found.append((proved.outcome, proved.nodes, proved.proved, proved.moves,
                      _lines(path) if proved.outcome == "proved" else None))
    assert found[0] == found[1]
    # 4x4k3 is a first player's win; 4x4k4, 5x4k4 and 5x5k4 draws
    assert found[0][0] == ("disproved" if text == "4x4k3" else "proved")


@pytest.mark.parametrize("text, stones", [("4x4k4", range(7, 12)), ("5x4k4", range(8, 13))])
def test_wide_runs_equal_narrow_runs_on_random_positions(text: str, stones: range) -> None:
    """Each run's answer, nodes and zone the same on both kinds, and the plain search's
    answer: whether the attacker can force a line (tests/reference.py's can_force_line, the
    sign of the negamax's value without its depths: 1.6 s where the negamax took 10 on
    5x4k4)."""
    game, spec = Game(text), parse_spec(text)
    memo: dict = {}
    for board in random_positions(game, stones, 8, seed=11):
        to_move = game.stones(board) % 2 + 1
        for attacker in (0, 1):
            narrow, wide = ProofTable(spec, 1 << 16), ProofTable(spec, 1 << 16, words=2)
            answer = narrow.run(board, attacker)
            assert wide.run(board, attacker) == answer
            assert (wide.nodes, wide.zone) == (narrow.nodes, narrow.zone), board
            wins = can_force_line(game, board, attacker + 1, to_move, memo)
            assert answer == (-1 if wins else 1), (board, attacker)


def _wide_boards() -> list[tuple[int, ...]]:
    """9x9k5 boards with 12 empty cells of tests/search_positions/wide.txt: a win, a draw and a
    loss for the side to move."""
    spec = parse_spec("9x9k5")
    return [tuple(read_position(spec, text).board) for name, text in
            (line.split() for line in read_set("wide.txt")) if name == "9x9k5"][:3]


def test_every_claim_on_9x9k5_agrees_with_the_plain_negamax() -> None:
    game, spec = Game("9x9k5"), parse_spec("9x9k5")
    assert spec.cells > 64 and MAX_PROOF_CELLS >= 121
    seen = set()
    for board in _wide_boards():
        value, _ = FewEmpty(game, board).solve(board)
        mover = game.stones(board) % 2
        for attacker in (0, 1):
            wins = value == WIN if attacker == mover else value == LOSS
            table = ProofTable(spec, 1 << 20)
            assert table.board.words == 2
            assert table.run(board, attacker) == (-1 if wins else 1), (board, attacker)
            seen.add(wins)
    assert seen == {True, False}


def test_a_9x9k5_proof_is_written_checked_and_a_zone_bit_cleared_refused(
        tmp_path: Path) -> None:
    """Where the side to move cannot win (the negamax says so), proved and written, and the
    file checked; the same file with one cell past 64 taken out of a pairing's zone refused;
    where it wins, disproved."""
    game, spec = Game("9x9k5"), parse_spec("9x9k5")
    written, tampered = 0, 0
    for i, board in enumerate(_wide_boards()):
        value, _ = FewEmpty(game, board).solve(board)
        proved = prove_no_win(spec, board, ProofBudget(memory=1 << 24))
        assert proved.outcome == ("disproved" if value == WIN else "proved")
        if value == WIN:
            continue
        path = tmp_path / f"{i}.proof.gz"
        write_proof(proved, path)
        assert check_proof(path).claim == f"{'xo'[game.stones(board) % 2]} cannot win"
        written += 1
        lines = _lines_gz(path)
        for j, line in enumerate(lines):
            words = line.split()
            if len(words) < 4 or words[1] != "pairing":
                continue
            cells = [int(c) for pair in words[3:] for c in pair.split("-")]
            high = [c for c in cells if c >= 64]
            if not high:
                continue
            zone = int(words[2], 16)
            words[2] = f"{zone & ~(1 << high[0]):x}"
            bad = tmp_path / f"{i}.bad.proof"
            bad.write_text("\n".join(lines[:j] + [" ".join(words)] + lines[j + 1:]) + "\n")
            with pytest.raises(ProofCheckError, match="zone"):
                check_proof(bad)
            tampered += 1
            break
    assert written == 2 and tampered >= 1


def test_a_9x9k5_win_is_written_and_checked(tmp_path: Path) -> None:
    """The win writer past 64 cells: the board whose side to move wins, its proof checked and
    its depth the negamax's."""
    game, spec = Game("9x9k5"), parse_spec("9x9k5")
    board = next(b for b in _wide_boards() if FewEmpty(game, b).solve(b)[0] == WIN)
    path = tmp_path / "win.proof"
    proof = write_win_proof(spec, board, path)
    assert check_proof(path).depth == proof.depth == FewEmpty(game, board).solve(board)[1]


def _lines_gz(path: Path) -> list[str]:
    import gzip
    with gzip.open(path, "rt") as f:
        return f.read().splitlines()


def test_each_move_runs_the_prover_past_64_cells(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`solve --each-move` on a 9x9k5 board: the prover's table made (it was refused past 64
    cells) and each move's result the negamax's; on the command line a proof written and
    checked."""
    game, spec = Game("9x9k5"), parse_spec("9x9k5")
    made = threading.Event()

    class Spy(ProofTable):
        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            super().__init__(*args, **kwargs)
            made.set()
    monkeypatch.setattr(openings, "ProofTable", Spy)
    board = _wide_boards()[1]
    few = FewEmpty(game, board)
    for found in settle_moves(spec, board, 30.0):
        child = place(board, found.move)
        truth = WINS if few.solve(child)[0] == LOSS else NO_WIN
        assert found.result == truth, found
    assert made.is_set()
    monkeypatch.undo()
    path = tmp_path / "each.proof"
    text = "/".join("".join(".xo"[v] for v in board[r * 9:r * 9 + 9]) for r in range(9))
    assert main(["solve", "9x9k5", text, "--each-move", "--time", "30", "--proof",
                 str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("proof: ")
    check_proof(path)
