"""Storage: SQLite pragmas, migrations, safe text and JSON on both databases, the default location."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, inspect, select, text

from assay.config import Settings, default_database_url
from assay.storage.database import create_db_engine, migrate, normalize_url
from assay.storage.types import SafeJSON, SafeText

ODD_TEXT = ["", "plain", "nul\x00", "\x00\x00", "\ud800", "a\udfffb", "🙂 ünï", '"\\', "\u2028\n\t"]


def test_sqlite_pragmas(tmp_path: Path) -> None:
    engine = create_db_engine(f"sqlite:///{tmp_path / 'deep' / 'er' / 'assay.db'}")
    with engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert connection.execute(text("PRAGMA busy_timeout")).scalar() == 5000
    engine.dispose()
    assert (tmp_path / "deep" / "er" / "assay.db").is_file()


def test_migrations_are_idempotent(database_url: str) -> None:
    engine = create_db_engine(database_url)
    migrate(engine)  # already at head: nothing to do
    tables = set(inspect(engine).get_table_names())
    assert {"suites", "cases", "alembic_version"} <= tables
    with engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    engine.dispose()


def test_safe_types_round_trip(database_url: str) -> None:
    engine = create_db_engine(database_url)
    metadata = MetaData()
    table = Table(
        "safe_probe",
        metadata,
        Column("id", Integer, primary_key=True),
        Column("text", SafeText),
        Column("json", SafeJSON),
    )
    metadata.create_all(engine)
    try:
        values = [{"id": i, "text": t, "json": {"k": [t, {"n": i}], "t": t}} for i, t in enumerate(ODD_TEXT)]
        with engine.begin() as connection:
            connection.execute(table.insert(), values)
        with engine.connect() as connection:
            rows = connection.execute(select(table).order_by(table.c.id)).mappings().all()
        assert [dict(row) for row in rows] == values
    finally:
        metadata.drop_all(engine)
        engine.dispose()


def test_postgres_urls_use_psycopg3() -> None:
    assert normalize_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalize_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert normalize_url("postgresql+psycopg2://u@h/db").drivername == "postgresql+psycopg"
    assert normalize_url("sqlite:///x.db").drivername == "sqlite"


def test_default_database_is_in_the_user_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("ASSAY_DATABASE_URL", raising=False)
    url = Settings().database_url
    assert url == default_database_url()
    assert url.endswith("/assay/assay.db")
    assert str(tmp_path / "data") in url
    assert not (tmp_path / "data").exists()  # made with the engine, not by reading settings


def test_every_setting_is_documented() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description, f"ASSAY_{name.upper()} has no docstring"


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_DATABASE_URL", "sqlite:///elsewhere.db")
    monkeypatch.setenv("ASSAY_API_KEY", "key")
    monkeypatch.setenv("ASSAY_MAX_BODY_BYTES", "123")
    settings = Settings()
    assert settings.database_url == "sqlite:///elsewhere.db"
    assert settings.api_key is not None
    assert settings.api_key.get_secret_value() == "key"
    assert settings.max_body_bytes == 123
