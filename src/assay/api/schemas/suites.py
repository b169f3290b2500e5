"""Schemas of the test-suite routes."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    JsonValue,
    PrivateAttr,
    StringConstraints,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic import ValidationError as PydanticValidationError
from pydantic_core import PydanticCustomError

from assay.api.schemas.common import RequestModel, ResponseModel
from assay.chat import MAX_MESSAGES
from assay.domain import MAX_CONVERSATION_SECONDS, MAX_TURNS, Assertions, Conversation, SuiteAssertions
from assay.graders.composite.assertions import (
    MAX_ASSERTIONS,
    MAX_NAME_LENGTH,
    MAX_RULES,
    InvalidAssertionsError,
    read_assertions,
    read_suite_assertions,
)
from assay.services.grading.preflight import PreflightReport
from assay.services.suites.case_keys import MAX_KEY_CHARS, is_text
from assay.services.suites.conversations import read_conversation
from assay.services.suites.service import Case, NewCase, Suite
from assay.targets.specs import JsonInt

MAX_CASES_PER_REQUEST = 10_000

# Not blank, and no control characters (a name is typed by a person and shown in lists and file names).
NAME_PATTERN = r"^[^\x00-\x1f\x7f]*[^\x00-\x20\x7f][^\x00-\x1f\x7f]*$"
SuiteName = Annotated[
    str, StringConstraints(min_length=1, max_length=200, pattern=NAME_PATTERN), Field(examples=["capitals"])
]
# Unconstrained on purpose: pydantic refuses lone surrogates in a constrained string; the body cap bounds it.
Description = str


# Text a person could type: no control characters, no space at either end (as a file's key is trimmed).
KEY_PATTERN = r"^[^\x00-\x20\x7f]([^\x00-\x1f\x7f]*[^\x00-\x20\x7f])?$"
_KEY = re.compile(KEY_PATTERN)


def _checked_key(key: str) -> str:
    """``key`` when it is one (checked here rather than by pydantic, whose message would quote the regex)."""
    if not 1 <= len(key) <= MAX_KEY_CHARS:
        raise ValueError(f"a key has 1 to {MAX_KEY_CHARS} characters")
    if not _KEY.match(key) or not is_text(key):
        raise ValueError("a key is text without control characters and without spaces at either end")
    return key


CaseKey = Annotated[
    str,
    AfterValidator(_checked_key),
    Field(
        description="Your own name for the case (a file's `key` or `id` field), unique in its suite. Every "
        "case of a suite has one or none; recorded answers then name cases by key instead of number.",
        examples=["q-17"],
        json_schema_extra={"minLength": 1, "maxLength": MAX_KEY_CHARS, "pattern": KEY_PATTERN},
    ),
]


_BY_ALIAS = ConfigDict(validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)
"""``assert`` (a Python keyword) is the ``assertions`` field's name in JSON, both ways."""


class AssertionIn(RequestModel):
    """One assertion: a grader (no model judge), its config, its own expected output, a weight and a name
    (docs/assertions.md). Checked as the composite that grades it checks its children."""

    grader_id: str = Field(min_length=1, max_length=100, examples=["numeric"])
    config: dict[str, JsonValue] = Field(default_factory=dict)
    expected_output: str | None = Field(default=None, max_length=10_000)
    weight: float = Field(default=1, gt=0, le=1_000_000)
    name: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_LENGTH)

    def as_json(self) -> dict[str, Any]:
        """The assertion as given, defaults left out."""
        return self.model_dump(exclude_unset=True)


class AssertionOut(ResponseModel):
    """One stored assertion (fields left at their default are left out)."""

    grader_id: str
    config: dict[str, Any] = Field(default_factory=dict)
    expected_output: str | None = None
    weight: float = 1
    name: str | None = None


Threshold = Annotated[float, Field(gt=0, le=1, description="Weighted score a case must reach (0, 1]")]
AssertionList = Annotated[list[AssertionIn], Field(min_length=1, max_length=MAX_ASSERTIONS)]


def _located(exc: InvalidAssertionsError) -> ValueError:
    return ValueError("; ".join(problem.message for problem in exc.problems[:5]))


class RuleIn(RequestModel):
    """Cases whose metadata hold every ``when`` key with an equal value get ``assert``."""

    model_config = _BY_ALIAS
    when: dict[str, str | int | float | bool | None] = Field(min_length=1, max_length=20)
    assertions: AssertionList = Field(alias="assert")
    threshold: Threshold | None = None


