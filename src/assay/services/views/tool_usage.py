"""Which tool calls changed between two runs of one suite, case by case (the pass rate per tool used is
``tool_breakdown``'s).

It reads the trajectory summary each result keeps (``results.trajectory_summary``: the tools called, in
first-use order, with their number of calls, and the names of the first
:data:`~assay.services.execution.trajectories.KEPT_SEQUENCE` calls in the order made), never the
trajectories' steps, one batch of rows at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from assay.errors import NotFoundError, Problem, ValidationError
from assay.services.execution.trajectories import TrajectoryFacts
from assay.storage import evaluations as store
from assay.storage.result_groups import SummaryRow, iter_summaries

__all__ = ["CallOrder", "ToolCase", "ToolChanges", "ToolCount", "first_difference", "tool_changes"]


@dataclass(frozen=True, slots=True)
class ToolCount:
    """A tool and its number of calls."""

    name: str
    calls: int


@dataclass(frozen=True, slots=True)
class CallOrder:
    """A run's tool calls in the order made, as its row keeps them: the first names, and how many calls
    there were in all (``names`` holds them all when it is as long)."""

    names: tuple[str, ...]
    calls: int

    @property
    def is_complete(self) -> bool:
        """Whether every call is kept (a trajectory of more calls keeps only the first ones)."""
        return len(self.names) >= self.calls


def first_difference(a: CallOrder, b: CallOrder) -> int | None:
    """The first call (from 1) where two runs' calls differ: another tool, or one run's calls ending while
    the other's go on; ``None`` when they are the same, or differ only past the calls both rows keep."""
    for number, (name_a, name_b) in enumerate(zip(a.names, b.names, strict=False), 1):
        if name_a != name_b:
            return number
    shared = min(len(a.names), len(b.names))
    # One run stops within what both keep while the other goes on: they part at the call after.
    ended = (a.is_complete and len(a.names) == shared) or (b.is_complete and len(b.names) == shared)
    return shared + 1 if ended and a.calls != b.calls else None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCase:
    """A case both runs traced: the tools of each (first-use order), each run's calls in order when its row
    keeps them, where the orders first differ, and whether anything differs."""

    case_id: int
    number: int
    key: str | None
    a: list[ToolCount]
    b: list[ToolCount]
    a_order: CallOrder | None
    """A's calls in order (``None``: its row was stored before the order was kept)."""
    b_order: CallOrder | None
    first_difference: int | None
    """The call (from 1) where A's and B's orders first differ (``None``: the same, unknown or not kept)."""
    a_passed: bool
    b_passed: bool
    changed: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolChanges:
    """B's tool calls against A's over the cases both traced: changed cases first, then in case order."""

    a_id: int
    b_id: int
    shared: int
    changed: int
    cases: list[ToolCase]
    next_skip: int | None


def _tools(facts: TrajectoryFacts | None) -> list[ToolCount]:
    """The summary's tools in first-use order (a summary not in the stored form has none)."""
    return [] if facts is None else [ToolCount(name, calls) for name, calls in facts.tool_names.items()]


def _order(facts: TrajectoryFacts | None) -> CallOrder | None:
    """The summary's calls in order, when its row keeps them."""
    if facts is None or facts.tool_sequence is None:
        return None
    return CallOrder(tuple(facts.tool_sequence), facts.tool_calls)


def _require(session: Session, evaluation_id: int) -> store.EvaluationRow:
    row = store.find_evaluation(session, evaluation_id)
    if row is None:
        raise NotFoundError(f"Evaluation {evaluation_id} not found")
    return row


def _traced(session: Session, evaluation_id: int) -> dict[int, SummaryRow]:
    return {row.case_id: row for row in iter_summaries(session, evaluation_id)}


def tool_changes(session: Session, a_id: int, b_id: int, *, skip: int = 0, limit: int = 100) -> ToolChanges:
    """The tools of each case both evaluations traced, A's beside B's; the cases whose tools, numbers of
    calls or order of calls changed come first, each part in case order. Both must have run on the same
    suite."""
    a, b = _require(session, a_id), _require(session, b_id)
    if a.suite_id != b.suite_id:
        message = f"evaluations {a_id} and {b_id} ran on different suites; only runs of one suite compare"
        raise ValidationError.of(Problem((), message))
    in_a, in_b = _traced(session, a_id), _traced(session, b_id)
    pairs = []
    for case_id, row_b in in_b.items():
        row_a = in_a.get(case_id)
        if row_a is None:
            continue
        facts_a, facts_b = TrajectoryFacts.stored(row_a.summary), TrajectoryFacts.stored(row_b.summary)
        tools_a, tools_b = _tools(facts_a), _tools(facts_b)
        order_a, order_b = _order(facts_a), _order(facts_b)
        differs_at = None if order_a is None or order_b is None else first_difference(order_a, order_b)
        pairs.append(
            ToolCase(
                case_id=case_id,
                number=row_b.position + 1,
                key=row_b.case_key,
                a=tools_a,
                b=tools_b,
                a_order=order_a,
                b_order=order_b,
                first_difference=differs_at,
                a_passed=row_a.passed,
                b_passed=row_b.passed,
                changed=tools_a != tools_b or differs_at is not None,
            )
        )
    pairs.sort(key=lambda case: (not case.changed, case.number))
    page = pairs[skip : skip + limit]
    next_skip = skip + len(page)
    return ToolChanges(
        a_id=a_id,
        b_id=b_id,
        shared=len(pairs),
        changed=sum(case.changed for case in pairs),
        cases=page,
        next_skip=next_skip if next_skip < len(pairs) else None,
    )
