"""The API tier: the app in process, on a fresh SQLite file and (when available) on a real PostgreSQL.

Every test that takes ``client`` runs once per database, except those marked ``no_database``: routes that
never touch one (the graders', the UI's files, the docs) run once, on SQLite, since a second database
would test nothing more. PostgreSQL comes from ``ASSAY_TEST_POSTGRES_URL``
(``scripts/postgres-up.sh``); without it those runs skip locally and fail in CI. Each test session works in
a database of its own, created and dropped here, so that concurrent runs do not meet. Each test has its own
database, app and lifespan.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from assay.api.app import create_app
from assay.config import Settings
from assay.storage.database import create_db_engine, migrate
from tests.support.postgres import new_database, require_postgres


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file, copied for each test (faster than migrating each time)."""
    path = tmp_path_factory.mktemp("template") / "assay.db"
    engine = create_db_engine(f"sqlite:///{path}")
    migrate(engine)
    engine.dispose()
    return path


@pytest.fixture(scope="module")
def module_sqlite_url(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A migrated SQLite database for a whole module: for an app its tests share, when the routes they call
    read and write no table (starting an app per test is most of such a test's time)."""
    path = tmp_path_factory.mktemp("module") / "assay.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A migrated database of this test session's own on the PostgreSQL server."""
    with new_database(require_postgres(), "assay_api", migrated=True) as url:
        yield url


@pytest.fixture(scope="session")
def postgres_engine(postgres_url: str) -> Iterator[Engine]:
    """One engine on that database for the session, to empty it between tests."""
    engine = create_db_engine(postgres_url)
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def emptying(postgres_engine: Engine) -> str:
    """The statements that empty the session's database: every row gone and every id sequence back at 1, as
    in a new database. DELETE, with foreign keys unchecked (a superuser's session setting), takes a fifth of
    TRUNCATE's time on tables this small; TRUNCATE where that setting is not allowed. Written once, for the
    tables the migrations made, and sent in one round trip (a trip per table cost 4 CPU-ms a test)."""
    with postgres_engine.connect() as connection:
        tables = connection.execute(
            text(
                "SELECT tablename FROM pg_tables "
                "WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
            )
        ).scalars()
        names = [f'"{table}"' for table in tables]
        superuser = connection.execute(text("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"))
        is_superuser = bool(superuser.scalar())
    if not names:
        return ""
    if not is_superuser:
        return f"TRUNCATE {', '.join(names)} RESTART IDENTITY CASCADE"
    deletes = "".join(f"DELETE FROM {name}; " for name in names)
    return (
        f"SET LOCAL session_replication_role = replica; {deletes}"
        "SELECT setval(oid::regclass, 1, false) FROM pg_class "
        "WHERE relkind = 'S' AND relnamespace = 'public'::regnamespace"
    )


def _empty(engine: Engine, emptying: str) -> None:
    """Run ``emptying`` (several statements: psycopg sends a query without parameters as it is)."""
    if emptying:
        with engine.begin() as connection:
            connection.exec_driver_sql(emptying)


DATABASES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each database for a test of ``database_url`` (through ``client``, ``app``, ...); SQLite alone for
    one marked ``no_database``."""
    if "database_url" not in metafunc.fixturenames:
        return
    one = metafunc.definition.get_closest_marker("no_database") is not None
    metafunc.parametrize("database_url", ["sqlite"] if one else DATABASES, indirect=True)


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> str:
    """An empty, migrated database for one test: a copied SQLite file, or the emptied PostgreSQL one."""
    if request.param == "sqlite":
        path = tmp_path / "assay.db"
        shutil.copyfile(sqlite_template, path)
        return f"sqlite:///{path}"
    url: str = request.getfixturevalue("postgres_url")
    _empty(request.getfixturevalue("postgres_engine"), request.getfixturevalue("emptying"))
    return url


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Settings of a test app: no API key, default limits."""
    return Settings(database_url=database_url, api_key=None)


@pytest.fixture
def app(settings: Settings) -> FastAPI:
    """A new app on the test database (its state, middlewares and lifespan its own; its routes, built once per
    process when their modules were imported, are every app's, see :mod:`assay.api.routers`)."""
    return create_app(settings)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    """An in-process client with the app started (lifespan run)."""
    with TestClient(app) as test_client:
        yield test_client


def is_postgres(url: str) -> bool:
    """Whether a test database URL is PostgreSQL."""
    return make_url(url).get_backend_name() == "postgresql"
