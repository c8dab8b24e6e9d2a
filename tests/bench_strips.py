"""`make bench SECTION=strips`: the empty four-in-a-row strips, each solved by a fresh search
(its own transposition table) with the exact depth: 9x4k4 within 120 s and 10x4k4 within
600 s (Charatsidis 2017: both first-player wins, by value alone); with --open, 11x4k4 and
12x4k4 too (open in 2017), each within its budget, reporting what was proved. Each line gives
the wall time, the process's CPU time and the load average before and after (the machine is
shared: a figure is only as good as its load).

    python tests/bench_strips.py [--open] [--seconds S] [--specs BOARD ...]
    (S: the open strips' budget, or each board's of --specs)
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablebase.query.search.searcher import Budget  # noqa: E402

TARGETS = (("9x4k4", 120.0), ("10x4k4", 600.0))
OPEN = ("11x4k4", "12x4k4")
OPEN_SECONDS = 1800.0


def bench_strips(open_strips: bool = False, seconds: float = OPEN_SECONDS,
                 specs: list[str] | None = None) -> None:
    """Print the strips section (`specs`: only those boards, each within `seconds`)."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.notation import move_name
    from tablebase.query.search.searcher import Searcher

    print("strips: empty four-in-a-row strips by search, value and exact depth (a win in d plies"
          " proved, and none in d - 2), each by a fresh search")
    Searcher(parse_spec("5x4k4")).solve((0,) * 20, Budget(nodes=1000))  # compile (or load) first
    print(f"{'board':<7} {'answer':<22} {'move':<5} {'budget s':>8} {'wall s':>8} {'cpu s':>8}"
          f" {'nodes':>13} {'load':>10}  target")
    runs = [*TARGETS, *((name, seconds) for name in OPEN)] if open_strips else list(TARGETS)
    if specs:
        runs = [(name, seconds) for name in specs]
    for name, budget in runs:
        spec = parse_spec(name)
        load = os.getloadavg()[0]
        wall, cpu = time.monotonic(), time.process_time()
        s = Searcher(spec).solve((0,) * spec.cells, Budget(seconds=budget))
        wall, cpu = time.monotonic() - wall, time.process_time() - cpu
        met = s.value is not None and s.depth is not None and wall <= budget
        target = ("met" if met else "NOT met") if (name, budget) in TARGETS else "-"
        print(f"{name:<7} {s.known:<22} {move_name(spec, s.move) if s.move is not None else '-':<5}"
              f" {budget:>8.0f} {wall:>8.1f} {cpu:>8.1f} {s.nodes:>13,}"
              f" {load:>4.1f}-{os.getloadavg()[0]:<4.1f}  {target}", flush=True)


def main() -> None:
    """Run the section."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--open", action="store_true", help="also 11x4k4 and 12x4k4")
    parser.add_argument("--seconds", type=float, default=OPEN_SECONDS,
                        help="the open strips' budget each (default %(default)s)")
    parser.add_argument("--specs", nargs="*", help="only these boards, each within --seconds")
    args = parser.parse_args()
    bench_strips(args.open, args.seconds, args.specs)


if __name__ == "__main__":
    main()
