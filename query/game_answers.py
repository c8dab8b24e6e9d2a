"""Answers about a game given as a class (docs/games.md), from its tables of the keyed layout
(db/keyed.py): a position's value and depth, every move's, a perfect line. Positions are
looked up by their key (the smallest text of their orbit), in the table from the game's start
first, then in the tables from other starts. Values are for the side to move; a move's is for
the player making it.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Callable, Hashable, Iterator
from typing import NamedTuple, TextIO

import numpy as np

from tablebase.builder.games.protocol import Game
from tablebase.builder.games.ranked_tiers import HOLE, RankedGame, score_outcome
from tablebase.builder.games.values import Value
from tablebase.db.errors import DatabaseError
from tablebase.db.facts import TIERED_LAYOUTS
from tablebase.db.keyed import KeyedReader
from tablebase.db.records import GameRecord, PlyCounts
from tablebase.db.store import complete_tables
from tablebase.db.store_base import Store
from tablebase.db.tiered import TieredReader, tier_order
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

    def tier_counts(self, record: GameRecord) -> list[tuple[str, PlyCounts]] | None:
        """The counts of a tiered table (`record`, one of `tables`), a row a tier named by the
        game's tiers, in the order the game solves them (the fewest stones first); none where
        the table keeps none (built before they were kept); None where it is not tiered (its
        counts are by ply). DatabaseError where its rows and the game's tiers disagree in
        number."""
        if record.layout not in TIERED_LAYOUTS:
            return None
        rows = self._store.plies(record)
        if not rows:
            return []
        tiers = tiers_of(self.game).ranked_tiers()
        names = sorted((t.name for t in tiers), key=tier_order)
        if [p.ply for p in rows] != list(range(len(names))):
            raise DatabaseError(f"{self.game.name}: its table counts {len(rows)} tiers, the"
                                f" game has {len(names)}; rebuild the table with --force")
        by_name = dict(zip(names, rows))
        return [(t.name, by_name[t.name]) for t in tiers]

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

    def lookup_positions(self, positions: list[Hashable]) -> list[tuple[int, int, int] | None]:
        """(value, depth, ply) of each position (the class's own) from the first table that
        holds it, or None (depth -1: a draw by endless play; ply -1: a table that keeps
        none): read in one snapshot of the game's tables, following a table that a `build
        --force` swapped in since they were opened (a reader sees the old table or the new
        one, never what it kept of an old one after it was replaced)."""
        return read_following_swaps(self._tables, _readers, self._swapped,
                                    lambda opened: _first_hits(self.game, _readers(opened),
                                                               positions))

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
        found = self.lookup_positions([position])[0]
        if found is None:
            raise self._missing(position)
        value, depth, ply = found
        return GameProbe(self.game.text(position), _VALUES[value],
                         None if depth < 0 else depth, depth == 0, None if ply < 0 else ply)

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
        found = self.lookup_positions([child for _, child in pairs])
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
    for block in stored_rows(game, reader):
        texts = block.texts(game)
        words = [_VALUES[v].word for v in block.value.tolist()]
        depths = [None if d < 0 else d for d in block.depth.tolist()]
        plies = [None if p < 0 else p for p in block.ply.tolist()]
        if rows is not None:
            rows.writerows(zip(texts, plies, words, ["" if d is None else d for d in depths]))
        else:
            out.write("".join(json.dumps({"position": t, "ply": p, "value": v, "depth": d}) + "\n"
                              for t, p, v, d in zip(texts, plies, words, depths)))
        written += len(texts)
        if progress is not None:
            progress(len(texts))
    return written


class StoredRows(NamedTuple):
    """A block of a table's stored positions: by key (a keyed table) or as positions (a
    tiered one); ply -1 where the table keeps none, depth -1 a draw by endless play."""

    keys: list[str]
    positions: list[Hashable] | None
    ply: np.ndarray
    value: np.ndarray
    depth: np.ndarray

    def texts(self, game: Game) -> list[str]:
        """The positions' texts, as the game writes them."""
        if self.positions is None:
            return [game.text(game.position_of(key)) for key in self.keys]
        return [game.text(p) for p in self.positions]


def tiers_of(game: Game) -> RankedGame:
    """The ranked tiers a tiered table of `game` is stored by: DatabaseError where the game
    gives none (a class other than the one that built the table)."""
    tiers = game.tiers()
    if tiers is None:
        raise DatabaseError(f"{game.name}: its table is stored by ranked tiers, which this game"
                            " does not give (its class has no ranked())")
    return tiers


def stored_rows(game: Game, reader: KeyedReader) -> Iterator[StoredRows]:
    """Every stored position of a table, a block at a time: a keyed table's in key order, a
    tiered table's tier by tier in index order (copies left out; no ply: -1)."""
    if not isinstance(reader, TieredReader):
        for block in reader.chunks():
            yield StoredRows(block.keys, None, block.ply, block.value, block.depth)
        return
    tiers = tiers_of(game)
    for rows in reader.tier_chunks():
        found = [(i, tiers.position(rows.tier, rows.first + i))
                 for i in np.flatnonzero(rows.scores != HOLE).tolist()]
        kept = [i for i, p in found if p is not None]
        outcomes = [score_outcome(s) for s in rows.scores[kept].tolist()]
        yield StoredRows([], [p for _, p in found if p is not None],
                    np.full(len(kept), -1), np.array([v for v, _ in outcomes], np.int8),
                    np.array([-1 if d is None else d for _, d in outcomes], np.int64))


def _readers(opened: list[tuple[GameRecord, KeyedReader]]) -> list[KeyedReader]:
    return [reader for _, reader in opened]


def _first_hits(game: Game, readers: list[KeyedReader], positions: list[Hashable]
                ) -> list[tuple[int, int, int] | None]:
    """(value, depth, ply) of each position from the first of `readers` that holds it, or
    None."""
    out: list[tuple[int, int, int] | None] = [None] * len(positions)
    for reader in readers:
        left = [i for i, hit in enumerate(out) if hit is None]
        if not left:
            break
        if isinstance(reader, TieredReader):
            for i, hit in zip(left, _tiered_hits(game, reader, [positions[i] for i in left])):
                out[i] = hit
            continue
        found = reader.lookup([game.key(positions[i]) for i in left])
        for j, i in enumerate(left):
            if found.found[j]:
                out[i] = (int(found.value[j]), int(found.depth[j]), int(found.ply[j]))
    return out


def _tiered_hits(game: Game, reader: TieredReader, positions: list[Hashable]
                 ) -> list[tuple[int, int, int] | None]:
    """`_first_hits` from a table of ranked tiers (db/tiered.py): each position where its
    game's tiers place it; one no tier holds is over by the game's outcome (depth 0)."""
    tiers = tiers_of(game)
    out: list[tuple[int, int, int] | None] = [None] * len(positions)
    placed: list[tuple[int, str, int]] = []
    for i, position in enumerate(positions):
        try:
            placed.append((i, *tiers.locate(position)))
        except ValueError:
            over = game.outcome(position)
            if over is not None:
                out[i] = (over, 0, -1)
    scores = reader.scores([t for _, t, _ in placed], [x for _, _, x in placed])
    for (i, _, _), score in zip(placed, scores.tolist()):
        value, depth = score_outcome(score)
        out[i] = (value, -1 if depth is None else depth, -1)
    return out


def _order(value: int, depth: int | None) -> tuple[int, int]:
    """A move's place, best first, from its value for the mover and the depth after it."""
    if value > 0:
        return 0, depth or 0
    if value == 0:
        return (1, depth) if depth is not None else (2, 0)
    return 3, -(depth or 0)
