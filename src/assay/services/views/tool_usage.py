"""Which tool calls changed between two runs of one suite, case by case (the pass rate per tool used is
``tool_breakdown``'s).

It reads the trajectory summary each result keeps (``results.trajectory_summary``: the tools called, in
first-use order, with their number of calls), never the trajectories' steps, one batch of rows at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from assay.errors import NotFoundError, Problem, ValidationError
from assay.json_types import JsonObject
from assay.services.execution.trajectories import TrajectoryFacts
from assay.storage import evaluations as store
from assay.storage.result_groups import SummaryRow, iter_summaries

__all__ = ["ToolCase", "ToolChanges", "ToolCount", "tool_changes"]


@dataclass(frozen=True, slots=True)
class ToolCount:
    """A tool and its number of calls."""

    name: str
    calls: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCase:
    """A case both runs traced: the tools of each (first-use order), and whether they differ."""

    case_id: int
    number: int
    key: str | None
    a: list[ToolCount]
    b: list[ToolCount]
    a_passed: bool
    b_passed: bool
    changed: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolChanges:
    """B's tool calls against A's over the cases both traced: changed cases first, then in case order."""

    a_id: int
    b_id: int
    shared: int
    changed: int
    cases: list[ToolCase]
    next_skip: int | None


def _tools(summary: JsonObject | None) -> list[ToolCount]:
    """The summary's tools in first-use order (a summary not in the stored form has none)."""
    facts = TrajectoryFacts.stored(summary)
    return [] if facts is None else [ToolCount(name, calls) for name, calls in facts.tool_names.items()]


def _require(session: Session, evaluation_id: int) -> store.EvaluationRow:
    row = store.find_evaluation(session, evaluation_id)
    if row is None:
        raise NotFoundError(f"Evaluation {evaluation_id} not found")
    return row


def _traced(session: Session, evaluation_id: int) -> dict[int, SummaryRow]:
    return {row.case_id: row for row in iter_summaries(session, evaluation_id)}


def tool_changes(session: Session, a_id: int, b_id: int, *, skip: int = 0, limit: int = 100) -> ToolChanges:
    """The tools of each case both evaluations traced, A's beside B's; the cases whose tools (or their
    numbers of calls) changed come first, each part in case order. Both must have run on the same suite."""
    a, b = _require(session, a_id), _require(session, b_id)
    if a.suite_id != b.suite_id:
        message = f"evaluations {a_id} and {b_id} ran on different suites; only runs of one suite compare"
        raise ValidationError.of(Problem((), message))
    in_a, in_b = _traced(session, a_id), _traced(session, b_id)
    pairs = []
    for case_id, row_b in in_b.items():
        row_a = in_a.get(case_id)
        if row_a is None:
            continue
        tools_a, tools_b = _tools(row_a.summary), _tools(row_b.summary)
        pairs.append(
            ToolCase(
                case_id=case_id,
                number=row_b.position + 1,
                key=row_b.case_key,
                a=tools_a,
                b=tools_b,
                a_passed=row_a.passed,
                b_passed=row_b.passed,
                changed=tools_a != tools_b,
            )
        )
    pairs.sort(key=lambda case: (not case.changed, case.number))
    page = pairs[skip : skip + limit]
    next_skip = skip + len(page)
    return ToolChanges(
        a_id=a_id,
        b_id=b_id,
        shared=len(pairs),
        changed=sum(case.changed for case in pairs),
        cases=page,
        next_skip=next_skip if next_skip < len(pairs) else None,
    )
