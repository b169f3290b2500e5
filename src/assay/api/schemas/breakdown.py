"""Schemas of an evaluation's breakdowns: by metadata value, and failure groups."""

from __future__ import annotations

from pydantic import Field, JsonValue

from assay.api.schemas.common import PassRateOut, ResponseModel
from assay.domain import Outcome
from assay.graders import MatchStatus
from assay.services.views.breakdown import Breakdown, FailureGroup, FailureGroups, MetadataKey, ValueGroup


class ValueGroupOut(ResponseModel):
    """The results whose case has one value under the key."""

    label: str = Field(description="The value as text (strings as they are, others as JSON), ≤ 200 chars")
    value: JsonValue = Field(description="The JSON value; null when missing, null or over 1,000 chars")
    missing: bool = Field(description="These cases have no such key")
    pass_rate: PassRateOut

    @classmethod
    def of(cls, group: ValueGroup) -> ValueGroupOut:
        """The schema of a service record."""
        return cls(
            label=group.label,
            value=group.value,
            missing=group.missing,
            pass_rate=PassRateOut.of(group.pass_rate),
        )


class BreakdownOut(ResponseModel):
    """Pass rate per value of a case metadata key, worst first (lowest rate; most cases among equals)."""

    evaluation_id: int
    key: str
    groups: list[ValueGroupOut] = Field(description="The 200 most frequent values, ranked worst first")
    other: PassRateOut | None = Field(description="Every value beyond those 200, together; null if none")
    distinct_values: int
    overall: PassRateOut

    @classmethod
    def of(cls, breakdown: Breakdown) -> BreakdownOut:
        """The schema of a service record."""
        return cls(
            evaluation_id=breakdown.evaluation_id,
            key=breakdown.key,
            groups=[ValueGroupOut.of(group) for group in breakdown.groups],
            other=PassRateOut.of(breakdown.other) if breakdown.other is not None else None,
            distinct_values=breakdown.distinct_values,
            overall=PassRateOut.of(breakdown.overall),
        )


class MetadataKeyOut(ResponseModel):
    """A metadata key and how many of the suite's cases have it."""

    key: str
    cases: int

    @classmethod
    def of(cls, key: MetadataKey) -> MetadataKeyOut:
        """The schema of a service record."""
        return cls(key=key.key, cases=key.cases)


class MetadataKeyList(ResponseModel):
    """The metadata keys of the evaluated suite's cases, the most common first (at most 200)."""

    keys: list[MetadataKeyOut]
    count: int
    default_key: str | None = Field(
        description="The key a breakdown opens on: the most common one with 2 to 49 distinct values, or none"
    )


class ResultFilterOut(ResponseModel):
    """Query parameters of the results listing (and export) that list exactly one group's results."""

    outcome: Outcome | None
    match_status: MatchStatus | None
    error: str | None


class FailureGroupOut(ResponseModel):
    """Failed results sharing a ``match_status`` and an error reason."""

    match_status: MatchStatus | None
    error: str | None
    count: int
    filter: ResultFilterOut

    @classmethod
    def of(cls, group: FailureGroup) -> FailureGroupOut:
        """The schema of a service record."""
        return cls(
            match_status=group.match_status,
            error=group.error,
            count=group.count,
            filter=ResultFilterOut(outcome=group.outcome, match_status=group.match_status, error=group.error),
        )


class AssertionFailureGroupOut(ResponseModel):
    """One assertion's verdicts (by name) that did not pass, with one ``match_status``."""

    name: str
    match_status: str
    count: int
    total: int = Field(description="How many cases the assertion graded in all")


class FailureGroupsOut(ResponseModel):
    """An evaluation's failed results grouped by ``match_status`` and error reason, the largest first; and
    failed per-case assertion verdicts by assertion name and status (empty without assertions)."""

    evaluation_id: int
    failed: int
    groups: list[FailureGroupOut]
    by_assertion: list[AssertionFailureGroupOut] = Field(default_factory=list)

    @classmethod
    def of(cls, groups: FailureGroups) -> FailureGroupsOut:
        """The schema of a service record."""
        return cls(
            evaluation_id=groups.evaluation_id,
            failed=groups.failed,
            groups=[FailureGroupOut.of(group) for group in groups.groups],
            by_assertion=[
                AssertionFailureGroupOut(
                    name=group.name, match_status=group.match_status, count=group.count, total=group.total
                )
                for group in groups.by_assertion
            ],
        )
