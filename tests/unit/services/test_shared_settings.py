"""Shared settings: each server records them, a worker unlike the servers is refused, a second server
unlike the first is warned about (on a SQLite database: the comparison does not depend on the backend)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from assay.config import Settings
from assay.errors import SettingsError
from assay.services.evaluations.shared_settings import (
    SharedSettings,
    check_worker_settings,
    record_server_settings,
)
from assay.storage.database import create_db_engine, migrate


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = create_db_engine(f"sqlite:///{tmp_path / 'assay.db'}")
    migrate(engine)
    yield engine
    engine.dispose()


def settings(**values: object) -> Settings:
    return Settings(database_url="sqlite://", **values)  # type: ignore[arg-type]


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    """A secret in this process's environment (what a server's targets may read)."""
    value = "s3cr3t-value-never-stored"
    monkeypatch.setenv("ASSAY_SECRET_TOKEN", value)
    monkeypatch.setenv("LISTED_KEY", "another-value")
    return value


def test_a_server_records_secret_names_never_their_values(engine: Engine, secret: str) -> None:
    record_server_settings(engine, settings(target_secrets="LISTED_KEY,UNSET_KEY"))
    with engine.connect() as connection:
        stored = connection.execute(text("SELECT settings, digest FROM shared_settings")).one()
    assert secret not in stored.settings
    assert "another-value" not in stored.settings
    assert '"ASSAY_SECRET_TOKEN"' in stored.settings
    assert '"LISTED_KEY"' in stored.settings
    assert "UNSET_KEY" not in stored.settings  # listed but not set: no target can read it
    assert len(stored.digest) == 64


def test_a_worker_like_the_servers_passes_and_may_hold_more_secrets(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_server_settings(engine, settings(max_answer_bytes=2048))
    check_worker_settings(engine, settings(max_answer_bytes=2048))
    monkeypatch.setenv("ASSAY_SECRET_ONLY_ON_THE_WORKER", "x")  # no evaluation can ask for it
    check_worker_settings(engine, settings(max_answer_bytes=2048))


def test_a_worker_with_no_server_recorded_yet_passes(engine: Engine) -> None:
    check_worker_settings(engine, settings(worker_stalled_s=99))


def test_a_worker_unlike_the_servers_is_refused_naming_each_setting(
    engine: Engine, secret: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_server_settings(
        engine, settings(max_answer_bytes=2048, worker_stalled_s=5, worker_heartbeat_s=0.5)
    )
    monkeypatch.delenv("ASSAY_SECRET_TOKEN")
    with pytest.raises(SettingsError) as refused:
        check_worker_settings(engine, settings(worker_heartbeat_s=0.5))
    message = str(refused.value)
    assert "\n" not in message
    assert "ASSAY_SECRET_TOKEN set there, not here" in message
    assert "ASSAY_MAX_ANSWER_BYTES is 2048 there, 1048576 here" in message
    assert "ASSAY_WORKER_STALLED_S is 5.0 there, 15.0 here" in message
    assert "ASSAY_WORKER_HEARTBEAT_S" not in message  # equal
    assert secret not in message
    assert len(refused.value.problems) == 3


def test_a_server_unlike_the_previous_one_warns_and_becomes_the_reference(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    record_server_settings(engine, settings(max_answer_bytes=2048))
    with caplog.at_level(logging.WARNING):
        record_server_settings(engine, settings(max_answer_bytes=4096))
    assert "ASSAY_MAX_ANSWER_BYTES is 2048 there, 4096 here" in caplog.text
    check_worker_settings(engine, settings(max_answer_bytes=4096))  # the newest server's are the reference
    with pytest.raises(SettingsError):
        check_worker_settings(engine, settings(max_answer_bytes=2048))


def test_a_setting_an_older_server_did_not_record_is_not_compared() -> None:
    worker = SharedSettings.of(settings(), environ={})
    assert worker.disagreements({"max_answer_bytes": worker.max_answer_bytes}, lacking_only=True) == []
