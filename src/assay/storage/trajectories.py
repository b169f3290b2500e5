"""The ``trajectory_chunks`` table: an agent's trajectory, stored compressed apart from its result row.

A trajectory's steps (each a JSON object of the normalised form, ``assay.graders.trajectory.to_json``) are
cut into chunks of at most :data:`CHUNK_STEPS` steps or about :data:`CHUNK_BYTES` bytes of JSON, each chunk
a zlib-compressed JSON array with the index of its first step. A page of steps reads and inflates only the
chunks it overlaps, so serving a page costs the same whatever the trajectory's size, and writing one holds
a single chunk's JSON at a time beside the trajectory. zlib is the standard library's: a compression ratio
of about 5-10 on JSON steps, and no new dependency (zstd would need the ``zstandard`` package for a few
percent more). The result row keeps the trajectory's summary (``results.trajectory_summary``).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import Connection, ForeignKey, Integer, LargeBinary, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, mapped_column

from assay.storage.database import Base

CHUNK_STEPS = 256
CHUNK_BYTES = 256 * 1024
"""A chunk closes once its steps' JSON reaches this size (one larger step makes a chunk of its own)."""
COMPRESSION_LEVEL = 6


class TrajectoryChunkRow(Base):
    """Consecutive steps of one result's trajectory, compressed."""

    __tablename__ = "trajectory_chunks"

    evaluation_id: Mapped[int] = mapped_column(
        ForeignKey("evaluations.id", ondelete="CASCADE"), primary_key=True
    )
    case_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    chunk: Mapped[int] = mapped_column(Integer, primary_key=True)
    first_step: Mapped[int] = mapped_column(Integer)
    steps: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    """zlib of the steps' JSON array."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """A chunk ready to store: where its steps start, how many, and their compressed JSON array."""

    first_step: int
    steps: int
    data: bytes


def chunk_steps(steps: Iterable[Mapping[str, Any]]) -> Iterator[Chunk]:
    """The steps cut into compressed chunks, in order (only one chunk's JSON held at a time)."""
    pending: list[bytes] = []
    size = first = 0
    for index, step in enumerate(steps):
        encoded = orjson.dumps(step)
        pending.append(encoded)
        size += len(encoded)
        if len(pending) >= CHUNK_STEPS or size >= CHUNK_BYTES:
            yield _chunk(first, pending)
            pending, size, first = [], 0, index + 1
    if pending:
        yield _chunk(first, pending)


def _chunk(first: int, encoded: list[bytes]) -> Chunk:
    array = b"[" + b",".join(encoded) + b"]"
    return Chunk(first, len(encoded), zlib.compress(array, COMPRESSION_LEVEL))


def write_trajectory_chunks(
    connection: Connection, evaluation_id: int, trajectories: Sequence[tuple[int, Iterable[Chunk]]]
) -> None:
    """Store the chunks of each ``(case_id, chunks)``; chunks already stored (a batch written again) are
    kept as they are. Inserted chunk by chunk, so a large trajectory is never held compressed whole."""
    dialect = connection.dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(TrajectoryChunkRow).on_conflict_do_nothing(
        index_elements=["evaluation_id", "case_id", "chunk"]
    )
    for case_id, chunks in trajectories:
        for number, chunk in enumerate(chunks):
            row = {
                "evaluation_id": evaluation_id,
                "case_id": case_id,
                "chunk": number,
                "first_step": chunk.first_step,
                "steps": chunk.steps,
                "data": chunk.data,
            }
            connection.execute(statement, row)


@dataclass(frozen=True, slots=True)
class StepsPage:
    """Steps from ``offset`` (stored JSON objects), and where the next page starts (``None``: the end)."""

    offset: int
    steps: list[dict[str, Any]]
    next_offset: int | None


def read_steps(
    session: Session, evaluation_id: int, case_id: int, offset: int, limit: int, max_bytes: int
) -> StepsPage:
    """Up to ``limit`` steps from ``offset`` (fewer when they pass ``max_bytes`` of JSON, at least one),
    inflating only the chunks they lie in."""
    query = (
        select(TrajectoryChunkRow.first_step, TrajectoryChunkRow.steps, TrajectoryChunkRow.data)
        .where(
            TrajectoryChunkRow.evaluation_id == evaluation_id,
            TrajectoryChunkRow.case_id == case_id,
            TrajectoryChunkRow.first_step + TrajectoryChunkRow.steps > offset,
        )
        .order_by(TrajectoryChunkRow.chunk)
    )
    steps: list[dict[str, Any]] = []
    size = 0
    position = offset
    more = False
    # Chunks are fetched one at a time (a server-side cursor on PostgreSQL): a page reads only what it shows.
    chunks = session.execute(query.execution_options(yield_per=1))
    try:
        for first, count, data in chunks:
            if len(steps) >= limit or (steps and size >= max_bytes):
                more = True
                break
            array = zlib.decompress(data)
            share = len(array) // max(1, count)
            decoded: list[dict[str, Any]] = orjson.loads(array)
            del array
            for step in decoded[max(0, position - first) :]:
                if len(steps) >= limit or (steps and size >= max_bytes):
                    more = True
                    break
                steps.append(step)
                size += share
                position += 1
            if more:
                break
    finally:
        chunks.close()  # a page that stopped early must not leave the cursor open
    return StepsPage(offset, steps, position if more else None)


def delete_trajectories(session: Session, evaluation_id: int) -> None:
    """Delete the trajectories of an evaluation (explicitly, as its results are)."""
    session.execute(delete(TrajectoryChunkRow).where(TrajectoryChunkRow.evaluation_id == evaluation_id))
