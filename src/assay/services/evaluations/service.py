"""Evaluations: create (everything checked before anything runs), list, read, cancel, delete, results."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from assay.config import ModelPrice
from assay.domain import (
    MAX_REPEATS,
    Conversation,
    EvaluationStatus,
    Outcome,
    Page,
    ResultSort,
    within_budget,
)
from assay.errors import NotFoundError, Problem, ValidationError
from assay.graders import GraderInterface
from assay.json_types import JsonObject
from assay.services.evaluations.records import (
    Evaluation,
    ExportedResult,
    Result,
    evaluation_of,
    listed_size,
    result_of,
)
from assay.services.evaluations.recount import first_summary, recount
from assay.services.evaluations.regrade import check_source
from assay.services.evaluations.scheduling import Scheduler
from assay.services.execution.conversation import stored_run_case
from assay.services.execution.reachability import CALLING_TARGETS
from assay.services.execution.target_trial import TargetTrial, try_target
from assay.services.figures.cost import price_record, read_prices
from assay.services.grading.answers import check_calls
from assay.services.grading.assertions import case_graders, check_assertion_calls, check_suite_calls
from assay.services.grading.preflight import preflight_suite
from assay.services.grading.registry import GraderService
from assay.services.suites.case_keys import (
    MAX_KEY_CHARS,
    MAX_LISTED,
    is_text,
    listed,
    naming_rule,
    shown,
    unmatched_names,
)
from assay.services.suites.service import case_assertions
from assay.storage import evaluations as store
from assay.storage import results as result_store
from assay.storage import suites as suite_store
from assay.storage.database import loggable
from assay.storage.evaluations import EvaluationRow
from assay.storage.types import utc_now
from assay.targets import (
    API_TARGET_TYPES,
    EvaluationTargetSpec,
    RecordedTargetSpec,
    TargetPolicy,
    TargetSpec,
    check_target,
)
from assay.targets.cached import CacheMode
from assay.targets.specs import allowed_target, read_target_record, target_record, target_view

if TYPE_CHECKING:
    from assay.chat import Message

logger = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 8
MAX_CONCURRENCY = 256


@dataclass(frozen=True, slots=True)
class NewEvaluation:
    """What a user asks to run."""

    suite_id: int
    grader_id: str
    target: TargetSpec
    """Parsed once: at the edge (a request, a file), or from the stored record (a re-run)."""
    grader_config: JsonObject | None = None
    name: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    reply_cache: CacheMode = CacheMode.OFF
    """How the evaluation uses the reply cache (a target that calls an agent only)."""
    repeats: int = 1
    """How many times each case is asked (a target that calls an agent only, past 1)."""
    prices: Mapping[str, ModelPrice] | None = None
    """The evaluation's own prices, over the server's for the models they name."""
    allow_invalid_expected: bool = False
    """Run even when the grader's preflight finds cases it can never pass (they end ``invalid_expected``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetTrialRequest:
    """A target to test on one case of a suite (the first by default), before any run."""

    suite_id: int
    target: TargetSpec
    """Parsed at the edge."""
    case_number: int = 1
    grader_id: str | None = None
    grader_config: JsonObject | None = None


@dataclass(frozen=True, slots=True)
class CheckedEvaluation:
    """A request :meth:`EvaluationService.check` accepted: what :meth:`EvaluationService.start` stores, built
    and parsed once."""

    suite_id: int
    suite_name: str
    grader: GraderInterface
    spec: TargetSpec


_EXPORT_BATCH = 500


