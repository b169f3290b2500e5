"""The report of an evaluation: pass rate with interval, scores, statuses, errors, latency, binary report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from assay.graders import GraderInterface, MatchStatus, VerdictReport
from assay.graders.verdict import reason_code_of
from assay.services.statistics import cohen_kappa, f1, percentile, ratio, wilson_interval

INVALID = "invalid"
SCORE_BINS = 10


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
        details: Mapping[str, Any] | None,
    ) -> ResultFacts:
        """The facts of one result; labels are read only when the report needs them."""
        expected = actual = None
        if self.kind is VerdictReport.BINARY and self.grader is not None and details:
            expected, actual = self.grader.report_labels(details)
        return ResultFacts(
            passed=passed,
            score=score,
            error=error,
            latency_ms=latency_ms,
            match_status=match_status,
            expected_label=expected,
            actual_label=actual,
            reason_code=reason_code_of(details),
        )


def binary_report(facts: Iterable[ResultFacts], labels: tuple[str, ...]) -> dict[str, Any]:
    """Confusion matrix (expected by actual, with an ``invalid`` column), per-class scores, accuracy, κ.

    Only graded results whose expected value has a label count; those with an invalid expected value
    are counted apart (``invalid_expected``), target errors are left to the summary's error count.
    """
    matrix = {expected: dict.fromkeys((*labels, INVALID), 0) for expected in labels}
    invalid_expected = 0
    for fact in facts:
        if fact.error is not None:
            continue
        if fact.expected_label not in matrix:
            invalid_expected += fact.match_status == MatchStatus.INVALID_EXPECTED
            continue
        actual = fact.actual_label if fact.actual_label in matrix else INVALID
        matrix[fact.expected_label][actual] += 1
    total = sum(sum(row.values()) for row in matrix.values())
    invalid = sum(row[INVALID] for row in matrix.values())
    correct = sum(matrix[label][label] for label in labels)
    per_class: dict[str, dict[str, Any]] = {}
    for label in labels:
        predicted = sum(matrix[expected][label] for expected in labels)
        support = sum(matrix[label].values())
        precision = ratio(matrix[label][label], predicted)
        recall = ratio(matrix[label][label], support)
        per_class[label] = {
            "precision": precision,
            "recall": recall,
            "f1": f1(precision, recall),
            "support": support,
        }
    return {
        "labels": list(labels),
        "confusion_matrix": matrix,
        "per_class": per_class,
        "total": total,
        "invalid": invalid,
        "invalid_expected": invalid_expected,
        "accuracy": ratio(correct, total),
        "accuracy_valid_only": ratio(correct, total - invalid),
        "cohen_kappa": cohen_kappa(matrix),
    }


def score_distribution(scores: list[float]) -> dict[str, Any]:
    """Graded scores in ``SCORE_BINS`` equal bins over [0, 1] (the last bin holds 1.0), with quartiles."""
    counts = [0] * SCORE_BINS
    for score in scores:
        counts[min(int(score * SCORE_BINS), SCORE_BINS - 1) if score > 0 else 0] += 1
    ordered = sorted(scores)
    return {
        "bins": [
            {"low": index / SCORE_BINS, "high": (index + 1) / SCORE_BINS, "count": count}
            for index, count in enumerate(counts)
        ],
        "p25": percentile(ordered, 25),
        "p50": percentile(ordered, 50),
        "p75": percentile(ordered, 75),
    }


def summarize(
    facts: Iterable[ResultFacts], *, total_cases: int, shape: ReportShape | None = None
) -> dict[str, Any]:
    """The summary of an evaluation's results so far.

    The pass rate is over finished cases, target errors counted as failures (a CI gate must not pass
    because the agent was down); the mean score is over graded cases only.
    """
    facts = list(facts)
    passed = sum(fact.passed for fact in facts)
    errors = Counter(fact.error for fact in facts if fact.error is not None)
    scores = [fact.score for fact in facts if fact.score is not None]
    latencies = sorted(fact.latency_ms for fact in facts if fact.latency_ms is not None)
    by_status = Counter(fact.match_status for fact in facts if fact.match_status is not None)
    by_code = Counter(fact.reason_code for fact in facts if fact.reason_code is not None)
    interval = wilson_interval(passed, len(facts))
    summary: dict[str, Any] = {
        "total_cases": total_cases,
        "finished": len(facts),
        "graded": len(facts) - errors.total(),
        "passed": passed,
        "failed": len(facts) - passed,
        "pass_rate": ratio(passed, len(facts)),
        "pass_rate_ci95": list(interval) if interval else None,
        "mean_score": ratio(sum(scores), len(scores)),
        "by_match_status": dict(sorted(by_status.items())),
        "by_reason_code": dict(sorted(by_code.items())),
        "error_count": errors.total(),
        "errors_by_reason": dict(sorted(errors.items())),
        "latency_ms": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)},
    }
    kind = shape.kind if shape is not None else VerdictReport.PASS_FAIL
    if shape is not None and kind is VerdictReport.BINARY and shape.labels:
        summary["binary"] = binary_report(facts, shape.labels)
    if kind is VerdictReport.SCORE:
        graded = [fact.score for fact in facts if fact.score is not None and fact.error is None]
        summary["score_distribution"] = score_distribution(graded)
    return summary
