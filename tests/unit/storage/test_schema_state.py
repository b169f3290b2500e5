"""``schema_state``: what a database holds against this Assay's migrations, read without changing it."""

from __future__ import annotations

from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text

from assay.storage.database import (
    MIGRATIONS,
    SchemaState,
    create_db_engine,
    head_revisions,
    migrate,
    schema_state,
)


def test_the_heads_read_from_the_files_are_alembics() -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    heads = ScriptDirectory.from_config(config).get_heads()
    assert heads  # the migrations were found
    assert head_revisions() == frozenset(heads)


def test_each_state_of_a_sqlite_database(tmp_path: Path) -> None:
    engine = create_db_engine(f"sqlite:///{tmp_path / 'assay.db'}")
    try:
        assert schema_state(engine) is SchemaState.MISSING
        migrate(engine)
        assert schema_state(engine) is SchemaState.CURRENT
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = '0001_suites'"))
        assert schema_state(engine) is SchemaState.OLDER
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
        assert schema_state(engine) is SchemaState.NEWER
        with engine.connect() as connection:  # reading did not move it
            assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar() == (
                "9999_from_the_future"
            )
    finally:
        engine.dispose()
