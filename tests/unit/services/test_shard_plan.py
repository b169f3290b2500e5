"""Lanes share an evaluation's concurrency out exactly; shards cover every position once per lane plan."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assay.services.evaluations.shard_plan import (
    LANE_CONCURRENCY,
    SHARD_CASES,
    Shard,
    first_shards,
    lane_concurrency,
    lanes_of,
)


@given(st.integers(min_value=1, max_value=256))
def test_lanes_share_the_concurrency_out_exactly(concurrency: int) -> None:
    lanes = lanes_of(concurrency)
    shares = [lane_concurrency(concurrency, lane) for lane in range(lanes)]
    assert sum(shares) == concurrency  # all workers together never exceed it
    assert max(shares) <= LANE_CONCURRENCY
    assert max(shares) - min(shares) <= 1


@given(st.integers(min_value=1, max_value=256), st.integers(min_value=0, max_value=20_000))
def test_the_lanes_shards_cover_every_position_once(concurrency: int, cases: int) -> None:
    spans: list[tuple[int, int]] = []
    for first in first_shards(7, concurrency):
        index = first.index
        while index * SHARD_CASES < cases:
            low, high = Shard(evaluation_id=7, lane=first.lane, index=index).positions
            spans.append((low, min(high, cases)))
            index += lanes_of(concurrency)
    # every position once: the spans, in order, each start where the one before ended, from 0 to the end
    # (the same as listing every position covered and comparing with range(cases), without the lists)
    spans.sort()
    assert all(low < high for low, high in spans)
    assert [low for low, _ in spans] == [0, *(high for _, high in spans[:-1])][: len(spans)]
    assert (spans[-1][1] if spans else 0) == cases
