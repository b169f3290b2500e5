"""Targets against a real agent server on loopback: answers, templates, retries, error reasons."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.errors import ValidationError
from assay.targets import TargetCase, build_target, parse_target_spec
from assay.targets.specs import target_view
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


async def test_connection_refused_is_retried_then_reported() -> None:
    spec = {"type": "http", "url": "http://127.0.0.1:9/", "timeout": 1.0, "max_attempts": 2}
    reply = await ask(spec, case("anyone?"))
    assert reply.error == "connection_error_after_retries"
    assert reply.error_detail == "connection refused to http://127.0.0.1:9/"  # the URL and the OS cause


async def test_a_name_that_does_not_resolve_says_so() -> None:
    spec = {"type": "http", "url": "http://assay-test.invalid/answer", "timeout": 5.0, "max_attempts": 1}
    reply = await ask(spec, case("anyone?"))
    assert reply.error == "connection_error_after_retries"
    assert reply.error_detail is not None
    assert reply.error_detail.startswith("cannot resolve assay-test.invalid (")
    assert reply.error_detail.endswith(") for http://assay-test.invalid/answer")


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


def test_openai_without_its_key_is_refused_before_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    spec = parse_target_spec({"type": "openai", "model": "m", "api_key_env": "NO_SUCH_KEY_VAR"})
    with pytest.raises(ValidationError, match="NO_SUCH_KEY_VAR"):
        build_target(spec)


async def test_recorded_by_case_id_then_metadata() -> None:
    spec = {"type": "recorded", "responses": {"1": "yes"}, "metadata_key": "answer"}
    assert (await ask(spec, case("q", 1))).output == "yes"
    assert (await ask(spec, case("q", 2, answer=False))).output == "false"
    missing = await ask(spec, case("q", 3))
    assert missing.error == "no_recorded_response"


async def test_python_callable_sync_async_and_raising(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_agent_mod.py").write_text(
        "async def shout(text):\n    return text.upper()\n"
        "def length(text):\n    return len(text)\n"
        "def broken(text):\n    raise RuntimeError('nope')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert (await ask({"type": "python", "callable": "my_agent_mod:shout"}, case("hi"))).output == "HI"
    assert (await ask({"type": "python", "callable": "my_agent_mod:length"}, case("abc"))).output == "3"
    reply = await ask({"type": "python", "callable": "my_agent_mod:broken"}, case("x"))
    assert reply.error == "callable_error"
    assert reply.error_detail == "RuntimeError: nope"
    with pytest.raises(ValidationError):
        build_target(parse_target_spec({"type": "python", "callable": "my_agent_mod:absent"}))


async def test_command_reads_stdin_and_fails_on_nonzero_exit() -> None:
    echo = f'{sys.executable} -c "import sys; print(sys.stdin.read()[::-1])"'
    assert (await ask({"type": "command", "command": echo}, case("abc"))).output == "cba"
    failing = await ask({"type": "command", "command": "echo oops >&2; exit 3"}, case("x"))
    assert failing.error == "command_failed"
    assert failing.error_detail is not None
    assert "exit status 3" in failing.error_detail


async def test_command_timeout_kills_it() -> None:
    reply = await ask({"type": "command", "command": "sleep 5", "timeout": 0.2, "max_attempts": 1}, case("x"))
    assert reply.error == "timeout_after_retries"


def test_bad_specs_are_refused_with_every_problem() -> None:
    with pytest.raises(ValidationError) as caught:
        parse_target_spec({"type": "http", "url": "ftp://x", "retries": 3})
    assert [problem.loc for problem in caught.value.problems] == [
        ("target", "http", "url"),
        ("target", "http", "retries"),
    ]
    assert caught.value.problems[0].message == "'ftp://' is not a web address: write http://x"
    with pytest.raises(ValidationError, match="unknown placeholder"):
        parse_target_spec({"type": "http", "url": "http://x", "body_template": {"q": "{{inptu}}"}})
    with pytest.raises(ValidationError, match="not allowed"):
        parse_target_spec({"type": "command", "command": "ls"}, allowed=frozenset({"http"}))


def test_view_hides_header_values_and_recorded_answers() -> None:
    http = parse_target_spec({"type": "http", "url": "http://x", "headers": {"X-Key": "secret"}})
    assert target_view(http.model_dump())["headers"] == {"X-Key": "[redacted]"}
    assert "secret" not in repr(target_view(http.model_dump()))
    recorded = parse_target_spec({"type": "recorded", "responses": {"1": "a", "2": "b"}})
    view = target_view(recorded.model_dump())
    assert view["responses_count"] == 2
    assert "responses" not in view
