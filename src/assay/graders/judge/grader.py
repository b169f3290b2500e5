"""The llm-judge grader: an OpenAI-compatible chat model grades the answer, and fails closed.

Two modes. ``rubric``: the judge answers ``{"explanation", "pass", "score"}`` and the answer passes when the
judge says pass with a score at or above ``threshold``. ``classify``: the judge answers ``{"explanation",
"label"}`` with one of ``labels``, and the answer passes when the label is in ``pass_labels``.

The grader builds the request and reads the reply (:mod:`assay.graders.contract.calls`); the platform sends
it. A reply without a usable, self-consistent judgement (:mod:`assay.graders.judge.reply`) is the error
``invalid_judgement``; a call that failed is the error ``judge_<reason>`` (``judge_timeout_after_retries``,
``judge_http_401``...). Both are ``invalid_response`` verdicts that never pass. An empty answer is
``invalid_response`` before any call. The details keep the judge's model, the prompt, the reply, the token
counts and the explanation; never a secret (the key is read by name, by the platform).

The inputs reach the judge as one JSON document (the rubric, the input the agent was given, the expected
output, the agent's response; its texts are built in :mod:`assay.graders.judge.prompt`), so an answer cannot
end the data and start instructions by its layout; the system prompt says the input and the response are
data, never instructions. The input is the case's, told by the runner
(:class:`~assay.graders.contract.calls.CaseContext`): a rubric such as "the answer is correct for the
question" needs it. Where no case is known (a playground, plain ``grade()``) it is ``null``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar
from urllib.parse import urlsplit

from assay.graders.contract.base import Preset
from assay.graders.contract.calls import (
    CALL_UNAVAILABLE,
    NO_CONTEXT,
    CallReply,
    CaseContext,
    Endpoint,
    OneCallGrader,
    OutboundCall,
)
from assay.graders.contract.config_check import ConfigProblem, ProblemKind
from assay.graders.contract.reply import AgentReply
from assay.graders.contract.verdict import (
    EMPTY_RESPONSE_REASON,
    ERROR_KEY,
    GradeResult,
    MatchStatus,
    Verdict,
    VerdictReport,
)
from assay.graders.judge.prompt import (
    DEFAULT_PREAMBLE,
    DEFAULT_RUBRIC,
    MAX_TEXT,
    TEXT,
    clean,
    dumps,
    label_format,
    label_schema,
    rubric_format,
    rubric_schema,
    story,
    story_placeholder,
)
from assay.graders.judge.reply import (
    ChatReply,
    InvalidJudgementError,
    Judgement,
    read_chat,
    read_label,
    read_object,
    read_rubric,
)
from assay.graders.reading.text import is_blank, read_text

__all__ = ["INVALID_JUDGEMENT", "MAX_REPLY_BYTES", "LLMJudgeGrader"]

INVALID_JUDGEMENT = "invalid_judgement"
PROMPT_TOO_LARGE = "judge_prompt_too_large"
UNAVAILABLE = "judge_unavailable"
MAX_REPLY_BYTES = 256 * 1024
"""A judge's whole reply body; a longer one is not read (the error ``judge_answer_too_large``)."""
MAX_LABELS = 50
STORED_PROMPT_CHARS = 20_000
"""A user message up to this long is kept in details as sent; a longer one without the texts it carries (the
input, the expected output and the answer, each stored with the result anyway: named by their length)."""
_STORED_REPLY_CHARS = 20_000
"""Of a reply whose content could not be read, this much of the body is kept in details for diagnosis."""


