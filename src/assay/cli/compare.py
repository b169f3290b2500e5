"""``assay compare A B``: B against A case by case, in the terminal: flips, the paired test, a CI gate.

A and B are two results files of ``assay run``, or two evaluation ids of a server (``--server URL``). Exit
1 when B is significantly worse than A (the server's compare rule), 0 otherwise, 2 for a usage error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from assay.cli.console import err, out, percent
from assay.cli.options import json_option
from assay.errors import ValidationError

if TYPE_CHECKING:
    from assay.services.local_run.compare_files import FlippedRun, RunsComparison

_SHOWN_CHARS = 80


def server_comparison(server: str, a: str, b: str, limit: int) -> RunsComparison:
    """The server's comparison of evaluations ``a`` and ``b``: its counts and test, regressions first."""
    from assay.cli.server_client import call
    from assay.services.figures.paired import Flip, PairedFigures, PairedMethod, Verdict
    from assay.services.local_run.compare_files import FlippedRun, RunsComparison

    ids = []
    for value in (a, b):
        if not value.isdigit() or int(value) < 1:
            raise ValidationError(f"with --server, A and B are evaluation ids, got {value!r}")
        ids.append(int(value))
    path = f"/evaluations/{ids[0]}/compare/{ids[1]}"
    pages = [call(server, "GET", f"{path}?limit={limit}&flip={flip.value}") for flip in Flip]
    data: dict[str, Any] = pages[0]
    flips = [
        FlippedRun(
            number=item["number"],
            key=item["key"],
            flip=Flip(item["flip"]),
            input=item["input"],
            expected_output=item["expected_output"],
            a_response=item["a"]["agent_response"],
            b_response=item["b"]["agent_response"],
            a_error=item["a"]["error"],
            b_error=item["b"]["error"],
        )
        for page in pages
        for item in page["flips"]
    ]
    figures = {
        name: data[name] for name in PairedFigures.__dataclass_fields__ if name not in ("verdict", "method")
    }
    return RunsComparison(
        a=f"evaluation {ids[0]}",
        b=f"evaluation {ids[1]}",
        figures=PairedFigures(
            **figures, verdict=Verdict(data["verdict"]), method=PairedMethod(data["method"])
        ),
        flips=flips[:limit],
        flips_total=data["flips_total"],
    )


def _short(value: str | None) -> str:
    if value is None:
        return "(none)"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def _answer(response: str | None, error: str | None) -> str:
    return f"error {error}" if error is not None else _short(response)


def _print_flip(flip: FlippedRun) -> None:
    from assay.services.suites.case_keys import case_label

    out.print(f"  {case_label(flip.number, flip.key)}: {_short(flip.input)}", markup=False)
    out.print(
        f"    expected {_short(flip.expected_output)}; A: {_answer(flip.a_response, flip.a_error)}; "
        f"B: {_answer(flip.b_response, flip.b_error)}",
        markup=False,
    )


def _print(comparison: RunsComparison) -> None:
    from assay.services.figures.paired import Flip, Verdict

    result = comparison.figures

    out.print(f"A: {comparison.a}  pass rate {percent(result.a_pass_rate)}", markup=False)
    out.print(f"B: {comparison.b}  pass rate {percent(result.b_pass_rate)}", markup=False)
    only = (
        f"; only in A {result.only_in_a}, only in B {result.only_in_b}"
        if result.only_in_a + result.only_in_b
        else ""
    )
    out.print(
        f"{result.common_cases} cases in both{only}: both passed {result.both_passed}, both failed "
        f"{result.both_failed}, pass -> fail {result.pass_to_fail}, fail -> pass {result.fail_to_pass}",
        markup=False,
    )
    for flip_kind, title in (
        (Flip.REGRESSION, "Regressions (pass -> fail)"),
        (Flip.IMPROVEMENT, "Improvements (fail -> pass)"),
    ):
        listed = [flip for flip in comparison.flips if flip.flip is flip_kind]
        if listed:
            out.print(f"{title}:", markup=False)
            for flip in listed:
                _print_flip(flip)
    if len(comparison.flips) < comparison.flips_total:
        hidden = comparison.flips_total - len(comparison.flips)
        out.print(f"({hidden} more flips not shown; see --flips)", markup=False)
    said = {
        Verdict.B_WORSE: "B is significantly worse than A",
        Verdict.B_BETTER: "B is significantly better than A",
        Verdict.NO_SIGNIFICANT_DIFFERENCE: "no significant difference",
    }[result.verdict]
    out.print(
        f"{result.method.described}: p = {result.p_value:.4g} (B worse: p = {result.p_value_b_worse:.4g}; "
        f"B better: p = {result.p_value_b_better:.4g}): {said}",
        markup=False,
    )


@click.command("compare")
@click.argument("a")
@click.argument("b")
@click.option("--server", help="A and B are evaluation ids of this Assay server (key from ASSAY_API_KEY)")
@click.option(
    "--flips", "limit", type=click.IntRange(0, 1000), default=20, help="Flipped cases listed at most"
)
@json_option
def compare(*, a: str, b: str, server: str | None, limit: int, as_json: bool) -> None:
    """B against A, case by case: flips (regressions first), both pass rates and the paired test (McNemar's
    exact test; with repeats, a sign-flip test on per-case pass rates). A and B are results files of `assay
    run` (or, with --server, evaluation ids). Exit 1 when B is significantly worse than A (one-sided, 5 %),
    0 otherwise."""
    from assay.services.figures.paired import Verdict
    from assay.services.local_run.compare_files import compare_files

    comparison = (
        server_comparison(server, a, b, limit)
        if server is not None
        else compare_files(Path(a), Path(b), limit=limit)
    )
    if as_json:
        out.print(json.dumps(comparison.as_dict(), ensure_ascii=False, indent=2), markup=False)
    else:
        _print(comparison)
    result = comparison.figures
    if result.verdict is Verdict.B_WORSE:
        err.print(
            f"B is significantly worse than A: {result.pass_to_fail} regressions against "
            f"{result.fail_to_pass} improvements (p = {result.p_value_b_worse:.4g})",
            markup=False,
        )
        raise SystemExit(1)
