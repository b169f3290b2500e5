"""Databases of a test's own on the PostgreSQL server named by ``ASSAY_TEST_POSTGRES_URL``.

Each test (or session) gets a new database, dropped afterwards: the server's own may be migrated by
another checkout to revisions this one lacks, and tests must not see each other's rows.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from assay.storage.database import create_db_engine, migrate, normalize_url
from tests.support.requirements import require

POSTGRES_URL = os.environ.get("ASSAY_TEST_POSTGRES_URL", "")


def postgres_reachable(url: str = POSTGRES_URL) -> bool:
    """Whether a PostgreSQL server answers at ``url``."""
    if not url:
        return False
    engine = create_engine(normalize_url(url))
    try:
        with engine.connect():
            return True
    except OperationalError:
        return False
    finally:
        engine.dispose()


def require_postgres() -> str:
    """The server's URL; the calling test skips without one (and fails in CI)."""
    require(postgres_reachable(), "a PostgreSQL server (ASSAY_TEST_POSTGRES_URL)")
    return POSTGRES_URL


@contextmanager
def new_database(server_url: str, prefix: str, *, migrated: bool = False) -> Iterator[str]:
    """The URL of a new database on the server at ``server_url`` (named ``<prefix>_<random>``), dropped
    afterwards; ``migrated`` creates Assay's tables first (once, before several processes start on it)."""
    server = create_engine(normalize_url(server_url), isolation_level="AUTOCOMMIT")
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    try:
        with server.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        url = normalize_url(server_url).set(database=name).render_as_string(hide_password=False)
        if migrated:
            engine = create_db_engine(url)
            migrate(engine)
            engine.dispose()
        yield url
    finally:
        with server.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        server.dispose()
