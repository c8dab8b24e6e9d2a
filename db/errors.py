"""Errors of the storage layer and how their messages name a database; SQLAlchemy's own errors
are wrapped here and nowhere else."""
from __future__ import annotations

# What SQLite (and its Python driver) says about a damaged file, lower-cased: in a file of our
# schema, a column or table of its own that SQLite cannot find is damage too (a table a
# concurrent rebuild dropped is caught before this, and read again: query/tablebase.py).
_DAMAGE_WORDS = ("malformed", "not a database", "disk i/o error", "could not decode",
                 "corrupt", "encrypted", "unsupported file format", "no such column",
                 "no such table", "datatype mismatch", "too big")


def sounds_damaged(message: str) -> bool:
    """Whether a driver's message says the file itself is damaged or unreadable."""
    lowered = message.lower()
    return any(word in lowered for word in _DAMAGE_WORDS)


def read_failure(what: str, reason: str, damaged: bool = False) -> DatabaseError:
    """The error for a failed read of `what` (`reason`: the driver's words, on one line):
    DamagedTableError where the file is damaged (`damaged`, or the words say so)."""
    if damaged or sounds_damaged(reason):
        return DamagedTableError(f"cannot read {what}: the database file is damaged ({reason});"
                                 " run `tablebase verify` on it", reason)
    return DatabaseError(f"cannot read {what}: {reason}")


def describe(target: str) -> str:
    """How to name the database in messages: the path for files, the URL without password
    otherwise (SQLAlchemy, which reads the URL, is imported only for a URL)."""
    if "://" not in target:
        return target
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(target).render_as_string(hide_password=True)
    except ArgumentError:
        return target


class StorageError(Exception):
    """Root of the errors db/ raises."""


class DatabaseError(StorageError):
    """The database cannot be opened, read or written (names the database and the reason)."""


class MissingDatabaseError(DatabaseError):
    """No database file where one was named (a query never creates one)."""


class NotATablebaseError(DatabaseError):
    """The file or URL holds a database, but not one of ours (or one from a newer schema)."""


class GameNotBuiltError(StorageError, LookupError):
    """The database holds no complete table for the requested game."""


class GameExistsError(StorageError):
    """A complete table for the game exists and the build was not forced."""


class DamagedTableError(DatabaseError):
    """A read found the database damaged: a stored block that fails its checks, a catalogue
    row that does not match its check, or a file SQLite finds malformed (the message names
    the table or the file; `reason` says what is wrong, in a few words)."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message