class RuleOut(ResponseModel):
    """A stored rule."""

    model_config = _BY_ALIAS
    when: dict[str, Any]
    assertions: list[AssertionOut] = Field(serialization_alias="assert")
    threshold: float | None = None


def _assertions_out(assertions: Assertions | None) -> list[AssertionOut] | None:
    if assertions is None or not assertions.items:
        return None
    return [AssertionOut.model_validate(item.as_json()) for item in assertions.items]


class TurnIn(RequestModel):
    """A scripted user message of a multi-turn case and the assertions its reply must pass
    (docs/conversations.md)."""

    model_config = _BY_ALIAS
    content: str = Field(min_length=1)
    assertions: AssertionList | None = Field(default=None, alias="assert")
    threshold: Threshold | None = None

    def as_json(self) -> dict[str, Any]:
        """The turn as a suite file writes it."""
        turn: dict[str, Any] = {"content": self.content}
        if self.assertions is not None:
            turn["assert"] = [item.as_json() for item in self.assertions]
        if self.threshold is not None:
            turn["threshold"] = self.threshold
        return turn


class TurnOut(ResponseModel):
    """A stored turn."""

    model_config = _BY_ALIAS
    content: str
    assertions: list[AssertionOut] | None = Field(default=None, serialization_alias="assert")
    threshold: float | None = None


ChatMessages = Annotated[
    list[dict[str, JsonValue]],
    Field(
        min_length=1,
        max_length=MAX_MESSAGES,
        description="Chat messages: OpenAI's chat format (role, content, tool_calls, tool_call_id) or "
        "Anthropic's content blocks (text, tool_use, tool_result); stored normalised to OpenAI's format.",
    ),
]


