"""Engines, sessions and migrations for SQLite (default) and PostgreSQL, behind one URL."""

from __future__ import annotations

import ast
import functools
import logging
import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, Engine, MetaData, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from assay.config import default_database_url
from assay.errors import SettingsError

if TYPE_CHECKING:  # Alembic (and Mako, Pygments) is imported only to migrate or to date an old schema
    from alembic.config import Config

logger = logging.getLogger(__name__)
T = TypeVar("T")
MIGRATIONS = Path(__file__).with_name("migrations")
BUSY_RETRY_ATTEMPTS = 12
"""Tries of a busy write: with the busy timeout before each, about two minutes in all."""
_ACCEPTED = "use sqlite:///path/to/assay.db or postgresql://user:password@host:5432/database"
SQLITE_BUSY_TIMEOUT_MS = 5000
_MIGRATION_LOCK = 0x61737361  # "assa": the advisory lock held while migrating a PostgreSQL database

# Named constraints, so that migrations can refer to them on every database.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Base of every ORM table of Assay."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def normalize_url(url: str | URL) -> URL:
    """``url`` with PostgreSQL pointed at the psycopg 3 driver whatever spelling was given.

    A URL that does not parse, or names another database than SQLite or PostgreSQL, is a
    :class:`SettingsError` that says what is accepted.
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise SettingsError(f"ASSAY_DATABASE_URL is not a database URL; {_ACCEPTED}") from None
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql", "postgres"):
        raise SettingsError(f"ASSAY_DATABASE_URL names an unsupported database '{backend}'; {_ACCEPTED}")
    if backend != "sqlite" and parsed.drivername != "postgresql+psycopg":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def check_database(url: str | URL) -> None:
    """Connect once to the database at ``url``; a :class:`SettingsError` saying why when that fails."""
    engine = create_db_engine(url)
    try:
        with engine.connect() as connection:
            if engine.url.get_backend_name() == "sqlite":
                _check_sqlite_file(engine.url)
                # A write lock taken and given back: a file SQLite opens but cannot write (/dev/null, a
                # read-only file) fails here, not in the migration.
                connection.exec_driver_sql("BEGIN IMMEDIATE")
                connection.exec_driver_sql("ROLLBACK")
    except DBAPIError as exc:
        where = engine.url.render_as_string(hide_password=True)
        cause = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else type(exc).__name__
        fix = "fix ASSAY_DATABASE_URL"
        if engine.url.get_backend_name() != "sqlite":
            fix = f"start PostgreSQL there (and create the database), or {fix}"
        raise SettingsError(f"cannot connect to the database at {where}: {cause}; {fix}") from None
    finally:
        engine.dispose()


def _check_sqlite_file(url: URL) -> None:
    database = url.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database).expanduser()
    if path.exists() and not path.is_file():
        raise SettingsError(
            f"ASSAY_DATABASE_URL: {path} is not a regular file; name a SQLite database file "
            "(it is made if missing)"
        )


def _set_sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers and one writer work at once; the busy timeout waits for a lock instead of
    # failing with "database is locked"; SQLite leaves foreign keys off unless asked on each connection.
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def create_db_engine(url: str | URL) -> Engine:
    """An engine for ``url``; for a SQLite file at the default location, its folder is created first (any
    other folder must exist: :class:`SettingsError`).

    SQL parameters never appear in logs or error messages (``hide_parameters``): they hold agent answers
    and target specs, whose headers may carry secrets.
    """
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:" and not parsed.database.startswith("file:"):
            folder = Path(parsed.database).expanduser().parent
            if (
                not folder.is_dir()
                and folder != Path(normalize_url(default_database_url()).database or "").parent
            ):
                # Only the default location's folder is made: a folder named in ASSAY_DATABASE_URL that is
                # not there is more likely a typo than a wish for new folders (made silently, as root).
                raise SettingsError(
                    f"ASSAY_DATABASE_URL: the folder {folder} of the SQLite database does not exist; create "
                    "it, or fix the URL"
                )
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                message = f"ASSAY_DATABASE_URL: cannot create the folder {folder} of the SQLite database"
                raise SettingsError(f"{message}: {exc.strerror}") from None
        engine = create_engine(
            parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, hide_parameters=True
        )
        event.listen(engine, "connect", _set_sqlite_pragmas)
        return engine
    return create_engine(parsed, pool_pre_ping=True, hide_parameters=True)


class LoggedDatabaseError(Exception):
    """A database error as it may be logged: what failed, without the values involved."""


def loggable(exc: BaseException) -> BaseException:
    """``exc`` fit for a log: a database error keeps its traceback and loses the values it carries.

    ``hide_parameters`` keeps SQL parameters out of SQLAlchemy's message, but PostgreSQL still sends the
    failing row in its DETAIL ("Failing row contains (...)"), and a row may hold an agent's answer or a
    target's headers. Other exceptions are returned as they are.
    """
    if not isinstance(exc, DBAPIError):
        return exc
    original = exc.orig
    diagnostic = getattr(original, "diag", None)
    primary = getattr(diagnostic, "message_primary", None)
    if primary is None and type(original).__module__.startswith("sqlite3"):
        primary = str(original)  # SQLite names the constraint, never the values
    summary = f"{type(original).__name__}: {primary}" if primary else type(original).__name__
    safe = LoggedDatabaseError(f"{summary} [statement: {exc.statement}]")
    safe.__suppress_context__ = True
    return safe.with_traceback(exc.__traceback__)


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite saying another writer held the database past the busy timeout."""
    return isinstance(exc, OperationalError) and any(
        words in str(exc.orig) for words in ("database is locked", "database is busy")
    )


