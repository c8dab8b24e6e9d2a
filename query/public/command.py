"""The `tablebase` process's entry (the console script and `python -m tablebase`): the command
line (tablebase.query.cli.run), with the process's defaults set before anything is imported."""
from __future__ import annotations

import os
from typing import NoReturn


def run() -> NoReturn:
    """Run the `tablebase` command in this process and exit with its status."""
    # numpy's OpenBLAS starts a thread a core as numpy is imported, and they spin: some 40 ms
    # of CPU of a 0.14 s import on this 2-core machine, in every command. No command's work is
    # a product of big matrices (the grid codec's are N x cells by cells x 8 at most, where one
    # thread keeps up with memory). A setting of the user's own stands.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from tablebase.query.cli import run as run_command

    run_command()
