"""How ``assay run`` prints a finished run: the summary table, then the label report, the tokens and cost,
the assertions and the repeats' figures (each only when the run has them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.cli.console import err, percent
from assay.cli.tables import PlainTable

if TYPE_CHECKING:
    from assay.services.figures.repeats import RepeatFigures
    from assay.services.figures.summary import SummaryTally
    from assay.services.figures.summary_records import BinaryReport, Summary


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_summary(summary: Summary, duration_s: float, tally: SummaryTally | None = None) -> None:
    """The summary table. Its mean score counts every case run, an errored one scoring 0, by the pass rate's
    rule (an errored case failed): an agent that errs more does not get a better mean."""
    from assay.services.figures.statistics import ratio

    interval = summary.pass_rate_ci95
    headers: tuple[str, ...] = ("cases", "passed", "failed", "errors", "pass rate", "95% CI", "mean score")
    headers += ("p50 ms", "p95 ms", "max ms")
    row = (
        str(summary.finished),
        str(summary.passed),
        str(summary.failed),
        str(summary.error_count),
        percent(summary.pass_rate),
        f"{interval[0]:.1%} - {interval[1]:.1%}" if interval else "-",
        _number(
            summary.mean_score
            if tally is None
            else ratio(tally.score_sum, tally.finished)
            if tally.score_count
            else None,
            3,
        ),
        _number(summary.latency_ms.p50),
        _number(summary.latency_ms.p95),
        _number(summary.latency_ms.max),
    )
    err.table(PlainTable(headers, [row], title=f"Summary ({duration_s:.2f} s)"))
    counts = [*summary.by_match_status.items(), *summary.errors_by_reason.items()]
    err.table(PlainTable(("match_status / error", "count"), [(name, str(count)) for name, count in counts]))
    if summary.binary is not None:
        _print_labels(summary.binary)
    if summary.usage is not None:
        usage = summary.usage
        spent = [
            (item.model or "(not named)", str(item.cases), str(item.input_tokens), str(item.output_tokens))
            for item in usage.by_model
        ]
        title = f"Agent tokens ({usage.cases} of {summary.finished} replies said what they spent)"
        err.table(PlainTable(("model", "replies", "input tokens", "output tokens"), spent, title=title))
    _print_spend(summary)
    if summary.by_assertion:
        rows = [
            (name, f"{figures.passed} / {figures.total}", percent(figures.passed / figures.total))
            for name, figures in summary.by_assertion.items()
        ]
        err.table(PlainTable(("assertion", "passed", "pass rate"), rows))
    if summary.repeats is not None:
        _print_repeats(summary.repeats)


def _print_repeats(figures: RepeatFigures) -> None:
    """pass@k and pass^k for every k, then the flaky cases (each with its passes and Wilson interval)."""
    ks = [str(k) for k in range(1, figures.repeats + 1)]
    rows = [
        ("pass@k", *(f"{value:.1%}" for value in figures.pass_at_k)),
        ("pass^k", *(f"{value:.1%}" for value in figures.pass_hat_k)),
    ]
    title = f"Repeats: each of {figures.cases} cases asked {figures.repeats} times"
    err.table(PlainTable(("k", *ks), rows, title=title))
    if figures.flaky:
        flaky = [
            (f"#{case.number}", f"{case.passed} / {case.runs}", f"{case.low:.1%} - {case.high:.1%}")
            for case in figures.flaky_cases
        ]
        shown = "" if figures.flaky == len(flaky) else f", {len(flaky)} shown"
        err.table(
            PlainTable(("case", "passed", "95% CI"), flaky, title=f"Flaky cases ({figures.flaky}{shown})")
        )
    else:
        err.print("no flaky case: every case passed all its repeats or none", markup=False)


def _print_spend(summary: Summary) -> None:
    """The judge's tokens, apart from the agent's, and the cost: agent, judge, total, each with the cases
    whose cost is unknown (never counted as 0)."""
    judged = summary.judge_usage
    if judged is not None:
        spent = [
            (item.model or "(not named)", str(item.cases), str(item.input_tokens), str(item.output_tokens))
            for item in judged.by_model
        ]
        title = f"Judge tokens ({judged.calls} calls; {judged.unknown_cases} cases of unknown tokens)"
        err.table(PlainTable(("model", "calls", "input tokens", "output tokens"), spent, title=title))
    cost = summary.cost
    if cost is None:
        if summary.usage is not None or judged is not None:
            err.print("cost: unknown (no price table: ASSAY_PRICES, or prices: in assay.yaml)", markup=False)
        return
    rows = [
        (part, figures.describe(), str(figures.unknown_cases))
        for part, figures in (("agent", cost.agent), ("judge", cost.judge), ("total", cost.total))
    ]
    err.table(PlainTable(("cost", "US dollars", "cases unknown"), rows, title="Cost"))


def _print_labels(binary: BinaryReport) -> None:
    """The label report; its columns are the grader's own labels (a plugin's as well as true/false's)."""
    from assay.services.figures.summary import INVALID

    columns = (*binary.labels, INVALID)
    matrix = [
        (label, *(str(row.get(column, 0)) for column in columns))
        for label, row in binary.confusion_matrix.items()
    ]
    err.table(PlainTable(("expected \\ actual", *columns), matrix, title="Label report"))
    scores = ", ".join(
        f"{label}: P {_number(s.precision, 3)} R {_number(s.recall, 3)} F1 {_number(s.f1, 3)}"
        for label, s in binary.per_class.items()
    )
    accuracy, valid_only = percent(binary.accuracy), percent(binary.accuracy_valid_only)
    err.print(
        f"accuracy {accuracy} (invalid excluded: {valid_only}), "
        f"Cohen's kappa {_number(binary.cohen_kappa, 3)}; {scores}",
        markup=False,
    )
