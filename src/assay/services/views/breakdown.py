"""An evaluation's results broken down: pass rate per value of a case metadata key (worst first), the
metadata keys there are, and failed cases grouped by ``match_status`` and error reason.

The database groups and counts (``storage.result_groups``); this module only ranks and labels groups.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from assay.domain import Outcome
from assay.errors import NotFoundError, Problem, ValidationError
from assay.graders import MatchStatus
from assay.serialization import json_text
from assay.services.evaluations.records import stored_summary
from assay.services.figures.statistics import PassRate, pass_rate, worst_first_key
from assay.storage import evaluations as store
from assay.storage import result_groups
from assay.storage.evaluations import EvaluationRow

__all__ = [
    "MAX_GROUPS",
    "AssertionFailureGroup",
    "Breakdown",
    "FailureGroup",
    "FailureGroups",
    "MetadataKey",
    "ValueGroup",
    "breakdown",
    "failure_groups",
    "metadata_keys",
]

MAX_GROUPS = 200
"""Values (or keys, or failure groups) listed at most; the rest of a breakdown is one ``other`` group."""
MAX_LABEL_CHARS = 200
MAX_VALUE_CHARS = 1000
"""A value longer than this as JSON is shown by its label only."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ValueGroup:
    """The results whose case has one value under the key."""

    label: str
    """The value as text (a string as it is, anything else as JSON), cut to 200 characters."""
    value: Any
    """The JSON value; ``None`` when missing, ``null``, or too long to repeat (see ``label``)."""
    missing: bool
    """The cases have no such key."""
    pass_rate: PassRate


@dataclass(frozen=True, slots=True, kw_only=True)
class Breakdown:
    """Pass rate per value of a metadata key, worst first."""

    evaluation_id: int
    key: str
    groups: list[ValueGroup]
    other: PassRate | None
    """The results of every value beyond the first ``MAX_GROUPS`` (by count), together; ``None`` if none."""
    distinct_values: int
    overall: PassRate


@dataclass(frozen=True, slots=True, kw_only=True)
class MetadataKey:
    """A metadata key and how many of the suite's cases have it."""

    key: str
    cases: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FailureGroup:
    """Failed results sharing a ``match_status`` and an error reason, and the results filter showing them."""

    match_status: MatchStatus | None
    error: str | None
    count: int
    outcome: Outcome | None
    """With ``match_status`` and ``error``: the results listing's filter that lists exactly this group
    (``failed``, graded and not passed, for a group of graded results; none for target errors)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AssertionFailureGroup:
    """Verdicts of one assertion (by name) that did not pass, with one ``match_status``."""

    name: str
    match_status: str
    count: int
    total: int
    """How many cases the assertion graded in all."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FailureGroups:
    """An evaluation's failed results by group, the largest first; and, when its cases were graded by
    per-case assertions, their failed verdicts by assertion name and status (from the summary's count)."""

    evaluation_id: int
    failed: int
    groups: list[FailureGroup]
    by_assertion: list[AssertionFailureGroup] = field(default_factory=list)


def _evaluation(session: Session, evaluation_id: int) -> EvaluationRow:
    row = store.find_evaluation(session, evaluation_id)
    if row is None:
        raise NotFoundError("Evaluation not found")
    return row


def _label(value: Any, missing: bool) -> str:
    if missing:
        return "(missing)"
    text = value if isinstance(value, str) else json_text(value)
    return text if len(text) <= MAX_LABEL_CHARS else text[: MAX_LABEL_CHARS - 1] + "…"


def _checked_key(key: str) -> str:
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError.of(Problem(("query", "key"), "not valid text (a lone surrogate)")) from None
    return key


def breakdown(session: Session, evaluation_id: int, key: str) -> Breakdown:
    """Pass rate (errors count as failures) per value of metadata ``key`` among the evaluation's results.

    Values are ranked worst first: the lowest pass rate first, the most cases first among equal rates.
    Cases without the key are a group of their own (``missing``).
    """
    _evaluation(session, evaluation_id)
    counts = result_groups.value_counts(session, evaluation_id, _checked_key(key), limit=MAX_GROUPS)
    groups = []
    for item in counts.values:
        missing = item.value is result_groups.MISSING
        shown = None if missing or len(json_text(item.value)) > MAX_VALUE_CHARS else item.value
        groups.append(
            ValueGroup(
                label=_label(item.value, missing),
                value=shown,
                missing=missing,
                pass_rate=pass_rate(item.passed, item.total),
            )
        )
    groups.sort(key=lambda group: worst_first_key(group.pass_rate))
    listed = sum(item.total for item in counts.values)
    listed_passed = sum(item.passed for item in counts.values)
    other = None
    if counts.total > listed:
        other = pass_rate(counts.passed - listed_passed, counts.total - listed)
    return Breakdown(
        evaluation_id=evaluation_id,
        key=key,
        groups=groups,
        other=other,
        distinct_values=counts.distinct,
        overall=pass_rate(counts.passed, counts.total),
    )


def metadata_keys(session: Session, evaluation_id: int) -> list[MetadataKey]:
    """The metadata keys of the evaluated suite's cases, the most common first (at most ``MAX_GROUPS``)."""
    row = _evaluation(session, evaluation_id)
    return [
        MetadataKey(key=key, cases=cases)
        for key, cases in result_groups.metadata_key_counts(session, row.suite_id, limit=MAX_GROUPS)
    ]


# A breakdown opens on a key that splits the cases into a few groups: one value splits nothing (a suite's
# ``kind``), hundreds are the cases themselves (a recorded answer, an id). The most common keys are tried.
MAX_DEFAULT_VALUES = 50
MAX_DEFAULT_CANDIDATES = 20


def default_key(session: Session, evaluation_id: int, keys: list[MetadataKey]) -> str | None:
    """The key a breakdown opens on: the most common of ``keys`` with more than one and fewer than
    ``MAX_DEFAULT_VALUES`` distinct values among the evaluation's results (a missing key counts as one), or
    none."""
    for item in keys[:MAX_DEFAULT_CANDIDATES]:
        counts = result_groups.value_counts(session, evaluation_id, item.key, limit=1)
        if 1 < counts.distinct < MAX_DEFAULT_VALUES:
            return item.key
    return None


def failure_groups(session: Session, evaluation_id: int) -> FailureGroups:
    """The evaluation's failed results grouped by ``match_status`` and error reason, the largest first."""
    row = _evaluation(session, evaluation_id)
    counts = result_groups.failure_counts(session, evaluation_id, limit=MAX_GROUPS)
    groups = [
        FailureGroup(
            match_status=MatchStatus(item.match_status) if item.match_status is not None else None,
            error=item.error,
            count=item.count,
            outcome=None if item.error is not None else Outcome.FAILED,
        )
        for item in counts
    ]
    failed = result_groups.count_failed(session, evaluation_id)
    return FailureGroups(
        evaluation_id=evaluation_id, failed=failed, groups=groups, by_assertion=_assertion_failures(row)
    )


def _assertion_failures(row: EvaluationRow) -> list[AssertionFailureGroup]:
    """Failed assertion verdicts by name and status, the largest group first, from the stored summary."""
    summary = stored_summary(row.summary)
    figures = summary.by_assertion if summary is not None else {}
    groups = [
        AssertionFailureGroup(name=name, match_status=status, count=count, total=counts.total)
        for name, counts in figures.items()
        for status, count in counts.by_match_status.items()
        if status != MatchStatus.MATCH.value and count
    ]
    groups.sort(key=lambda group: (-group.count, group.name, group.match_status))
    return groups[:MAX_GROUPS]
