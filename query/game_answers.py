"""Answers about a game given as a class (docs/games.md), from its tables of the keyed layout
(db/keyed.py): a position's value and depth, every move's, a perfect line. Positions are
looked up by their key (the smallest text of their orbit), in the table from the game's start
first, then in the tables from other starts. Values are for the side to move; a move's is for
the player making it.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Callable, Hashable
from typing import TextIO

from tablebase.builder.games.protocol import Game
from tablebase.builder.games.values import Value
from tablebase.db.keyed import KeyedReader
from tablebase.db.records import GameRecord
from tablebase.db.store import complete_tables
from tablebase.db.store_base import Store
from tablebase.query.answer_records import GameMove, GameProbe
from tablebase.query.errors import MissingPositionError, MissingTableError
from tablebase.query.swaps import read_following_swaps

_VALUES = {-1: Value.LOSS, 0: Value.DRAW, 1: Value.WIN}


class GameAnswers:
    """The answers of one game given as a class, from the complete tables of a store."""

    def __init__(self, game: Game, store: Store) -> None:
        self.game = game
        self._store = store
        # Each complete table's record and reader, read once: a record beside its own reader.
        self._opened: list[tuple[GameRecord, KeyedReader]] | None = None

    def _tables(self) -> list[tuple[GameRecord, KeyedReader]]:
        if self._opened is None:
            records = sorted(complete_tables(self._store, self.game.name), key=lambda g: g.root)
            # keyed() checks each record's row against its digest before reading it.
            self._opened = [(g, self._store.keyed(g)) for g in records]
        return self._opened

    def tables(self) -> list[GameRecord]:
        """The catalogue records of the game's complete tables (GameNotBuiltError where there
        are none), each checked: from its start first, then from other starts."""
        return [record for record, _ in self._tables()]

    def readers(self) -> list[KeyedReader]:
        """The readers of the game's complete tables, in the order of `tables`."""
        return _readers(self._tables())

    def close(self) -> None:
        """Release the tables' readers."""
        for _, reader in self._opened or []:
            reader.close()
        self._opened = None

    def position(self, text: str | None) -> Hashable:
        """The position `text` names (read by the class), or the game's start for None."""
        return self.game.start() if text is None else self.game.read(text)

    def table_from(self, root: str | None) -> tuple[GameRecord, KeyedReader]:
        """The record and reader of the table from the game's start (None) or from the
        position the text `root` names; MissingTableError where there is none."""
        wanted = "" if root is None else self.game.root_key(self.game.read(root))
        for record, reader in self._tables():
            if record.root == wanted:
                return record, reader
        where = "its start" if root is None else repr(root)[:80]
        raise MissingTableError(f"{self.game.name} has no table from {where} (`tablebase info"
                                " SPEC` lists its tables)")

    def _lookup(self, keys: list[str]) -> list[tuple[int, int, int] | None]:
        """(value, depth, ply) of each key from the first table that holds it, or None: read
        in one snapshot of the game's tables, following a table that a `build --force`
        swapped in since they were opened (a reader sees the old table or the new one, never
        what it kept of an old one after it was replaced)."""
        return read_following_swaps(self._tables, _readers, self._swapped,
                                    lambda opened: _first_hits(_readers(opened), keys))

    def _swapped(self, opened: list[tuple[GameRecord, KeyedReader]]) -> bool:
        """Forget the opened tables; whether the game now has different ones (raises
        GameNotBuiltError if it lost its complete tables meanwhile)."""
        self.close()
        return [r.table for _, r in self._tables()] != [r.table for _, r in opened]

    def _missing(self, position: Hashable) -> MissingPositionError:
        return MissingPositionError(
            f"{self.game.name}: no table holds {self.game.text(position)!r:.80}: play from the"
            " start of any stored table never reaches it")

    def probe(self, text: str | None) -> GameProbe:
        """Value and depth of the position `text` names (None: the start; MissingPositionError
        where no table holds it)."""
        return self.probe_position(self.position(text))

    def probe_position(self, position: Hashable) -> GameProbe:
        """`probe` of a position as the class holds it."""
        found = self._lookup([self.game.key(position)])[0]
        if found is None:
            raise self._missing(position)
        value, depth, ply = found
        return GameProbe(self.game.text(position), _VALUES[value],
                         None if depth < 0 else depth, depth == 0, ply)

    def moves(self, text: str | None) -> tuple[GameProbe, list[GameMove]]:
        """The probe of the position `text` names and every move, best first (wins fastest
        first, then draws nearest the end first, those by endless play last, then losses
        slowest first; ties in the class's order). A move's value is for the player making it."""
        return self.moves_of(self.position(text))

    def moves_of(self, position: Hashable) -> tuple[GameProbe, list[GameMove]]:
        """`moves` of a position as the class holds it."""
        probe, scored = self.scored_moves(position)
        return probe, [m for m, _ in scored]

    def scored_moves(self, position: Hashable
                     ) -> tuple[GameProbe, list[tuple[GameMove, Hashable]]]:
        """`moves_of`, each move beside the position it leads to as the class holds it."""
        probe = self.probe_position(position)
        if probe.terminal:
            return probe, []
        pairs = self.game.moves(position)
        found = self._lookup([self.game.key(child) for _, child in pairs])
        scored = []
        for i, ((name, child), hit) in enumerate(zip(pairs, found)):
            if hit is None:
                raise self._missing(child)
            value, depth = -hit[0], None if hit[1] < 0 else hit[1]
            best = value == probe.value and depth == (
                None if probe.depth is None else probe.depth - 1)
            scored.append((_order(value, depth), i, GameMove(
                name, _VALUES[value], depth, best, self.game.text(child)), child))
        scored.sort(key=lambda s: (s[0], s[1]))
        return probe, [(m, child) for _, _, m, child in scored]

    def line(self, text: str | None) -> tuple[GameProbe, list[GameMove], bool]:
        """The probe of the position `text` names, a perfect line from it (the first best move
        at each step), and whether the line stops because a position came back (a draw by
        endless play)."""
        position = self.position(text)
        probe, moves = self.moves_of(position)
        seen = {self.game.key(position)}
        line: list[GameMove] = []
        while moves:
            move = next(m for m in moves if m.best)
            line.append(move)
            position = self.game.read(move.position)
            key = self.game.key(position)
            if key in seen:
                return probe, line, True
            seen.add(key)
            moves = self.moves_of(position)[1]
        return probe, line, False


