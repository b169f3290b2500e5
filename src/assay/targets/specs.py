"""Target configurations: validated, JSON-serialisable specs stored with an evaluation."""

from __future__ import annotations

import functools
import re
from typing import Annotated, Any, Literal

import orjson
import pydantic
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_validator,
)
from pydantic_core import PydanticCustomError

from assay.errors import Problem, ValidationError
from assay.json_types import JsonObject
from assay.targets.redaction import REDACTED

API_TARGET_TYPES: frozenset[str] = frozenset({"http", "openai", "recorded", "evaluation"})
"""Target types the API accepts; Python callables and shell commands run code, so only the CLI has them."""

_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
_PLACEHOLDER_NAME = re.compile(
    r"input|messages|case_id|case_number|case_key|metadata(\.[^.\s]+)+|secret\.[A-Za-z_][A-Za-z0-9_]*"
)
_SECRET_NAME = re.compile(r"secret\.([A-Za-z_][A-Za-z0-9_]*)")
_URL_PATTERN = r"^https?://\S+$"


def _web_url(url: str, check: ValidatorFunctionWrapHandler) -> str:
    """An http(s) URL as written (the pattern checked by pydantic, as before), or the mistake in plain
    words: pydantic's own message would quote the pattern."""
    try:
        checked: str = check(url)
    except pydantic.ValidationError as exc:
        if not any(error["type"] == "string_pattern_mismatch" for error in exc.errors()):
            raise
        raise _url_mistake(url) from None
    from yarl import URL  # the HTTP client's own parser (imported when a URL is checked)

    try:
        parsed = URL(checked)
        host, _ = parsed.raw_host, parsed.port
    except Exception as exc:  # ValueError mostly, but yarl raises IndexError for some spellings too
        reason = str(exc) or type(exc).__name__
        raise PydanticCustomError("url", "not a valid URL: {reason}", {"reason": reason}) from None
    if not host:
        raise PydanticCustomError("url", "a URL needs a host, e.g. http://127.0.0.1:9000/answer")
    return checked


def _url_mistake(url: str) -> PydanticCustomError:
    written = url.strip()
    if not written:
        return PydanticCustomError("url", "give the agent's address, e.g. http://127.0.0.1:9000/answer")
    scheme, separator, rest = written.partition("://")
    if separator and scheme.lower() not in ("http", "https"):
        return PydanticCustomError(
            "url", "'{scheme}://' is not a web address: write http://{rest}", {"scheme": scheme, "rest": rest}
        )
    if separator and scheme not in ("http", "https"):
        return PydanticCustomError(
            "url", "write the scheme in lower case: {url}", {"url": f"{scheme.lower()}://{rest}"}
        )
    if separator:  # the scheme is right: what the pattern refused is a blank
        return PydanticCustomError("url", "a URL cannot contain spaces or other blanks")
    if match := re.match(r"https?:/*", written, re.IGNORECASE):
        written = written[match.end() :]  # "http:/host" or "http:host": the slashes were mistyped
    return PydanticCustomError(
        "url", "a URL starts with http:// or https://: write http://{url}", {"url": written}
    )


def _json_integer(value: object) -> object:
    """A whole number as JSON writes one (``3``, or ``3.0``, which JSON Schema's "integer" admits); never
    ``true`` or ``"3"``, which lax parsing would take for 1 and 3."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


JsonInt = Annotated[int, BeforeValidator(_json_integer)]
"""An integer field of a request: strict about the JSON type, lax only about ``3.0``; give it
``strict=False`` in its ``Field`` so that ``3.0`` becomes 3 (``3.5`` is refused)."""


WebUrl = Annotated[str, Field(pattern=_URL_PATTERN, max_length=2048), WrapValidator(_web_url)]
"""An ``http://`` or ``https://`` URL; a mistake says what to write instead."""


DEFAULT_MAX_TRAJECTORY_BYTES = 128 * 1024 * 1024
"""The size cap of a reply body carrying a trajectory (the answer's own cap, 1 MiB, still holds its text)."""


class TrajectoryOption(BaseModel):
    """Where a case's trajectory comes from: a part of the reply's JSON, or the OTLP spans of its trace.

    ``from: reply`` reads the value at ``path`` (dotted; empty: the whole reply document) in ``dialect``;
    ``from: otlp`` waits up to ``grace_s`` after the reply for the spans the agent exports to Assay's
    ``/v1/traces`` under the trace id of the ``traceparent`` header it was sent.
    """

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, populate_by_name=True, serialize_by_alias=True
    )

    source: Literal["reply", "otlp"] = Field(alias="from", description="reply or otlp.")
    path: str = Field(
        default="messages",
        max_length=200,
        description="Dotted path to the trajectory in the reply's JSON (from: reply); '' reads the whole "
        "reply (an ATIF document, a Responses object).",
    )
    dialect: Literal["auto", "openai-chat", "openai-responses", "anthropic", "atif", "otlp", "assay"] = Field(
        default="auto", description="The trajectory's format; auto detects it."
    )
    grace_s: float = Field(
        default=2.0, ge=0, le=60, description="Seconds to wait after the reply for its spans (from: otlp)."
    )
    max_bytes: JsonInt = Field(
        default=DEFAULT_MAX_TRAJECTORY_BYTES,
        ge=1024,
        le=1024 * 1024 * 1024,
        strict=False,
        description="Cap of a reply body carrying a trajectory (from: reply); the answer text keeps its own.",
    )


