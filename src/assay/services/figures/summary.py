"""The tally of an evaluation's results into its report (:mod:`assay.services.figures.summary_records`):
pass rate with interval, scores, statuses, errors, latency, binary report."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.graders import GraderInterface, MatchStatus, VerdictReport
from assay.services.figures.cost import CostTally, Prices
from assay.services.figures.repeats import RepeatTally
from assay.services.figures.statistics import cohen_kappa, f1, percentile, ratio, wilson_interval
from assay.services.figures.summary_records import (
    AssertionFigures,
    BinaryReport,
    ClassScores,
    JudgeUsageFigures,
    LatencyFigures,
    ModelTokens,
    ScoreBin,
    ScoreDistribution,
    Summary,
    UsageFigures,
)

if TYPE_CHECKING:
    from assay.targets.usage import JudgeSpend

INVALID = "invalid"
SCORE_BINS = 10


Tokens = tuple[int, int, str | None]
"""``(input_tokens, output_tokens, model)`` a reply said it spent (:class:`assay.targets.usage.Usage`)."""


@dataclass(frozen=True, slots=True)
class ResultFacts:
    """What the report needs of one result."""

    passed: bool
    score: float | None
    error: str | None
    latency_ms: float | None
    match_status: str | None
    expected_label: str | None = None
    actual_label: str | None = None
    reason_code: str | None = None
    assertions: tuple[tuple[str, str], ...] | None = None
    """``(name, match status)`` of each assertion, for a result graded by per-case assertions."""
    tokens: Tokens | None = None
    case: int = 0
    """The case's number: what a run with repeats counts each case's passes by."""
    judge: JudgeSpend | None = None
    """What the grader's calls said they spent (``None``: none was made)."""


def assertion_statuses(details: Mapping[str, Any] | None) -> tuple[tuple[str, str], ...] | None:
    """``(name, match status)`` of each assertion's verdict in a result's details, else ``None``
    (docs/assertions.md); a result not graded by per-case assertions costs one lookup."""
    if not details or "children" not in details:
        return None
    from assay.graders.composite.assertions import assertion_verdicts  # a composite's result only

    verdicts = assertion_verdicts(details)
    return None if verdicts is None else tuple((verdict.name, verdict.match_status) for verdict in verdicts)


@dataclass(frozen=True, slots=True)
class ReportShape:
    """What an evaluation's report holds beyond pass/fail, as its grader declares it."""

    kind: VerdictReport = VerdictReport.PASS_FAIL
    grader: GraderInterface | None = None

    @classmethod
    def of(cls, grader: GraderInterface | None) -> ReportShape:
        """The report of ``grader``'s verdicts (pass/fail only for a grader no longer registered)."""
        return cls(grader.report, grader) if grader is not None else cls()

    @property
    def labels(self) -> tuple[str, ...]:
        """The labels of a ``binary`` report's matrix."""
        return self.grader.verdict_labels if self.grader is not None else ()

    def facts(
        self,
        passed: bool,
        score: float | None,
        error: str | None,
        latency_ms: float | None,
        match_status: str | None,
        reason_code: str | None,
        details: Mapping[str, Any] | None,
        tokens: Tokens | None = None,
        case: int = 0,
        judge: JudgeSpend | None = None,
    ) -> ResultFacts:
        """The facts of one result; labels are read only when the report needs them."""
        expected, actual = self.labels_of(details)
        return ResultFacts(
            passed=passed,
            score=score,
            error=error,
            latency_ms=latency_ms,
            match_status=match_status,
            expected_label=expected,
            actual_label=actual,
            reason_code=reason_code,
            assertions=assertion_statuses(details),
            tokens=tokens,
            case=case,
            judge=judge,
        )

    def labels_of(self, details: Mapping[str, Any] | None) -> tuple[str | None, str | None]:
        """The expected and actual labels a result's details give, when the report has a label matrix."""
        if self.kind is VerdictReport.BINARY and self.grader is not None and details:
            return self.grader.report_labels(details)
        return None, None


class _LabelMatrix:
    """A ``binary`` report's counts, gathered one result at a time."""

    def __init__(self, labels: tuple[str, ...]) -> None:
        self.labels = labels
        self.matrix = {expected: dict.fromkeys((*labels, INVALID), 0) for expected in labels}
        self.invalid_expected = 0

    def add(self, error: str | None, status: str | None, expected: str | None, actual: str | None) -> None:
        """Count one result: graded with a labelled expected value, or apart as an invalid expected one."""
        if error is not None:
            return
        if expected not in self.matrix:
            self.invalid_expected += status == MatchStatus.INVALID_EXPECTED
            return
        self.matrix[expected][actual if actual in self.matrix else INVALID] += 1

    def report(self) -> BinaryReport:
        """The report of the results counted so far."""
        labels, matrix = self.labels, self.matrix
        total = sum(sum(row.values()) for row in matrix.values())
        invalid = sum(row[INVALID] for row in matrix.values())
        correct = sum(matrix[label][label] for label in labels)
        per_class: dict[str, ClassScores] = {}
        for label in labels:
            predicted = sum(matrix[expected][label] for expected in labels)
            support = sum(matrix[label].values())
            precision = ratio(matrix[label][label], predicted)
            recall = ratio(matrix[label][label], support)
            per_class[label] = ClassScores(
                precision=precision, recall=recall, f1=f1(precision, recall), support=support
            )
        return BinaryReport(
            labels=list(labels),
            confusion_matrix=matrix,
            per_class=per_class,
            total=total,
            invalid=invalid,
            invalid_expected=self.invalid_expected,
            accuracy=ratio(correct, total),
            accuracy_valid_only=ratio(correct, total - invalid),
            cohen_kappa=cohen_kappa(matrix),
        )


