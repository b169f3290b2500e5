"""An evaluation's results broken down by the tools their agent called, from each result's stored
trajectory summary: per tool, the results whose trajectory called it, their pass rate and the calls made.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy.orm import Session

from assay.errors import NotFoundError
from assay.services.execution.trajectories import TrajectoryFacts
from assay.services.figures.statistics import PassRate, pass_rate
from assay.services.views.breakdown import MAX_GROUPS
from assay.storage import evaluations as store
from assay.storage.result_groups import iter_summaries


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolGroup:
    """The results whose trajectory called one tool: their pass rate, and the calls made in them."""

    tool: str
    calls: int
    pass_rate: PassRate


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolBreakdown:
    """Pass rate per tool called, worst first (the 200 most used), and of the results calling none."""

    evaluation_id: int
    groups: list[ToolGroup]
    no_tool: PassRate
    with_trajectory: int


def tool_breakdown(session: Session, evaluation_id: int) -> ToolBreakdown:
    """The breakdown of the evaluation's results with a trajectory; ``NotFoundError`` for no evaluation."""
    if store.find_evaluation(session, evaluation_id) is None:
        raise NotFoundError(f"Evaluation {evaluation_id} not found")
    results, passes, calls = Counter[str](), Counter[str](), Counter[str]()
    no_tool_total = no_tool_passed = total = 0
    for row in iter_summaries(session, evaluation_id):
        passed, facts = row.passed, TrajectoryFacts.stored(row.summary)
        if facts is None:
            continue
        total += 1
        if not facts.tool_names:
            no_tool_total += 1
            no_tool_passed += passed
        for tool, count in facts.tool_names.items():
            results[tool] += 1
            passes[tool] += passed
            calls[tool] += count
    groups = [
        ToolGroup(tool=tool, calls=calls[tool], pass_rate=pass_rate(passes[tool], count))
        for tool, count in results.most_common(MAX_GROUPS)
    ]
    groups.sort(key=lambda group: (group.pass_rate.rate or 0.0, -group.pass_rate.total, group.tool))
    return ToolBreakdown(
        evaluation_id=evaluation_id,
        groups=groups,
        no_tool=pass_rate(no_tool_passed, no_tool_total),
        with_trajectory=total,
    )