class _TargetSpecBase(BaseModel):
    # Validators are built at the first parse, not at import: most commands never parse a target.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)

    timeout: float = Field(default=30.0, gt=0, le=600, description="Seconds one call may take.")
    max_attempts: JsonInt = Field(
        default=4, ge=1, le=10, strict=False, description="Tries per case, the first included."
    )

    def fingerprint(self) -> str:
        """What can change this target's reply, as canonical JSON: every field but how long and how often a
        call is tried (the reply cache's key, :mod:`assay.targets.reply_cache`). Secret values are never in
        it, only the names a template reads them by."""
        fields = self.model_dump(mode="json", exclude={"timeout", "max_attempts"})
        return orjson.dumps(fields, option=orjson.OPT_SORT_KEYS).decode()


class HttpTargetSpec(_TargetSpecBase):
    """An HTTP endpoint: by default ``POST {"input": ...}`` and the reply's ``output`` field."""

    type: Literal["http"]
    url: WebUrl
    method: Literal["POST", "PUT", "PATCH", "GET"] = "POST"
    headers: dict[str, str] = Field(
        default_factory=dict,
        repr=False,
        description="Sent with every call; write-only. A value may hold {{secret.NAME}}: the server's "
        "environment variable NAME (ASSAY_SECRET_* or listed in ASSAY_TARGET_SECRETS), read at call time.",
    )
    body_template: Any = Field(
        default=None,
        description="JSON body with {{input}}, {{messages}} (the case's chat messages, OpenAI's format), "
        "{{case_number}} (from 1), {{case_key}} (null without keys), {{case_id}} (the database's id), "
        "{{metadata.key}} and {{secret.NAME}} placeholders; default "
        '{"input": "{{input}}"} (and "messages" for a conversation). For GET, an object sent as query '
        "parameters.",
    )
    follow_redirects: bool = Field(
        default=False,
        description="Follow redirects (each hop checked by the egress policy; headers dropped when the "
        "origin changes). Off: a redirect is the error http_redirect.",
    )
    response_path: str | None = Field(
        default="output",
        description="Dotted path to the answer in the JSON reply (e.g. choices.0.message.content); "
        "null reads the whole body as text.",
    )
    usage_path: str | None = Field(
        default="usage",
        max_length=200,
        description="Dotted path to the tokens the agent spent in the JSON reply: an object with "
        "prompt_tokens/completion_tokens (or input_tokens/output_tokens); the reply's top-level model names "
        "the model. Absent or null: the usage is unknown.",
    )

    trajectory: TrajectoryOption | None = Field(
        default=None, description="Capture the agent's trajectory (docs/trajectory-capture.md)."
    )

    @field_validator("body_template")
    @classmethod
    def _known_placeholders(cls, template: Any) -> Any:
        unknown = sorted(name for name in _placeholders(template) if not _PLACEHOLDER_NAME.fullmatch(name))
        if unknown:
            raise ValueError(
                f"unknown placeholder(s) {unknown}; use input, messages, case_number, case_key, case_id, "
                "metadata.<key> or secret.<NAME>"
            )
        return template

    @field_validator("headers")
    @classmethod
    def _only_secret_placeholders(cls, headers: dict[str, str]) -> dict[str, str]:
        unknown = sorted(
            name
            for value in headers.values()
            for name in _placeholders(value)
            if not _SECRET_NAME.fullmatch(name)
        )
        if unknown:
            raise ValueError(f"header values may only hold {{{{secret.<NAME>}}}} placeholders, not {unknown}")
        return headers


class OpenAITargetSpec(_TargetSpecBase):
    """Any OpenAI-compatible chat-completions endpoint."""

    type: Literal["openai"]
    model: str = Field(min_length=1, max_length=200)
    base_url: WebUrl = "https://api.openai.com/v1"
    api_key_env: str | None = Field(
        default="OPENAI_API_KEY",
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="Name of the environment variable holding the API key; null for endpoints without one.",
    )
    system_prompt: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: JsonInt | None = Field(default=None, ge=1, strict=False)
    trajectory: TrajectoryOption | None = Field(
        default=None, description="Capture the agent's trajectory (docs/trajectory-capture.md)."
    )


