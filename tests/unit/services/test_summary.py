"""The evaluation summary, and the reports a grader declares: a label matrix, a score distribution."""

from __future__ import annotations

import json

import pytest

from assay.graders import FuzzyGrader, GraderInterface, StringMatchGrader, TrueFalseGrader, VerdictReport
from assay.services.evaluations.records import stored_summary
from assay.services.figures.summary import ReportShape, ResultFacts, binary_report, summarize
from assay.services.figures.summary_records import Summary


def fact(expected: str | None, actual: str | None, status: str, latency: float = 10.0) -> ResultFacts:
    passed = status == "match"
    return ResultFacts(passed, 1.0 if passed else 0.0, None, latency, status, expected, actual)


def error(reason: str = "timeout_after_retries") -> ResultFacts:
    return ResultFacts(False, None, reason, 30.0, None)


def test_summary_counts_errors_as_failures_but_not_in_mean_score() -> None:
    facts = [fact("true", "true", "match"), fact("true", "false", "mismatch"), error(), error("http_400")]
    summary = summarize(facts, total_cases=5)
    assert summary.finished == 4
    assert summary.passed == 1
    assert summary.pass_rate == 0.25
    assert summary.mean_score == 0.5
    assert summary.error_count == 2
    assert summary.errors_by_reason == {"http_400": 1, "timeout_after_retries": 1}
    assert summary.by_match_status == {"match": 1, "mismatch": 1}
    assert summary.pass_rate_ci95 is not None
    low, high = summary.pass_rate_ci95
    assert low < 0.25 < high
    assert summary.latency_ms.p50 == 20.0
    assert summary.binary is None


def test_empty_summary_has_no_rates() -> None:
    summary = summarize([], total_cases=3)
    assert summary.pass_rate is None
    assert summary.pass_rate_ci95 is None
    assert (summary.latency_ms.p50, summary.latency_ms.p95) == (None, None)


def test_binary_report() -> None:
    facts = (
        [fact("true", "true", "match")] * 40
        + [fact("true", "false", "mismatch")] * 5
        + [fact("true", None, "invalid_response")] * 5
        + [fact("false", "true", "mismatch")] * 5
        + [fact("false", "false", "match")] * 45
        + [fact(None, "true", "invalid_expected")] * 2
        + [error()]
    )
    report = binary_report(facts, ("true", "false"))
    assert report.confusion_matrix == {
        "true": {"true": 40, "false": 5, "invalid": 5},
        "false": {"true": 5, "false": 45, "invalid": 0},
    }
    assert report.total == 100
    assert report.invalid == 5
    assert report.invalid_expected == 2
    assert report.accuracy == pytest.approx(0.85)
    assert report.accuracy_valid_only == pytest.approx(85 / 95)
    true_class = report.per_class["true"]
    assert true_class.precision == pytest.approx(40 / 45)
    assert true_class.recall == pytest.approx(40 / 50)
    assert true_class.support == 50
    assert report.per_class["false"].recall == pytest.approx(0.9)
    assert report.cohen_kappa == pytest.approx((0.85 - 0.475) / 0.525)


def test_the_grader_declares_the_report_no_grader_id_is_compared() -> None:
    true_false = ReportShape.of(TrueFalseGrader(grader_id="my-booleans"))
    assert true_false.kind is VerdictReport.BINARY
    graded = TrueFalseGrader().grade("yes", "no")
    facts = true_false.facts(False, 0.0, None, 5.0, "mismatch", None, graded["details"])
    assert (facts.expected_label, facts.actual_label) == ("false", "true")
    summary = summarize([facts], total_cases=1, shape=true_false)
    assert summary.binary is not None
    assert summary.binary.confusion_matrix["false"]["true"] == 1
    plain = ReportShape.of(StringMatchGrader())
    assert summarize([fact(None, None, "match")], total_cases=1, shape=plain).binary is None
    assert ReportShape.of(None).kind is VerdictReport.PASS_FAIL


class _Graded(StringMatchGrader):
    report = VerdictReport.SCORE


def test_score_distribution_for_graded_graders() -> None:
    shape = ReportShape.of(_Graded())
    facts = [ResultFacts(score >= 0.5, score, None, 1.0, "match") for score in (0.0, 0.05, 0.55, 0.99, 1.0)]
    facts.append(error())
    summary = summarize(facts, total_cases=6, shape=shape)
    assert summary.score_distribution is not None
    bins = summary.score_distribution.bins
    assert len(bins) == 10
    assert [b.count for b in bins] == [2, 0, 0, 0, 0, 1, 0, 0, 0, 2]
    assert summary.score_distribution.p50 == 0.55


def _every_part(shape: ReportShape) -> Summary:
    """A summary holding every optional part a run can give it (repeats, tokens, a judge's, a cost)."""
    from decimal import Decimal

    from assay.config import ModelPrice
    from assay.targets.usage import JudgeSpend, Usage

    prices = {"m": ModelPrice(input_per_million=Decimal("0.15"), output_per_million=Decimal("0.6"))}
    judge = JudgeSpend((Usage(3, 4, "m"),))
    facts = [
        ResultFacts(
            passed=number % 2 == 0,
            score=0.25 * number,
            error=None,
            latency_ms=10.0 * number,
            match_status="match" if number % 2 == 0 else "mismatch",
            expected_label="true",
            actual_label="true" if number % 2 == 0 else "false",
            reason_code="hedged" if number == 1 else None,
            assertions=(("exact", "match"), ("judge", "mismatch")),
            tokens=(100, 20, "m"),
            case=1 + number // 2,
            judge=judge,
        )
        for number in range(4)
    ]
    return summarize([*facts, error()], total_cases=6, shape=shape, repeats=2, prices=prices)


@pytest.mark.parametrize("grader", [TrueFalseGrader(), FuzzyGrader()], ids=["binary", "score"])
def test_a_stored_summary_reads_back_as_the_summary_stored(grader: GraderInterface) -> None:
    """The storage boundary's pair: ``Summary.as_dict()`` is what the column holds (as JSON), and
    ``stored_summary`` reads it back into the same dataclass tree, every part included."""
    summary = _every_part(ReportShape.of(grader))
    assert summary.cost is not None
    assert summary.repeats is not None
    assert summary.judge_usage is not None
    assert summary.binary is not None or summary.score_distribution is not None
    stored = json.loads(json.dumps(summary.as_dict()))
    assert stored_summary(stored) == summary


def test_a_stored_summary_this_version_cannot_read_is_none() -> None:
    assert stored_summary({"total_cases": "many"}) is None
    assert stored_summary(None) is None
