"""SQL parameters (agent answers, target specs with their headers) never reach a log: SQLAlchemy hides its
parameters, and a database error is logged without the failing row PostgreSQL puts in its DETAIL."""

from __future__ import annotations

import logging
import os
import traceback
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError

from assay.storage.database import create_db_engine, loggable, migrate, normalize_url
from tests.support.requirements import require

SECRET = "Bearer sk-live-0123456789abcdef"
logger = logging.getLogger("assay.test")


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'assay.db'}"
        return
    url = os.environ.get("ASSAY_TEST_POSTGRES_URL", "")
    require(bool(url), "a PostgreSQL server (ASSAY_TEST_POSTGRES_URL)")
    # A database of its own: the server's may be migrated by another checkout to revisions this one lacks
    server = create_engine(normalize_url(url), isolation_level="AUTOCOMMIT")
    name = f"assay_logs_{uuid.uuid4().hex[:12]}"
    with server.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield normalize_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        with server.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        server.dispose()


def test_a_failing_insert_is_logged_without_its_values(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    engine = create_db_engine(database_url)
    migrate(engine)
    # No updated_at: the NOT NULL constraint fails, and PostgreSQL quotes the whole row in its DETAIL.
    insert = text(
        "INSERT INTO suites (name, description, created_at) VALUES (:name, :description, CURRENT_TIMESTAMP)"
    )
    try:
        with pytest.raises(IntegrityError) as failure, engine.begin() as connection:
            connection.execute(insert, {"name": "logs", "description": SECRET})
        assert "hidden due to hide_parameters" in str(failure.value)
        logger.error("insert failed", exc_info=loggable(failure.value))
        logged = caplog.text
        assert "insert failed" in logged
        assert "updated_at" in logged  # what failed is still said
        assert "test_a_failing_insert_is_logged_without_its_values" in logged  # and where: the traceback
        assert SECRET not in logged
    finally:
        engine.dispose()


def test_other_errors_are_logged_as_they_are() -> None:
    error = ValueError(SECRET)
    assert loggable(error) is error
    assert SECRET in "".join(traceback.format_exception(loggable(error)))
