"""Evaluations: create (everything checked before anything runs), list, read, cancel, delete, results."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from assay.errors import NotFoundError, ValidationError
from assay.services.evaluation_records import Evaluation, Result, evaluation_of, listed_size, result_of
from assay.services.evaluation_scheduling import Scheduler
from assay.services.evaluation_summary import recount
from assay.services.grader_service import GraderService
from assay.services.preflight import preflight_suite
from assay.services.regrade import check_source
from assay.services.suite_service import Page
from assay.storage import evaluations as store
from assay.storage import suites as suite_store
from assay.storage.evaluations import EvaluationRow, EvaluationStatus, Outcome, ResultSort
from assay.storage.types import utc_now
from assay.targets import API_TARGET_TYPES, EvaluationTargetSpec, check_target, parse_target_spec
from assay.targets.specs import target_view

DEFAULT_CONCURRENCY = 8
MAX_CONCURRENCY = 256


@dataclass(frozen=True, slots=True)
class NewEvaluation:
    """What a user asks to run."""

    suite_id: int
    grader_id: str
    target: dict[str, Any]
    grader_config: dict[str, Any] | None = None
    name: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    allow_invalid_expected: bool = False
    """Run even when the grader's preflight finds cases it can never pass (they end ``invalid_expected``)."""


@dataclass(frozen=True, slots=True)
class ResultQuery:
    """Which results to list and in which order."""

    outcome: Outcome | None = None
    match_status: str | None = None
    error: str | None = None
    search: str | None = None
    reason_code: str | None = None
    sort: ResultSort = ResultSort.POSITION
    descending: bool = False


DEFAULT_MAX_PAGE_BYTES = 8 * 1024 * 1024
MAX_NAME_CHARS = 200
_RERUN_SUFFIX = re.compile(r" · re-run of #\d+$")


def rerun_name(name: str, source_id: int) -> str:
    """``"<name> · re-run of #<id>"``, without piling suffixes up, within the 200 characters a name has."""
    suffix = f" · re-run of #{source_id}"
    base = _RERUN_SUFFIX.sub("", name)
    return base[: MAX_NAME_CHARS - len(suffix)] + suffix


def stored_evaluation(session: Session, evaluation_id: int) -> Evaluation:
    """The evaluation as stored (a running one without its live summary); ``NotFoundError`` if none."""
    row = store.find_evaluation(session, evaluation_id)
    if row is None:
        raise NotFoundError(f"Evaluation not found: there is no evaluation {evaluation_id}")
    return evaluation_of(row)


def page_of_results(
    session: Session,
    evaluation_id: int,
    query: ResultQuery,
    *,
    skip: int,
    limit: int,
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES,
) -> Page[Result]:
    """A page of an evaluation's results, filtered and sorted (nothing when there is no such evaluation).

    A page is bounded in bytes as well as rows: it stops before the result that would pass the budget
    (always holding one), and the caller reads on from ``skip + len(items)``.
    """
    rows, total = store.page_of_results(
        session,
        evaluation_id,
        skip=skip,
        limit=limit,
        outcome=query.outcome,
        match_status=query.match_status,
        error=query.error,
        search=query.search,
        reason_code=query.reason_code,
        sort=query.sort,
        descending=query.descending,
    )
    items: list[Result] = []
    used = 0
    for row in rows:
        result = result_of(row)
        used += listed_size(result)
        if items and used > max_page_bytes:
            break
        items.append(result)
    return Page(items, total)


