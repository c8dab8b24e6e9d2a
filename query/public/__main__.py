"""`python -m tablebase` runs the `tablebase` command."""
from __future__ import annotations

from tablebase.command import run

run()