def is_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says that PostgreSQL cannot be reached (down, restarting, connection lost) or that no
    connection came free in time: a state to retry later, not a fault of the request."""
    if isinstance(exc, SQLAlchemyTimeoutError):
        return True
    if not isinstance(exc, DBAPIError) or exc.orig is None:
        return False
    module = type(exc.orig).__module__
    return exc.connection_invalidated or (
        module.startswith("psycopg") and isinstance(exc, OperationalError) and not is_busy(exc)
    )


def retry_when_busy(
    write: Callable[[], T], *, what: str, attempts: int = BUSY_RETRY_ATTEMPTS, pause_s: float = 0.5
) -> T:
    """``write()``, tried again while SQLite is busy (each try already waits the busy timeout).

    A long import or another process's transaction must delay an evaluation's writes, not lose them. Each
    retry is logged; after ``attempts`` tries the busy error is raised.
    """
    for attempt in range(1, attempts + 1):
        try:
            return write()
        except OperationalError as exc:
            if not is_busy(exc) or attempt == attempts:
                raise
            logger.warning("%s: the database is busy (try %d of %d); trying again", what, attempt, attempts)
            time.sleep(pause_s * attempt)
    raise AssertionError("unreachable")


def is_assay_name(name: str | None, type_: str, parent_names: Any) -> bool:
    """Whether a database object is Assay's to migrate: procrastinate's queue tables (PostgreSQL) are not
    (their schema comes whole with a migration, not from Assay's models). An Alembic ``include_name``."""
    return not (type_ == "table" and name is not None and name.startswith("procrastinate_"))


def _alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@functools.cache
def head_revisions() -> frozenset[str]:
    """The newest revisions of the migrations shipped with this package: those no other one revises.

    Read from each file's ``revision`` and ``down_revision`` literals rather than by Alembic, whose import
    (with Mako and Pygments) costs a start of ``assay serve`` more than the check it serves; a unit test
    holds it equal to Alembic's heads. Read once per process.
    """
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        for statement in ast.parse(path.read_text(encoding="utf-8")).body:
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
                continue
            name = getattr(statement.targets[0], "id", None)
            if name not in ("revision", "down_revision"):
                continue
            value = ast.literal_eval(statement.value)  # a name, None, or a tuple of names (a merge)
            named = {value} if isinstance(value, str) else set(value or ())
            (revisions if name == "revision" else revised).update(named)
    return frozenset(revisions - revised)


def _current_revisions(connection: Connection) -> frozenset[str]:
    """The revisions Alembic recorded in this database (none for a database it never migrated)."""
    if not connection.dialect.has_table(connection, "alembic_version"):
        return frozenset()
    return frozenset(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())


class SchemaState(StrEnum):
    """Where a database's schema stands against this version of Assay's migrations."""

    CURRENT = "current"
    MISSING = "missing"
    """No Assay schema at all (an empty database, or another program's)."""
    OLDER = "older"
    """Made by an older Assay: ``migrate`` (``assay serve``) brings it up to date."""
    NEWER = "newer"
    """At a revision this Assay does not know: made by a newer one."""


def schema_state(engine: Engine) -> SchemaState:
    """Whether the database of ``engine`` has the schema this Assay reads, without changing it."""
    with engine.connect() as connection:
        current = _current_revisions(connection)
    if not current:
        return SchemaState.MISSING
    if current == head_revisions():
        return SchemaState.CURRENT
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    script = ScriptDirectory.from_config(_alembic_config())
    try:
        known = all(script.get_revision(revision) is not None for revision in current)
    except CommandError:  # alembic's "no such revision"
        known = False
    return SchemaState.OLDER if known else SchemaState.NEWER


def migrate(engine: Engine) -> None:
    """Bring the database of ``engine`` to the newest schema (Alembic ``upgrade head``)."""
    with engine.connect() as connection:
        # Already there (every start but the first): a read of the version table, not Alembic's run.
        if _current_revisions(connection) == head_revisions():
            return
    from alembic import command

    config = _alembic_config()
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # A revision that rebuilds a table (SQLite has no other way to change one) drops the old one:
            # with foreign keys on, that would first delete, by cascade, every row referring to it.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        try:
            with connection.begin():
                if not sqlite:
                    # Servers and workers started together migrate one at a time (the others find it done).
                    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions on ``engine``; objects stay readable after commit (they are handed to the API)."""
    return sessionmaker(engine, expire_on_commit=False)
