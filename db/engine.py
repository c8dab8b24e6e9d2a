"""Opening a database: a file path or any SQLAlchemy URL, read-write for builds, read-only for
queries."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine, event, inspect, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from tablebase.db.errors import (
    DamagedTableError,
    DatabaseError,
    MissingDatabaseError,
    NotATablebaseError,
    describe,
    sounds_damaged,
)
from tablebase.db.facts import (
    DEFAULT_CACHE_BYTES,
    READABLE_VERSIONS,
    SCHEMA_VERSION,
    SQLITE_PAGE_SIZE,
)
from tablebase.db.postgres import missing_driver, normalise_url
from tablebase.db.schema import meta, metadata


def database_url(target: str) -> str:
    """A SQLAlchemy URL for `target`: a URL is kept as it is (a PostgreSQL one naming no driver
    gets psycopg 3, the driver of the postgres extra), anything else is a SQLite file path."""
    if "://" in target:
        return normalise_url(target)
    return "sqlite:///" + os.path.abspath(target)


def _sqlite_path(url: str) -> str | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    return parsed.database or ":memory:"


def database_file(target: str) -> str | None:
    """The file a SQLite database `target` (a path or a URL) lives in; None for a server's
    database or one in memory."""
    path = _sqlite_path(database_url(target))
    return None if path in (None, ":memory:", "") else path


def _install_sqlite_pragmas(engine: Engine, writable: bool, cache_bytes: int) -> None:
    # pysqlite opens transactions lazily and not before DDL; take control so that
    # "create table + update game row + drop old table" commits as one unit.
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 30000")
        cursor.execute("PRAGMA foreign_keys = ON")
        if writable:
            cursor.execute("PRAGMA synchronous = NORMAL")
            # Negative: KiB. The cache also holds the pages a forced rebuild frees, so it is
            # the writer's share of the memory budget, not a fixed size.
            cursor.execute(f"PRAGMA cache_size = -{max(cache_bytes >> 10, 2048)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:  # type: ignore[no-untyped-def]
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writable else "BEGIN")


def open_engine(target: str, *, writable: bool, cache_bytes: int = DEFAULT_CACHE_BYTES) -> Engine:
    """An engine on `target`; a writable one creates the schema, a read-only one checks it."""
    url = database_url(target)
    name = describe(target)
    path = None
    try:
        path = _sqlite_path(url)
    except ArgumentError as e:
        raise DatabaseError(f"{name}: not a database URL ({e})") from e
    if path is not None and path != ":memory:":
        if not writable and not os.path.exists(path):
            raise MissingDatabaseError(f"{name}: no such database file")
        if os.path.isdir(path):
            raise DatabaseError(f"{name}: is a directory, not a database file")
        folder = os.path.dirname(os.path.abspath(path))
        if writable and not os.path.isdir(folder):
            raise DatabaseError(f"{name}: its folder does not exist")
        if writable:
            _check_writable(name, path, folder)
        if not writable:
            url = f"sqlite:///file:{path}?mode=ro&uri=true"
    try:
        engine = create_engine(url)
    except ImportError as e:
        raise DatabaseError(f"{name}: {missing_driver(url, e) or f'cannot open ({error_reason(e)})'}"
                            ) from e
    except (ArgumentError, SQLAlchemyError) as e:
        raise open_error(name, e) from e
    if path is not None:
        _install_sqlite_pragmas(engine, writable, cache_bytes)
    try:
        if writable:
            _create_schema(engine, name)
        else:
            check_schema(engine, name)
    except SQLAlchemyError as e:
        engine.dispose()
        raise open_error(name, e) from e
    except UnicodeDecodeError as e:  # a schema version that is not text: a damaged file
        engine.dispose()
        raise open_error(name, e) from e
    except DatabaseError:
        engine.dispose()
        raise
    return engine


def _check_writable(name: str, path: str, folder: str) -> None:
    """Refuse, before anything is written, a build into a file or folder it cannot write: SQLite
    writes the file, and its journal and the build's work directory beside it."""
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise DatabaseError(f"{name}: the file is read-only, and a build writes into it; make it"
                            " writable or build into another --db")
    if not os.access(folder, os.W_OK):
        raise DatabaseError(f"{name}: its folder {folder} is read-only, and a build writes the"
                            " database's journal and work directory there; build into another"
                            " --db")


@contextmanager
def open_database(target: str, *, writable: bool = False,
                  cache_bytes: int = DEFAULT_CACHE_BYTES) -> Iterator[Engine]:
    """Context manager around `open_engine` that disposes of the engine afterwards."""
    engine = open_engine(target, writable=writable, cache_bytes=cache_bytes)
    try:
        yield engine
    finally:
        if writable and engine.dialect.name == "sqlite":
            _leave_wal(engine)
        engine.dispose()


