"""`solve` without --proof: the search and, beside it, the prover's draw proofs
(query/search/settling.py). The prover's bounds against tests/reference.py's plain negamax on
random positions of small boards; on the command line, answers the search alone does not
reach within a node budget settled by the prover (a draw with its move, a win, a loss), the
same value `solve --proof` proves, and the search's own answers unchanged."""
from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.builder.games.grid.position_text import read_position
from tablebase.query.cli import main
from tablebase.query.search import settling
from tablebase.query.search.proving import ProofBudget, first_moves, prove_no_win
from tablebase.query.search.settling import Proofs, _prove, settle
from tablebase.query.search.solving import solve
from tablebase.query.shapes import answer_json
from tests.reference import DRAW, LOSS, WIN, Game, can_force_line, random_positions

_WORDS = {WIN: Value.WIN, DRAW: Value.DRAW, LOSS: Value.LOSS}


@pytest.mark.parametrize("text, stones", [("4x4k3", range(5, 10)), ("4x4k4", range(6, 12)),
                                          ("4x3k3", range(1, 7))])
def test_the_provers_bounds_agree_with_the_plain_negamax(text: str, stones: range) -> None:
    """Where the prover settles a value (a draw, a win, a loss) it is the negamax's; a bound
    holds the negamax's value; a draw's move leaves a draw (the other side cannot win). The
    values (no depths asked) by the plain search of forced lines, a quarter of the negamax's
    time."""
    game, spec, memo = Game(text), parse_spec(text), {}
    seen: set[Value] = set()
    for board in random_positions(game, stones, 30, seed=len(text) + stones.start):
        truth = _WORDS[_value(game, board, memo)]
        found = Proofs()
        _prove(spec, board, None, ProofBudget(None, None, 1 << 22, 1), found, None)
        assert found.low <= truth <= found.high, (board, found.low, found.high, truth)
        assert found.low == found.high, board  # no budget: the prover settles each
        seen.add(truth)
        if truth == Value.DRAW:
            assert found.move is not None
            assert _value(game, game.child(board, found.move), memo) == DRAW, board
    assert len(seen) >= 2, seen


def _value(game: Game, board: tuple[int, ...], memo: dict) -> int:
    """The plain negamax's value of `board` for the side to move (WIN, DRAW, LOSS) without its
    depth: whether that side can force a line, else whether the other can (tests/reference.py's
    can_force_line, the turn as the stones say)."""
    me = game.stones(board) % 2 + 1
    if can_force_line(game, board, me, me, memo):
        return WIN
    return LOSS if can_force_line(game, board, 3 - me, me, memo) else DRAW


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main([*argv, "--quiet"])
    out, err = capsys.readouterr()
    assert not err, err
    return status, out


