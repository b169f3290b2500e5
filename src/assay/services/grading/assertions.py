"""The graders of per-case assertions in one run: each distinct list built once, picked for each case.

Which list a case gets is :meth:`~assay.domain.SuiteAssertions.for_case`'s rule (docs/assertions.md); the
grader of a list is an :class:`~assay.graders.composite.assertions.AssertionsGrader`, built once per
distinct list (by its canonical JSON) and shared by every case that has it. A run whose suite has no
assertion anywhere makes none of this (:attr:`CaseGraders.none`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from assay.domain import Assertions, SuiteAssertions
from assay.errors import ValidationError
from assay.graders.composite.assertions import AssertionsGrader
from assay.services.grading.answers import check_endpoints

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from assay.targets import TargetPolicy

KEPT = 4096
"""Built lists kept: a suite's rules give a few; a list per case (its own expected outputs) is built again
once this many are held."""


class CaseGraders:
    """Picks and builds the grader of each case's assertions (``None``: the evaluation's grader grades it)."""

    def __init__(
        self,
        suite: SuiteAssertions | None,
        *,
        kept: int = KEPT,
        check: Callable[[AssertionsGrader], None] | None = None,
    ) -> None:
        self.suite = suite if suite is not None and not suite.empty else None
        self.calling = False
        """Whether a list built so far holds a grader that calls out (a model judge)."""
        self._check = check
        self._kept = kept
        self._built: dict[str, AssertionsGrader] = {}
        self._lock = threading.Lock()  # lanes plan their cases in worker threads

    def for_case(self, own: Assertions | None, metadata: Mapping[str, Any]) -> AssertionsGrader | None:
        """The grader of the case's assertions, or ``None`` when it has none. ``ValidationError`` when they
        cannot be built here (a grader no longer installed)."""
        if self.suite is not None:
            picked = self.suite.for_case(own, metadata)
        else:
            picked = own if own is not None and own.items else None
        return None if picked is None else self.of(picked)

    def of(self, assertions: Assertions) -> AssertionsGrader:
        """The grader of ``assertions``, built on first use."""
        grader = self._built.get(assertions.key)
        if grader is not None:
            return grader
        try:
            grader = AssertionsGrader(assertions)
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"assertions that cannot grade here: {exc}") from None
        if grader.makes_calls:
            self.calling = True
            if self._check is not None:  # a judge's key and URL, checked once per distinct list
                self._check(grader)
        with self._lock:
            if len(self._built) < self._kept:
                self._built[assertions.key] = grader
        return grader


def case_graders(
    session: Session,
    suite_id: int,
    stored: dict[str, Any] | None,
    *,
    check: Callable[[AssertionsGrader], None] | None = None,
) -> CaseGraders | None:
    """The per-case graders of a stored suite (its stored defaults and rules: ``stored``), or ``None`` when
    neither it nor any of its cases has assertions (its run then takes the path it always took). ``check``
    is called on each distinct list that calls out, as it is built."""
    from assay.storage import suites as suite_store

    if not stored and not suite_store.has_case_assertions(session, suite_id):
        return None
    return CaseGraders(SuiteAssertions.from_json(stored) if stored else None, check=check)


def check_assertion_calls(policy: TargetPolicy | None) -> Callable[[AssertionsGrader], None]:
    """The ``check`` of :class:`CaseGraders` refusing a list whose judges' calls could not be made under
    ``policy`` (a key not available, a URL refused): as a lone judge is refused, its field named
    ``assert[1].config.base_url``."""

    def check(grader: AssertionsGrader) -> None:
        check_endpoints(grader.endpoints, policy, where=("assert",))

    return check


def check_suite_calls(
    session: Session, suite_id: int, stored: dict[str, Any] | None, policy: TargetPolicy | None
) -> None:
    """Refuse a stored suite whose cases' assertions call an endpoint ``policy`` refuses (every distinct list
    is built once, so each endpoint is checked before anything runs)."""
    from assay.storage import suites as suite_store

    graders = case_graders(session, suite_id, stored, check=check_assertion_calls(policy))
    if graders is None:
        return
    for _, _, _, _, metadata, own in suite_store.iter_case_checks(session, suite_id):
        graders.for_case(own, metadata or {})
