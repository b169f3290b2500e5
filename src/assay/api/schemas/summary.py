"""Schemas of an evaluation's summary: its figures, usage and cost over all its results."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from assay.api.schemas.common import ResponseModel


class LatencyOut(ResponseModel):
    """Latency of the target's replies over every case that has one (errors included), in milliseconds."""

    p50: float | None
    p95: float | None
    max: float | None = None


class ModelTokensOut(ResponseModel):
    """Tokens spent through one model (null: the replies did not name it)."""

    model: str | None
    cases: int
    input_tokens: int
    output_tokens: int


class UsageOut(ResponseModel):
    """What the agent's replies said they spent, over the cases whose reply said so (the rest: unknown)."""

    cases: int
    input_tokens: int
    output_tokens: int
    by_model: list[ModelTokensOut]


class JudgeUsageOut(ResponseModel):
    """What the grader's calls (model judges') said they spent, apart from the agent's."""

    cases: int = Field(description="Cases graded with calls whose every call said what it spent")
    unknown_cases: int = Field(description="Cases graded by a call that did not say (or failed): unknown")
    calls: int
    input_tokens: int
    output_tokens: int
    by_model: list[ModelTokensOut] = Field(description="By the judge's model; cases there counts calls")


class CostPartOut(ResponseModel):
    """One part of a run's cost (the agent's, the judge's, or the total), in US dollars as exact decimals."""

    usd: Decimal | None = Field(description="Sum over the cases whose cost is known (null: none is: unknown)")
    known_cases: int
    unknown_cases: int = Field(description="Cases left out of usd: no tokens, or a model without a price")
    max_case_usd: Decimal | None = Field(description="The costliest known case")


class CostOut(ResponseModel):
    """A run's cost, the agent's and the judge's apart; never 0 for what is unknown."""

    agent: CostPartOut
    judge: CostPartOut
    total: CostPartOut


class ClassScoresOut(ResponseModel):
    """Precision, recall and F1 of one class (``None`` where undefined)."""

    precision: float | None
    recall: float | None
    f1: float | None
    support: int


class BinaryReportOut(ResponseModel):
    """A binary grader's report: confusion matrix ``[expected][actual]`` with an ``invalid`` column."""

    labels: list[str]
    confusion_matrix: dict[str, dict[str, int]]
    per_class: dict[str, ClassScoresOut]
    total: int
    invalid: int
    invalid_expected: int
    accuracy: float | None = Field(description="Invalid answers counted as wrong")
    accuracy_valid_only: float | None = Field(description="Invalid answers left out")
    cohen_kappa: float | None = Field(description="Invalid answers as a category of their own")


class ScoreBinOut(ResponseModel):
    """Scores in ``[low, high)`` (the last bin includes 1.0)."""

    low: float
    high: float
    count: int


class ScoreDistributionOut(ResponseModel):
    """Graded scores of a grader whose score is a similarity (report ``score``)."""

    bins: list[ScoreBinOut]
    p25: float | None
    p50: float | None
    p75: float | None


class AssertionFiguresOut(ResponseModel):
    """One assertion's verdicts over the cases it graded."""

    total: int
    passed: int
    by_match_status: dict[str, int]


class CaseRepeatsOut(ResponseModel):
    """One case's passes of its runs, with the Wilson 95 % interval of its pass rate."""

    number: int
    passed: int
    runs: int
    low: float
    high: float


class RepeatFiguresOut(ResponseModel):
    """A run that asked each case several times: pass@k and pass^k (unbiased, averaged over cases) and its
    flaky cases (some runs passed, some not)."""

    repeats: int
    cases: int
    flaky: int
    pass_at_k: list[float] = Field(
        description="pass_at_k[k-1]: the chance that k runs hold a pass, k ≤ repeats"
    )
    pass_hat_k: list[float] = Field(description="pass_hat_k[k-1]: the chance that k runs all pass (pass^k)")
    cases_by_failures: list[int] = Field(
        description="cases_by_failures[f]: cases that failed f of their runs"
    )
    flaky_cases: list[CaseRepeatsOut] = Field(description="Up to 100, the nearest to half passed first")


class SummaryOut(ResponseModel):
    """The evaluation's figures; errors count as failures in the pass rate, not in the mean score."""

    total_cases: int
    finished: int
    graded: int
    passed: int
    failed: int
    pass_rate: float | None
    pass_rate_ci95: list[float] | None = Field(description="Wilson 95 % interval [low, high]")
    mean_score: float | None
    by_match_status: dict[str, int]
    by_reason_code: dict[str, int] = Field(
        default_factory=dict,
        description="Verdicts by the reason code their grader gave (e.g. the extract grader's 'hedged')",
    )
    error_count: int
    errors_by_reason: dict[str, int]
    latency_ms: LatencyOut
    binary: BinaryReportOut | None = None
    score_distribution: ScoreDistributionOut | None = None
    by_assertion: dict[str, AssertionFiguresOut] = Field(
        default_factory=dict,
        description="Verdicts by assertion name, over the cases graded by per-case assertions",
    )
    usage: UsageOut | None = Field(
        default=None, description="The agent's tokens, when any reply said what it spent (else unknown)"
    )
    repeats: RepeatFiguresOut | None = Field(
        default=None,
        description="pass@k, pass^k and flaky cases, when each case was asked more than once (the counts "
        "above are then of runs: total_cases is cases × repeats)",
    )
    judge_usage: JudgeUsageOut | None = Field(
        default=None, description="The judge's tokens, when any case was graded with calls"
    )
    cost: CostOut | None = Field(
        default=None, description="The cost, when the evaluation has a price table (ASSAY_PRICES, prices)"
    )
