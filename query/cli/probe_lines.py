"""`tablebase probe SPEC -`: positions read from standard input, one a line, each answered on a
line of its own as soon as it is read (with --json a JSON object a line), so that a file of
positions is answered by one process, and another program can ask through a pipe."""
from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from typing import Any

from tablebase.builder.games.errors import GameError
from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.grid.position_text import read_position
from tablebase.builder.games.registry import is_keyed_spec
from tablebase.query.cli.common import EXIT_OK, UsageError, open_db
from tablebase.query.errors import QueryError

# What a line may get wrong: the position (GameError) or its answer (QueryError: no table
# holds it and search is off, say). The database is opened before the first line is read.
_LINE_ERRORS = (GameError, QueryError)


def probe_lines(args: argparse.Namespace, lines: Iterable[str]) -> int:
    """Answer each non-blank line of `lines` as `tablebase probe SPEC LINE` would, a line each
    (text: the position, two spaces, the answer); a line that cannot be answered stops it
    with UsageError naming the line's number, the lines before it answered."""
    if args.moves:
        raise UsageError("--moves is not taken with positions read from standard input (-):"
                         " put the moves on each line after its board")
    if is_keyed_spec(args.spec):
        from tablebase.query.game_shapes import game_probe_json

        with open_db(args.db) as tb:
            answers = tb.game(args.spec)
            name = answers.game.name

            def keyed(text: str) -> Any:
                found = answers.probe(text)
                return game_probe_json(name, found) if args.json \
                    else f"{found.position}  {found}"
            return _each(lines, keyed, args.json)
    from tablebase.query.search.fallback import open_for_answers, probe_or_search
    from tablebase.query.shapes import answer_json

    spec = parse_spec(args.spec)
    with open_for_answers(args.db, searching=args.search is not None) as tables:
        def grid(text: str) -> Any:
            position = read_position(spec, text, None)
            found = probe_or_search(tables, spec, position, args.search)
            return answer_json(spec, position.board, found) if args.json \
                else f"{board_text(spec, position.board)}  {found}"
        return _each(lines, grid, args.json)


def _each(lines: Iterable[str], answer: Callable[[str], Any], as_json: bool) -> int:
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        try:
            found = answer(text)
        except _LINE_ERRORS as e:
            raise UsageError(f"line {number}: {e}") from e
        print(json.dumps(found) if as_json else found, flush=True)
    return EXIT_OK
