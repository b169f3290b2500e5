"""Storage: SQLite pragmas, migrations, safe text and JSON on both databases, the default location."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Column, Engine, Integer, MetaData, Table, inspect, select, text
from sqlalchemy.exc import IntegrityError

from assay.config import Settings, default_database_url
from assay.storage import evaluations, reply_cache, results, suites  # noqa: F401  (their tables are in Base.metadata)
from assay.storage.database import MIGRATIONS, Base, create_db_engine, is_assay_name, migrate, normalize_url
from assay.storage.types import SafeJSON, SafeText
from tests.support.postgres import new_database, require_postgres

ODD_TEXT = ["", "plain", "nul\x00", "\x00\x00", "\ud800", "a\udfffb", "🙂 ünï", '"\\', "\u2028\n\t"]


def test_sqlite_pragmas(tmp_path: Path) -> None:
    (tmp_path / "deep" / "er").mkdir(parents=True)  # a folder named in the URL must exist (issue 25)
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


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def blank_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with no table at all: a new SQLite file, or a new database on the PostgreSQL server."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'blank.db'}"
        return
    with new_database(require_postgres(), "assay_migrations") as url:
        yield url


def _alembic(engine: Engine, action: str, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        getattr(command, action)(config, revision)


def test_case_keys_migration_keeps_data_and_matches_the_models(blank_database_url: str) -> None:
    engine = create_db_engine(blank_database_url)
    try:
        _alembic(engine, "upgrade", "0002_evaluations")
        now = "2026-01-01 00:00:00"
        with engine.begin() as connection:  # a database as 0002 left it, with a suite and a result
            connection.execute(
                text(
                    "INSERT INTO suites (name, description, created_at, updated_at) VALUES ('s', '', :t, :t)"
                ),
                {"t": now},
            )
            connection.execute(
                text(
                    "INSERT INTO cases (suite_id, position, input, expected_output, metadata) "
                    "VALUES (1, 0, '\"q\"', '\"true\"', '{}')"
                )
            )
        migrate(engine)
        with engine.begin() as connection:
            assert connection.execute(text("SELECT input, case_key FROM cases")).one() == ('"q"', None)
            insert = text(
                "INSERT INTO cases (suite_id, position, input, expected_output, metadata, case_key) "
                "VALUES (1, :position, '\"q\"', '\"x\"', '{}', :key)"
            )
            connection.execute(insert, [{"position": 1, "key": None}, {"position": 2, "key": "k"}])
        with pytest.raises(IntegrityError), engine.begin() as connection:
            connection.execute(insert, {"position": 3, "key": "k"})  # a key is unique in its suite
        with engine.connect() as connection:  # the models are what the migrations built
            differences = compare_metadata(
                MigrationContext.configure(connection, opts={"include_name": is_assay_name}), Base.metadata
            )
        assert differences == []
        _alembic(engine, "downgrade", "0002_evaluations")
        assert "case_key" not in {column["name"] for column in inspect(engine).get_columns("cases")}
        migrate(engine)
        assert "case_key" in {column["name"] for column in inspect(engine).get_columns("results")}
    finally:
        engine.dispose()
