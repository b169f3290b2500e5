"""The records of an evaluation's report (its :class:`Summary`): pass rate with interval, scores, statuses,
errors, latency, tokens and cost, binary report; :mod:`assay.services.figures.summary` tallies them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from decimal import Decimal

from assay.json_types import JsonObject
from assay.services.figures.cost import CostFigures
from assay.services.figures.repeats import RepeatFigures


@dataclass(frozen=True, slots=True, kw_only=True)
class LatencyFigures:
    """Latency of the target's replies over every case that has one (errors included), in milliseconds."""

    p50: float | None
    p95: float | None
    max: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelTokens:
    """Tokens spent through one model (``None``: the replies did not name it)."""

    model: str | None
    cases: int
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageFigures:
    """What the agent's replies said they spent, over the cases whose reply said so (the rest: unknown)."""

    cases: int
    input_tokens: int
    output_tokens: int
    by_model: list[ModelTokens]


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgeUsageFigures:
    """What the grader's calls (model judges') said they spent, apart from the agent's: tokens over the cases
    whose every call said so; ``unknown_cases`` were graded by a call that did not (or failed)."""

    cases: int
    """Cases graded with calls whose every call said what it spent."""
    unknown_cases: int
    calls: int
    """Calls made, over every case."""
    input_tokens: int
    output_tokens: int
    by_model: list[ModelTokens]
    """Tokens by the judge's model; ``cases`` there counts calls."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassScores:
    """Precision, recall and F1 of one label (``None`` where undefined), and how many results had it."""

    precision: float | None
    recall: float | None
    f1: float | None
    support: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BinaryReport:
    """A ``binary`` report: the confusion matrix ``[expected][actual]`` with an ``invalid`` column."""

    labels: list[str]
    confusion_matrix: dict[str, dict[str, int]]
    per_class: dict[str, ClassScores]
    total: int
    invalid: int
    invalid_expected: int
    accuracy: float | None
    """Invalid answers counted as wrong."""
    accuracy_valid_only: float | None
    """Invalid answers left out."""
    cohen_kappa: float | None
    """Invalid answers as a category of their own."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreBin:
    """Scores in ``[low, high)`` (the last bin includes 1.0)."""

    low: float
    high: float
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreDistribution:
    """Graded scores of a ``score`` report, in bins, with quartiles."""

    bins: list[ScoreBin]
    p25: float | None
    p50: float | None
    p75: float | None


@dataclass(frozen=True, slots=True)
class AssertionFigures:
    """One assertion's verdicts over an evaluation's cases graded by it (docs/assertions.md)."""

    total: int
    passed: int
    by_match_status: dict[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """An evaluation's figures; target errors count as failures in the pass rate, not in the mean score."""

    total_cases: int
    finished: int
    graded: int
    passed: int
    failed: int
    pass_rate: float | None
    pass_rate_ci95: tuple[float, float] | None
    """Wilson 95 % interval of the pass rate."""
    mean_score: float | None
    by_match_status: dict[str, int]
    by_reason_code: dict[str, int] = field(default_factory=dict)
    """Verdicts by the reason code their grader gave (the extract grader's ``hedged``...)."""
    error_count: int
    errors_by_reason: dict[str, int]
    latency_ms: LatencyFigures
    binary: BinaryReport | None = None
    score_distribution: ScoreDistribution | None = None
    by_assertion: dict[str, AssertionFigures] = field(default_factory=dict)
    """Verdicts by assertion name, over the cases graded by per-case assertions (none: empty)."""
    usage: UsageFigures | None = None
    """The agent's tokens, when any reply said what it spent."""
    repeats: RepeatFigures | None = None
    """pass@k, pass^k and flaky cases, for a run that asked each case more than once (counts above are of
    runs: ``total_cases`` is cases × repeats)."""
    judge_usage: JudgeUsageFigures | None = None
    """The judge's tokens, when any case was graded with calls."""
    cost: CostFigures | None = None
    """The cost in US dollars, agent and judge apart, when the evaluation has a price table."""

    def as_dict(self) -> JsonObject:
        """The JSON form stored with an evaluation (reports the grader does not declare are left out)."""
        data = asdict(self)
        data["pass_rate_ci95"] = list(self.pass_rate_ci95) if self.pass_rate_ci95 is not None else None
        for report in ("binary", "score_distribution"):
            if data[report] is None:
                del data[report]
        if not self.by_assertion:
            del data["by_assertion"]
        for optional in ("usage", "judge_usage", "cost", "repeats"):
            if data[optional] is None:
                del data[optional]
        if "cost" in data:  # exact decimals, as text (JSON's numbers are floats to most readers)
            data["cost"] = {
                part: {key: _text(value) for key, value in figures.items()}
                for part, figures in data["cost"].items()
            }
        return data


def _text(value: object) -> object:
    return format(value, "f") if isinstance(value, Decimal) else value  # 0.00000042, not 4.2E-7
