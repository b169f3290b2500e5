"""The llm-judge grader in runs, against a real judge on loopback speaking the OpenAI protocol.

The judge's failure table over HTTP: each scripted reply (malformed ones included, and failed calls) and the
case result it gives. Secrets: the key reaches the judge's Authorization header and nothing else.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from typing import Any

import pytest

from assay.graders import LLMJudgeGrader
from assay.services.execution.case_results import CaseResult, RunCase
from assay.services.execution.runner import run_cases
from assay.services.grading.answers import blocking_grading, calls_for, grade_answer
from assay.targets import (
    EgressPolicy,
    SecretPolicy,
    TargetCase,
    TargetPolicy,
    build_target,
    parse_target_spec,
)
from assay.targets.grader_calls import GraderCalls
from tests.support.judge_server import JudgeReply, JudgeServer, label, verdict

KEY = "sk-test-0123456789abcdefSECRET"
PASS = verdict(True, 0.9, "Both name Paris.")
TABLE: dict[str, JudgeReply | list[JudgeReply]] = {
    "passes": PASS,
    "fails": verdict(False, 0.1, "It names Lyon."),
    "contradicts": verdict(True, 0.2),
    "no verdict": JudgeReply(json.dumps({"explanation": "fine", "score": 0.9})),
    "prose": JudgeReply('The response is correct. {"explanation": "ok", "pass": true, "score": 1}'),
    "not json": JudgeReply(body=b"<html>upstream error</html>"),
    "refuses": JudgeReply(None, refusal="I can't help with that."),
    "cut short": JudgeReply('{"explanation": "because', finish_reason="length"),
    "429 then passes": [JudgeReply(status=429, retry_after=0), JudgeReply(status=429, retry_after=0), PASS],
    "always 503": JudgeReply(status=503),
    "401": JudgeReply(body=b'{"error": {"message": "Incorrect API key"}}', status=401),
    "hangs": JudgeReply(hang_s=5, content="late"),
    "huge": JudgeReply("x" * 300_000),
    "redirects": JudgeReply(status=307, headers={"location": "http://127.0.0.1:9/v1/chat/completions"}),
}
EXPECTED = {
    "passes": (True, 0.9, None),
    "fails": (False, 0.1, None),
    "contradicts": (False, None, "invalid_judgement"),
    "no verdict": (False, None, "invalid_judgement"),
    "prose": (False, None, "invalid_judgement"),
    "not json": (False, None, "invalid_judgement"),
    "refuses": (False, None, "invalid_judgement"),
    "cut short": (False, None, "invalid_judgement"),
    "429 then passes": (True, 0.9, None),
    "always 503": (False, None, "judge_http_503_after_retries"),
    "401": (False, None, "judge_http_401"),
    "hangs": (False, None, "judge_timeout_after_retries"),
    "huge": (False, None, "judge_answer_too_large"),
    "redirects": (False, None, "judge_http_redirect"),
}


class ListSink:
    def __init__(self) -> None:
        self.results: list[CaseResult] = []

    def write(self, results: Sequence[CaseResult]) -> None:
        self.results.extend(results)


def judge_config(judge: JudgeServer, **extra: Any) -> dict[str, Any]:
    return {
        "base_url": judge.base_url,
        "model": "judge-1",
        "api_key_env": "ASSAY_SECRET_JUDGE",
        "timeout": 0.5,
        "max_attempts": 3,
        **extra,
    }


def server_policy(**egress: Any) -> TargetPolicy:
    """A server's policy: only ASSAY_SECRET_* variables, from an environment the test holds."""
    environ = {"ASSAY_SECRET_JUDGE": KEY, "OPENAI_API_KEY": "sk-not-for-targets"}
    return TargetPolicy(
        egress=EgressPolicy(**egress) if egress else EgressPolicy(),
        secrets=SecretPolicy(environ=environ),
    )


async def run_answers(grader: LLMJudgeGrader, answers: list[str], policy: TargetPolicy) -> list[CaseResult]:
    cases = [RunCase(TargetCase(n, f"question {n}", {}), "Paris") for n in range(1, len(answers) + 1)]
    responses = {str(n): answer for n, answer in enumerate(answers, 1)}
    target = build_target(parse_target_spec({"type": "recorded", "responses": responses}))
    sink = ListSink()
    async with calls_for(grader, policy, concurrency=4) as calls:
        await run_cases(cases, target, grader, sink, concurrency=4, calls=calls)
    return sorted(sink.results, key=lambda result: result.case_id)


