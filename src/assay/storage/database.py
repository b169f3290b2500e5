"""Engines, sessions and migrations for SQLite (default) and PostgreSQL, behind one URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, MetaData, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

MIGRATIONS = Path(__file__).with_name("migrations")
SQLITE_BUSY_TIMEOUT_MS = 5000

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
    """``url`` with PostgreSQL pointed at the psycopg 3 driver whatever spelling was given."""
    parsed = make_url(url)
    if parsed.get_backend_name() in ("postgresql", "postgres") and parsed.drivername != "postgresql+psycopg":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


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
    """An engine for ``url``; for a SQLite file, its folder is created first."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:" and not parsed.database.startswith("file:"):
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
        event.listen(engine, "connect", _set_sqlite_pragmas)
        return engine
    return create_engine(parsed, pool_pre_ping=True)


def migrate(engine: Engine) -> None:
    """Bring the database of ``engine`` to the newest schema (Alembic ``upgrade head``)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions on ``engine``; objects stay readable after commit (they are handed to the API)."""
    return sessionmaker(engine, expire_on_commit=False)