@dataclass(frozen=True, slots=True)
class ResultQuery:
    """Which results to list and in which order."""

    outcome: Outcome | None = None
    match_status: str | None = None
    error: str | None = None
    search: str | None = None
    reason_code: str | None = None
    sort: ResultSort = ResultSort.NUMBER
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
    rows, total = result_store.page_of_results(
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
    return Page(within_budget((result_of(row) for row in rows), listed_size, max_page_bytes), total)


class EvaluationService:
    """Use cases on evaluations within one database session; running is left to the :class:`Scheduler`."""

    def __init__(
        self,
        session: Session,
        graders: GraderService,
        scheduler: Scheduler,
        *,
        max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES,
        prices: Mapping[str, ModelPrice] | None = None,
    ) -> None:
        self.session = session
        self.graders = graders
        self.scheduler = scheduler
        self.max_page_bytes = max_page_bytes
        self.prices = dict(prices or {})
        """The server's price table; an evaluation's own prices win for the models they name."""

    def _row(self, evaluation_id: int) -> EvaluationRow:
        row = store.find_evaluation(self.session, evaluation_id)
        if row is None:
            raise NotFoundError("Evaluation not found")
        return row

    def create(
        self, request: NewEvaluation, *, allowed_targets: frozenset[str] = API_TARGET_TYPES
    ) -> Evaluation:
        """A new ``pending`` evaluation, started at once; unknown suite/grader or a bad config is refused."""
        return self.start(request, self.check(request, allowed_targets=allowed_targets))

    def check(
        self, request: NewEvaluation, *, allowed_targets: frozenset[str] = API_TARGET_TYPES
    ) -> CheckedEvaluation:
        """Every check :meth:`create` makes, writing nothing: several requests are all checked before any is
        started (``POST /api/evals``: one file's evaluations are created all or none)."""
        suite = suite_store.find_suite(self.session, request.suite_id)
        if suite is None:
            raise NotFoundError("Suite not found")
        # NotFoundError or ConfigError, its problems located in the request
        grader = self.graders.build(request.grader_id, request.grader_config, where=("grader_config",))
        check_calls(grader, self.scheduler.target_policy)  # a judge's key and URL, as a target's
        spec = allowed_target(request.target, allowed_targets)
        check_target(spec, self.scheduler.target_policy)
        if isinstance(spec, EvaluationTargetSpec):
            check_source(self.session, spec, suite.id)
        if isinstance(spec, RecordedTargetSpec) and spec.responses:
            self._check_answer_names(suite.id, list(spec.responses))
        if not 1 <= request.concurrency <= MAX_CONCURRENCY:
            raise ValidationError.of(Problem(("concurrency",), f"must be between 1 and {MAX_CONCURRENCY}"))
        if request.reply_cache is not CacheMode.OFF and spec.type not in CALLING_TARGETS:
            message = f"a {spec.type} target calls no agent: there is no reply to cache"
            raise ValidationError.of(Problem(("reply_cache",), message))
        if not 1 <= request.repeats <= MAX_REPEATS:
            raise ValidationError.of(Problem(("repeats",), f"must be between 1 and {MAX_REPEATS}"))
        if request.repeats > 1 and spec.type not in CALLING_TARGETS:
            message = f"a {spec.type} target gives each case one answer: repeats need an agent to ask again"
            raise ValidationError.of(Problem(("repeats",), message))
        # the judges among the cases' assertions: their keys and URLs, as a lone judge's (in the preflight's
        # pass over the cases when there is one)
        if request.allow_invalid_expected:
            check_suite_calls(self.session, suite.id, suite.assertions, self.scheduler.target_policy)
        else:
            judges = check_assertion_calls(self.scheduler.target_policy)
            report = preflight_suite(self.session, suite.id, grader, check=judges)
            if not report.ok:
                raise report.error(grader.grader_id, '"allow_invalid_expected": true')
        return CheckedEvaluation(suite_id=suite.id, suite_name=suite.name, grader=grader, spec=spec)

    def start(self, request: NewEvaluation, checked: CheckedEvaluation) -> Evaluation:
        """The evaluation :meth:`check` accepted, stored and queued."""
        grader, spec = checked.grader, checked.spec
        grader_spec = self.graders.spec(grader)
        stored = target_record(spec)
        prices = {**self.prices, **(request.prices or {})}  # fixed now: a later server change is not its cost
        total = suite_store.count_cases(self.session, checked.suite_id) * request.repeats
        row = EvaluationRow(
            name=request.name or f"{checked.suite_name} · {grader.grader_id}",
            suite_id=checked.suite_id,
            grader_id=grader_spec.grader_id,
            grader_config=grader_spec.config,
            grader_version=grader_spec.version,
            target=stored,
            target_view=target_view(stored),
            egress=_egress_record(self.scheduler.target_policy),
            concurrency=request.concurrency,
            reply_cache=request.reply_cache.value,
            repeats=request.repeats,
            prices=price_record(prices),
            status=EvaluationStatus.PENDING.value,
            total=total,
            done=0,
            # Read until the first live recount, which would otherwise be counted at every read meanwhile.
            summary=first_summary(grader, total, repeats=request.repeats, prices=prices).as_dict(),
            created_at=utc_now(),
        )
        self.session.add(row)
        self.session.commit()
        try:
            self.scheduler.created(row, grader, spec)  # run and counted here: neither built nor parsed again
            self.scheduler.submit(row.id, row.concurrency)
        except Exception as exc:  # it exists now: a retried request would create a second one
            logger.warning(
                "evaluation %s was created but not queued (%s); the queue's keeper queues it within seconds",
                row.id,
                loggable(exc),
            )
        return evaluation_of(row)

    def _check_answer_names(self, suite_id: int, names: list[str]) -> None:
        """Refuse recorded answers that name no case: a wrong key or number would only show as a low
        pass rate (answers keyed 0..19 for cases numbered 1..20 lose one and shift the rest)."""
        keyed = bool(suite_store.is_keyed(self.session, suite_id))
        count = suite_store.count_cases(self.session, suite_id)
        keys = {}
        if keyed:  # only what could be a key is looked up (a NUL in a bound value fails on PostgreSQL)
            candidates = [name for name in names if len(name) <= MAX_KEY_CHARS and is_text(name)]
            keys = suite_store.positions_of_keys(self.session, suite_id, candidates)
        unmatched = unmatched_names(names, keyed=keyed, count=count, keys=keys)
        if not unmatched:
            return
        rule = naming_rule(keyed=keyed, count=count)
        problems = [
            Problem(("target", "recorded", "responses"), f"{shown(name)} names no case ({rule})")
            for name in unmatched[:MAX_LISTED]
        ]
        message = f"{len(unmatched)} recorded answer(s) name no case of the suite; first: {problems[0]}"
        raise ValidationError(message, problems=listed(problems, len(unmatched)))

    def try_target(
        self, request: TargetTrialRequest, *, allowed_targets: frozenset[str] = API_TARGET_TYPES
    ) -> TargetTrial:
        """Send one case of the suite to the target, once (see :mod:`assay.services.execution.target_trial`);
        the target is checked as :meth:`create` checks it. Nothing is stored."""
        suite = suite_store.find_suite(self.session, request.suite_id)
        if suite is None:
            raise NotFoundError("Suite not found")
        grader = None
        if request.grader_id is not None:
            grader = self.graders.build(request.grader_id, request.grader_config)
        spec = allowed_target(request.target, allowed_targets - {"evaluation"})
        check_target(spec, self.scheduler.target_policy)
        if isinstance(spec, RecordedTargetSpec) and spec.responses:
            self._check_answer_names(suite.id, list(spec.responses))
        count = suite_store.count_cases(self.session, suite.id)
        row = suite_store.case_at(self.session, suite.id, request.case_number - 1)
        if row is None:
            message = (
                "the suite has no case to send"
                if count == 0
                else f"case_number must be between 1 and {count} (the suite's cases are numbered from 1)"
            )
            raise ValidationError.of(Problem(("case_number",), message))
        case = stored_run_case(row)  # a conversation's first call, as a run makes it
        case.conversation = None  # one call: a trial sends a multi-turn case's first turn only
        # the case's own assertions grade it, as in a run (their judges' keys and URLs checked first)
        graders = case_graders(
            self.session,
            suite.id,
            suite.assertions,
            check=check_assertion_calls(self.scheduler.target_policy),
        )
        if graders is not None:
            case.checks = graders.for_case(case_assertions(row.assertions), case.target_case.metadata)
        self.session.rollback()  # no transaction held open while the agent is called
        return try_target(spec, case, policy=self.scheduler.target_policy, grader=grader)

    def get(self, evaluation_id: int) -> Evaluation:
        """The evaluation, read in one row whatever its size: its stored summary is the latest recount
        (a running evaluation's is recounted every few seconds, a new one's is its empty first summary); one
        stored without any (before summaries were stored at creation) is counted now."""
        row = self._row(evaluation_id)
        summary = None if row.summary is not None else recount(self.session, row, self.scheduler.graders)
        return evaluation_of(row, summary)

    def list(
        self, *, skip: int, limit: int, suite_id: int | None = None, status: EvaluationStatus | None = None
    ) -> Page[Evaluation]:
        """A page of evaluations, newest first (stored summaries only: no live computation per row)."""
        rows, total = store.page_of_evaluations(
            self.session, skip=skip, limit=limit, suite_id=suite_id, status=status.value if status else None
        )
        return Page(items=[evaluation_of(row) for row in rows], total=total)

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
        source = store.find_evaluation(self.session, evaluation_id, with_target=True)
        if source is None:
            raise NotFoundError("Evaluation not found")
        self.session.expunge(source)  # a copy from here on: nothing of it is read again, nor flushed
        return self.create(
            NewEvaluation(
                suite_id=source.suite_id,
                grader_id=source.grader_id,
                target=read_target_record(source.target),
                grader_config=source.grader_config,
                name=name or rerun_name(source.name, source.id),
                concurrency=source.concurrency,
                reply_cache=CacheMode(source.reply_cache),
                repeats=source.repeats,
                prices=read_prices(source.prices),
                allow_invalid_expected=allow_invalid_expected,
            )
        )

    def delete(self, evaluation_id: int) -> None:
        """Delete an evaluation and its results, stopping it first if it runs."""
        self._row(evaluation_id)
        self.scheduler.stop(evaluation_id)  # no shard writes after this, on any worker
        if not store.delete_evaluation(self.session, evaluation_id):
            self.session.rollback()
            raise NotFoundError("Evaluation not found: it was deleted meanwhile")
        self.session.commit()

    def prices_of(self, evaluation_id: int) -> dict[str, ModelPrice]:
        """The price table the evaluation's cost is counted with (none: empty)."""
        return read_prices(self._row(evaluation_id).prices)

    def results(self, evaluation_id: int, query: ResultQuery, *, skip: int, limit: int) -> Page[Result]:
        """A page of the evaluation's results, filtered and sorted."""
        self._row(evaluation_id)
        return page_of_results(
            self.session, evaluation_id, query, skip=skip, limit=limit, max_page_bytes=self.max_page_bytes
        )

    def result(self, evaluation_id: int, case_id: int) -> Result:
        """The result of one case of the evaluation."""
        self._row(evaluation_id)
        row = result_store.results_of_cases(self.session, evaluation_id, [case_id]).get(case_id)
        if row is None:
            raise NotFoundError(f"Evaluation {evaluation_id} has no result for case {case_id}")
        return result_of(row)

    def input_messages(self, case_id: int) -> tuple[Message, ...]:
        """The chat messages a case sends as its input (none for a text input, or a case deleted since)."""
        stored = suite_store.conversation_of(self.session, case_id)
        return Conversation.from_json(stored).messages if stored else ()

    def iter_results(self, evaluation_id: int, query: ResultQuery | None = None) -> Iterator[Result]:
        """Every result of the evaluation that ``query`` filters in, in case order (exports)."""
        self._row(evaluation_id)
        query = query or ResultQuery()
        rows = result_store.iter_results(
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

    def iter_exported(self, evaluation_id: int, query: ResultQuery | None = None) -> Iterator[ExportedResult]:
        """``iter_results`` with each case's metadata (read a batch of cases at a time), for exports."""
        batch: list[Result] = []

        def flushed() -> Iterator[ExportedResult]:
            metadata = suite_store.metadata_of_cases(self.session, [result.case_id for result in batch])
            for result in batch:
                yield ExportedResult(result=result, metadata=metadata.get(result.case_id, {}))
            batch.clear()

        for result in self.iter_results(evaluation_id, query):
            batch.append(result)
            if len(batch) == _EXPORT_BATCH:
                yield from flushed()
        yield from flushed()

    def require(self, evaluation_id: int) -> None:
        """``NotFoundError`` unless the evaluation is stored now (read again: not this session's copy)."""
        if store.status_of(self.session, evaluation_id) is None:
            raise NotFoundError("Evaluation not found: it was deleted meanwhile")

    def name(self, evaluation_id: int) -> str:
        """The evaluation's name (file names of exports)."""
        return self._row(evaluation_id).name


def _egress_record(policy: TargetPolicy) -> JsonObject | None:
    """The egress policy that accepts an evaluation, to store with it (every worker runs it under this)."""
    settings = policy.egress.settings
    return settings.record() if settings is not None else None