async def test_failure_table_over_http(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    answers = list(TABLE)
    with JudgeServer(TABLE) as judge:
        grader = LLMJudgeGrader(config=judge_config(judge))
        results = await run_answers(grader, answers, server_policy())
        requests = judge.judged
    table = {
        answer: (result.passed, result.score, result.error)
        for answer, result in zip(answers, results, strict=True)
    }
    assert table == EXPECTED
    by_answer = dict(zip(answers, results, strict=True))
    passed = by_answer["passes"]
    assert passed.match_status == "match"
    assert passed.details is not None
    assert passed.details["explanation"] == "Both name Paris."
    assert passed.details["judge"]["reply_model"] == "judge-1-scripted"
    assert passed.details["tokens"] == {"prompt": 100, "completion": 20, "total": 120}
    assert passed.details["call"]["attempts"] == 1
    assert by_answer["429 then passes"].details["call"]["attempts"] == 3  # type: ignore[index]
    invalid = by_answer["contradicts"]
    assert invalid.match_status is None  # an error, not a verdict on the answer
    assert invalid.agent_response == "contradicts"  # the agent's answer is kept
    assert invalid.details is not None
    assert invalid.details["reply"] is not None
    assert invalid.error_detail is not None
    assert "contradicts itself" in invalid.error_detail
    # Every request asked for structured output, with the key in the header only.
    asked = [request for request in requests if request.agent_response == "passes"]
    assert len(asked) == 1
    assert asked[0].headers["authorization"] == f"Bearer {KEY}"
    assert asked[0].body["response_format"]["type"] == "json_schema"
    assert asked[0].body["model"] == "judge-1"
    assert asked[0].path == "/v1/chat/completions"
    assert len([r for r in requests if r.agent_response == "always 503"]) == 3  # retried up to max_attempts
    assert len([r for r in requests if r.agent_response == "401"]) == 1  # not retried
    stored = json.dumps([result.as_record() for result in results])
    assert KEY not in stored
    assert KEY not in caplog.text


async def test_a_judge_echoing_the_key_does_not_put_it_in_a_result() -> None:
    echo = {
        "echo in verdict": JudgeReply(
            '{"explanation": "you sent {{authorization}}", "pass": true, "score": 1}'
        ),
        "echo in error": JudgeReply(body=b'{"error": "bad key {{authorization}}"}', status=400),
        "echo in garbage": JudgeReply(body=b"key={{authorization}}"),
    }
    with JudgeServer(echo) as judge:
        grader = LLMJudgeGrader(config=judge_config(judge))
        results = await run_answers(grader, list(echo), server_policy())
    assert [result.error for result in results] == [None, "judge_http_400", "invalid_judgement"]
    assert results[0].details is not None
    assert results[0].details["explanation"] == "you sent Bearer [redacted]"
    stored = json.dumps([result.as_record() for result in results])
    assert KEY not in stored
    assert "[redacted]" in (results[1].error_detail or "")


async def test_retry_after_is_honoured() -> None:
    script: dict[str, JudgeReply | list[JudgeReply]] = {
        "Paris": [JudgeReply(status=429, retry_after=1), PASS]
    }
    with JudgeServer(script) as judge:
        grader = LLMJudgeGrader(config=judge_config(judge, timeout=5))
        started = time.monotonic()
        async with GraderCalls(server_policy()) as calls:
            result = await grade_answer(grader, "Paris", "Paris", calls)
        waited = time.monotonic() - started
    assert result["passed"] is True
    assert result["details"]["call"]["attempts"] == 2
    assert waited >= 1.0  # the server asked for a second before the retry


async def test_classify_mode_over_http() -> None:
    script: dict[str, JudgeReply | list[JudgeReply]] = {
        "Paris": label("correct"),
        "Paris, France's largest city": label("partial"),
        "Lyon": label("Incorrect"),
    }
    config = {"mode": "classify", "labels": ["correct", "partial", "incorrect"], "pass_labels": ["correct"]}
    with JudgeServer(script) as judge:
        grader = LLMJudgeGrader(config=judge_config(judge, **config))
        results = await run_answers(grader, list(script), server_policy())
        schema = judge.judged[0].body["response_format"]["json_schema"]["schema"]
    assert [(r.passed, r.match_status, r.error) for r in results] == [
        (True, "match", None),
        (False, "mismatch", None),
        (False, None, "invalid_judgement"),
    ]
    assert schema["properties"]["label"]["enum"] == ["correct", "partial", "incorrect"]


async def test_the_judge_sees_each_case_input_in_a_run_and_none_in_a_playground() -> None:
    rubric = "The response answers the question in the input correctly."
    answers = ["Paris", "Lyon", "Paris, of course"]
    with JudgeServer({"Paris": PASS, "Lyon": verdict(False, 0.0)}, default=PASS) as judge:
        grader = LLMJudgeGrader(config=judge_config(judge, rubric=rubric))
        results = await run_answers(grader, answers, server_policy())
        asked = {request.agent_response: request.input for request in judge.judged}
        async with GraderCalls(server_policy()) as calls:
            alone = await grade_answer(grader, "Paris", "Paris", calls)
        playground = judge.judged[-1]
    assert asked == {"Paris": "question 1", "Lyon": "question 2", "Paris, of course": "question 3"}
    assert [(r.passed, r.input) for r in results] == [
        (True, "question 1"),
        (False, "question 2"),
        (True, "question 3"),
    ]
    details = results[1].details
    assert details is not None
    stored = json.loads(details["prompt"]["user"])
    assert (stored["input"], stored["rubric"]) == ("question 2", rubric)
    assert alone["passed"] is True
    assert playground.input is None  # no case: the judge is told so (null), never another case's input


async def test_text_mode_sends_no_response_format() -> None:
    with JudgeServer({"Paris": PASS}) as judge:
        grader = LLMJudgeGrader(config=judge_config(judge, structured_output=False))
        async with GraderCalls(server_policy()) as calls:
            result = await grade_answer(grader, "Paris", "Paris", calls)
        body = judge.judged[0].body
    assert result["passed"] is True
    assert "response_format" not in body


def test_blocking_grading_serves_synchronous_callers() -> None:
    script: dict[str, JudgeReply | list[JudgeReply]] = {
        "a": PASS,
        "b": verdict(False, 0.0),
        "c": JudgeReply("?"),
    }
    with JudgeServer(script) as judge:
        grader = LLMJudgeGrader(config=judge_config(judge))
        with blocking_grading(grader, server_policy(), concurrency=2) as grade_pairs:
            first = grade_pairs([("a", "x"), ("b", "x")])
            second = grade_pairs([("c", "x")])
    assert [r["passed"] for r in first] == [True, False]
    assert second[0]["details"]["error"] == "invalid_judgement"
