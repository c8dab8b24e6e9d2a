"""Building and checking tables: `build` and `verify`.

The build and info paths import their heavy modules (the pipeline, tqdm, the database engine)
inside their functions: one `tablebase probe` process must start in well under half a second,
and importing those alone would take most of it."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from tablebase.builder.games.grid import PLAYER_NAMES, InvalidPositionError, parse_spec
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.registry import grid_game, is_keyed_spec, table_root
from tablebase.db.facts import LAYOUT_PACKED, LAYOUTS
from tablebase.query.cli.common import (
    EXIT_MISMATCH,
    EXIT_OK,
    UsageError,
    db_option,
    gib,
    mib,
    open_db,
    position_from_args,
    progress,
    root_facts,
    root_option,
    size,
    whole_number,
)
from tablebase.query.wording import outcome_text

if TYPE_CHECKING:
    from tablebase.builder.games.grid.spec import Spec
    from tablebase.builder.pipeline import BuildReport


def _cmd_build(args: argparse.Namespace) -> int:
    if is_keyed_spec(args.spec):  # before the grid pipeline's imports: it loads numba
        from tablebase.query.cli import games  # on use: its modules load then
        return games.build(args)
    from tablebase.builder.estimate import estimate_build
    from tablebase.builder.pipeline import BuildReport, build
    spec = parse_spec(args.spec)
    # --from and --moves name the root as POSITION and --moves name a position for the others.
    root = position_from_args(spec, args).board if args.root is not None or args.moves else None
    try:
        table = table_root(spec, root)
    except InvalidPositionError as e:
        raise UsageError(f"position {board_text(spec, root or [])!r} ({spec.name}): {e}") from e
    estimate = estimate_build(table, args.db, args.work_dir)
    if estimate.worth_saying and (args.yes or estimate.refusal() is None):
        print(f"estimate: {estimate.text()}", file=sys.stderr, flush=True)
    budget = None if args.memory is None else int(args.memory * (1 << 30))
    if args.workers is None and args.scheduler is None:
        report = build(spec, args.db, root=root, force=args.force, resume=args.resume,
                       progress=progress(args.quiet), memory_budget=budget,
                       work_dir=args.work_dir, layout=args.layout, yes=args.yes)
        assert isinstance(report, BuildReport)  # a grid game's (a class's: cli/games.py)
        _print_build(report, spec, args.db)
        return EXIT_OK
    # Dask is imported only on this path: see builder/cluster.py.
    from tablebase.builder.cluster import ClusterError, open_cluster

    if args.workers is not None and args.scheduler is not None:
        raise UsageError("--workers starts a local cluster and --scheduler uses an existing one:"
                         " give one of them")
    if args.scheduler is not None and args.work_dir is None:
        raise UsageError("--scheduler needs --work-dir PATH, a directory every worker can read"
                         " and write (the tier files go there)")
    try:
        with open_cluster(workers=args.workers, scheduler=args.scheduler) as executor:
            executor.reset_peaks()
            report = build(spec, args.db, root=root, force=args.force, resume=args.resume,
                           progress=progress(args.quiet), memory_budget=budget,
                           executor=executor, work_dir=args.work_dir, layout=args.layout,
                           yes=args.yes)
            assert isinstance(report, BuildReport)
            peaks = executor.worker_peaks()
    except ClusterError as e:
        raise UsageError(str(e)) from e
    _print_build(report, spec, args.db)
    print(f"  on a Dask cluster of {len(peaks)} worker{'s' if len(peaks) != 1 else ''}; peak"
          f" memory per worker: {', '.join(mib(p).strip() for p in peaks)}")
    return EXIT_OK


def _print_build(report: BuildReport, spec: Spec, db: str) -> None:
    from tablebase.db.errors import describe

    root = grid_game(spec).table_root(report.root.key)  # its position, as this face prints it
    if root.is_whole:
        print(f"built {spec.name} into {describe(db)}")
    else:
        print(f"built the {spec.name} endgame table from"
              f" {board_text(spec, root.position)} ({root_facts(root)}) into {describe(db)}")
    print(f"  positions: {report.reachable:,} reachable, {report.canonical:,} canonical,"
          f" {report.terminal:,} terminal")
    where = "empty board: x" if root.is_whole else f"root: {PLAYER_NAMES[root.to_move]}"
    print(f"  {where} to move, {outcome_text(report.root_value, report.root_depth)}")
    lookup = {"direct": "direct table by code", "hashed": "hash table per tier",
              "sorted": "sorted arrays"}[report.lookup]
    spilled = f", {report.spilled_runs} sorted runs spilled to disk" if report.spilled_runs else ""
    print(f"  memory budget {size(report.memory_budget)}: {lookup}{spilled}")
    if report.load_seconds >= 0.05:
        print(f"  compiled kernels loaded in {report.load_seconds:.2f} s (once per process)")
    if report.resumed_stage:
        print(f"  resumed an interrupted build at: {report.resumed_stage}")
    print(f"  {'stage':<10}{'seconds':>9}{'peak memory':>14}")
    for name, figures in report.stages.items():
        print(f"  {name:<10}{figures.seconds:>9.2f}{mib(figures.peak_bytes):>14}")
    print(f"  {'total':<10}{report.seconds:>9.2f}")


def _cmd_verify(args: argparse.Namespace) -> int:
    import time

    from tablebase.db.errors import DamagedTableError
    from tablebase.query.shapes import verify_json
    from tablebase.query.verify.checks import verify_table

    if is_keyed_spec(args.spec):
        from tablebase.query.cli import games  # on use: its modules load then
        return games.verify(args)
    spec = parse_spec(args.spec)
    if args.sample is not None:
        raise UsageError("--sample is for a table of ranked tiers (the morris games); a grid"
                         " game's table is verified whole")
    start = time.perf_counter()
    with open_db(args.db) as tb:
        db_name = tb.name
        budget = None if args.memory is None else int(args.memory * (1 << 30))
        report = verify_table(tb, spec, progress=progress(args.quiet or args.json),
                              limit=args.max_problems, root=args.root,
                              memory_budget=budget, thorough=args.thorough)
        try:
            root = tb.record(spec, args.root).root
        except DamagedTableError:  # the report says so; name the table as asked
            root = ""
    table = grid_game(spec).table_root(root)
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps(verify_json(report, table, seconds), indent=2))
        return EXIT_OK if report.ok else EXIT_MISMATCH
    rate = report.positions / seconds * 60 if seconds > 0 else 0.0
    name = spec.name if table.is_whole else (f"the {spec.name} endgame table from"
                                             f" {board_text(spec, table.position)}")
    origin = "the empty board" if table.is_whole else "the root"
    if report.ok:
        print(f"{name} in {db_name}: all {report.positions:,} positions verified"
              f" in {seconds:.1f} s ({rate:,.0f} a minute)")
        endless = " (a draw by endless play: no lost child, not every child won)" \
            if not grid_game(spec).draws_have_depth else ""
        print(f"  every value and depth re-derived from its children and the rules{endless};"
              f" every child stored; every row reachable from {origin}; counts and checksum match")
        return EXIT_OK
    kinds = ", ".join(f"{kind} {n:,}" for kind, n in sorted(report.by_kind.items()))
    problems = f"{report.problems:,} inconsistenc{'y' if report.problems == 1 else 'ies'}"
    print(f"{name} in {db_name}: {problems} in {report.positions:,} positions"
          f" ({kinds})")
    for p in report.first:
        where = "" if p.code is None else f" at ply {p.ply}, code {p.code}"
        print(f"\n  {p.kind}{where}: {p.message}")
        if p.picture:
            print("\n".join("    " + line for line in p.picture.splitlines()))
    return EXIT_MISMATCH


def register(commands: Any) -> None:
    """Add build and verify to the subcommands."""
    p = commands.add_parser("build", help="strongly solve a game and store its table",
                            description="Strongly solve SPEC (e.g. 3x3k3, 4x4k4+gravity,"
                                        " tictactoe) and store every position's value and depth:"
                                        " from the empty board (at most 39 cells), or with"
                                        " --from/--moves an endgame table of everything reachable"
                                        " from that position (at most 39 empty cells).")
    p.add_argument("spec", metavar="SPEC", help="WxHkK[+gravity][+misere][+exact], tictactoe,"
                                                " or a game class: PATH.py:Class")
    p.add_argument("--from", dest="root", metavar="POSITION",
                   help="build the endgame table rooted at this position (board text, as for"
                        " probe)")
    p.add_argument("--moves", metavar="MOVES",
                   help="moves played from --from (or the empty board) to reach the root, e.g."
                        " \"d1 d2 c1\"")
    db_option(p)
    p.add_argument("--force", action="store_true", help="rebuild a game that is already built")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted build from its last finished tier")
    p.add_argument("--memory", type=gib, metavar="GIB",
                   help="peak memory budget in GiB (default: half of this machine's memory)")
    p.add_argument("--workers", type=whole_number(1, "a positive number of workers"), metavar="N",
                   help="build on a local Dask cluster of N worker processes (needs the"
                        " [cluster] extra); a game class: N processes call its moves in a"
                        " large walk of ints")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="build on the existing Dask cluster of this scheduler (its workers need"
                        " this package; give --work-dir)")
    p.add_argument("--work-dir", metavar="PATH",
                   help="put the tier files under PATH (default: next to the database); with"
                        " --scheduler, a directory every worker shares")
    p.add_argument("--layout", choices=LAYOUTS, default=LAYOUT_PACKED,
                   help="how the table is stored: packed (compressed blocks, the default) or"
                        " rows (one SQL row per position, to query in SQL)")
    p.add_argument("--yes", action="store_true",
                   help="start a build estimated past a billion positions or the free disk"
                        " (it is refused otherwise, with the estimate)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(run=_cmd_build)

    p = commands.add_parser("verify", help="check every stored position from scratch",
                            description="Re-derive every stored position of SPEC from its"
                                        " children and the rules, check that every child is"
                                        " stored and every row reachable, and compare the counts"
                                        " and the build-time checksum. Exit 1 on any"
                                        " inconsistency, 0 when clean.")
    p.add_argument("spec", metavar="SPEC", help="the game, e.g. 4x3k3")
    root_option(p)
    db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--thorough", action="store_true",
                   help="check the whole SQLite file with integrity_check (default: the faster"
                        " quick_check)")
    p.add_argument("--max-problems", type=int, default=10, metavar="N",
                   help="show at most N inconsistencies, fewest stones first (default 10)")
    p.add_argument("--memory", type=gib, metavar="GIB",
                   help="peak memory budget in GiB, as for build (default: half of this"
                        " machine's memory); the two largest adjacent tiers must fit")
    p.add_argument("--sample", type=int, metavar="N",
                   help="a table of ranked tiers (the morris games): re-derive N positions of"
                        " each tier, drawn at random, rather than all (every block is still read"
                        " and checked, and the checksum recomputed)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_verify)
