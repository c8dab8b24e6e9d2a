"""Proofs that a side cannot win, or that it wins: `solve SPEC --proof FILE` proves and writes
one (the library's prove_to_file, then write_win_proof where the side to move wins),
`check-proof FILE` re-checks one (query/proof_check.py)."""
from __future__ import annotations

import argparse
import os
import time
from typing import TYPE_CHECKING, Any

from tablebase.builder.games.grid import Spec, decode
from tablebase.builder.games.grid.notation import board_text, move_name, to_move_name
from tablebase.query.cli.common import EXIT_OK, count, gib, progress, whole_number
from tablebase.query.proof_check import check_proof

if TYPE_CHECKING:
    from tablebase.query.search.proving import Proved
    from tablebase.query.search.settling import Proofs

# The kinds of a proof's positions, in words, in the order check-proof lists them.
KIND_WORDS = (("moves", "attacker's position", "attacker's positions"),
              ("reply", "defender's reply", "defender's replies"),
              ("pairing", "pairing", "pairings"), ("dead", "dead board", "dead boards"),
              ("line", "line made", "lines made"), ("threats", "double threat", "double threats"),
              ("play", "winner's move", "winner's moves"),
              ("forced", "forced sequence", "forced sequences"),
              ("fork", "move to a double threat", "moves to a double threat"),
              ("every", "loser's position, every reply", "loser's positions, every reply"),
              ("block", "loser's block", "loser's blocks"),
              ("double", "double threat to the loser", "double threats to the loser"),
              ("win", "line completed", "lines completed"))


def proof_options(p: argparse.ArgumentParser) -> None:
    """solve's --proof FILE, --memory GIB and --threads N."""
    p.add_argument("--proof", metavar="FILE",
                   help="prove that the side to move cannot win (df-pn with pairings, threats"
                        " and zones), or where it wins, the win and its depth (alpha-beta,"
                        " threats, forced sequences), and write the proof to FILE (.gz:"
                        " compressed), for check-proof; --time bounds it, --nodes the prover")
    p.add_argument("--memory", metavar="GIB", type=gib, default=1.0,
                   help="the prover's proof tables' memory in GiB (default 1)")
    p.add_argument("--threads", metavar="N", type=whole_number(1, "a thread count from 1"),
                   default=2, help="the prover's threads, each proving first moves (default 2)")


def prove_command(args: argparse.Namespace, spec: Spec, board: tuple[int, ...]) -> int:
    """solve --proof: prove, write, print what was proved and the file's size."""
    from tablebase.query.search.proof_writer import prove_to_file
    from tablebase.query.search.proving import ProofBudget
    from tablebase.query.search.win_writer import write_win_proof

    budget = ProofBudget(args.time, args.nodes, int(args.memory * (1 << 30)), args.threads)
    # tqdm puts ", " before a postfix: "prove 8x8k5, 3 of 10 first moves proved, ..."
    with progress(args.quiet)(desc=f"prove {spec.name}", bar_format="{desc}{postfix}") as bar:
        started = time.monotonic()

        def shown(done: int, moves: int, nodes: int) -> None:
            rate = nodes / max(time.monotonic() - started, 1e-9)
            bar.set_postfix_str(f"{done} of {moves} first moves proved, {nodes:,} nodes,"
                                f" {rate:,.0f} a second")
        first: tuple[float, int] | None = None  # the writer's first report: when, how many

        def writing(positions: int) -> None:
            nonlocal first
            first = first or (time.monotonic(), positions)
            rate = (positions - first[1]) / max(time.monotonic() - first[0], 1e-9)
            bar.set_postfix_str(f"proved; writing the proof: {positions:,} positions"
                                + (f", {rate:,.0f} a second" if rate else ""))
        ran = prove_to_file(spec, board, args.proof, budget, shown, writing)
        p = ran.proved
        won = None
        if p.outcome == "disproved":
            # The side to move wins: the win is proved and written instead, within the time
            # the prover left.
            bar.set_postfix_str("the side to move wins; proving the win")
            deadline = None if args.time is None else started + args.time
            won = write_win_proof(spec, board, args.proof, deadline, writing)
    side = to_move_name(sum(1 for v in board if v))
    effort = _effort(p)
    if p.outcome == "proved":
        print(f"{side} to move cannot win: proved ({effort})")
        print(f"proof: {ran.path}, {count(ran.positions, 'position')}, {ran.size:,} bytes,"
              f" written in {ran.seconds:.1f} s")
    elif won is not None:
        print(f"{side} to move wins within {won.depth} plies: proved (cannot-win disproved:"
              f" {p.nodes:,} nodes in {p.seconds:.1f} s; the win: {won.nodes:,} nodes)")
        print(f"proof: {won.path}, {count(won.positions, 'position')}, {won.size:,} bytes,"
              f" written in {won.seconds:.1f} s")
    else:
        print(f"{side} to move: not proved within the budget ({effort}); no proof written")
    return EXIT_OK