def export_game(answers: GameAnswers, out: TextIO, fmt: str = "csv",
                root: str | None = None, progress: Callable[[int], None] | None = None) -> int:
    """Write every stored position of a game class's table (from its start, or from the
    position `root` names) to `out` as CSV (a header row) or JSON Lines, in key order, with the
    columns position (the class's text), ply, value (for the side to move) and depth (empty or
    null for a draw by endless play); return how many rows were written."""
    if fmt not in ("csv", "jsonl"):
        raise ValueError(f"unknown export format {fmt!r}; known formats: csv, jsonl")
    game = answers.game
    reader = answers.table_from(root)[1]
    rows = csv.writer(out, lineterminator="\n") if fmt == "csv" else None
    if rows is not None:
        rows.writerow(("position", "ply", "value", "depth"))
    written = 0
    for block in reader.chunks():
        texts = [game.text(game.position_of(key)) for key in block.keys]
        words = [_VALUES[v].word for v in block.value.tolist()]
        depths = [None if d < 0 else d for d in block.depth.tolist()]
        plies = block.ply.tolist()
        if rows is not None:
            rows.writerows(zip(texts, plies, words, ["" if d is None else d for d in depths]))
        else:
            out.write("".join(json.dumps({"position": t, "ply": p, "value": v, "depth": d}) + "\n"
                              for t, p, v, d in zip(texts, plies, words, depths)))
        written += len(texts)
        if progress is not None:
            progress(len(texts))
    return written


def _readers(opened: list[tuple[GameRecord, KeyedReader]]) -> list[KeyedReader]:
    return [reader for _, reader in opened]


def _first_hits(readers: list[KeyedReader], keys: list[str]
                ) -> list[tuple[int, int, int] | None]:
    """(value, depth, ply) of each key from the first of `readers` that holds it, or None."""
    out: list[tuple[int, int, int] | None] = [None] * len(keys)
    for reader in readers:
        left = [i for i, hit in enumerate(out) if hit is None]
        if not left:
            break
        found = reader.lookup([keys[i] for i in left])
        for j, i in enumerate(left):
            if found.found[j]:
                out[i] = (int(found.value[j]), int(found.depth[j]), int(found.ply[j]))
    return out


def _order(value: int, depth: int | None) -> tuple[int, int]:
    """A move's place, best first, from its value for the mover and the depth after it."""
    if value > 0:
        return 0, depth or 0
    if value == 0:
        return (1, depth) if depth is not None else (2, 0)
    return 3, -(depth or 0)
