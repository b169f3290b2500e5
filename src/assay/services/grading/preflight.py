"""Preflight: which cases of a suite a grader can never pass, found before any agent is called.

One function serves every edge (``POST /api/evaluations``, ``POST /api/suites/{id}/preflight``,
``assay run``). Cases are streamed and every one is checked, but only the first few problems are kept,
so a suite of a million cases costs one pass and little memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.domain import TURNS_DECIDE
from assay.errors import NotFoundError, Problem, ValidationError
from assay.logs import LazyLogger

if TYPE_CHECKING:  # `assay run` checks a suite file's cases and needs no database (nor SQLAlchemy)
    from sqlalchemy.orm import Session

    from assay.graders import GraderInterface
    from assay.graders.composite.assertions import AssertionsGrader
    from assay.services.figures.power import DetectableDifference

logger = LazyLogger(__name__)

MAX_LISTED = 10
"""Problems named in a report; the rest are only counted."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpectedProblem:
    """One case whose expected output the grader can never match."""

    case_id: int
    number: int
    key: str | None
    reason: str

    def describe(self) -> Problem:
        """The problem as one of an error's ``problems``: the case by number (and key, when it has one)."""
        return Problem(
            ("case", self.number), self.reason if self.key is None else f"key {self.key}: {self.reason}"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PreflightReport:
    """How many cases were checked, how many can never pass, and the first of those."""

    checked: int
    invalid: int
    problems: list[ExpectedProblem]

    @property
    def ok(self) -> bool:
        """Whether every case can pass."""
        return self.invalid == 0

    def detectable(self, repeats: int = 1) -> DetectableDifference:
        """The smallest pass-rate change a run of these cases, ``repeats`` times each, can tell from a
        previous run's (:mod:`assay.services.figures.power`)."""
        from assay.services.figures.power import detectable_difference  # scipy: only when asked

        return detectable_difference(self.checked, repeats)

    def error(self, grader_id: str, opt_in: str) -> ValidationError:
        """The refusal of a run over these cases; ``opt_in`` says how to run anyway."""
        message = (
            f"{self.invalid} of {self.checked} cases have an expected output that grader '{grader_id}' "
            f"can never match; fix them, choose another grader, or set {opt_in}"
        )
        return ValidationError(message, problems=[problem.describe() for problem in self.problems])


def expected_reason(grader: GraderInterface | AssertionsGrader, expected_output: object) -> str | None:
    """The grader's preflight reason; a grader whose hook fails is logged and trusted (no reason)."""
    try:
        reason = grader.check_expected(expected_output)
    except Exception:  # a plugin's bug must not block every run with that grader
        logger.warning("grader %r: check_expected raised", grader.grader_id, exc_info=True)
        return None
    return reason if isinstance(reason, str) and reason else None


_REMEMBERED = 1024
"""Distinct expected outputs whose check is remembered during one check of a suite."""
_REMEMBERED_CHARS = 256


CheckedCase = tuple[int, int, "str | None", object, "AssertionsGrader | None"]
"""``(case_id, number, key, expected_output, grader of its own assertions or None)``."""


def check_cases(
    grader: GraderInterface,
    cases: Iterable[CheckedCase],
    *,
    limit: int = MAX_LISTED,
) -> PreflightReport:
    """Check each case with its own assertions' grader, else ``grader``: all counted, the first ``limit``
    problems kept."""
    checked = invalid = 0
    problems: list[ExpectedProblem] = []
    # Expected outputs repeat (labels, yes/no): each distinct text is checked once per grader, a verdict on
    # the expected output alone being a function of it. Bounded, so a suite of unique texts holds no more.
    seen: dict[tuple[int, str], str | None] = {}
    for case_id, number, key, expected, own in cases:
        checked += 1
        if expected is TURNS_DECIDE:  # a multi-turn case: its last reply is checked by its assertions only
            if own is None:
                continue
            expected = ""
        checker = grader if own is None else own
        remembered = (id(checker), expected) if isinstance(expected, str) else None
        if remembered is not None and remembered in seen:
            reason = seen[remembered]
        else:
            reason = expected_reason(checker, expected)
            if remembered is not None and len(seen) < _REMEMBERED and len(remembered[1]) <= _REMEMBERED_CHARS:
                seen[remembered] = reason
        if reason is None:
            continue
        invalid += 1
        if len(problems) < limit:
            problems.append(ExpectedProblem(case_id=case_id, number=number, key=key, reason=reason))
    return PreflightReport(checked=checked, invalid=invalid, problems=problems)


def preflight_suite(
    session: Session,
    suite_id: int,
    grader: GraderInterface,
    *,
    limit: int = MAX_LISTED,
    check: Callable[[AssertionsGrader], None] | None = None,
) -> PreflightReport:
    """Check every case of a stored suite; ``NotFoundError`` when there is no such suite. ``check`` is called
    on each distinct list of the cases' assertions that calls out (their judges' keys and URLs), as it is
    built: the same pass."""
    from assay.services.grading.assertions import case_graders
    from assay.storage import suites as suite_store

    suite = suite_store.find_suite(session, suite_id)
    if suite is None:
        raise NotFoundError("Suite not found")
    graders = case_graders(session, suite_id, suite.assertions, check=check)
    if graders is None:
        cases: Iterable[CheckedCase] = (
            (case_id, position + 1, key, expected, None)
            for case_id, position, key, expected in suite_store.iter_expected_outputs(session, suite_id)
        )
    else:
        cases = (
            (case_id, position + 1, key, expected, graders.for_case(own, metadata or {}))
            for case_id, position, key, expected, metadata, own in suite_store.iter_case_checks(
                session, suite_id
            )
        )
    return check_cases(grader, cases, limit=limit)
