"""Side by side: up to five evaluations of one suite in one grid, a row per case (its input and expected
output, then each evaluation's answer and verdict), a page at a time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from assay.domain import EvaluationStatus, within_budget
from assay.errors import NotFoundError, Problem, ValidationError
from assay.services.evaluations.records import CaseOutcome, outcome_of, shown_size, stored_summary
from assay.storage import evaluations as store
from assay.storage import result_groups
from assay.storage import results as result_store
from assay.storage import suites as suite_store
from assay.storage.evaluations import EvaluationRow

__all__ = ["MAX_EVALUATIONS", "Grid", "GridColumn", "GridRow", "side_by_side"]

MAX_EVALUATIONS = 5


@dataclass(frozen=True, slots=True, kw_only=True)
class GridColumn:
    """One evaluation of the grid."""

    evaluation_id: int
    name: str
    grader_id: str
    status: EvaluationStatus
    pass_rate: float | None
    """From its stored summary (``None`` while it runs)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GridRow:
    """One case, named as everywhere (``number`` from 1, the user's ``key``), and each evaluation's outcome
    on it, in the grid's column order (``None``: no result)."""

    case_id: int
    number: int
    key: str | None
    input: str
    expected_output: str
    outcomes: list[CaseOutcome | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Grid:
    """A page of the grid: rows in case order, and how many rows the whole grid has."""

    suite_id: int
    columns: list[GridColumn]
    rows: list[GridRow]
    total: int
    next_skip: int | None


def _columns(session: Session, suite_id: int, evaluation_ids: Sequence[int]) -> list[EvaluationRow]:
    """The evaluations, checked: 1 to 5 of them, each of this suite; one listed twice is one column."""
    unique = list(dict.fromkeys(evaluation_ids))
    where = ("query", "evaluations")
    if not 1 <= len(unique) <= MAX_EVALUATIONS:
        message = f"give 1 to {MAX_EVALUATIONS} evaluation ids, not {len(unique)}"
        raise ValidationError.of(Problem(where, message))
    problems: list[Problem] = []
    rows = []
    for evaluation_id in unique:
        row = store.find_evaluation(session, evaluation_id)
        if row is None:
            raise NotFoundError(f"Evaluation {evaluation_id} not found")
        if row.suite_id != suite_id:
            message = (
                f"evaluation {evaluation_id} ran suite {row.suite_id}, not suite {suite_id}; "
                "side by side shows evaluations of one suite"
            )
            problems.append(Problem(where, message))
        rows.append(row)
    if problems:
        raise ValidationError("; ".join(map(str, problems)), problems=problems)
    return rows


def _size(row: GridRow) -> int:
    return shown_size((row.input, row.expected_output), row.outcomes)


def side_by_side(
    session: Session,
    suite_id: int,
    evaluation_ids: Sequence[int],
    *,
    skip: int,
    limit: int,
    only_disagreements: bool = False,
    max_page_bytes: int,
) -> Grid:
    """A page of the grid of ``evaluation_ids`` on the suite's cases, in case order.

    With ``only_disagreements``, only the cases that passed in some of the evaluations and failed in
    others. Inputs and expected outputs are the cases' as they are now. A page stops before the row that
    would pass ``max_page_bytes`` (always holding one); read on from ``next_skip``.
    """
    if suite_store.find_suite(session, suite_id) is None:
        raise NotFoundError("Suite not found")
    evaluations = _columns(session, suite_id, evaluation_ids)
    among = result_groups.cases_where_verdicts_differ(evaluation_ids) if only_disagreements else None
    cases = suite_store.page_of_cases(session, suite_id, skip=skip, limit=limit, among=among)
    total = suite_store.count_cases(session, suite_id, among=among)
    ids = [case.id for case in cases]
    results = [result_store.results_of_cases(session, evaluation.id, ids) for evaluation in evaluations]
    all_rows = (
        GridRow(
            case_id=case.id,
            number=case.number,
            key=case.case_key,
            input=case.input,
            expected_output=case.expected_output,
            outcomes=[outcome_of(by_case[case.id]) if case.id in by_case else None for by_case in results],
        )
        for case in cases
    )
    rows = within_budget(all_rows, _size, max_page_bytes)
    next_skip = skip + len(rows)
    columns = [
        GridColumn(
            evaluation_id=evaluation.id,
            name=evaluation.name,
            grader_id=evaluation.grader_id,
            status=EvaluationStatus(evaluation.status),
            pass_rate=_pass_rate(evaluation),
        )
        for evaluation in evaluations
    ]
    return Grid(
        suite_id=suite_id,
        columns=columns,
        rows=rows,
        total=total,
        next_skip=next_skip if next_skip < total else None,
    )


def _pass_rate(row: EvaluationRow) -> float | None:
    summary = stored_summary(row.summary)
    return summary.pass_rate if summary is not None else None
