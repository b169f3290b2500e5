"""Trajectory steps stored in compressed chunks, a page read from the chunks it overlaps only."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import insert

from assay.storage import evaluations as store
from assay.storage.database import create_db_engine, migrate, session_factory
from assay.storage.suites import SuiteRow
from assay.storage.trajectories import (
    CHUNK_BYTES,
    CHUNK_STEPS,
    TrajectoryChunkRow,
    chunk_steps,
    read_steps,
    write_trajectory_chunks,
)


def _steps(count: int, text: str = "x") -> list[dict[str, Any]]:
    return [{"kind": "message", "role": "assistant", "text": f"{text}{n}"} for n in range(count)]


def test_steps_are_cut_by_count_and_by_size_and_each_chunk_inflates_to_its_steps() -> None:
    steps = _steps(CHUNK_STEPS * 2 + 3)
    chunks = list(chunk_steps(steps))
    assert [(c.first_step, c.steps) for c in chunks] == [
        (0, CHUNK_STEPS),
        (CHUNK_STEPS, CHUNK_STEPS),
        (512, 3),
    ]
    assert orjson.loads(zlib.decompress(chunks[1].data)) == steps[CHUNK_STEPS : 2 * CHUNK_STEPS]
    big = _steps(3, "y" * CHUNK_BYTES)  # each step alone fills a chunk
    assert [(c.first_step, c.steps) for c in chunk_steps(big)] == [(0, 1), (1, 1), (2, 1)]


def test_a_page_reads_only_its_chunks_and_says_where_the_next_starts(tmp_path: Path) -> None:
    engine = create_db_engine(f"sqlite:///{tmp_path / 'assay.db'}")
    migrate(engine)
    steps = _steps(1_000)
    with engine.begin() as connection:
        suite = connection.execute(insert(SuiteRow).values(name="s")).inserted_primary_key[0]
        evaluation = connection.execute(
            insert(store.EvaluationRow).values(
                name="e",
                suite_id=suite,
                grader_id="exact",
                grader_config={},
                grader_version="1",
                target={},
                concurrency=1,
                status="running",
                total=1,
            )
        ).inserted_primary_key[0]
        write_trajectory_chunks(connection, evaluation, [(7, chunk_steps(steps))])
        write_trajectory_chunks(connection, evaluation, [(7, chunk_steps(steps))])  # again: kept as it was
    with session_factory(engine)() as session:
        page = read_steps(session, evaluation, 7, offset=250, limit=10, max_bytes=1 << 20)
        assert page.steps == steps[250:260]
        assert page.next_offset == 260
        last = read_steps(session, evaluation, 7, offset=995, limit=100, max_bytes=1 << 20)
        assert last.steps == steps[995:]
        assert last.next_offset is None
        small = read_steps(session, evaluation, 7, offset=0, limit=100, max_bytes=1)
        assert small.steps == steps[:1]
        assert small.next_offset == 1
        assert read_steps(session, evaluation, 7, offset=5_000, limit=10, max_bytes=1 << 20).steps == []
        store.delete_evaluation(session, evaluation)
        session.commit()
        assert session.query(TrajectoryChunkRow).count() == 0
    engine.dispose()
