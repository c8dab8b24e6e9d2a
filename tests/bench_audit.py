"""Audit figures for `make bench`: how fast an engine is audited over GTP (boards per second, the
course-dialect sample engine on every image of tic-tac-toe), and how long that engine takes to
solve 7x7 k=5 endgames with 20 empty cells (random positions with no line yet), the size the
endgame audits point it at."""
from __future__ import annotations

import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "tests" / "audit_samples" / "course_engine.py"
COLUMNS = "ABCDEFGHJ"


def _endgames(count: int, seed: int = 7) -> list[list[int]]:
    """Move orders (cells, x first) of `count` random 29-stone 7x7 boards where nobody has 5."""
    sys.path.insert(0, str(ENGINE.parent))
    from course_engine import Board

    rng = random.Random(seed)
    found = []
    while len(found) < count:
        cells = rng.sample(range(49), 29)
        board = Board(7, 5)
        board.black = sum(1 << c for c in cells[0::2])
        board.white = sum(1 << c for c in cells[1::2])
        if not (board.has_line(board.black) or board.has_line(board.white)):
            found.append(cells)
    return found


def bench_audit(endgames: int = 10) -> None:
    """Print the audit figures."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.pipeline import build
    from tablebase.query.audit import Selection, audit, open_gtp_engine
    from tablebase.query.tablebase import open_tablebase

    print("\naudit: an engine over GTP (tests/audit_samples/course_engine.py, course dialect)")
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "t.db")
        spec = parse_spec("3x3k3")
        build(spec, db)
        with open_tablebase(db) as tb, open_gtp_engine(f"{sys.executable} {ENGINE} --k 3",
                                                    spec) as engine:
            report = audit(tb, spec, engine, selection=Selection("all"), every_orientation=True)
    print(f"  3x3k3, every image of every position: {report.boards:,} boards in"
          f" {report.seconds:.2f} s, {report.boards / report.seconds:,.0f} boards/s"
          f" ({'all agree' if report.ok else 'MISMATCHES'})")
    seconds = []
    for cells in _endgames(endgames):
        plays = "".join(f"play {'bw'[i % 2]} {COLUMNS[c % 7]}{7 - c // 7}\n"
                        for i, c in enumerate(cells))
        started = time.perf_counter()
        subprocess.run([sys.executable, str(ENGINE), "--k", "5"], check=True, text=True,
                       capture_output=True,
                       input=f"boardsize 7\nclear_board\n{plays}solve\nquit\n")
        seconds.append(time.perf_counter() - started)
    print(f"  7x7 k=5, {endgames} random endgames with 20 empty cells, one fresh process each:"
          f" median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    bench_audit()
