"""A target capturing trajectories: a fresh traceparent per call, the reply's part noted, its own size cap."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from aiohttp import web

from assay.graders.trajectory.streaming import Streamed
from assay.targets import TargetCase, build_target, parse_target_spec

BIG_MESSAGES = [{"role": "tool", "tool_call_id": f"c{n}", "content": "r" * 1_000} for n in range(2_000)]


@pytest.fixture
async def agent() -> AsyncIterator[tuple[str, list[str]]]:
    """A loopback agent answering ``answer`` and 2 MB of ``messages`` (twice the answer cap), recording
    the traceparent of each call."""
    seen: list[str] = []

    async def reply(request: web.Request) -> web.Response:
        seen.append(request.headers.get("traceparent", ""))
        return web.json_response({"answer": "done", "messages": BIG_MESSAGES})

    app = web.Application()
    app.router.add_post("/agent", reply)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/agent", seen
    await runner.cleanup()


async def test_a_large_reply_ijson_refuses_is_parsed_whole() -> None:
    messages = [{**message, "n": 2**64} for message in BIG_MESSAGES]  # past 64 bits: yajl overflows

    async def reply(request: web.Request) -> web.Response:
        return web.json_response({"answer": "done", "messages": messages})

    app = web.Application()
    app.router.add_post("/agent", reply)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        url = f"http://127.0.0.1:{runner.addresses[0][1]}/agent"
        answered = await _respond(url, {"from": "reply", "path": "messages"})
    finally:
        await runner.cleanup()
    assert answered.error is None
    assert answered.output == "done"
    assert answered.capture is not None
    assert isinstance(answered.capture.document, list)  # orjson read it whole, as before
    assert len(answered.capture.document) == len(BIG_MESSAGES)


async def _respond(url: str, trajectory: dict[str, Any] | None) -> Any:
    spec: dict[str, Any] = {"type": "http", "url": url, "response_path": "answer", "max_attempts": 1}
    if trajectory is not None:
        spec["trajectory"] = trajectory
    async with build_target(parse_target_spec(spec)) as target:
        return await target.respond(TargetCase(1, "hello"))


async def test_a_reply_carrying_a_trajectory_has_its_own_cap_and_its_part_is_noted(
    agent: tuple[str, list[str]],
) -> None:
    url, seen = agent
    reply = await _respond(url, {"from": "reply", "path": "messages"})
    assert reply.error is None
    assert reply.output == "done"
    assert reply.capture is not None
    # a large reply is outlined: its steps stay in the body's text, read one at a time
    assert isinstance(reply.capture.document, Streamed)
    assert list(reply.capture.document) == BIG_MESSAGES
    assert re.fullmatch(r"00-[0-9a-f]{32}-[0-9a-f]{16}-01", seen[-1])
    assert seen[-1] == reply.capture.trace.header  # the trace the answering call was sent
    again = await _respond(url, {"from": "reply", "path": "messages"})
    assert again.capture is not None
    assert again.capture.trace.trace_id != reply.capture.trace.trace_id  # a fresh trace per call


async def test_past_the_trajectory_cap_or_without_the_option_the_answer_cap_holds(
    agent: tuple[str, list[str]],
) -> None:
    url, seen = agent
    capped = await _respond(url, {"from": "reply", "path": "messages", "max_bytes": 1024 * 1024})
    assert capped.error == "answer_too_large"
    assert capped.capture is None
    plain = await _respond(url, None)
    assert plain.error == "answer_too_large"
    assert seen[-1] == ""  # no trajectory asked: no traceparent sent


async def test_a_missing_path_is_noted_as_the_problem(agent: tuple[str, list[str]]) -> None:
    url, _ = agent
    reply = await _respond(url, {"from": "reply", "path": "steps"})
    assert reply.output == "done"
    assert reply.capture is not None
    assert reply.capture.document is None
    assert reply.capture.problem == "is not in the reply: it has no 'steps' (the trajectory's path)"
    assert orjson.dumps(reply.capture.trace.trace_id)  # a trace was still sent
