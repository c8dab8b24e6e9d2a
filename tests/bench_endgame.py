"""`make bench` endgame section: endgame tables of Connect Four 7x6 and 7x7 five-in-a-row,
each built in a fresh child process (so its peak memory is its own) and then probed.

By hand, the 30-stone 7x7k5 root within a 4 GiB budget (about 2x10^8 positions, minutes):
    python tests/bench_endgame.py --one 7x7k5 \
        "$(python tests/bench_endgame.py --moves 7x7k5-30)" --memory 4
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Roots reached by self-play games of a simple player (wins, blocks, avoids giving a win,
# else a random centre-weighted move): (label, spec, moves).
_C4 = ("c1 e1 d1 d2 c2 d3 e2 e3 d4 d5 b1 a1 e4 c3 d6 c4 e5 e6 f1 f2 f3 c5 c6 f4 f5 g1 f6 b2")
_GOMOKU = ("d1 c1 d7 f7 d2 d3 e4 g6 d4 c4 f5 c6 d5 c5 b2 f1 e1 b4 a5 d6 b7 c7 c3 f4 b5 e5 g3 f2"
           " e3 f3 b6 e7 a3 f6")
ROOTS = {
    "7x6-28": ("7x6k4+gravity", _C4),
    "7x6-24": ("7x6k4+gravity", " ".join(_C4.split()[:24])),
    "7x6-20": ("7x6k4+gravity", " ".join(_C4.split()[:20])),
    "7x7k5-34": ("7x7k5", _GOMOKU),
    "7x7k5-32": ("7x7k5", " ".join(_GOMOKU.split()[:32])),
    "7x7k5-30": ("7x7k5", " ".join(_GOMOKU.split()[:30])),
}
BENCH_ROOTS = ["7x6-28", "7x6-24", "7x6-20", "7x7k5-34", "7x7k5-32"]


def _one(spec_text: str, moves: str, memory: float | None) -> dict[str, Any]:
    """Build the endgame table reached by `moves`, then probe its root and its best move."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.boards import play_moves
    from tablebase.builder.pipeline import build
    from tablebase.query import open_tablebase

    spec = parse_spec(spec_text)
    root = play_moves(spec, moves)
    budget = None if memory is None else int(memory * (1 << 30))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.db")
        start = time.perf_counter()
        report = build(spec, path, root=root, memory_budget=budget)
        with open_tablebase(path) as tb:
            probe = tb.probe(spec, root)
            tb.best_moves(spec, root)
        total = time.perf_counter() - start
        size = os.path.getsize(path)
    return {"file_bits": 8 * size / report.canonical, "reachable": report.reachable,
            "canonical": report.canonical,
            "stages": {k: [v.seconds, v.peak_bytes] for k, v in report.stages.items()},
            "seconds": report.seconds, "built_and_probed": total,
            "root": f"{probe.to_move}: {probe.value.word} in {probe.depth}",
            "direct": report.direct_table}


def bench_endgame(labels: list[str] | None = None) -> None:
    """Print the endgame table: one row per root."""
    print("endgame: tables from positions of real-size boards (each built in a fresh process,"
          " then its root probed)")
    print(f"{'root':<10}{'stones':>7}{'reachable':>13}{'canonical':>12}{'enum s':>8}{'solve s':>8}"
          f"{'write s':>8}{'built+probed s':>15}{'pos/s':>11}{'peak MiB':>9}{'bits/pos':>9}"
          "  root value")
    for label in labels or BENCH_ROOTS:
        spec, moves = ROOTS[label]
        proc = subprocess.run([sys.executable, __file__, "--one", spec, moves],
                              capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            print(f"{label:<10} failed: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(proc.stdout)
        st = r["stages"]
        peak = max(v[1] for v in st.values()) / (1 << 20)
        print(f"{label:<10}{len(moves.split()):>7}{r['reachable']:>13,}{r['canonical']:>12,}"
              f"{st['enumerate'][0]:>8.2f}{st['solve'][0]:>8.2f}{st['write'][0]:>8.2f}"
              f"{r['built_and_probed']:>15.2f}{r['canonical'] / r['seconds']:>11,.0f}"
              f"{peak:>9,.0f}{r['file_bits']:>9.1f}  {r['root']}")
    print("target: a 7x6 root with 20 stones built and probed in at most 5 s; bits/pos: the"
          " whole SQLite file, in bits a stored position")


def main() -> None:
    """Run the section, one build (--one, in a child), or print a root's moves (--moves)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--one", nargs=2, metavar=("SPEC", "MOVES"))
    parser.add_argument("--memory", type=float, default=None)
    parser.add_argument("--moves", choices=sorted(ROOTS))
    parser.add_argument("--roots", nargs="*", choices=sorted(ROOTS))
    args = parser.parse_args()
    if args.moves:
        print(ROOTS[args.moves][1])
    elif args.one:
        print(json.dumps(_one(*args.one, args.memory)))
    else:
        bench_endgame(args.roots)


if __name__ == "__main__":
    main()
