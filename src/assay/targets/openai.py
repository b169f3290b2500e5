"""A target that asks an OpenAI-compatible chat-completions endpoint."""

from __future__ import annotations

from typing import Any

import orjson

from assay.targets.base import Target, TargetCase, response_text
from assay.targets.http import (
    HttpSession,
    capture_body_limit,
    note_trajectory,
    parse_reply,
    read_path,
    send,
    trace_headers,
)
from assay.targets.policy import TargetPolicy
from assay.targets.redaction import Redactor
from assay.targets.retry import RetryPolicy
from assay.targets.secrets import SecretPolicy
from assay.targets.specs import OpenAITargetSpec
from assay.targets.usage import note_usage, read_usage


def api_key(spec: OpenAITargetSpec, secrets: SecretPolicy) -> str | None:
    """The key from the environment variable the spec names, as the secret policy allows; else a
    ``ValidationError`` (the same whether the name is refused or unset)."""
    if spec.api_key_env is None:
        return None
    return secrets.value(spec.api_key_env, where=("target", "openai", "api_key_env"))


class OpenAITarget(Target):
    """Sends each case's input as the user message; the answer is the first choice's message content."""

    def __init__(
        self, spec: OpenAITargetSpec, *, concurrency: int = 8, policy: TargetPolicy | None = None
    ) -> None:
        policy = policy if policy is not None else TargetPolicy.unrestricted()
        retry = RetryPolicy(attempts=spec.max_attempts, timeout=spec.timeout)
        key = api_key(spec, policy.secrets)
        redactor = Redactor.of([key])
        super().__init__(retry, max_answer_bytes=policy.max_answer_bytes, redactor=redactor)
        self.spec = spec
        self._headers = {"content-type": "application/json"}
        if key is not None:
            self._headers["authorization"] = f"Bearer {key}"
        self._url = spec.base_url.rstrip("/") + "/chat/completions"
        self.traces = policy.traces
        self._session = HttpSession(
            spec.timeout,
            concurrency,
            egress=policy.egress,
            max_answer_bytes=policy.max_answer_bytes,
            redactor=redactor,
        )

    def body(self, case: TargetCase) -> dict[str, Any]:
        """The chat-completions request for ``case``: its conversation as it is (docs/conversations.md), the
        system prompt first unless the conversation opens with its own."""
        messages = case.chat()
        opens_with_own = case.messages is not None and messages[0]["role"] in ("system", "developer")
        if self.spec.system_prompt and not opens_with_own:
            messages.insert(0, {"role": "system", "content": self.spec.system_prompt})
        body: dict[str, Any] = {"model": self.spec.model, "messages": messages}
        if self.spec.temperature is not None:
            body["temperature"] = self.spec.temperature
        if self.spec.max_tokens is not None:
            body["max_tokens"] = self.spec.max_tokens
        return body

    async def call(self, case: TargetCase) -> str | None:
        """One chat-completions request."""
        headers, trace = trace_headers(self.spec.trajectory, self._headers, self.traces)
        response = await send(
            self._session,
            "POST",
            self._url,
            self.spec.timeout,
            body_limit=capture_body_limit(self.spec.trajectory),
            data=orjson.dumps(self.body(case)),
            headers=headers,
        )
        paths = ("choices.0.message.content", "usage", "model")
        document = await parse_reply(response, self.spec.trajectory, paths)
        del response
        note_trajectory(self.spec.trajectory, trace, document)
        if isinstance(document, dict):
            note_usage(read_usage(document.get("usage"), model=document.get("model") or self.spec.model))
        return response_text(read_path(document, "choices.0.message.content"))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._session.aclose()
