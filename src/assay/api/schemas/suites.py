"""Schemas of the test-suite routes."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, Field, JsonValue, StringConstraints

from assay.api.schemas.common import RequestModel, ResponseModel
from assay.services.grading.preflight import PreflightReport
from assay.services.suites.case_keys import MAX_KEY_CHARS, is_text
from assay.services.suites.service import Case, NewCase, Suite

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


class CaseIn(RequestModel):
    """A case to store: the input for the agent and the expected output."""

    input: str
    expected_output: str
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    key: CaseKey = Field(default=None)  # type: ignore[assignment]  # omitted: none; null is refused

    def to_new_case(self) -> NewCase:
        """The service's record of this case."""
        return NewCase(
            input=self.input, expected_output=self.expected_output, metadata=dict(self.metadata), key=self.key
        )


class SuiteCreate(RequestModel):
    """A new suite, with its first cases (every case with a ``key`` or none)."""

    name: SuiteName
    description: Description = ""
    cases: list[CaseIn] = Field(default_factory=list, max_length=MAX_CASES_PER_REQUEST)


class SuitePatch(RequestModel):
    """New name and/or description; a field left out (or null) is kept."""

    name: SuiteName | None = None
    description: Description | None = None


class CasesAppend(RequestModel):
    """Cases to add after the last one: with keys when the suite's cases have keys, else without."""

    cases: list[CaseIn] = Field(min_length=1, max_length=MAX_CASES_PER_REQUEST)


class SuiteOut(ResponseModel):
    """A stored suite."""

    id: int
    name: str
    description: str
    case_count: int
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, suite: Suite) -> SuiteOut:
        """The schema of a service record."""
        return cls(
            id=suite.id,
            name=suite.name,
            description=suite.description,
            case_count=suite.case_count,
            created_at=suite.created_at,
            updated_at=suite.updated_at,
        )


class CaseOut(ResponseModel):
    """A stored case: ``number`` is its place in the suite from 1 (the ``#`` shown everywhere), ``key``
    your own name for it (``null`` in a suite without keys); ``id`` is the database's."""

    id: int
    number: int
    key: str | None
    input: str
    expected_output: str
    metadata: dict[str, Any]

    @classmethod
    def of(cls, case: Case) -> CaseOut:
        """The schema of a service record."""
        return cls(
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

    @classmethod
    def of(cls, grader_id: str, report: PreflightReport) -> PreflightOut:
        """The response for a service report."""
        problems = [
            ExpectedProblemOut(case_id=p.case_id, number=p.number, key=p.key, reason=p.reason)
            for p in report.problems
        ]
        return cls(grader_id=grader_id, checked=report.checked, invalid=report.invalid, problems=problems)
