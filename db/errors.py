"""Errors of the storage layer; SQLAlchemy's own errors are wrapped here and nowhere else."""
from __future__ import annotations


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
    """A stored block fails its checks: the file is damaged (names the table and the block;
    `reason` says what is wrong, in a few words)."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message