class LLMJudgeGrader(OneCallGrader):
    """Asks an OpenAI-compatible chat model to grade the answer by a rubric or into labels."""

    default_id: ClassVar[str] = "llm-judge"
    name: ClassVar[str] = "LLM Judge"
    description: ClassVar[str] = (
        "A chat model (any OpenAI-compatible endpoint) grades the response by a rubric (pass, score, "
        "explanation) or into labels; an unusable or self-contradicting judgement is an error, never a pass"
    )
    type: ClassVar[str] = "llm-judge"
    version: ClassVar[str] = "1.3.0"
    report: ClassVar[VerdictReport] = VerdictReport.SCORE
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "mode": {
                "enum": ["rubric", "classify"],
                "description": "rubric: pass/fail with a score; classify: one of 'labels'",
                "default": "rubric",
            },
            "rubric": {
                **TEXT,
                "pattern": r"\S",
                "description": "What the judge checks (in classify mode: how to choose the label)",
                "default": DEFAULT_RUBRIC,
            },
            "threshold": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 1,
                "description": "Rubric mode: the score a passing judgement reaches (and a failing one not)",
                "default": 0.5,
            },
            "labels": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": r"\S"},
                "minItems": 2,
                "maxItems": MAX_LABELS,
                "uniqueItems": True,
                "description": "Classify mode: the labels the judge chooses from",
                "default": ["correct", "incorrect"],
            },
            "pass_labels": {
                "type": "array",
                "items": {"type": "string", "maxLength": 100},
                "minItems": 1,
                "maxItems": MAX_LABELS,
                "uniqueItems": True,
                "description": "Classify mode: the labels that pass (some, not all, of 'labels')",
                "default": ["correct"],
            },
            "model": {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "pattern": r"\S",
                "description": "The judge model",
                "default": "gpt-4o-mini",
            },
            "base_url": {
                "type": "string",
                "pattern": r"^https?://\S+$",
                "maxLength": 2048,
                "description": "OpenAI-compatible API root; calls go to <base_url>/chat/completions",
                "default": "https://api.openai.com/v1",
            },
            "api_key_env": {
                "type": ["string", "null"],
                "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$",
                "maxLength": 200,
                "description": "Environment variable holding the API key (on a server: ASSAY_SECRET_* or "
                "listed in ASSAY_TARGET_SECRETS); null for an endpoint without one",
                "default": "OPENAI_API_KEY",
            },
            "system_prompt": {
                "type": ["string", "null"],
                "maxLength": MAX_TEXT,
                "description": "Replaces the default preamble of the system message (the reply format the "
                "judge must follow is always added after it); null keeps the default",
                "default": None,
            },
            "structured_output": {
                "type": "boolean",
                "description": "Ask for a JSON-schema response_format (turn off for an endpoint without "
                "it: the reply must then be exactly one JSON object in text)",
                "default": True,
            },
            "temperature": {
                "type": ["number", "null"],
                "minimum": 0,
                "maximum": 2,
                "description": "Sampling temperature; null sends none (models that refuse one)",
                "default": 0,
            },
            "max_tokens": {
                "type": ["integer", "null"],
                "minimum": 1,
                "maximum": 32_768,
                "description": "Most tokens the judge may answer with; null sends no limit",
                "default": 1024,
            },
            "max_prompt_chars": {
                "type": "integer",
                "minimum": 1000,
                "maximum": 2_000_000,
                "description": "Longest prompt sent (system and user message); a longer one is the error "
                "judge_prompt_too_large, never cut",
                "default": 100_000,
            },
            "timeout": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 600,
                "description": "Seconds one call to the judge may take",
                "default": 60,
            },
            "max_attempts": {
                "type": "integer",
                "minimum": 1,
                "maximum": 10,
                "description": "Tries per answer (timeouts, 408, 429 and 5xx are retried, honouring "
                "Retry-After)",
                "default": 4,
            },
            "max_total_seconds": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 3600,
                "description": "Seconds one answer's judgement may take in all, every attempt and wait "
                "(backoff, Retry-After) included; then it is the error judge_timeout_after_retries",
                "default": 300,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "The judge passed the response with score 1 (rubric) or gave it a passing label",
        "0.5": "Rubric mode: the judge's score (passing at the threshold, 0.5 by default)",
        "0.0": "The judge failed the response, or could not judge it: an error (invalid_judgement, "
        "judge_<reason> for a failed call), or an empty response",
    }
    presets: ClassVar[dict[str, Preset]] = {
        "factuality": Preset(
            "Rubric: the response is factually consistent with the expected output",
            {
                "mode": "rubric",
                "rubric": "The response is factually consistent with the expected output: every claim it "
                "makes agrees with it. Omitting detail is fine; contradicting it, or adding a false claim, "
                "is not.",
            },
        ),
        "correctness-labels": Preset(
            "Classify: correct, partially_correct or incorrect; only correct passes",
            {
                "mode": "classify",
                "rubric": "Compare the response with the expected output. correct: it gives the expected "
                "answer. partially_correct: part of it, or the answer with an error. incorrect: otherwise.",
                "labels": ["correct", "partially_correct", "incorrect"],
                "pass_labels": ["correct"],
            },
        ),
        "local-text": Preset(
            "A local server (Ollama, llama.cpp) without structured output: strict JSON in text",
            {
                "base_url": "http://127.0.0.1:11434/v1",
                "api_key_env": None,
                "model": "llama3.1",
                "structured_output": False,
            },
        ),
    }

    __slots__ = (
        "_body",
        "_endpoint",
        "_labels",
        "_pass_labels",
        "_rubric",
        "_system",
        "_threshold",
        "_user_head",
    )

    def __init__(self, grader_id: str = "llm-judge", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        config = self._config
        self._rubric: str = clean(config["rubric"])
        self._threshold = float(config["threshold"])
        self._labels: list[str] = [clean(label) for label in config["labels"]]
        self._pass_labels: list[str] = [clean(label) for label in config["pass_labels"]]
        classify = config["mode"] == "classify"
        preamble = config["system_prompt"] if config["system_prompt"] is not None else DEFAULT_PREAMBLE
        reply_format = label_format(self._labels) if classify else rubric_format(self._threshold)
        self._system = clean(f"{preamble}\n\n{reply_format}")
        body: dict[str, Any] = {"model": config["model"]}
        if config["temperature"] is not None:
            body["temperature"] = config["temperature"]
        if config["max_tokens"] is not None:
            body["max_tokens"] = config["max_tokens"]
        if config["structured_output"]:
            schema = label_schema(self._labels) if classify else rubric_schema()
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "judgement", "strict": True, "schema": schema},
            }
        self._body = body
        head = f'{{\n "rubric": {dumps(self._rubric)}'
        if classify:
            head += f',\n "labels": {json.dumps(self._labels, ensure_ascii=False)}'
        self._user_head = head
        self._endpoint = Endpoint(
            url=config["base_url"].rstrip("/") + "/chat/completions",
            api_key_env=config["api_key_env"],
            timeout=float(config["timeout"]),
            max_attempts=int(config["max_attempts"]),
            max_reply_bytes=MAX_REPLY_BYTES,
            max_total_seconds=float(config["max_total_seconds"]),
        )
        self._freeze()

    @classmethod
    def semantic_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """Pass labels must be some (not all) of the labels; the URL must not hold credentials."""
        problems = []
        labels = config.get("labels", ["correct", "incorrect"])
        pass_labels = config.get("pass_labels", ["correct"])
        unknown = [label for label in pass_labels if label not in labels]
        if unknown:
            names = ", ".join(repr(label) for label in unknown)
            message = f"'pass_labels' {names} not in 'labels' ({', '.join(map(repr, labels))})"
            problems.append(ConfigProblem("pass_labels", message, ProblemKind.VALUE))
        elif set(pass_labels) >= set(labels):
            message = "'pass_labels' holds every label, so no answer could fail; leave one label out"
            problems.append(ConfigProblem("pass_labels", message, ProblemKind.VALUE))
        base_url = config.get("base_url", "")
        try:
            parts = urlsplit(base_url)
            has_credentials = parts.username is not None or parts.password is not None
        except ValueError:
            problems.append(ConfigProblem("base_url", "'base_url' is not a valid URL", ProblemKind.VALUE))
        else:
            if has_credentials:
                message = "'base_url' must not hold credentials; name the key's variable in 'api_key_env'"
                problems.append(ConfigProblem("base_url", message, ProblemKind.VALUE))
        return problems

    @property
    def endpoint(self) -> Endpoint:
        """Where the judge is asked (its key read by name from the environment, by the platform)."""
        return self._endpoint

    # --- the request ---------------------------------------------------------------------------------------

    def _user_message(self, response: str, expected: str, case_input: str | None, story: str = "") -> str:
        """The inputs as one JSON document, a key per line; each value encoded by the C encoder
        (``json.dumps`` with ``indent`` falls back to the pure-Python one, five times slower). ``story``
        is the reply's conversation and trajectory, already encoded (:func:`story`)."""
        input_json = dumps(clean(case_input)) if case_input is not None and case_input.strip() else "null"
        expected_json = dumps(clean(expected)) if expected.strip() else "null"
        response_json = dumps(clean(response))
        tail = f',\n "agent_response": {response_json}{story}\n}}'
        return f'{self._user_head},\n "input": {input_json},\n "expected_output": {expected_json}{tail}'

    def plan(self, agent_response: Any, expected_output: Any) -> OutboundCall | GradeResult:
        """The request for an answer of no known case: the judge is told no input."""
        return self.plan_case(agent_response, expected_output, NO_CONTEXT)

    def plan_case(
        self, agent_response: Any, expected_output: Any, case: CaseContext
    ) -> OutboundCall | GradeResult:
        """The chat-completions request judging this answer to ``case.input``; an empty or oversized one is
        decided here (the input counts towards ``max_prompt_chars``: never cut)."""
        try:
            response = read_text(agent_response)
            if is_blank(response):
                return Verdict(
                    MatchStatus.INVALID_RESPONSE, EMPTY_RESPONSE_REASON, expected_output, agent_response
                ).result()
            user = self._user_message(response, read_text(expected_output), case.input, story(agent_response))
            size = len(self._system) + len(user)
            if size > self._config["max_prompt_chars"]:
                reason = (
                    f"The prompt would be {size:,} characters, over max_prompt_chars "
                    f"({self._config['max_prompt_chars']:,}); the judge was not asked"
                )
                return self._error(PROMPT_TOO_LARGE, reason, agent_response, expected_output, prompt=None)
            messages = [{"role": "system", "content": self._system}, {"role": "user", "content": user}]
            return OutboundCall(endpoint=self._endpoint, body={**self._body, "messages": messages})
        except Exception as exc:  # never raises: an answer that cannot be put to the judge is not judged
            reason = f"The request to the judge could not be built ({type(exc).__name__})"
            return self._error(INVALID_JUDGEMENT, reason, agent_response, expected_output, prompt=None)

    # --- the reply -----------------------------------------------------------------------------------------

    def read(
        self, agent_response: Any, expected_output: Any, call: OutboundCall, reply: CallReply
    ) -> GradeResult:
        """The verdict the reply to a call of no known case holds."""
        return self.read_case(agent_response, expected_output, NO_CONTEXT, call, reply)

    def read_case(
        self,
        agent_response: Any,
        expected_output: Any,
        case: CaseContext,
        call: OutboundCall,
        reply: CallReply,
    ) -> GradeResult:
        """The verdict the reply holds, or the error saying why it holds none."""
        try:
            prompt = self._stored_prompt(call, agent_response, expected_output, case.input)
        except Exception:  # a call not planned here: the verdict does without its prompt
            prompt = None
        call_facts = {"latency_ms": reply.latency_ms, "attempts": reply.attempts, "status": reply.status}
        if reply.error is not None:
            error = UNAVAILABLE if reply.error == CALL_UNAVAILABLE else f"judge_{reply.error}"[:100]
            reason = f"The judge could not be asked ({reply.error}): {reply.error_detail or 'no detail'}"
            return self._error(error, reason, agent_response, expected_output, prompt=prompt, call=call_facts)
        chat: ChatReply | None = None
        try:
            chat = read_chat(reply.body)
            judgement = self._judgement(read_object(chat))
        except InvalidJudgementError as exc:
            return self._error(
                INVALID_JUDGEMENT,
                f"Invalid judgement: {exc}",
                agent_response,
                expected_output,
                prompt=prompt,
                call=call_facts,
                chat=chat,
                body=reply.body,
            )
        except Exception as exc:  # never raises: a reply that breaks the reader is no judgement
            reason = f"Invalid judgement: the reply could not be read ({type(exc).__name__})"
            return self._error(
                INVALID_JUDGEMENT, reason, agent_response, expected_output, prompt=prompt, call=call_facts
            )
        return self._verdict(judgement, chat, agent_response, expected_output, prompt, call_facts)

    def _stored_prompt(
        self, call: OutboundCall, agent_response: Any, expected_output: Any, case_input: str | None
    ) -> dict[str, str]:
        """The prompt as kept in details: exactly as sent, unless long; then the input, the answer and the
        expected output (stored with the result anyway) are named, not repeated: a long text is not stored
        twice."""
        messages = call.body.get("messages")
        sent = {str(m.get("role")): str(m.get("content")) for m in messages or () if isinstance(m, dict)}
        if len(sent.get("user", "")) <= STORED_PROMPT_CHARS:
            return sent
        response, expected = read_text(agent_response), read_text(expected_output)
        trajectory = agent_response.trajectory if isinstance(agent_response, AgentReply) else None
        user = self._user_message(
            f"[the agent_response: {len(response):,} characters]",
            f"[the expected_output: {len(expected):,} characters]" if expected.strip() else "",
            f"[the input: {len(case_input):,} characters]" if case_input and case_input.strip() else None,
            "" if trajectory is None else story_placeholder(trajectory),
        )
        return {**sent, "user": user}

    def _judgement(self, verdict: dict[str, Any]) -> Judgement:
        if self._config["mode"] == "classify":
            return read_label(verdict, self._labels, self._pass_labels)
        return read_rubric(verdict, self._threshold)

    def _judge_facts(self, chat: ChatReply | None) -> dict[str, Any]:
        config = self._config
        return {
            "model": config["model"],
            "reply_model": chat.model if chat is not None else None,
            "mode": config["mode"],
            "structured_output": config["structured_output"],
            "base_url": config["base_url"],
        }

    def _verdict(
        self,
        judgement: Judgement,
        chat: ChatReply,
        agent_response: Any,
        expected_output: Any,
        prompt: dict[str, str] | None,
        call_facts: dict[str, Any],
    ) -> GradeResult:
        if judgement.label is not None:
            kind = "a passing" if judgement.passed else "a failing"
            reason = f"The judge labelled the response {judgement.label!r}, {kind} label"
            judged: dict[str, Any] = {"label": judgement.label}
        else:
            side = "reaches" if judgement.passed else "is below"
            verb = "passed" if judgement.passed else "failed"
            reason = (
                f"The judge {verb} the response: score {judgement.score:g} {side} the threshold "
                f"{self._threshold:g}"
            )
            judged = {"pass": judgement.passed, "score": judgement.score}
        status = MatchStatus.MATCH if judgement.passed else MatchStatus.MISMATCH
        extra = {
            "explanation": judgement.explanation,
            "judgement": judged,
            "judge": self._judge_facts(chat),
            "prompt": prompt,
            "reply": chat.content,
            "tokens": chat.tokens.as_dict(),
            "call": call_facts,
        }
        return Verdict(
            status, reason, expected_output, agent_response, score=judgement.score, extra=extra
        ).result()

    def _error(
        self,
        error: str,
        reason: str,
        agent_response: Any,
        expected_output: Any,
        *,
        prompt: dict[str, str] | None,
        call: dict[str, Any] | None = None,
        chat: ChatReply | None = None,
        body: bytes = b"",
    ) -> GradeResult:
        """A verdict that is no verdict: ``invalid_response``, score 0, with the error reason."""
        if chat is not None:
            reply: str | None = chat.content
        else:
            reply = body[:_STORED_REPLY_CHARS].decode(errors="replace") if body else None
        extra = {
            "explanation": None,
            "judgement": None,
            "judge": self._judge_facts(chat),
            "prompt": prompt,
            "reply": reply,
            "tokens": chat.tokens.as_dict() if chat is not None else None,
            "call": call,
            ERROR_KEY: error,
        }
        return Verdict(
            MatchStatus.INVALID_RESPONSE, reason, expected_output, agent_response, extra=extra
        ).result()
