"""The report of an evaluation: pass rate with interval, scores, statuses, errors, latency, binary report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from assay.services.statistics import cohen_kappa, f1, percentile, ratio, wilson_interval

BOOL_LABELS = ("true", "false")
INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class ResultFacts:
    """What the report needs of one result."""

    passed: bool
    score: float | None
    error: str | None
    latency_ms: float | None
    match_status: str | None
    expected_bool: str | None = None
    actual_bool: str | None = None


def binary_report(facts: Iterable[ResultFacts]) -> dict[str, Any]:
    """Confusion matrix (expected by actual, with an ``invalid`` column), per-class scores, accuracy, κ.

    Only graded results whose expected value is a boolean count; those with an invalid expected value
    are counted apart (``invalid_expected``), target errors are left to the summary's error count.
    """
    matrix = {expected: dict.fromkeys((*BOOL_LABELS, INVALID), 0) for expected in BOOL_LABELS}
    invalid_expected = 0
    for fact in facts:
        if fact.error is not None:
            continue
        if fact.expected_bool not in BOOL_LABELS:
            invalid_expected += fact.match_status == "invalid_expected"
            continue
        actual = fact.actual_bool if fact.actual_bool in BOOL_LABELS else INVALID
        matrix[fact.expected_bool][actual] += 1
    total = sum(sum(row.values()) for row in matrix.values())
    invalid = sum(row[INVALID] for row in matrix.values())
    correct = sum(matrix[label][label] for label in BOOL_LABELS)
    per_class: dict[str, dict[str, Any]] = {}
    for label in BOOL_LABELS:
        predicted = sum(matrix[expected][label] for expected in BOOL_LABELS)
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
        "labels": list(BOOL_LABELS),
        "confusion_matrix": matrix,
        "per_class": per_class,
        "total": total,
        "invalid": invalid,
        "invalid_expected": invalid_expected,
        "accuracy": ratio(correct, total),
        "accuracy_valid_only": ratio(correct, total - invalid),
        "cohen_kappa": cohen_kappa(matrix),
    }


def summarize(facts: Iterable[ResultFacts], *, total_cases: int, binary: bool = False) -> dict[str, Any]:
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
        "error_count": errors.total(),
        "errors_by_reason": dict(sorted(errors.items())),
        "latency_ms": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)},
    }
    if binary:
        summary["binary"] = binary_report(facts)
    return summary