class RecordedTargetSpec(_TargetSpecBase):
    """Responses supplied with the evaluation; nothing is called."""

    type: Literal["recorded"]
    responses: dict[str, str | None] = Field(
        default_factory=dict,
        description="Agent response per case: by the case's key when the suite's cases have keys, else by "
        'its number (1 for the first case; JSON object keys are text: "1").',
    )
    metadata_key: str | None = Field(
        default=None, description="Otherwise read each case's response from this key of its metadata."
    )


class EvaluationTargetSpec(_TargetSpecBase):
    """Re-grading: each case gets the answer (or the error) stored for it by a finished evaluation."""

    type: Literal["evaluation"]
    evaluation_id: JsonInt = Field(ge=1, le=2**31 - 1, strict=False, description="The finished evaluation.")


class PythonTargetSpec(_TargetSpecBase):
    """A Python callable ``module:function`` taking the case input (CLI only)."""

    type: Literal["python"]
    callable: str = Field(pattern=r"^[\w.]+:[\w.]+$")


class CommandTargetSpec(_TargetSpecBase):
    """A shell command reading the case input on stdin and answering on stdout (CLI only)."""

    type: Literal["command"]
    command: str = Field(min_length=1)


TargetSpec = Annotated[
    HttpTargetSpec
    | OpenAITargetSpec
    | RecordedTargetSpec
    | EvaluationTargetSpec
    | PythonTargetSpec
    | CommandTargetSpec,
    Field(discriminator="type"),
]


@functools.cache
def _adapter() -> TypeAdapter[TargetSpec]:
    return TypeAdapter(TargetSpec)


def _placeholders(value: Any) -> set[str]:
    if isinstance(value, str):
        return set(_PLACEHOLDER.findall(value))
    if isinstance(value, dict):
        return set().union(*(_placeholders(item) for item in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_placeholders(item) for item in value)) if value else set()
    return set()


_ASKED = frozenset({"input", "messages"})


def case_fields(spec: TargetSpec) -> tuple[str, ...]:
    """The case's fields a target sends besides what the case asks (its input or messages): the
    ``metadata.*`` and ``case_*`` placeholders of an HTTP body template, sorted. Two cases asking the same
    text with other values there are other requests (the reply cache keys them apart)."""
    if not isinstance(spec, HttpTargetSpec):
        return ()
    names = _placeholders(spec.body_template)
    return tuple(sorted(name for name in names if name not in _ASKED and not _SECRET_NAME.fullmatch(name)))


def secret_names(spec: TargetSpec) -> set[str]:
    """The environment variables a target reads: ``{{secret.NAME}}`` placeholders and the OpenAI key."""
    if isinstance(spec, HttpTargetSpec):
        placeholders = _placeholders(spec.body_template) | _placeholders(list(spec.headers.values()))
        return {match.group(1) for name in placeholders if (match := _SECRET_NAME.fullmatch(name))}
    if isinstance(spec, OpenAITargetSpec) and spec.api_key_env is not None:
        return {spec.api_key_env}
    return set()


def parse_target_spec(data: object, *, allowed: frozenset[str] | None = None) -> TargetSpec:
    """A checked target spec from JSON data; ``ValidationError`` listing every problem otherwise."""
    try:
        spec = _adapter().validate_python(data)
    except pydantic.ValidationError as exc:
        problems = [Problem(("target", *error["loc"]), error["msg"]) for error in exc.errors()]
        shown = "; ".join(map(str, problems))
        raise ValidationError(f"Invalid target: {shown}", problems=problems) from exc
    return allowed_target(spec, allowed)


def allowed_target(spec: TargetSpec, allowed: frozenset[str] | None) -> TargetSpec:
    """``spec`` (already checked) when its type is ``allowed`` here (any, for ``None``); ``ValidationError``
    naming the allowed types otherwise."""
    if allowed is not None and spec.type not in allowed:
        choices = ", ".join(sorted(allowed))
        raise ValidationError.of(
            Problem(("target", "type"), f"'{spec.type}' is not allowed here (use one of {choices})")
        )
    return spec


def target_record(spec: TargetSpec) -> JsonObject:
    """The spec as an evaluation stores it, secrets and recorded answers included: its JSON, dumped once."""
    return spec.model_dump(mode="json")


def read_target_record(record: JsonObject | None) -> TargetSpec:
    """The spec :func:`target_record` stored, parsed (and checked) again; ``ValidationError`` for one this
    version cannot read."""
    return parse_target_spec(record or {})


def target_view(stored: JsonObject) -> JsonObject:
    """A stored (already checked) spec as shown to users: header values are secrets, recorded responses
    are only counted. Works on the stored JSON, so showing an evaluation never re-validates its spec."""
    view = dict(stored)
    headers, responses = view.get("headers"), view.get("responses")
    if isinstance(headers, dict):
        view["headers"] = dict.fromkeys(headers, REDACTED)
    if isinstance(responses, dict):
        del view["responses"]
        view["responses_count"] = len(responses)
    return view
