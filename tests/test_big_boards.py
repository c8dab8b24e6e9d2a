"""Connect Four tables against the plain negamax on positions reached by random play
(tests/sample_check.py, the check run by hand on the billion-position boards), here on a
table a test can build."""
from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.sample_check import check_sample


@pytest.mark.slow
def test_connect_four_5x4_agrees_with_negamax_on_a_random_sample(
        table_db: Callable[[str], str]) -> None:
    # The session's table (the test only reads it). 120 positions of seed 1 reach every ply
    # from 9 stones to the full board (12), wins, losses and draws, finished games among them;
    # 400 reached no other kind and cost ~3 s more of the plain negamax.
    db = table_db("5x4k4+gravity")
    checked, wrong = check_sample(db, "5x4k4+gravity", 120, min_stones=9, seed=1)
    assert wrong == []
    assert sum(checked.values()) == 120 and len(checked) >= 10  # spread over the plies