class CaseIn(RequestModel):
    """A case to store: the input for the agent (text, or chat messages) and the expected output; optionally
    its own assertions and threshold (docs/assertions.md) and scripted turns (docs/conversations.md)."""

    model_config = _BY_ALIAS
    # ``turns`` first: whether ``input`` and ``expected_output`` are required depends on it, and a field's
    # validator sees only the fields before it (a missing one is then a problem located at that field).
    turns: list[str | TurnIn] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_TURNS,
        description="Scripted user messages sent one by one (a text, or one with its own assertions).",
    )
    input: str | ChatMessages | None = Field(
        default=None, validate_default=True, description="Required unless the case has turns."
    )
    expected_output: str | None = Field(
        default=None,
        validate_default=True,
        description="Required unless the case has turns (then: none, its turns decide).",
    )
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    key: CaseKey = Field(default=None)  # type: ignore[assignment]  # omitted: none; null is refused
    assertions: AssertionList | None = Field(default=None, alias="assert")
    threshold: Threshold | None = None
    stop_at_first_failure: bool | None = None
    max_seconds: float | None = Field(default=None, gt=0, le=MAX_CONVERSATION_SECONDS)
    _checked: Assertions | None = PrivateAttr(default=None)
    _conversation: Conversation | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check_assertions(self) -> CaseIn:
        if self.assertions is not None or self.threshold is not None:
            raw = None if self.assertions is None else [item.as_json() for item in self.assertions]
            try:
                self._checked = read_assertions(raw, self.threshold)
            except InvalidAssertionsError as exc:
                raise _located(exc) from None
        return self

    @field_validator("input", mode="wrap")
    @classmethod
    def _input(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        if value is None:
            if "turns" in info.data and info.data["turns"] is None:
                raise PydanticCustomError("missing", "Field required")
            return None
        try:
            return handler(value)
        except PydanticValidationError as exc:  # one problem at `input`, not one per member of the union
            if isinstance(value, list):
                first = exc.errors()[-1]
                raise ValueError(f"a list of chat messages: {first['msg']}") from None
            raise ValueError("must be text or a list of chat messages") from None

    @field_validator("expected_output")
    @classmethod
    def _expected_output(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None and "turns" in info.data and info.data["turns"] is None:
            raise PydanticCustomError("missing", "Field required")
        return value

    @model_validator(mode="after")
    def _check_conversation(self) -> CaseIn:
        if isinstance(self.input, str) and self.turns is None:
            if self.stop_at_first_failure is not None or self.max_seconds is not None:
                raise ValueError("'stop_at_first_failure' and 'max_seconds' are for cases with 'turns'")
            return self
        record: dict[str, Any] = {"input": self.input}
        if self.turns is not None:
            record["turns"] = [turn if isinstance(turn, str) else turn.as_json() for turn in self.turns]
        for name in ("stop_at_first_failure", "max_seconds"):
            if getattr(self, name) is not None:
                record[name] = getattr(self, name)
        found = read_conversation(record)
        if isinstance(found, str):
            raise ValueError(found)
        if self.expected_output is None and not found.turns:
            raise ValueError("'expected_output' is missing")
        self._conversation = found
        return self

    def to_new_case(self) -> NewCase:
        """The service's record of this case."""
        conversation = self._conversation
        return NewCase(
            input=self.input if conversation is None else conversation.text,  # type: ignore[arg-type]
            expected_output=self.expected_output or "",
            metadata=dict(self.metadata),
            key=self.key,
            assertions=self._checked,
            conversation=conversation,
        )


class SuiteAssertionsIn(RequestModel):
    """A suite's default assertions (and threshold) and its rules by metadata (docs/assertions.md)."""

    model_config = _BY_ALIAS
    assertions: AssertionList | None = Field(default=None, alias="assert")
    threshold: Threshold | None = None
    rules: list[RuleIn] | None = Field(default=None, max_length=MAX_RULES)
    _checked: SuiteAssertions | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check_assertions(self) -> SuiteAssertionsIn:
        if self.assertions is None and self.threshold is None and self.rules is None:
            return self
        raw = None if self.assertions is None else [item.as_json() for item in self.assertions]
        rules = None
        if self.rules is not None:
            rules = [
                rule.model_dump(by_alias=True, exclude_unset=True, exclude_none=True) for rule in self.rules
            ]
            for rule, given in zip(rules, self.rules, strict=True):
                rule["assert"] = [item.as_json() for item in given.assertions]
        try:
            self._checked = read_suite_assertions(raw, self.threshold, rules)
        except InvalidAssertionsError as exc:
            raise _located(exc) from None
        return self

    def suite_assertions(self) -> SuiteAssertions | None:
        """The checked defaults and rules; ``None`` when none of the three fields was given."""
        return self._checked


class SuiteCreate(SuiteAssertionsIn):
    """A new suite, with its first cases (every case with a ``key`` or none), and optionally default
    assertions and rules by metadata."""

    name: SuiteName
    description: Description = ""
    cases: list[CaseIn] = Field(default_factory=list, max_length=MAX_CASES_PER_REQUEST)


class SuitePatch(SuiteAssertionsIn):
    """New name, description and/or assertions; a field left out (or null) is kept. Assertions given
    replace the suite's defaults and rules together (``"rules": []`` alone removes them all)."""

    name: SuiteName | None = None
    description: Description | None = None


class CasesAppend(RequestModel):
    """Cases to add after the last one: with keys when the suite's cases have keys, else without."""

    cases: list[CaseIn] = Field(min_length=1, max_length=MAX_CASES_PER_REQUEST)


class SuiteOut(ResponseModel):
    """A stored suite, with its default assertions and rules (``null`` when it has none)."""

    model_config = _BY_ALIAS
    id: int
    name: str
    description: str
    case_count: int
    created_at: datetime
    updated_at: datetime
    assertions: list[AssertionOut] | None = Field(default=None, serialization_alias="assert")
    threshold: float | None = None
    rules: list[RuleOut] | None = None

    @classmethod
    def of(cls, suite: Suite) -> SuiteOut:
        """The schema of a service record."""
        found = suite.assertions
        defaults = found.defaults if found is not None else None
        rules = None
        if found is not None and found.rules:
            rules = [
                RuleOut(
                    when=rule.when,
                    assertions=_assertions_out(rule.assertions) or [],
                    threshold=rule.assertions.threshold,
                )
                for rule in found.rules
            ]
        return cls(
            assertions=_assertions_out(defaults),
            threshold=defaults.threshold if defaults is not None else None,
            rules=rules,
            id=suite.id,
            name=suite.name,
            description=suite.description,
            case_count=suite.case_count,
            created_at=suite.created_at,
            updated_at=suite.updated_at,
        )


def _turns_out(conversation: Conversation) -> list[TurnOut]:
    return [
        TurnOut(
            content=turn.content,
            assertions=_assertions_out(turn.assertions),
            threshold=turn.assertions.threshold if turn.assertions is not None else None,
        )
        for turn in conversation.turns
    ]


class CaseOut(ResponseModel):
    """A stored case: ``number`` is its place in the suite from 1 (the ``#`` shown everywhere), ``key``
    your own name for it (``null`` in a suite without keys); ``id`` is the database's."""

    id: int
    number: int
    key: str | None
    model_config = _BY_ALIAS
    input: str = Field(description="The input; of a conversation, its text for people (see messages).")
    expected_output: str
    metadata: dict[str, Any]
    assertions: list[AssertionOut] | None = Field(default=None, serialization_alias="assert")
    threshold: float | None = None
    messages: list[dict[str, Any]] | None = Field(
        default=None, description="A conversation input's messages, in OpenAI's chat format; null: text."
    )
    turns: list[TurnOut] | None = None
    stop_at_first_failure: bool | None = None
    max_seconds: float | None = None

    @classmethod
    def of(cls, case: Case) -> CaseOut:
        """The schema of a service record."""
        conversation = case.conversation
        return cls(
            messages=conversation.input_json() or None if conversation is not None else None,
            turns=None if conversation is None or not conversation.turns else _turns_out(conversation),
            stop_at_first_failure=conversation.stop_at_first_failure
            if conversation and conversation.turns
            else None,
            max_seconds=conversation.max_seconds if conversation and conversation.turns else None,
            assertions=_assertions_out(case.assertions),
            threshold=case.assertions.threshold if case.assertions is not None else None,
            id=case.id,
            number=case.number,
            key=case.key,
            input=case.input,
            expected_output=case.expected_output,
            metadata=case.metadata,
        )


class SuiteList(ResponseModel):
    """A page of suites, newest first."""

    suites: list[SuiteOut]
    count: int
    total: int


class CaseList(ResponseModel):
    """A page of cases, in order."""

    cases: list[CaseOut]
    count: int
    total: int


class CasesAdded(ResponseModel):
    """The cases just added and the suite's new size."""

    cases: list[CaseOut]
    count: int
    total: int


class Deleted(ResponseModel):
    """What was deleted."""

    id: int
    deleted: bool = True


class PreflightRequest(RequestModel):
    """A grader (and its config) to check a suite's expected outputs against."""

    grader_id: str = Field(min_length=1, max_length=200, description="A registered grader, e.g. true-false")
    config: dict[str, JsonValue] | None = Field(
        default=None, description="Grader config; defaults if omitted"
    )
    repeats: JsonInt = Field(
        default=1,
        ge=1,
        le=1000,
        strict=False,
        description="Times each case would run (the detectable difference)",
    )


class DetectableDifferenceOut(ResponseModel):
    """The smallest pass-rate change a paired comparison with a previous run detects (docs/api.md)."""

    cases: int
    repeats: int
    alpha: float = Field(description="One-sided significance of the compare rule (exact McNemar)")
    power: float
    discordance: float = Field(description="The share of cases assumed to flip between two runs")
    difference: float | None = Field(description="In pass rate, 0 to 1 (null: too few cases to detect any)")
    summary: str = Field(description="The figure in a sentence, with its method")


class ExpectedProblemOut(ResponseModel):
    """A case whose expected output the grader can never match."""

    case_id: int
    number: int
    key: str | None
    reason: str


class PreflightOut(ResponseModel):
    """Cases checked, how many the grader can never pass, and the first of them (nothing was run)."""

    grader_id: str
    checked: int
    invalid: int
    problems: list[ExpectedProblemOut]
    detectable_difference: DetectableDifferenceOut | None = Field(
        default=None,
        description="The smallest pass-rate change a run of the suite can tell from a previous one",
    )

    @classmethod
    def of(cls, grader_id: str, report: PreflightReport, *, repeats: int = 1) -> PreflightOut:
        """The response for a service report."""
        problems = [
            ExpectedProblemOut(case_id=p.case_id, number=p.number, key=p.key, reason=p.reason)
            for p in report.problems
        ]
        found = report.detectable(repeats)
        detectable = DetectableDifferenceOut(
            cases=found.cases,
            repeats=found.repeats,
            alpha=found.alpha,
            power=found.power,
            discordance=found.discordance,
            difference=found.difference,
            summary=found.line(),
        )
        return cls(
            grader_id=grader_id,
            checked=report.checked,
            invalid=report.invalid,
            problems=problems,
            detectable_difference=detectable,
        )
