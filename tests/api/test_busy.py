"""Busy is not broken: a write that meets another writer's lock waits and retries (evaluations) or says
BUSY (a request), never a 500; an evaluation left unfinished with no job is picked up by the watchdog."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from assay.api.app import create_app
from assay.config import Settings
from assay.storage import database
from assay.storage.database import create_db_engine, migrate, normalize_url, retry_when_busy
from tests.factories import make_suite, start, wait_until_finished

HOLD_LIMIT_S = 60.0
"""The longest a lock is held for the length of a block: a ceiling, should the block never end."""


@contextmanager
def write_lock(path: Path, seconds: float | None = None) -> Iterator[threading.Thread]:
    """Another process's writer: holds SQLite's write lock on ``path`` from a thread, for ``seconds`` or,
    without them, until the block ends (whatever the machine's load, the block meets the lock)."""
    taken = threading.Event()
    released = threading.Event()

    def hold() -> None:
        connection = sqlite3.connect(path, timeout=10)
        connection.execute("BEGIN IMMEDIATE")
        taken.set()
        released.wait(seconds if seconds is not None else HOLD_LIMIT_S)
        connection.rollback()
        connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert taken.wait(10), "the other writer never took the lock"
    try:
        yield holder
    finally:
        if seconds is None:
            released.set()
        holder.join()


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(database, "SQLITE_BUSY_TIMEOUT_MS", 100)


@pytest.mark.usefixtures("short_busy_timeout")
def test_a_busy_write_is_retried_until_the_lock_is_gone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "assay.db"
    engine = create_db_engine(f"sqlite:///{path}")
    migrate(engine)

    def write() -> None:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO suites (name, description, created_at, updated_at) "
                    "VALUES ('busy', '', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                )
            )

    with write_lock(path, 1.0):
        retry_when_busy(write, what="a test write", pause_s=0.1)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM suites")).scalar() == 1
    engine.dispose()
    assert "the database is busy" in caplog.text


@pytest.mark.usefixtures("short_busy_timeout")
def test_a_request_that_meets_a_held_lock_is_busy_not_a_500(tmp_path: Path) -> None:
    path = tmp_path / "assay.db"
    with TestClient(create_app(Settings(database_url=f"sqlite:///{path}"))) as client:
        with write_lock(path):
            response = client.post("/api/suites", json={"name": "while locked"})
        assert response.status_code == 503, response.text
        assert response.json()["error"]["code"] == "BUSY"
        assert response.headers["retry-after"] == "1"
        assert client.post("/api/suites", json={"name": "after"}).status_code == 201


def test_an_evaluation_left_running_without_a_job_is_resumed(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    settings = Settings(database_url=database_url, worker_heartbeat_s=0.1)
    with TestClient(create_app(settings)) as client:
        _resume_left_running(client, database_url, caplog)


def _resume_left_running(client: TestClient, database_url: str, caplog: pytest.LogCaptureFixture) -> None:
    suite = make_suite(client)
    evaluation = wait_until_finished(
        client, start(client, suite_id=suite["id"], target={"type": "recorded"})["id"]
    )
    # As if its final status had been lost: running, and no job behind it.
    engine = create_engine(normalize_url(database_url))
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE evaluations SET status = 'running', finished_at = NULL WHERE id = :id"),
            {"id": evaluation["id"]},
        )
    engine.dispose()
    again = wait_until_finished(client, evaluation["id"], timeout=10)
    assert again["status"] == "completed"
    assert again["progress"]["done"] == again["progress"]["total"]
    lines = [line for line in caplog.text.splitlines() if f"evaluation {evaluation['id']} " in line]
    assert any("resuming it" in line or "queued again" in line for line in lines), caplog.text
