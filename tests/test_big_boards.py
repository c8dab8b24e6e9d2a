"""Connect Four tables against the plain negamax on positions reached by random play
(tests/sample_check.py, the check run by hand on the billion-position boards), here on a
table a test can build."""
from __future__ import annotations

from pathlib import Path

import pytest

from tablebase.builder.pipeline import build
from tests.sample_check import check_sample


@pytest.mark.slow
def test_connect_four_5x4_agrees_with_negamax_on_a_random_sample(tmp_path: Path) -> None:
    db = str(tmp_path / "c4.db")
    build("5x4k4+gravity", db)
    checked, wrong = check_sample(db, "5x4k4+gravity", 400, min_stones=9, seed=1)
    assert wrong == []
    assert sum(checked.values()) == 400 and len(checked) >= 10  # spread over the plies
