"""`python -m tablebase` runs the `tablebase` command."""
from __future__ import annotations

from tablebase.query.cli import run

run()
