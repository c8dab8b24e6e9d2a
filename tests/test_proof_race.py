"""The prover and the win writer side by side (query/search/proof_race.py): whichever is true
is proved and written, the file checks, the loser of the race is stopped, the prover's second
thread waits for the head to end, and the win writer runs nicer after it."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.query.errors import QueryError
from tablebase.query.proof_check import check_proof
from tablebase.query.search import proof_race
from tablebase.query.search.proof_race import prove_either
from tablebase.query.search.proof_writer import ProofWriteError
from tablebase.query.search.proving import ProofBudget, ProofRefusedError, prove_no_win
from tablebase.query.search.win_writer import write_win_proof


@pytest.mark.parametrize(("text", "claim"), [("4x4k3", "x wins"), ("6x5k4", "x wins"),
                                              ("5x4k4", "x cannot win"),
                                              ("7x7k5", "x cannot win")])
def test_whichever_is_true_is_proved_and_checked(tmp_path: Path, text: str, claim: str) -> None:
    spec = parse_spec(text)
    path = tmp_path / "p.proof.gz"
    either = prove_either(spec, (0,) * spec.cells, path, ProofBudget())
    checked = check_proof(path)
    assert checked.claim.startswith("x") and (checked.depth is not None) == (claim == "x wins")
    if claim == "x wins":
        assert either.won is not None and checked.depth == either.won.depth
        assert either.run.path is None and either.run.proved.outcome != "proved"
    else:
        assert either.won is None and checked.depth is None and either.run.path == str(path)
        assert either.run.proved.outcome == "proved"
    assert list(tmp_path.iterdir()) == [path]  # no part file left by the stopped side


@pytest.mark.parametrize("limits", [ProofBudget(seconds=1.0), ProofBudget(nodes=4000)])
def test_a_budget_neither_side_meets_writes_nothing(tmp_path: Path, limits: ProofBudget) -> None:
    """The time bounds both; the prover's nodes spent end the win writer too."""
    spec, path = parse_spec("8x8k5"), tmp_path / "p.proof"
    start = time.monotonic()
    either = prove_either(spec, (0,) * 64, path, limits)
    took = time.monotonic() - start
    assert either.won is None and either.run.proved.outcome == "unknown" and took < 3, took
    assert list(tmp_path.iterdir()) == []


def test_a_cancelled_win_writer_stops_and_leaves_no_file(tmp_path: Path) -> None:
    cancel = threading.Event()
    timer = threading.Timer(0.2, cancel.set)
    timer.start()
    start = time.monotonic()
    with pytest.raises(ProofWriteError, match="stopped"):
        write_win_proof(parse_spec("8x8k5"), (0,) * 64, tmp_path / "w.proof", cancel=cancel)
    timer.join()
    assert time.monotonic() - start < 2 and list(tmp_path.iterdir()) == []


def test_held_threads_wait_until_the_flag_is_set() -> None:
    """With `held` never set, the first thread proves every first move alone (all on its
    table); set, both threads take moves (the first 7x7k5 proof takes long enough for the
    second thread to take the next move)."""
    spec = parse_spec("7x7k5")
    held = threading.Event()
    alone = prove_no_win(spec, (0,) * 49, ProofBudget(threads=2, held=held))
    assert alone.outcome == "proved" and len({id(t) for t in alone.tables.values()}) == 1
    held.set()
    both = prove_no_win(spec, (0,) * 49, ProofBudget(threads=2, held=held))
    assert both.outcome == "proved" and len({id(t) for t in both.tables.values()}) == 2


def test_after_the_head_the_win_writer_runs_nicer(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """With no head, the win writer's thread is set to BESIDE_NICE at once, and on a draw it is
    stopped once the prover has proved it (never set back: it is not left alone)."""
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(proof_race, "WIN_HEAD", 0.0)
    monkeypatch.setattr(proof_race, "_renice", lambda t, nice: calls.append((t, nice)) or True)
    spec = parse_spec("7x7k5")
    either = prove_either(spec, (0,) * 49, tmp_path / "p.proof", ProofBudget())
    assert either.run.proved.outcome == "proved"
    assert [nice for _, nice in calls] == [proof_race.BESIDE_NICE]


def test_a_game_or_position_it_does_not_take_is_refused_before_it_starts(tmp_path: Path) -> None:
    with pytest.raises(ProofRefusedError):
        prove_either(parse_spec("4x4k4+gravity"), (0,) * 16, tmp_path / "p", ProofBudget())
    over = (1, 1, 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)  # x made a line on 4x4k3
    with pytest.raises(QueryError, match="over"):
        prove_either(parse_spec("4x4k3"), over, tmp_path / "p", ProofBudget())
    assert list(tmp_path.iterdir()) == []
