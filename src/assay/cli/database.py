"""The database the CLI's views read: the one ``assay serve`` uses (``ASSAY_DATABASE_URL``), read as it is.

A view never creates a database, a file or a table, and never migrates: each way of not finding Assay's
schema where the settings point is one line saying what to do, exit 2.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from assay.cli.serve import load_settings
from assay.errors import SettingsError
from assay.storage.database import (
    SchemaState,
    check_database,
    create_db_engine,
    normalize_url,
    schema_state,
    session_factory,
)

__all__ = ["database_session"]

_WHERE = "set ASSAY_DATABASE_URL to the database `assay serve` uses"


def _sqlite_file(url: URL) -> Path | None:
    """The file of a SQLite URL (``None`` for an in-memory or URI database, or another backend)."""
    database = url.database
    if url.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return None
    return None if database.startswith("file:") else Path(database).expanduser()


@contextmanager
def database_session() -> Iterator[Session]:
    """A session on the Assay database the settings name, checked to hold the schema this Assay reads."""
    url = normalize_url(load_settings().database_url)
    where = url.render_as_string(hide_password=True)
    path = _sqlite_file(url)
    if path is not None and not path.is_file():
        # Connecting would create an empty file: say where the database was looked for instead.
        raise SettingsError(f"no Assay database at {path}: {_WHERE}, or start `assay serve` to create one")
    check_database(url)
    engine = create_db_engine(url)
    try:
        state = schema_state(engine)
        if state is SchemaState.MISSING:
            raise SettingsError(f"the database at {where} holds no Assay data: {_WHERE}")
        if state is SchemaState.OLDER:
            raise SettingsError(
                f"the database at {where} has an older schema: start `assay serve` once to upgrade it"
            )
        if state is SchemaState.NEWER:
            raise SettingsError(f"the database at {where} was written by a newer Assay: upgrade assay")
        with session_factory(engine)() as session:
            yield session
    finally:
        engine.dispose()
