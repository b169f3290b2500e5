"""The API tier: the app in process, on a fresh SQLite file and (when available) on a real PostgreSQL.

Every test that takes ``client`` runs once per database. PostgreSQL comes from ``ASSAY_TEST_POSTGRES_URL``
(``scripts/postgres-up.sh``); without it those runs skip locally and fail in CI. Each test session works in
a database of its own, created and dropped here, so that concurrent runs do not meet.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from assay.api.app import create_app
from assay.config import Settings
from assay.storage.database import create_db_engine, migrate, normalize_url
from tests.support.requirements import require

POSTGRES_URL = os.environ.get("ASSAY_TEST_POSTGRES_URL", "")


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file, copied for each test (faster than migrating each time)."""
    path = tmp_path_factory.mktemp("template") / "assay.db"
    engine = create_db_engine(f"sqlite:///{path}")
    migrate(engine)
    engine.dispose()
    return path


def _server_reachable(url: str) -> bool:
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


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A migrated database of this test session's own on the PostgreSQL server."""
    require(_server_reachable(POSTGRES_URL), "a PostgreSQL server (ASSAY_TEST_POSTGRES_URL)")
    server = create_engine(normalize_url(POSTGRES_URL), isolation_level="AUTOCOMMIT")
    name = f"assay_api_{uuid.uuid4().hex[:12]}"
    with server.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = normalize_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    engine = create_db_engine(url)
    migrate(engine)
    engine.dispose()
    try:
        yield url
    finally:
        with server.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        server.dispose()


def _truncate_all(engine: Engine) -> None:
    with engine.begin() as connection:
        tables = connection.execute(
            text(
                "SELECT tablename FROM pg_tables "
                "WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
            )
        ).scalars()
        names = ", ".join(f'"{table}"' for table in tables)
        if names:
            connection.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> str:
    """An empty, migrated database for one test: a copied SQLite file, or the emptied PostgreSQL one."""
    if request.param == "sqlite":
        path = tmp_path / "assay.db"
        shutil.copyfile(sqlite_template, path)
        return f"sqlite:///{path}"
    url: str = request.getfixturevalue("postgres_url")
    engine = create_db_engine(url)
    _truncate_all(engine)
    engine.dispose()
    return url


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Settings of a test app: no API key, default limits."""
    return Settings(database_url=database_url, api_key=None)


@pytest.fixture
def app(settings: Settings) -> FastAPI:
    """A fresh app on the test database."""
    return create_app(settings)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    """An in-process client with the app started (lifespan run)."""
    with TestClient(app) as test_client:
        yield test_client


def is_postgres(url: str) -> bool:
    """Whether a test database URL is PostgreSQL."""
    return make_url(url).get_backend_name() == "postgresql"