def each_move_command(args: argparse.Namespace, spec: Spec, board: tuple[int, ...]) -> int:
    """solve --each-move: each first move settled within a share of --time, a line each; with
    --proof, the position's proof written where the moves settle it (a move after which the
    side to move wins: the win's proof; every move one after which it cannot win: that proof)."""
    from tablebase.query.search.openings import NO_WIN, OPEN, WINS, MoveSettled, settle_moves
    from tablebase.query.search.proof_writer import writable

    if args.proof is not None:
        writable(args.proof)  # refused now, not after the budget is spent
    started = time.monotonic()
    side = to_move_name(sum(1 for v in board if v))
    print(f"{side}'s moves on {board_text(spec, board)}, one of each symmetric set, within"
          f" {args.time:g} s in all:")
    print(f"{'move':<6} {side + ' after it':<16} {'by':<8} {'nodes':>15} {'seconds':>9}")

    def settled(found: MoveSettled, done: int, of: int) -> None:  # the line is the progress
        print(f"{move_name(spec, found.move):<6} {found.result:<16} {found.by or '-':<8}"
              f" {found.nodes:>15,} {found.seconds:>9.1f}", flush=True)
    found = settle_moves(spec, board, args.time, args.nodes, int(args.memory * (1 << 30)),
                         settled)
    results = [f.result for f in found]
    print(f"{side} wins after {results.count(WINS)}, cannot win after {results.count(NO_WIN)},"
          f" open: {results.count(OPEN)} of {count(len(found), 'move')}"
          f" ({sum(f.nodes for f in found):,} nodes in {time.monotonic() - started:.1f} s)")
    if args.proof is not None:
        print(_settled_proof(args, spec, board, results, side))
    return EXIT_OK


def _settled_proof(args: argparse.Namespace, spec: Spec, board: tuple[int, ...],
                   results: list[str], side: str) -> str:
    """Write the position's proof where the moves settle it; what was written, in words."""
    from tablebase.query.search.openings import NO_WIN, WINS
    from tablebase.query.search.proof_writer import prove_to_file
    from tablebase.query.search.proving import ProofBudget, ProofRefusedError
    from tablebase.query.search.win_writer import write_win_proof

    try:
        if WINS in results:
            won = write_win_proof(spec, board, args.proof)
            return (f"proof: {won.path}, {side} wins within {won.depth} plies,"
                    f" {count(won.positions, 'position')}, {won.size:,} bytes, written in"
                    f" {won.seconds:.1f} s")
        if results and all(r == NO_WIN for r in results):
            ran = prove_to_file(spec, board, args.proof,
                                ProofBudget(None, None, int(args.memory * (1 << 30)),
                                            args.threads))
            if ran.path is not None:
                return (f"proof: {ran.path}, {side} cannot win,"
                        f" {count(ran.positions, 'position')}, {ran.size:,} bytes")
    except ProofRefusedError as e:
        return f"no proof written: {e}"
    return "no proof written: the moves do not settle the position"


def _effort(p: Proved) -> str:
    """'10 of 10 first moves proved, 3,683,253 nodes in 64.5 s'."""
    return (f"{p.proved} of {count(p.moves, 'first move')} proved, {p.nodes:,} nodes in"
            f" {p.seconds:.1f} s")


def proofs_text(spec: Spec, board: tuple[int, ...], proofs: Proofs) -> str:
    """What `solve`'s prover proved beside the search, in words: 'x cannot win (10 of 10 first
    moves proved, ...); o cannot win after d4 (...)'."""
    ply = sum(1 for v in board if v)
    mover, other = to_move_name(ply), to_move_name(ply + 1)
    said = []
    if proofs.mover is not None and proofs.mover.outcome != "unknown":
        can = "cannot" if proofs.mover.outcome == "proved" else "can"
        said.append(f"{mover} {can} win ({_effort(proofs.mover)})")
    if proofs.move is not None:
        proof = next(p for m, p in proofs.others if m == proofs.move)
        said.append(f"{other} cannot win after {move_name(spec, proofs.move)}"
                    f" ({_effort(proof)})")
    elif proofs.others and all(p.outcome == "disproved" for _, p in proofs.others):
        nodes = sum(p.nodes for _, p in proofs.others)
        seconds = sum(p.seconds for _, p in proofs.others)
        said.append(f"{other} can win after every move of {mover}'s"
                    f" ({count(len(proofs.others), 'move')} up to symmetry, {nodes:,} nodes in"
                    f" {seconds:.1f} s)")
    return "; ".join(said)


def _cmd_check(args: argparse.Namespace) -> int:
    size = os.path.getsize(args.file) if os.path.isfile(args.file) else None
    with progress(args.quiet)(desc="check-proof", total=size, unit="B", unit_scale=True) as bar:
        shown = 0  # the file's bytes the bar shows read

        def read(done: int) -> None:
            nonlocal shown
            bar.update(done - shown)
            shown = done
        checked = check_proof(args.file, read)
    spec = checked.spec
    board = decode(checked.root, spec.cells)
    claim = checked.claim if checked.depth is None else \
        f"{checked.claim.split()[0]} wins within {checked.depth} plies"
    print(f"proof checked: {spec.name}, {claim} from {board_text(spec, board)}")
    kinds = ", ".join(f"{checked.kinds[k]:,} {one if checked.kinds[k] == 1 else many}"
                      for k, one, many in KIND_WORDS if checked.kinds.get(k))
    print(f"{count(checked.positions, 'position')}: {kinds}")
    return EXIT_OK


def register(commands: Any) -> None:
    """Add check-proof to the subcommands."""
    p = commands.add_parser(
        "check-proof", help="re-check a proof file that a side cannot win, or that it wins",
        description="Re-check a proof written by `solve --proof`, with code that shares"
                    " nothing with the search but the rules: every pairing pair by pair,"
                    " every line and threat, every defender's reply, every attacker's move at"
                    " every attacker's position (proved, covered by a proved move's zone, or"
                    " answered by a line), every zone; in a win's proof every winner's move,"
                    " every loser's reply (or the one block a threat leaves), every forced"
                    " sequence, fork and double threat, and every depth. A damaged, cut-off or"
                    " wrong file is refused with one line saying where, and exit status 2.")
    p.add_argument("file", metavar="FILE", help="the proof file (.gz: compressed)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_check)
