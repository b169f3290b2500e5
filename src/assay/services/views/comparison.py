"""Comparing two evaluations of one suite case by case: flips, counts and the paired test of
:mod:`assay.services.figures.paired` (McNemar's exact test; with repeats, a sign-flip test on per-case pass
rates, a case "flipping" when its pass rate moved)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from assay.domain import within_budget
from assay.errors import NotFoundError, Problem, ValidationError
from assay.services.evaluations.records import CaseOutcome, outcome_of, shown_size
from assay.services.evaluations.service import DEFAULT_MAX_PAGE_BYTES
from assay.services.figures.paired import SIGNIFICANCE, CaseRuns, Flip, PairedFigures, Verdict
from assay.storage import evaluations as store
from assay.storage import results as result_store

__all__ = [
    "SIGNIFICANCE",
    "Comparison",
    "Flip",
    "FlippedCase",
    "PairTally",
    "Verdict",
    "compare",
    "pair_tally",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class FlippedCase:
    """A case that passed in one evaluation and failed in the other."""

    case_id: int
    number: int
    key: str | None
    flip: Flip
    input: str
    expected_output: str
    a: CaseOutcome
    b: CaseOutcome


@dataclass(frozen=True, slots=True)
class Comparison:
    """The figures over the cases both evaluations finished, and one page of flipped cases."""

    a_id: int
    b_id: int
    suite_id: int
    figures: PairedFigures
    flips: list[FlippedCase]
    flips_total: int
    next_skip: int | None = None
    """Where the next page of flips starts (fewer than ``limit`` when they would pass the page budget)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PairTally:
    """What a comparison computes once: the counts and the figures (pages of flips come from the database)."""

    counts: result_store.PairCounts
    figures: PairedFigures
    moved: list[tuple[int, bool]] | None = None
    """With repeats: ``(case_id, fell)`` of every case whose pass rate moved, in case order (their pages
    come from here, not from the database)."""


_TALLIES: dict[tuple[object, ...], PairTally] = {}
_TALLIES_KEPT = 64


def _state(row: store.EvaluationRow) -> tuple[object, ...]:
    return (row.id, row.created_at, row.status, row.done)


def pair_tally(session: Session, a: store.EvaluationRow, b: store.EvaluationRow) -> PairTally:
    """The counts and tests of the pair, computed once per state of both evaluations.

    The key names each evaluation as it is now (id, creation, status, results stored): a finished pair is
    counted and tested once however many pages are read, a running one again as its results arrive.
    """
    key = (_state(a), _state(b))
    tally = _TALLIES.get(key)
    if tally is not None:
        return tally
    if a.repeats > 1 or b.repeats > 1:
        tally = _repeats_tally(session, a.id, b.id)
    else:
        tally = _single_tally(session, a.id, b.id)
    if len(_TALLIES) >= _TALLIES_KEPT:
        _TALLIES.pop(next(iter(_TALLIES)), None)
    _TALLIES[key] = tally
    return tally


def _single_tally(session: Session, a_id: int, b_id: int) -> PairTally:
    """One run of each case on both sides: counted by the database, McNemar's branch of the rule."""
    counts = result_store.pair_counts(session, a_id, b_id)
    figures = PairedFigures.of(
        in_a=counts.in_a,
        in_b=counts.in_b,
        common=counts.common,
        a_passed=counts.a_passed,
        b_passed=counts.b_passed,
        pass_to_fail=counts.pass_to_fail,
        fail_to_pass=counts.fail_to_pass,
    )
    return PairTally(counts=counts, figures=figures)


def _repeats_tally(session: Session, a_id: int, b_id: int) -> PairTally:
    """Repeats on either side: each case's passes of its runs, the rule of :meth:`PairedFigures.of_cases`."""
    in_a, in_b = result_store.passes_by_case(session, a_id), result_store.passes_by_case(session, b_id)
    shared = sorted(set(in_a) & set(in_b))
    cases = [CaseRuns(*in_a[case_id], *in_b[case_id]) for case_id in shared]
    figures = PairedFigures.of_cases(in_a=len(in_a), in_b=len(in_b), cases=cases)
    moved = [
        (case_id, runs.b_passed / runs.b_runs < runs.a_passed / runs.a_runs)
        for case_id, runs in zip(shared, cases, strict=True)
        if runs.b_passed * runs.a_runs != runs.a_passed * runs.b_runs
    ]
    counts = result_store.PairCounts(
        in_a=len(in_a),
        in_b=len(in_b),
        common=len(shared),
        a_passed=sum(runs.a_passed for runs in cases),
        b_passed=sum(runs.b_passed for runs in cases),
        pass_to_fail=figures.pass_to_fail,
        fail_to_pass=figures.fail_to_pass,
    )
    return PairTally(counts=counts, figures=figures, moved=moved)


def compare(
    session: Session,
    a_id: int,
    b_id: int,
    *,
    skip: int = 0,
    limit: int = 100,
    flip: Flip | None = None,
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES,
) -> Comparison:
    """Compare evaluation ``b`` with ``a``; both must have run on the same suite.

    Errors count as failures, as in the pass rate. McNemar's test looks only at the discordant cases. The
    counts and the test are computed once per state of the pair; each page of flips (of one kind, with
    ``flip``) is one indexed query.
    """
    a = store.find_evaluation(session, a_id)
    b = store.find_evaluation(session, b_id)
    if a is None or b is None:
        raise NotFoundError("Evaluation not found")
    if a.suite_id != b.suite_id:
        message = f"evaluations {a_id} and {b_id} ran on different suites; only runs of one suite compare"
        raise ValidationError.of(Problem((), message))
    tally = pair_tally(session, a, b)
    counts = tally.counts
    passed_in_a = None if flip is None else flip is Flip.REGRESSION
    if tally.moved is not None:
        chosen = [item for item in tally.moved if passed_in_a is None or item[1] is passed_in_a]
        page = chosen[skip : skip + limit]
    else:
        page = result_store.flipped_case_ids(
            session, a_id, b_id, skip=skip, limit=limit, passed_in_a=passed_in_a
        )
    ids = [case for case, _ in page]
    rows_a = result_store.results_of_cases(session, a_id, ids)
    rows_b = result_store.results_of_cases(session, b_id, ids)
    flips = [
        FlippedCase(
            case_id=case,
            number=rows_a[case].number,
            key=rows_a[case].case_key,
            flip=Flip.REGRESSION if passed_in_a else Flip.IMPROVEMENT,
            input=rows_b[case].input,
            expected_output=rows_b[case].expected_output,
            a=outcome_of(rows_a[case]),
            b=outcome_of(rows_b[case]),
        )
        for case, passed_in_a in page
    ]
    flips.sort(key=lambda item: item.number)
    flips = within_budget(flips, _size, max_page_bytes)
    listed_total = counts.pass_to_fail + counts.fail_to_pass
    if flip is not None:
        listed_total = counts.pass_to_fail if flip is Flip.REGRESSION else counts.fail_to_pass
    next_skip = skip + len(flips)
    return Comparison(
        a_id=a_id,
        b_id=b_id,
        suite_id=a.suite_id,
        figures=tally.figures,
        flips=flips,
        flips_total=counts.pass_to_fail + counts.fail_to_pass,
        next_skip=next_skip if next_skip < listed_total else None,
    )


def _size(flipped: FlippedCase) -> int:
    return shown_size((flipped.input, flipped.expected_output), (flipped.a, flipped.b))
