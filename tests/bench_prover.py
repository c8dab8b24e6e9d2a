"""`make bench SECTION=gomoku`: proofs that the first player cannot win on the empty five-in-a-row
boards, by the prover (query/search/prover.py, proving.py), each written to a proof file and
checked by query/proof_check.py: 5x5k5, 6x6k5, 7x7k5 and 7x8k5, then 8x8k5 within PROOF_SECONDS
(the target of issue 51: proved within 3,600 s on a 2-core machine). The nodes grow some
30-fold with each row of seven or eight cells from 7x7 to 8x8, which the board between shows.
For each: what was proved, the first moves proved of how many, nodes, seconds, the proof file's
positions and bytes, the check's seconds; and the machine's load average beside each figure
(the machine is shared).

    python tests/bench_prover.py [--specs 8x8k5 ...] [--seconds S] [--memory GIB]
    python tests/bench_prover.py --probes [--nodes N]
    python tests/bench_prover.py --near-top [--nodes N]

`--probes`: the 8x8k5 probe set instead, positions after x's first move and a few forced-looking
replies (o to move, x cannot win), each proved by one thread on a fresh table within N nodes:
nodes to the proof (a count that does not depend on the machine's load), deepest ply, seconds.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SPECS = ("5x5k5", "6x6k5", "7x7k5", "7x8k5", "8x8k5")
PROBES = ("d4 e4 d5 d3 d6", "d4 e5 e4 c4 f4", "d4 e5 f6 c3 e6", "c3 d4 d3 c4 e3", "d4 c5 e5 f6 e3",
          "a1 b2 c3 d4 b4", "d4 e4 d5", "a1", "b2", "d4")
# `--near-top`: positions of three stones (o to move, one reply from x's second move), all
# proved within 2 M nodes: progress nearer the first move, where the first moves' probes stop.
NEAR_TOP = ("d4 c5 e5", "d4 e4 e5", "d4 e5 e4", "c3 d4 d3", "d4 e5 f6", "d4 d5 e4", "b2 d4 c3")
PROBE_NODES = 2_000_000
PROOF_SECONDS, TARGET_SPEC = 3600.0, "8x8k5"
MEMORY_GIB = 4.0


def _load() -> str:
    """The load averages (1, 5, 15 minutes), as text."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def bench_prover(specs: tuple[str, ...] = SPECS, seconds: float = PROOF_SECONDS,
                 memory: float = MEMORY_GIB) -> None:
    """Print one row a board: prove, write, check."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.query.proof_check import check_proof
    from tablebase.query.search.proof_writer import prove_to_file
    from tablebase.query.search.proving import ProofBudget

    prove_to_file(parse_spec("4x4k4"), (0,) * 16, os.devnull, ProofBudget())  # compile or load
    print(f"prover: the empty boards, x cannot win; {os.cpu_count()} cores; at most {seconds:g} s"
          f" and {memory:g} GiB each")
    print(f"{'board':<6} {'outcome':<9} {'first moves':>11} {'nodes':>13} {'seconds':>8}"
          f" {'positions':>10} {'bytes':>12} {'write s':>8} {'check s':>8}  load (1, 5, 15 min)")
    met = None
    with tempfile.TemporaryDirectory() as tmp:
        for text in specs:
            spec = parse_spec(text)
            path = os.path.join(tmp, f"{text}.proof.gz")
            budget = ProofBudget(seconds=seconds, memory=int(memory * (1 << 30)))
            start, seen = time.monotonic(), [0]

            def note(done: int, moves: int, nodes: int) -> None:
                if done != seen[0]:  # a first move more proved: when, and the load then
                    seen[0] = done
                    print(f"  {text}: {done}/{moves} first moves proved after"
                          f" {time.monotonic() - start:.0f} s, {nodes:,} nodes; load {_load()}",
                          flush=True)
            ran = prove_to_file(spec, (0,) * spec.cells, path, budget, note)
            p = ran.proved
            check = "-"
            if ran.path is not None:
                start = time.monotonic()
                checked = check_proof(path)
                check = f"{time.monotonic() - start:.2f}"
                assert checked.positions == ran.positions
            print(f"{text:<6} {p.outcome:<9} {f'{p.proved}/{p.moves}':>11} {p.nodes:>13,}"
                  f" {p.seconds:>8.1f} {ran.positions:>10,} {ran.size:>12,} {ran.seconds:>8.2f}"
                  f" {check:>8}  {_load()}", flush=True)
            if text == TARGET_SPEC:
                met = p.outcome == "proved" and p.seconds <= PROOF_SECONDS
    if met is not None:
        print(f"target: {TARGET_SPEC} proved a draw (x cannot win) within {PROOF_SECONDS:g} s, the"
              f" proof checked: {'met' if met else 'NOT met'}")


def bench_probes(nodes: int = PROBE_NODES, probes: tuple[str, ...] = PROBES) -> None:
    """Print one row a probe: proved or stopped, nodes, deepest ply, seconds."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.position_text import read_position
    from tablebase.query.search import prooftable
    from tablebase.query.search.proving import ProofTable

    spec = parse_spec("8x8k5")
    ProofTable(spec, 1 << 20).run(read_position(spec, "d4 e5 d5 d6 c5").board, 0)  # compile
    print(f"prover probes: 8x8k5, x cannot win, one thread, at most {nodes:,} nodes each")
    print(f"{'moves':<16} {'outcome':<9} {'nodes':>11} {'deepest':>7} {'seconds':>8}"
          "  load (1, 5, 15 min)")
    for moves in probes:
        table = ProofTable(spec, 1 << 30)
        start = time.monotonic()
        found = table.run(read_position(spec, moves).board, 0, nodes)
        outcome = {1: "proved", -1: "disproved", 0: "stopped"}[found]
        print(f"{moves:<16} {outcome:<9} {table.nodes:>11,}"
              f" {int(table.ctl[prooftable.DEEPEST]):>7} {time.monotonic() - start:>8.1f}"
              f"  {_load()}", flush=True)


def main() -> None:
    """Run the section."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--specs", nargs="*", default=list(SPECS))
    parser.add_argument("--seconds", type=float, default=PROOF_SECONDS)
    parser.add_argument("--memory", type=float, default=MEMORY_GIB, help="GiB a board")
    parser.add_argument("--probes", action="store_true", help="the 8x8k5 probe set instead")
    parser.add_argument("--near-top", action="store_true", help="the three-stone probes instead")
    parser.add_argument("--nodes", type=int, default=PROBE_NODES, help="nodes a probe")
    args = parser.parse_args()
    if args.probes or args.near_top:
        bench_probes(args.nodes, NEAR_TOP if args.near_top else PROBES)
    else:
        bench_prover(tuple(args.specs), args.seconds, args.memory)


if __name__ == "__main__":
    main()
