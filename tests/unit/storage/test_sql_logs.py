"""SQL parameters (agent answers, target specs with their headers) never reach a log: SQLAlchemy hides its
parameters, and a database error is logged without the failing row PostgreSQL puts in its DETAIL."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from assay.services.evaluations.shards import _failure_message
from assay.storage.database import create_db_engine, loggable, migrate
from tests.support.postgres import new_database, require_postgres

SECRET = "Bearer sk-live-0123456789abcdef"
logger = logging.getLogger("assay.test")


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'assay.db'}"
        return
    with new_database(require_postgres(), "assay_logs") as url:
        yield url


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
        # An evaluation that fails on it says what failed, not the row: the API returns that message.
        stored = _failure_message(failure.value)
        assert "updated_at" in stored
        assert SECRET not in stored
    finally:
        engine.dispose()


def test_other_errors_are_logged_as_they_are() -> None:
    error = ValueError(SECRET)
    assert loggable(error) is error
    assert SECRET in "".join(traceback.format_exception(loggable(error)))
