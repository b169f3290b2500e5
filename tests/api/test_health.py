"""``GET /api/health``: answered from the database watch's last check; 503 when the database is gone."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from assay.api import health
from assay.api.app import create_app
from assay.api.health import STALE_AFTER_S, DatabaseWatch
from assay.config import Settings
from tests.api.test_envelope import assert_error
from tests.support.postgres import new_database, require_postgres
from tests.support.tcp_proxy import TcpProxy
from tests.support.waiting import wait_for


def test_health_reports_the_database_and_the_age_of_its_last_answer(client: TestClient) -> None:
    data = client.get("/api/health").json()["data"]
    assert data["status"] == "ok"
    assert data["database"] in {"sqlite", "postgresql"}
    assert 0 <= data["database_age_ms"] <= STALE_AFTER_S * 1000
    assert data["version"]


@pytest.fixture
def quick_watch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The database watch checks every 0.05 s, not every second (a test waits for its next check)."""
    monkeypatch.setattr(health, "PING_EVERY_S", 0.05)


def test_health_is_unavailable_when_the_database_stopped_answering(
    quick_watch: None, client: TestClient, tmp_path: Path
) -> None:
    watch: DatabaseWatch = client.app.state.database_watch  # type: ignore[attr-defined]
    watch.engine = create_engine(f"sqlite:///{tmp_path}/no/such/folder/assay.db")  # every check fails now
    # the watch's next check finds it; no later one answers
    wait_for(lambda: watch.failure, 30, what="the database watch to see the failure")
    assert watch.failure == "OperationalError"
    watch.answered_at = time.monotonic() - STALE_AFTER_S - 1  # ... for longer than health allows
    error = assert_error(client.get("/api/health"), 503, "UNAVAILABLE")
    assert "OperationalError" in str(error["message"])


def test_a_failed_ping_keeps_the_last_answer_and_says_why(tmp_path: Path) -> None:
    watch = DatabaseWatch(create_engine(f"sqlite:///{tmp_path}/assay.db"))
    watch.ping()
    assert watch.failure is None
    answered = watch.answered_at
    assert answered is not None
    watch.engine = create_engine(f"sqlite:///{tmp_path}/no/such/folder/assay.db")
    watch.ping()
    assert watch.failure == "OperationalError"
    assert watch.answered_at == answered
    assert watch.age(answered + STALE_AFTER_S + 1) == STALE_AFTER_S + 1
    watch.close()


def test_only_a_failing_or_hanging_database_is_unavailable(tmp_path: Path) -> None:
    watch = DatabaseWatch(create_engine(f"sqlite:///{tmp_path}/assay.db"))
    assert watch.problem(0.0) is not None  # never answered
    watch.answered_at = 100.0
    late = 100.0 + STALE_AFTER_S + 1
    assert watch.problem(late) is None  # no check failed or hung: the server was busy, not the database
    watch.failure = "OperationalError"
    assert "OperationalError" in (watch.problem(late) or "")
    assert watch.problem(100.0 + STALE_AFTER_S - 1) is None  # failing, but answered a moment ago
    watch.failure, watch.asked_at = None, 101.0
    assert watch.problem(101.0 + STALE_AFTER_S + 1) is not None  # a check under way for too long
    watch.close()


def test_the_access_log_leaves_out_successful_health_checks(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="assay.access"):
        client.get("/api/health")
        client.get("/api/graders?limit=1")
        client.get("/api/no/such/route")
    lines = [record.getMessage() for record in caplog.records if record.name == "assay.access"]
    assert lines == [
        'testclient:50000 - "GET /api/graders?limit=1 HTTP/1.1" 200',
        'testclient:50000 - "GET /api/no/such/route HTTP/1.1" 404',
    ]


def test_data_routes_answer_503_unavailable_while_postgresql_is_down() -> None:
    with new_database(require_postgres(), "assay_outage", migrated=True) as url:
        real = make_url(url)
        with TcpProxy((real.host or "127.0.0.1", real.port or 5432)) as proxy:
            proxied = real.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
            settings = Settings(database_url=proxied, seed_demo=False, run_evaluations=False)
            with TestClient(create_app(settings)) as client:
                assert client.get("/api/suites").status_code == 200
                proxy.cut()  # the database is gone: refused and broken connections
                for response in (
                    client.get("/api/suites"),
                    client.get("/api/evaluations"),
                    client.post("/api/suites", json={"name": "during the outage", "cases": []}),
                ):
                    assert_error(response, 503, "UNAVAILABLE")
                    assert response.headers["retry-after"] == "5"