class EvaluationService:
    """Use cases on evaluations within one database session; running is left to the :class:`Scheduler`."""

    def __init__(
        self,
        session: Session,
        graders: GraderService,
        scheduler: Scheduler,
        *,
        max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    ) -> None:
        self.session = session
        self.graders = graders
        self.scheduler = scheduler
        self.max_page_bytes = max_page_bytes

    def _row(self, evaluation_id: int) -> EvaluationRow:
        row = store.find_evaluation(self.session, evaluation_id, with_target=False)
        if row is None:
            raise NotFoundError("Evaluation not found")
        return row

    def create(
        self, request: NewEvaluation, *, allowed_targets: frozenset[str] = API_TARGET_TYPES
    ) -> Evaluation:
        """A new ``pending`` evaluation, started at once; unknown suite/grader or a bad config is refused."""
        suite = suite_store.find_suite(self.session, request.suite_id)
        if suite is None:
            raise NotFoundError("Suite not found")
        grader = self.graders.build(request.grader_id, request.grader_config)  # NotFound / ConfigError
        spec = parse_target_spec(request.target, allowed=allowed_targets)
        check_target(spec, self.scheduler.target_policy)
        if isinstance(spec, EvaluationTargetSpec):
            check_source(self.session, spec, suite.id)
        if not 1 <= request.concurrency <= MAX_CONCURRENCY:
            message = f"concurrency must be between 1 and {MAX_CONCURRENCY}"
            raise ValidationError(message, problems=[message])
        if not request.allow_invalid_expected:
            report = preflight_suite(self.session, suite.id, grader)
            if not report.ok:
                raise report.error(grader.grader_id, '"allow_invalid_expected": true')
        grader_spec = self.graders.spec(grader)
        row = EvaluationRow(
            name=request.name or f"{suite.name} · {grader.grader_id}",
            suite_id=suite.id,
            grader_id=grader_spec.grader_id,
            grader_config=grader_spec.config,
            grader_version=grader_spec.version,
            target=spec.model_dump(mode="json"),
            target_view=target_view(spec.model_dump(mode="json")),
            concurrency=request.concurrency,
            status=EvaluationStatus.PENDING.value,
            total=suite_store.count_cases(self.session, suite.id),
            done=0,
            created_at=utc_now(),
        )
        self.session.add(row)
        self.session.commit()
        self.scheduler.submit(row.id, row.concurrency)
        return evaluation_of(row)

    def get(self, evaluation_id: int) -> Evaluation:
        """The evaluation, read in one row whatever its size: its stored summary is the latest recount
        (a running evaluation's is recounted every few seconds); one that has none yet is counted now."""
        row = self._row(evaluation_id)
        summary = None if row.summary is not None else recount(self.session, row, self.graders)
        return evaluation_of(row, summary)

    def list(
        self, *, skip: int, limit: int, suite_id: int | None = None, status: EvaluationStatus | None = None
    ) -> Page[Evaluation]:
        """A page of evaluations, newest first (stored summaries only: no live computation per row)."""
        rows, total = store.page_of_evaluations(
            self.session, skip=skip, limit=limit, suite_id=suite_id, status=status.value if status else None
        )
        return Page([evaluation_of(row) for row in rows], total)

    def cancel(self, evaluation_id: int) -> Evaluation:
        """Stop an evaluation on every worker, keeping its results so far (its summary recounts them);
        cancelling a finished one changes nothing."""
        self._row(evaluation_id)
        self.scheduler.stop(evaluation_id)
        self.session.expire_all()
        return self.get(evaluation_id)

    def rename(self, evaluation_id: int, name: str) -> Evaluation:
        """Give the evaluation a new name (running or not)."""
        if not store.rename_evaluation(self.session, evaluation_id, name):
            raise NotFoundError("Evaluation not found")
        self.session.commit()
        self.session.expire_all()
        return self.get(evaluation_id)

    def rerun(
        self, evaluation_id: int, *, name: str | None = None, allow_invalid_expected: bool = False
    ) -> Evaluation:
        """A new evaluation with the same suite, grader, config, target and concurrency, started at once.

        The target is the stored spec, so literal header values (write-only, never shown) and recorded
        answers carry over, and ``{{secret.NAME}}`` placeholders are read again when it starts. Everything
        is checked again as for a new evaluation (the grader's current version grades it).
        """
        source = self._row(evaluation_id)
        return self.create(
            NewEvaluation(
                suite_id=source.suite_id,
                grader_id=source.grader_id,
                target=source.target,
                grader_config=source.grader_config,
                name=name or rerun_name(source.name, source.id),
                concurrency=source.concurrency,
                allow_invalid_expected=allow_invalid_expected,
            )
        )

    def delete(self, evaluation_id: int) -> None:
        """Delete an evaluation and its results, stopping it first if it runs."""
        self._row(evaluation_id)
        self.scheduler.stop(evaluation_id)  # no shard writes after this, on any worker
        store.delete_evaluation(self.session, evaluation_id)
        self.session.commit()

    def results(self, evaluation_id: int, query: ResultQuery, *, skip: int, limit: int) -> Page[Result]:
        """A page of the evaluation's results, filtered and sorted."""
        self._row(evaluation_id)
        return page_of_results(
            self.session, evaluation_id, query, skip=skip, limit=limit, max_page_bytes=self.max_page_bytes
        )

    def result(self, evaluation_id: int, case_id: int) -> Result:
        """The result of one case of the evaluation."""
        self._row(evaluation_id)
        row = store.results_of_cases(self.session, evaluation_id, [case_id]).get(case_id)
        if row is None:
            raise NotFoundError(f"Evaluation {evaluation_id} has no result for case {case_id}")
        return result_of(row)

    def iter_results(self, evaluation_id: int, query: ResultQuery | None = None) -> Iterator[Result]:
        """Every result of the evaluation that ``query`` filters in, in case order (exports)."""
        self._row(evaluation_id)
        query = query or ResultQuery()
        rows = store.iter_results(
            self.session,
            evaluation_id,
            outcome=query.outcome,
            match_status=query.match_status,
            error=query.error,
            search=query.search,
            reason_code=query.reason_code,
        )
        for row in rows:
            yield result_of(row)

    def name(self, evaluation_id: int) -> str:
        """The evaluation's name (file names of exports)."""
        return self._row(evaluation_id).name