def test_a_draw_the_search_does_not_reach_is_proved(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """7x4k4 (a draw): the search needs some 70,000 nodes, the prover (one thread) some
    40,000. Within 50,000 each the prover settles it, with the depth (the empty cells) and a
    move that keeps the draw; the value is the search's and what `solve --proof` proves."""
    status, out = _run(capsys, "solve", "7x4k4", "--nodes", "50000", "--threads", "1")
    lines = out.splitlines()
    assert status == 0 and lines[0] == "x to move: draw in 28 plies (by proof)", out
    assert lines[1] == "best move: d4" and lines[2].startswith("searched ")
    assert lines[3].startswith("by the prover: x cannot win (8 of 8 first moves proved,")
    assert "; o cannot win after d4 (" in lines[3]
    status, out = _run(capsys, "solve", "7x4k4", "--nodes", "50000", "--threads", "1",
                       "--json")
    data = json.loads(out)
    assert (data["value"], data["depth"], data["move"], data["method"]) == (
        "draw", 28, "d4", "proof") and data["prover_nodes"] > 0
    assert data["proved"] == "draw in 28 plies" and data["source"] == "search"
    # d4 keeps the draw; the search alone, unbounded, finds the same value.
    assert _run(capsys, "solve", "7x4k4", "--moves", "d4")[1].startswith(
        "o to move: draw in 27 plies (by search)")
    status, out = _run(capsys, "solve", "7x4k4")
    assert out.startswith("x to move: draw in 28 plies (by search)") and "prover" not in out
    proof = tmp_path / "p.txt"
    assert _run(capsys, "solve", "7x4k4", "--proof", str(proof))[1].startswith(
        "x to move cannot win: proved")
    status, out = _run(capsys, "check-proof", str(proof))
    assert status == 0 and out.startswith("proof checked: 7x4k4, x cannot win")


def test_a_win_and_a_loss_the_search_does_not_reach_are_proved(
        capsys: pytest.CaptureFixture[str]) -> None:
    """6x5k4 (x wins in 11 plies, 23,575 nodes of search): within 10,000 nodes a win by the
    prover, its depth not proved; after c3, o to move loses, within 5,000: a loss."""
    status, out = _run(capsys, "solve", "6x5k4", "--nodes", "10000", "--threads", "1")
    lines = out.splitlines()
    assert lines[0] == "x to move: win (depth not proved) (by proof)", out
    assert lines[-1].startswith("by the prover: x can win (0 of 9 first moves proved,")
    status, out = _run(capsys, "solve", "6x5k4", "c3", "--nodes", "5000", "--threads", "1")
    lines = out.splitlines()
    assert lines[0] == "o to move: loss (depth not proved) (by proof)", out
    assert "; x can win after every move of o's (17 moves up to symmetry," in lines[-1]
    assert _run(capsys, "solve", "6x5k4", "c3")[1].startswith(
        "o to move: loss in 10 plies (by search)")


def test_the_search_s_own_answers_are_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    """An answer the search gives in its head start is the search's alone, node for node:
    its JSON is answer_json's of the plain search (seconds aside) plus the method; a game the
    prover does not take (gravity) is the search's, the prover not run."""
    for text, argv in (("5x5k4", []), ("6x5k4", []), ("4x4k3+gravity", [])):
        spec = parse_spec(text)
        plain = answer_json(spec, [0] * spec.cells, solve(None, spec, [0] * spec.cells))
        status, out = _run(capsys, "solve", text, "--json", *argv)
        data = json.loads(out)
        assert data.pop("method") == "search"
        prover_nodes = data.pop("prover_nodes")
        assert prover_nodes == 0
        data.pop("seconds"), plain.pop("seconds")
        assert data == plain


def test_the_time_budget_holds_with_the_prover_beside_the_search() -> None:
    """The empty 8x8k5 (neither settles it in two seconds): the answer within its budget and
    a little more, the prover stopped with the search; a shorter budget leaves it out."""
    spec = parse_spec("8x8k5")
    settle(None, spec, [0] * 64, nodes=1000)  # loads the compiled code
    start = time.monotonic()
    settled = settle(None, spec, [0] * 64, seconds=settling.PROVER_SECONDS)
    took = time.monotonic() - start
    assert settled.answer.solution.value is None and took < settling.PROVER_SECONDS + 1, took
    assert settled.proofs is not None and settled.proofs.mover is not None
    short = settle(None, spec, [0] * 64, seconds=settling.PROVER_SECONDS / 4)
    assert short.proofs is None and short.method == "search"


def test_past_the_head_start_both_run_and_the_search_gives_the_depth(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With a head start of 1,000 nodes and no budget: 6x5k4 (a win the search proves in
    23,575 nodes) is disproved by the prover, usually first, and the search, back at full
    priority, gives the depth and the move; 7x4k4 (a draw) is a draw in 28 plies whichever ends first;
    after c3 on 6x5k4, o to move loses in 10 plies."""
    monkeypatch.setattr(settling, "HEAD_START", 1000)
    spec = parse_spec("6x5k4")
    won = settle(None, spec, [0] * spec.cells, threads=1)
    s = won.answer.solution
    assert (s.value, s.depth, won.answer.move, won.method) == (Value.WIN, 11, "c3", "search")
    # Which of the two ends first is a race (the prover disproves it first on an idle
    # machine, not always under load): the prover ran beside the search past its head start,
    # and what it proved, if anything, brackets the search's value.
    assert won.proofs is not None and won.proofs.mover is not None
    assert won.proofs.mover.nodes > 0
    assert won.proofs.low <= Value.WIN <= won.proofs.high
    lost = settle(None, spec, read_position(spec, None, "c3"), threads=1)
    assert (lost.answer.solution.value, lost.answer.solution.depth) == (Value.LOSS, 10)
    spec = parse_spec("7x4k4")
    drawn = settle(None, spec, [0] * spec.cells, threads=1)
    assert (drawn.answer.solution.value, drawn.answer.solution.depth) == (Value.DRAW, 28)
    assert drawn.answer.move is not None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's nice: Linux")
def test_the_search_beside_the_prover_runs_nicer() -> None:
    """_lower_priority raises the calling thread's nice value (and only that thread's)."""
    seen: list[int] = []

    def run() -> None:
        settling._lower_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert seen == [min(19, before + settling.BESIDE_NICE)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before


def test_a_set_cancel_flag_stops_the_prover_as_its_time_would() -> None:
    """prove_no_win on the empty 8x8k5 (minutes of work) stops soon after its budget's cancel
    flag is set, with nothing claimed; first_moves are the moves it takes, one of each
    symmetric set (10 on the empty 8x8 board)."""
    spec = parse_spec("8x8k5")
    assert len(first_moves(spec, [0] * 64)) == 10
    prove_no_win(spec, [0] * 64, ProofBudget(nodes=100))  # loads the compiled code
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    start = time.monotonic()
    timer.start()
    found = prove_no_win(spec, [0] * 64, ProofBudget(cancel=cancel))
    took = time.monotonic() - start
    timer.join()
    assert found.outcome == "unknown" and found.moves == 10 and took < 1.5, (found, took)