def binary_report(facts: Iterable[ResultFacts], labels: tuple[str, ...]) -> BinaryReport:
    """Confusion matrix (expected by actual, with an ``invalid`` column), per-class scores, accuracy, κ.

    Only graded results whose expected value has a label count; those with an invalid expected value
    are counted apart (``invalid_expected``), target errors are left to the summary's error count.
    """
    matrix = _LabelMatrix(labels)
    for fact in facts:
        matrix.add(fact.error, fact.match_status, fact.expected_label, fact.actual_label)
    return matrix.report()


def score_distribution(scores: list[float]) -> ScoreDistribution:
    """Graded scores in ``SCORE_BINS`` equal bins over [0, 1] (the last bin holds 1.0), with quartiles."""
    counts = [0] * SCORE_BINS
    for score in scores:
        counts[min(int(score * SCORE_BINS), SCORE_BINS - 1) if score > 0 else 0] += 1
    ordered = sorted(scores)
    return ScoreDistribution(
        bins=[
            ScoreBin(low=index / SCORE_BINS, high=(index + 1) / SCORE_BINS, count=count)
            for index, count in enumerate(counts)
        ],
        p25=percentile(ordered, 25),
        p50=percentile(ordered, 50),
        p75=percentile(ordered, 75),
    )


class SummaryTally:
    """The summary of results seen one at a time: counts, plus the latencies (and, for a score report, the
    scores) that percentiles need, 8 bytes each; never the results, so a million of them cost a few MB."""

    def __init__(
        self, shape: ReportShape | None = None, *, repeats: int = 1, prices: Prices | None = None
    ) -> None:
        self.shape = shape or ReportShape()
        self.by_case = RepeatTally(repeats) if repeats > 1 else None
        """Each case's passes of its runs, when it is asked more than once."""
        self.kind = shape.kind if shape is not None else VerdictReport.PASS_FAIL
        self.finished = 0
        self.passed = 0
        self.errors: Counter[str] = Counter()
        self.by_status: Counter[str] = Counter()
        self.by_code: Counter[str] = Counter()
        self.score_sum = 0.0
        self.score_count = 0
        self.latencies = array("d")
        self.graded_scores = array("d")
        labels = shape.labels if shape is not None and self.kind is VerdictReport.BINARY else ()
        self.matrix = _LabelMatrix(labels) if labels else None
        self.by_assertion: dict[str, Counter[str]] = {}
        self.tokens: dict[str | None, list[int]] = {}
        """``[cases, input tokens, output tokens]`` by model."""
        self.judge_tokens: dict[str | None, list[int]] = {}
        """``[calls, input tokens, output tokens]`` by the judge's model."""
        self.judge_cases = [0, 0, 0]
        """Cases graded with calls: every call said what it spent, some did not; calls made."""
        self.cost = CostTally(prices) if prices else None

    def add(self, fact: ResultFacts) -> None:
        """Count one result."""
        self._count(fact.passed, fact.score, fact.error, fact.latency_ms, fact.match_status, fact.reason_code)
        if self.matrix is not None:
            self.matrix.add(fact.error, fact.match_status, fact.expected_label, fact.actual_label)
        if fact.assertions is not None:
            self._count_assertions(fact.assertions)
        self.count_spend(fact.tokens, fact.judge)
        if self.by_case is not None:
            self.by_case.add(fact.case, fact.passed)

    def count_spend(self, tokens: Tokens | None, judge: JudgeSpend | None) -> None:
        """Count what one case's reply and its grader's calls said they spent, and what that cost."""
        if tokens is not None:
            self.count_tokens(tokens)
        if judge is not None:
            self._count_judge(judge)
        if self.cost is not None:
            self.cost.add(tokens, judge)

    def _count_judge(self, judge: JudgeSpend) -> None:
        self.judge_cases[0 if judge.known else 1] += 1
        self.judge_cases[2] += judge.calls
        if not judge.known:
            return
        for usage in judge.usages:
            counts = self.judge_tokens.get(usage.model)
            if counts is None:
                counts = self.judge_tokens[usage.model] = [0, 0, 0]
            counts[0] += 1
            counts[1] += usage.input_tokens
            counts[2] += usage.output_tokens

    def count_tokens(self, tokens: Tokens) -> None:
        """Count what one reply said it spent."""
        spent_in, spent_out, model = tokens
        counts = self.tokens.get(model)
        if counts is None:
            counts = self.tokens[model] = [0, 0, 0]
        counts[0] += 1
        counts[1] += spent_in
        counts[2] += spent_out

    def _count_assertions(self, assertions: tuple[tuple[str, str], ...]) -> None:
        for name, status in assertions:
            counts = self.by_assertion.get(name)
            if counts is None:
                counts = self.by_assertion[name] = Counter()
            counts[status] += 1

    def add_result(
        self,
        passed: bool,
        score: float | None,
        error: str | None,
        latency_ms: float | None,
        match_status: str | None,
        reason_code: str | None,
        details: Mapping[str, Any] | None,
        tokens: Tokens | None = None,
        case: int = 0,
        judge: JudgeSpend | None = None,
    ) -> None:
        """Count one result from its fields, as :meth:`add` counts its :meth:`ReportShape.facts` (a run of a
        million results makes no record per result)."""
        self._count(passed, score, error, latency_ms, match_status, reason_code)
        if self.by_case is not None:
            self.by_case.add(case, passed)
        if tokens is not None or judge is not None or self.cost is not None:
            self.count_spend(tokens, judge)
        if self.matrix is not None:
            self.matrix.add(error, match_status, *self.shape.labels_of(details))
        if details is not None and "children" in details:  # no call for a result without them
            assertions = assertion_statuses(details)
            if assertions is not None:
                self._count_assertions(assertions)

    def _count(
        self,
        passed: bool,
        score: float | None,
        error: str | None,
        latency_ms: float | None,
        match_status: str | None,
        reason_code: str | None,
    ) -> None:
        self.finished += 1
        self.passed += passed
        if error is not None:
            self.errors[error] += 1
        if score is not None:
            self.score_sum += score
            self.score_count += 1
            if error is None and self.kind is VerdictReport.SCORE:
                self.graded_scores.append(score)
        if latency_ms is not None:
            self.latencies.append(latency_ms)
        if match_status is not None:
            self.by_status[match_status] += 1
        if reason_code is not None:
            self.by_code[reason_code] += 1

    def summary(self, total_cases: int) -> Summary:
        """The summary of the results counted so far, over a suite of ``total_cases``."""
        finished, passed, errors = self.finished, self.passed, self.errors
        latencies = sorted(self.latencies)
        interval = wilson_interval(passed, finished)
        return Summary(
            total_cases=total_cases,
            finished=finished,
            graded=finished - errors.total(),
            passed=passed,
            failed=finished - passed,
            pass_rate=ratio(passed, finished),
            pass_rate_ci95=interval,
            mean_score=ratio(self.score_sum, self.score_count),
            by_match_status=dict(sorted(self.by_status.items())),
            by_reason_code=dict(sorted(self.by_code.items())),
            error_count=errors.total(),
            errors_by_reason=dict(sorted(errors.items())),
            latency_ms=LatencyFigures(
                p50=percentile(latencies, 50),
                p95=percentile(latencies, 95),
                max=latencies[-1] if latencies else None,
            ),
            binary=self.matrix.report() if self.matrix is not None else None,
            score_distribution=(
                score_distribution(list(self.graded_scores)) if self.kind is VerdictReport.SCORE else None
            ),
            by_assertion={
                name: AssertionFigures(counts.total(), counts["match"], dict(sorted(counts.items())))
                for name, counts in sorted(self.by_assertion.items())
            },
            usage=self._usage(),
            repeats=self.by_case.figures() if self.by_case is not None else None,
            judge_usage=self._judge_usage(),
            cost=self.cost.figures() if self.cost is not None else None,
        )

    def _judge_usage(self) -> JudgeUsageFigures | None:
        known, unknown, calls = self.judge_cases
        if not known and not unknown:
            return None
        by_model = _by_model(self.judge_tokens)
        return JudgeUsageFigures(
            cases=known,
            unknown_cases=unknown,
            calls=calls,
            input_tokens=sum(item.input_tokens for item in by_model),
            output_tokens=sum(item.output_tokens for item in by_model),
            by_model=by_model,
        )

    def _usage(self) -> UsageFigures | None:
        if not self.tokens:
            return None
        by_model = _by_model(self.tokens)
        return UsageFigures(
            cases=sum(item.cases for item in by_model),
            input_tokens=sum(item.input_tokens for item in by_model),
            output_tokens=sum(item.output_tokens for item in by_model),
            by_model=by_model,
        )


def _by_model(tokens: Mapping[str | None, list[int]]) -> list[ModelTokens]:
    return [
        ModelTokens(model=model, cases=cases, input_tokens=spent_in, output_tokens=spent_out)
        for model, (cases, spent_in, spent_out) in sorted(tokens.items(), key=lambda item: item[0] or "")
    ]


def summarize(
    facts: Iterable[ResultFacts],
    *,
    total_cases: int,
    shape: ReportShape | None = None,
    repeats: int = 1,
    prices: Prices | None = None,
) -> Summary:
    """The summary of an evaluation's results so far.

    The pass rate is over finished cases, target errors counted as failures (a CI gate must not pass
    because the agent was down); the mean score is over graded cases only.
    """
    tally = SummaryTally(shape, repeats=repeats, prices=prices)
    for fact in facts:
        tally.add(fact)
    return tally.summary(total_cases)
