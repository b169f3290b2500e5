"""The llm-judge grader's secrets and egress without a judge: which keys a server reads, which addresses it
refuses (the judge over HTTP on loopback: tests/api/test_judge_over_http.py)."""

from __future__ import annotations

from typing import Any

import pytest

from assay.errors import ValidationError
from assay.graders import LLMJudgeGrader
from assay.services.grading.answers import check_calls, grade_answer
from assay.targets import (
    EgressPolicy,
    SecretPolicy,
    TargetPolicy,
)
from assay.targets.grader_calls import GraderCalls
from tests.support.resolver import StaticResolver

KEY = "sk-test-0123456789abcdefSECRET"


def server_policy(**egress: Any) -> TargetPolicy:
    """A server's policy: only ASSAY_SECRET_* variables, from an environment the test holds."""
    environ = {"ASSAY_SECRET_JUDGE": KEY, "OPENAI_API_KEY": "sk-not-for-targets"}
    return TargetPolicy(
        egress=EgressPolicy(**egress) if egress else EgressPolicy(),
        secrets=SecretPolicy(environ=environ),
    )


def test_a_server_reads_only_allowed_secrets_and_says_the_same_for_unset_ones() -> None:
    policy = server_policy()
    refused = LLMJudgeGrader(config={"api_key_env": "OPENAI_API_KEY"})
    unset = LLMJudgeGrader(config={"api_key_env": "ASSAY_SECRET_UNSET"})
    messages = []
    for grader in (refused, unset):
        with pytest.raises(ValidationError) as caught:
            check_calls(grader, policy)
        messages.append(
            caught.value.message.replace("OPENAI_API_KEY", "X").replace("ASSAY_SECRET_UNSET", "X")
        )
    assert messages[0] == messages[1]
    assert "grader.config.api_key_env" in messages[0]
    check_calls(LLMJudgeGrader(config={"api_key_env": "ASSAY_SECRET_JUDGE"}), policy)


def test_an_exposed_server_refuses_a_judge_on_a_private_literal() -> None:
    policy = server_policy(local_default=False)
    grader = LLMJudgeGrader(config={"base_url": "http://10.0.0.1/v1", "api_key_env": None})
    with pytest.raises(ValidationError, match=r"grader.config.base_url: 10.0.0.1 is a loopback or private"):
        check_calls(grader, policy)
    metadata = LLMJudgeGrader(config={"base_url": "http://169.254.169.254/v1", "api_key_env": None})
    with pytest.raises(ValidationError, match="link-local"):
        check_calls(metadata, server_policy())


async def test_a_name_resolving_to_a_refused_address_is_refused_on_connecting() -> None:
    resolver = StaticResolver({"judge.example": ["127.0.0.1"]})
    policy = server_policy(local_default=False, resolver=resolver)
    grader = LLMJudgeGrader(config={"base_url": "http://judge.example:9/v1", "api_key_env": None})
    check_calls(grader, policy)  # a name: checked when resolved
    async with GraderCalls(policy) as calls:
        result = await grade_answer(grader, "Paris", "Paris", calls)
    assert result["details"]["error"] == "judge_egress_refused"
    assert result["passed"] is False
    assert resolver.asked == ["judge.example"]