def _leave_wal(engine: Engine) -> None:
    """Return a SQLite file to rollback-journal mode once its writer is done.

    WAL lets readers read while a build writes, but a read-only reader of a WAL file leaves
    -wal and -shm files behind; a finished database should be one file that reads touch
    not at all. If another connection is busy with the file, it stays in WAL mode.
    """
    raw = engine.raw_connection()
    try:
        raw.cursor().execute("PRAGMA busy_timeout = 0")
        raw.cursor().execute("PRAGMA journal_mode = DELETE")
    except Exception:  # noqa: BLE001 - busy or locked: staying in WAL mode is harmless
        pass
    finally:
        raw.close()


def _create_schema(engine: Engine, name: str) -> None:
    if engine.dialect.name == "sqlite":
        try:
            _size_pages(engine)
        except engine.dialect.loaded_dbapi.Error as e:  # raised before SQLAlchemy wraps it
            raise open_error(name, e) from e
    with engine.begin() as conn:
        tables = set(inspect(conn).get_table_names())
        if tables and "games" not in tables:
            raise NotATablebaseError(f"{name}: holds other tables and is not a tablebase database")
        if "games" in tables:
            _check_version(conn, name, writable=True)
        else:
            metadata.create_all(conn)
            conn.execute(meta.insert().values(key="schema_version", value=str(SCHEMA_VERSION)))
    if engine.dialect.name == "sqlite":
        # Readers keep reading while a build writes. WAL is a property of the file, so it is
        # set once here, after the file is known to be ours (it rewrites the file header).
        raw = engine.raw_connection()  # outside any transaction, as the pragma requires
        try:
            raw.cursor().execute("PRAGMA journal_mode = WAL")
        finally:
            raw.close()


def _size_pages(engine: Engine) -> None:
    """Give a new, empty SQLite file pages of SQLITE_PAGE_SIZE: a packed table's blocks waste
    half a page each on average, which 4 KiB pages make a fifth of a small table."""
    raw = engine.raw_connection()  # outside any transaction, as VACUUM requires
    try:
        cursor = raw.cursor()
        if cursor.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
            cursor.execute(f"PRAGMA page_size = {SQLITE_PAGE_SIZE}")
            cursor.execute("VACUUM")  # writes the empty file with its new page size
    finally:
        raw.close()


def check_schema(engine: Engine, name: str) -> int:
    """The database's schema version; NotATablebaseError unless it holds our schema in a
    version this tool reads."""
    with engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        ours = {"games", "tablebase_meta"} & tables
        if len(ours) == 1:  # a tablebase file always has both
            raise DamagedTableError(f"{name}: the database file is damaged or unreadable (no"
                                    f" {({'games', 'tablebase_meta'} - ours).pop()} table)")
        if not ours:
            raise NotATablebaseError(f"{name}: not a tablebase database (no games table)")
        return _check_version(conn, name, writable=False)


def _check_version(conn, name: str, *, writable: bool) -> int:  # type: ignore[no-untyped-def]
    found = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).scalar()
    try:
        version = int(found)
    except (TypeError, ValueError):
        raise DamagedTableError(f"{name}: the database file is damaged or unreadable (no readable"
                                f" schema version: {found!r:.40})") from None
    if version > SCHEMA_VERSION:
        raise NotATablebaseError(
            f"{name}: written with schema version {version}, newer than this tool's"
            f" {SCHEMA_VERSION}; upgrade tablebase")
    if version not in READABLE_VERSIONS:
        raise NotATablebaseError(
            f"{name}: schema version {version} is older than {SCHEMA_VERSION}; rebuild the games")
    if writable and version != SCHEMA_VERSION:
        raise NotATablebaseError(
            f"{name}: written by an older tablebase (schema version {version}); it still"
            " answers as it is, but new tables go into a new database file (--db NEW.db)")
    return version


def open_error(name: str, error: BaseException) -> DatabaseError:
    """The error for a database that cannot be opened or read: DamagedTableError when the
    driver says the file is damaged, DatabaseError naming the reason otherwise."""
    reason = error_reason(error)
    if sounds_damaged(reason) or isinstance(error, UnicodeDecodeError):
        return DamagedTableError(f"{name}: the database file is damaged or unreadable ({reason})",
                                 reason)
    return DatabaseError(f"{name}: {reason}")


def error_reason(error: BaseException) -> str:
    """The driver's own message, on one line, without SQLAlchemy's boilerplate."""
    original = getattr(error, "orig", None) or error
    return " ".join(str(original).split())[:200]


