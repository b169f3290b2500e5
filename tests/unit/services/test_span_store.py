"""The OTLP span store: only announced traces kept, caps per trace and in all, expiry, the wait for a root."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from assay.services.execution.span_store import BadExportError, SpanStore, StoreLimits, parse_export

TRACE = "0af7651916cd43dd8448eb211c80319c"
PARENT = "b7ad6b7169203331"


def _span(
    trace_id: str, span_id: str, parent: str | None = None, name: str = "execute_tool"
) -> dict[str, Any]:
    span: dict[str, Any] = {"traceId": trace_id, "spanId": span_id, "name": name}
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def _export(*spans: dict[str, Any]) -> bytes:
    scope = {"scope": {"name": "agent"}, "spans": list(spans)}
    return orjson.dumps({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [scope]}]})


def _add(store: SpanStore, body: bytes) -> tuple[int, int, str | None]:
    accepted = store.add(parse_export(body), len(body))
    return accepted.accepted, accepted.rejected, accepted.reason


def test_spans_of_a_trace_nobody_announced_are_refused_and_not_kept() -> None:
    store = SpanStore()
    assert _add(store, _export(_span(TRACE, "01"))) == (
        0,
        1,
        "spans of a trace Assay did not send (or one already taken or expired)",
    )
    assert store.size == 0


def test_an_announced_trace_is_taken_whole_once_its_root_span_arrives() -> None:
    async def scenario() -> None:
        store = SpanStore()
        store.expect(TRACE, PARENT)
        assert _add(store, _export(_span(TRACE, "02", "01"))) == (1, 0, None)
        taking = asyncio.create_task(store.take(TRACE, grace_s=30.0))
        await asyncio.sleep(0)
        assert not taking.done()  # the root has not come: still waiting
        _add(store, _export(_span(TRACE, "01", PARENT, name="invoke_agent")))
        taken = await asyncio.wait_for(taking, 5.0)  # the root ends the wait, long before the grace
        assert taken.problem is None
        assert taken.document is not None
        names = [
            s["name"] for r in taken.document["resourceSpans"] for sc in r["scopeSpans"] for s in sc["spans"]
        ]
        assert names == ["execute_tool", "invoke_agent"]
        assert store.size == 0  # forgotten once taken
        again = await store.take(TRACE, grace_s=0)
        assert again.document is None
        assert "not announced or has expired" in (again.problem or "")

    asyncio.run(scenario())


def test_a_trace_without_spans_is_a_problem_after_the_grace() -> None:
    async def scenario() -> None:
        store = SpanStore()
        store.expect(TRACE, PARENT)
        taken = await store.take(TRACE, grace_s=0.01)
        assert taken.document is None
        assert taken.problem == f"did not arrive: no spans of trace {TRACE} within 0.01 s"

    asyncio.run(scenario())


def test_a_trace_past_its_cap_is_refused_and_its_trajectory_is_a_problem() -> None:
    async def scenario() -> None:
        store = SpanStore(StoreLimits(max_spans_per_trace=2))
        store.expect(TRACE, PARENT)
        accepted, rejected, reason = _add(store, _export(*(_span(TRACE, f"0{n}") for n in range(3))))
        assert (accepted, rejected, reason) == (2, 1, "a trace holds at most 2 spans")
        taken = await store.take(TRACE, grace_s=0)
        assert taken.document is None
        assert (
            taken.problem
            == f"was refused by the OTLP receiver (trace {TRACE}): a trace holds at most 2 spans"
        )

    asyncio.run(scenario())


def test_bytes_held_over_all_traces_are_capped() -> None:
    store = SpanStore(StoreLimits(max_total_bytes=2_000))
    other = "1" * 32
    store.expect(TRACE, PARENT)
    store.expect(other, PARENT)
    big = _span(TRACE, "01") | {"attributes": [{"key": "x", "value": {"stringValue": "y" * 1_500}}]}
    assert _add(store, _export(big))[:2] == (1, 0)
    accepted, rejected, reason = _add(store, _export(big | {"traceId": other}))
    assert (accepted, rejected) == (0, 1)
    assert reason == "the receiver holds at most 2,000 bytes of spans"
    assert store.size <= 2_000


def test_announced_traces_are_bounded_and_expire() -> None:
    store = SpanStore(StoreLimits(max_traces=2, ttl_s=60))
    for n in range(3):
        store.expect(f"{n:032x}", PARENT)
    assert _add(store, _export(_span(f"{0:032x}", "01")))[:2] == (0, 1)  # the oldest was dropped
    assert _add(store, _export(_span(f"{2:032x}", "01")))[:2] == (1, 0)
    expiring = SpanStore(StoreLimits(ttl_s=1e-9))
    expiring.expect(TRACE, PARENT)
    assert _add(expiring, _export(_span(TRACE, "01")))[:2] == (0, 1)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "not an OTLP JSON export request"),
        (b'{"resourceSpans": {"a": 1}}', "resourceSpans"),
        (b'{"resourceSpans": [{"scopeSpans": [{"spans": [7]}]}]}', "resourceSpans.0.scopeSpans.0.spans.0"),
    ],
)
def test_a_body_that_is_not_an_export_request_says_where(body: bytes, message: str) -> None:
    with pytest.raises(BadExportError, match=message.replace(".", r"\.")):
        parse_export(body)
