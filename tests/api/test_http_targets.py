"""HTTP targets against a real agent server on loopback: answers, templates, retries, error reasons."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from assay.targets import TargetCase, build_target, parse_target_spec
from tests.support.agent_server import AgentBehaviour, AgentServer, Fault

FAST = {"timeout": 2.0, "max_attempts": 3}


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    with AgentServer(AgentBehaviour(answers={"capital of France?": "Paris"})) as server:
        yield server


def case(text: str, case_id: int = 1, **metadata: object) -> TargetCase:
    return TargetCase(case_id, text, metadata)


async def ask(spec: dict[str, object], target_case: TargetCase):  # type: ignore[no-untyped-def]
    async with build_target(parse_target_spec(spec)) as target:
        return await target.respond(target_case)


async def test_http_default_posts_input_and_reads_output(agent: AgentServer) -> None:
    reply = await ask({"type": "http", "url": agent.url + "/answer"}, case("capital of France?"))
    assert (reply.output, reply.error, reply.attempts) == ("Paris", None, 1)
    assert reply.latency_ms is not None
    assert reply.latency_ms > 0


async def test_http_template_headers_and_path(agent: AgentServer) -> None:
    agent.behaviour.answers["q-7"] = {"nested": [{"text": "deep"}]}
    spec = {
        "type": "http",
        "url": agent.url,
        "headers": {"Authorization": "Bearer s3cret"},
        "body_template": {
            "input": "{{metadata.prefix}}-{{case_id}}",
            "raw": "{{input}}",
            "named": ["{{case_number}}", "{{case_key}}"],
        },
        "response_path": "output.nested.0.text",
    }
    reply = await ask(spec, TargetCase(7, "ignored", {"prefix": "q"}, number=3, key="k-3"))
    assert reply.output == "deep"
    assert json.loads(agent.requests[-1].body)["named"] == [3, "k-3"]
    assert agent.requests[-1].headers["authorization"] == "Bearer s3cret"


async def test_non_string_output_is_json_text(agent: AgentServer) -> None:
    agent.behaviour.answers["bool?"] = True
    reply = await ask({"type": "http", "url": agent.url}, case("bool?"))
    assert reply.output == "true"


async def test_503_with_retry_after_is_retried_then_answers(agent: AgentServer) -> None:
    agent.behaviour.faults["flaky"] = Fault("status", 503, retry_after=0.3, times=1)
    reply = await ask({"type": "http", "url": agent.url, **FAST}, case("flaky"))
    assert (reply.output, reply.attempts) == ("flaky", 2)
    first, second = (r.at for r in agent.requests if r.input == "flaky")
    assert second - first >= 0.3  # Retry-After honoured over the shorter backoff


async def test_503_forever_ends_as_http_503_after_retries(agent: AgentServer) -> None:
    agent.behaviour.faults["down"] = Fault("status", 503, retry_after=0)
    reply = await ask({"type": "http", "url": agent.url, "timeout": 2.0, "max_attempts": 2}, case("down"))
    assert (reply.output, reply.error, reply.attempts) == (None, "http_503_after_retries", 2)
    assert agent.count("down") == 2


async def test_400_is_never_retried(agent: AgentServer) -> None:
    agent.behaviour.faults["bad"] = Fault("status", 400)
    reply = await ask({"type": "http", "url": agent.url, **FAST}, case("bad"))
    assert (reply.error, reply.attempts) == ("http_400", 1)
    assert agent.count("bad") == 1


async def test_timeout_is_retried_then_reported(agent: AgentServer) -> None:
    agent.behaviour.faults["slow"] = Fault("hang", hang_s=5)
    started = time.monotonic()
    reply = await ask({"type": "http", "url": agent.url, "timeout": 0.2, "max_attempts": 2}, case("slow"))
    assert reply.error == "timeout_after_retries"
    assert agent.count("slow") == 2
    assert time.monotonic() - started < 3


@pytest.mark.parametrize("kind", ["bad_json", "no_output"])
async def test_unusable_reply_is_bad_response(agent: AgentServer, kind: str) -> None:
    agent.behaviour.faults["odd"] = Fault(kind)  # type: ignore[arg-type]
    reply = await ask({"type": "http", "url": agent.url, **FAST}, case("odd"))
    assert (reply.error, reply.attempts) == ("bad_response", 1)


async def test_openai_compatible_endpoint(agent: AgentServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_AGENT_KEY", "k-123")
    spec = {
        "type": "openai",
        "base_url": agent.url + "/v1",
        "model": "tiny",
        "api_key_env": "TEST_AGENT_KEY",
        "system_prompt": "Answer briefly.",
        "temperature": 0,
    }
    reply = await ask(spec, case("capital of France?"))
    assert reply.output == "Paris"
    assert agent.requests[-1].headers["authorization"] == "Bearer k-123"
