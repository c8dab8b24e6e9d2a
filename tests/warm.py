"""Compile the package's kernels once, before the suite's two workers start (`make test` runs
this beside the lint). numba caches what it compiles, but each process compiles what is not
yet cached when it first needs it: on a clean clone both workers would compile the same
kernels (about 40 s of a core each). Here three commands that reach every kernel run in two
processes, one per core: builds and verifies (the builder, ranking and verify kernels) then an
m,n,k search (the search and its proofs), and a Connect Four search (the bitboard search).
A failure here only means the suite compiles as it goes: it is reported, not raised.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

PARTS = [
    [["build", "4x4k4+gravity", "--db", "{db}", "--quiet"],
     ["verify", "4x4k4+gravity", "--db", "{db}", "--quiet"],
     ["build", "3x3k3+exact", "--db", "{db}", "--quiet"],
     ["verify", "3x3k3+exact", "--db", "{db}", "--quiet"],
     ["solve", "6x6k5", "--quiet"]],
    [["solve", "7x6k4+gravity", "--moves", "d1 d2 d3 c1", "--quiet"]],
]


def main() -> int:
    """Run the parts side by side; print any command that failed."""
    with tempfile.TemporaryDirectory() as tmp:
        chains = [" && ".join(" ".join([f'"{sys.executable}"', "-m", "tablebase",
                                        *(f'"{a.format(db=Path(tmp, f"w{i}.db"))}"' for a in args)])
                              for args in part)
                  for i, part in enumerate(PARTS)]
        procs = [subprocess.Popen(["bash", "-c", chain], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for chain in chains]
        for chain, proc in zip(chains, procs):
            _, err = proc.communicate()
            if proc.returncode:
                print(f"warm-up (not an error of the suite): {chain} exited {proc.returncode}:"
                      f" {err.strip()[-300:]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
