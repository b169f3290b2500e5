"""Targets without a server: a refused connection, a name that does not resolve, recorded answers, Python
callables, specs refused and shown (HTTP targets against a real agent: tests/api/test_http_targets.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import ValidationError
from assay.targets import (
    TargetCase,
    build_target,
    parse_target_spec,
)
from assay.targets.specs import read_target_record, target_record, target_view


def case(text: str, case_id: int = 1, **metadata: object) -> TargetCase:
    return TargetCase(case_id, text, metadata)


async def ask(spec: dict[str, object], target_case: TargetCase):  # type: ignore[no-untyped-def]
    async with build_target(parse_target_spec(spec)) as target:
        return await target.respond(target_case)


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


@pytest.mark.parametrize(
    "given",
    [
        {"type": "http", "url": "http://x", "headers": {"X-Key": "k"}, "body_template": {"q": "{{input}}"}},
        {"type": "openai", "model": "gpt-4o-mini", "temperature": 0.5},
        {"type": "recorded", "responses": {"1": "a", "2": None}},
        {"type": "evaluation", "evaluation_id": 3},
        {"type": "command", "command": "cat"},
    ],
)
def test_a_stored_target_reads_back_as_the_spec_it_stored(given: dict[str, object]) -> None:
    """An evaluation stores its spec once (``target_record``) and every later reader parses it back: a re-run,
    every shard's plan. What is read back is the spec that was stored, secrets and answers included."""
    spec = parse_target_spec(given)
    record = target_record(spec)
    assert read_target_record(record) == spec
    assert record == spec.model_dump(mode="json")  # the stored JSON, unchanged by the pair


def test_a_stored_target_this_version_cannot_read_is_a_validation_error() -> None:
    with pytest.raises(ValidationError, match="Invalid target"):
        read_target_record({"type": "http"})
    with pytest.raises(ValidationError, match="Invalid target"):
        read_target_record(None)


@pytest.mark.parametrize("host", ["\U0010bb92", "a\u200d.example", "[-]", "x:port", "a\\b", "]xn--[[@"])
def test_a_url_the_client_cannot_parse_is_refused_naming_its_field(host: str) -> None:
    """Refused when the spec is read, by the client's own parser: the egress check (which refused it too)
    once let a parser's IndexError through as a 500 (POST /api/evaluations/test-target)."""
    with pytest.raises(ValidationError) as caught:
        parse_target_spec({"type": "http", "url": f"http://{host}/answer"})
    assert caught.value.problems[0].loc == ("target", "http", "url")
    assert caught.value.problems[0].message.startswith("not a valid URL")


@pytest.mark.parametrize(
    ("path", "answers", "outlined"),
    [
        ("messages", ("answer", "usage", "model"), True),
        ("", ("answer",), True),  # the whole reply: its own `messages` are the steps
        ("", ("messages.3.content",), False),  # the answer lies in the steps: parsed whole
        ("data.trajectory", ("data.answer",), True),
        ("data.trajectory", ("data.trajectory.0.content",), False),
        ("data.trajectory", ("data.trajectory.messages",), False),
        ("choices.0.message", ("answer",), False),  # a list index: not an ijson prefix
    ],
)
def test_a_reply_is_outlined_unless_a_value_read_from_it_may_lie_in_its_steps(
    path: str, answers: tuple[str, ...], outlined: bool
) -> None:
    from assay.targets.http import outlines
    from assay.targets.specs import TrajectoryOption

    assert outlines(TrajectoryOption.model_validate({"from": "reply", "path": path}), answers) is outlined
    assert not outlines(TrajectoryOption.model_validate({"from": "otlp"}), answers)
    assert not outlines(None, answers)
