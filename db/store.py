"""THE way to open stored tables: `open_store` gives the `Store` (the catalogue of one
database, opened read-only), which hands out a `TableReader` for each complete table; both
protocols, and the base of their implementations, are in db/store_base.py.

Two implementations sit behind these protocols: a local SQLite file read on the standard
library's sqlite3 driver (db/sqlite_direct.py: importing SQLAlchemy costs a third of a second,
half of a `tablebase probe`), and any SQLAlchemy URL (db/reader.py). `open_store` picks one.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from tablebase.db.errors import DamagedTableError, GameNotBuiltError, MissingDatabaseError
from tablebase.db.records import STATUS_BUILDING, STATUS_COMPLETE, GameRecord

if TYPE_CHECKING:
    from tablebase.db.store_base import Store


def open_store(target: str) -> Store:
    """The database `target` (a SQLite file path or a SQLAlchemy URL) opened read-only; raises
    DatabaseError (MissingDatabaseError, NotATablebaseError) naming it when it cannot be."""
    if "://" not in target and not os.path.exists(target):  # said without SQLAlchemy, too
        raise MissingDatabaseError(f"{target}: no such database file")
    # Imported here: a command that searches where no database exists does not load the readers.
    from tablebase.db.sqlite_direct import SqliteStore
    store = SqliteStore.open(target)
    if store is not None:
        return store
    # Not a readable file of ours in this schema: db.engine opens it or says exactly why not.
    # Imported here: db/reader.py loads SQLAlchemy, a third of a second a plain file never needs.
    from tablebase.db.reader import UrlStore
    return UrlStore.open(target)


def complete_tables(store: Store, spec: str) -> list[GameRecord]:
    """The complete tables of `spec`; GameNotBuiltError saying why when there are none, unless
    the catalogue is damaged (a row whose name or status a damaged file changed would hide its
    table): then DamagedTableError."""
    games = store.games(spec)
    done = [g for g in games if g.complete]
    if done:
        return done
    for game in store.games():
        if game.status not in (STATUS_BUILDING, STATUS_COMPLETE):
            raise DamagedTableError(f"{store.name}: the catalogue is damaged (a table's status"
                                    f" reads {game.status!r:.30}); run `tablebase verify`")
        if game.complete:
            store.check(game)
    if games:
        raise GameNotBuiltError(f"{spec} has no complete table here (its last build did not"
                                " finish)")
    raise GameNotBuiltError(f"{spec} has not been built in this database")
