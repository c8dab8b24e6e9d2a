"""mypy on the package as installed (tests/typecheck.py): every function typed, no error. Run
as one test of the suite, so that it shares the two cores with the others instead of running
alone before them."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests import typecheck


def test_mypy_finds_no_error() -> None:
    where = typecheck.lay_out(Path(sys.prefix) / "typecheck")
    done = subprocess.run(typecheck.command(where), cwd=where, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
