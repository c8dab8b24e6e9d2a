"""Compile the package's kernels once, before the suite: numba saves each kernel's machine
code beside its source (`__pycache__`), and on a fresh checkout the suite's workers and
the processes its tests start (CLI runs, Dask workers, servers) would each compile the same
kernels again until one had saved them. `make test` runs the three groups side by side.

    python tests/compile_kernels.py tables|search|gravity
"""
from __future__ import annotations

import io
import sys
import tempfile
from contextlib import redirect_stdout
from pathlib import Path


def tables() -> None:
    """The builder's kernels (both layouts' storage, endgames, stones that move, ranked tiers)
    and verify's."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.boards import play_moves
    from tablebase.builder.pipeline import build
    from tablebase.query.tablebase import open_tablebase
    from tablebase.query.verify.checks import verify_table
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "t.db")
        # The endgame first: the order of moves that reaches its root is compiled here and saved
        # in seconds, before `gravity` needs it (both compiled it side by side when it came last).
        spec = parse_spec("4x4k4+gravity")
        build(spec, db, root=play_moves(spec, "a1 b1 c1 d1"))
        for text in ("3x3k3", "3x3k3+gravity+misere", "4x3k3+exact", "3x3k3+stones3"):
            spec = parse_spec(text)
            build(spec, db)
            with open_tablebase(db) as tb:
                assert verify_table(tb, spec).ok
        build(parse_spec("4x3k3"), db, layout="rows")
    numbers_walk()
    morris()


def numbers_walk() -> None:
    """The walk of a class whose positions are small ints, in compiled code (reached at 4,096
    positions here rather than at graph.NUMBERS_FROM: this process only)."""
    import tablebase.builder.graph as graph
    from tablebase.builder.games.user.adapter import ClassGame

    class Ints:  # 0 -> 1, 2 -> 3, 4, 5, ...: a tree of 3**9 positions
        name = "ints"

        def start(self) -> int:
            return 0

        def moves(self, p: int) -> list[tuple[str, int]]:
            return [] if p >= 3 ** 8 else [(str(k), 3 * p + k) for k in (1, 2, 3)]

        def outcome(self, p: int) -> int | None:
            return -1 if p >= 3 ** 8 else None

        def text(self, p: int) -> str:
            return str(p)

        def read(self, text: str) -> int:
            return int(text)
    graph.NUMBERS_FROM = 4096
    game = ClassGame(Ints(), "Ints", "Ints")
    assert graph.walk(game, game.start(), 1 << 33).numbers is not None


def morris() -> None:
    """Games solved as ranked tiers (morris): builds in memory and one out of core, moves and
    verify of their tables."""
    from tablebase.builder import ranked_build, ranked_work
    from tablebase.builder.games.morris.game import MorrisGame
    from tablebase.query.cli import main
    from tablebase.query.tablebase import open_tablebase
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "t.db")
        with redirect_stdout(io.StringIO()):  # their reports: not for `make test`'s output
            for spec in ("six-mens-morris+stones3", "tapatan"):
                assert main(["build", spec, "--db", db, "--quiet"]) == 0
                assert main(["verify", spec, "--db", db]) == 0
        with open_tablebase(db) as tb:
            tb.game("six-mens-morris+stones3").moves(None)
        # Out of core: nothing set aside, a budget below the widest tier's arrays (the
        # module's values given back: the suite calls this in its own process too).
        kept = ranked_build.FIXED_BYTES, ranked_work.LEAST_SLICE
        ranked_build.FIXED_BYTES, ranked_work.LEAST_SLICE = 0, 16
        try:
            tiers = MorrisGame("tapatan").ranked()
            widest = max(t.size for t in tiers.ranked_tiers())
            ranked_build.build_tiers(tiers, Path(tmp) / "parts", widest * 2)
        finally:
            ranked_build.FIXED_BYTES, ranked_work.LEAST_SLICE = kept


def search() -> None:
    """The search for boards past 64 cells (compiled apart: its cell sets take two words), then
    the m,n,k search (its proofs included) and the full-window scores of many boards. In that
    order: the one-word search shares its moves and proofs with the prover, which `gravity`
    compiles meanwhile; they are then read from numba's cache rather than compiled twice."""
    import numpy as np

    import tablebase
    from tablebase.builder.games.grid import parse_spec
    from tablebase.query.search.board import Board
    tablebase.search_position("9x9k5", "e5", nodes=2000)
    assert tablebase.search_position("4x4k4", "x.../.o../..../....").solution.value is not None
    Board(parse_spec("4x4k4")).scores_many(np.zeros((1, 16), dtype=np.uint8))


def gravity() -> None:
    """The prover, then the search of gravity boards on bitboards (whose reading of board text
    `search` has compiled by then)."""
    prover()
    import tablebase
    board = "...../...../...../..x.."
    assert tablebase.search_position("5x4k4+gravity", board).solution.value is not None


def prover() -> None:
    """The prover of "the attacker cannot win" (query/search/prover.py) and its proof file."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.query.proof_check import check_proof
    from tablebase.query.search.proof_writer import write_proof
    from tablebase.query.search.proving import ProofBudget, prove_no_win
    with tempfile.TemporaryDirectory() as tmp:
        proved = prove_no_win(parse_spec("4x4k4"), (0,) * 16, ProofBudget(memory=1 << 20))
        write_proof(proved, Path(tmp) / "p")
        check_proof(Path(tmp) / "p")


if __name__ == "__main__":
    {"tables": tables, "search": search, "gravity": gravity}[sys.argv[1]]()
