"""Schemas of the tools changed between two runs of one suite, case by case."""

from __future__ import annotations

from pydantic import Field

from assay.api.schemas.common import ResponseModel
from assay.services.execution.trajectories import KEPT_SEQUENCE
from assay.services.views.tool_usage import ToolCase, ToolChanges, ToolCount


class ToolCountOut(ResponseModel):
    """A tool and its number of calls."""

    name: str
    calls: int

    @classmethod
    def of(cls, tool: ToolCount) -> ToolCountOut:
        """The schema of a service record."""
        return cls(name=tool.name, calls=tool.calls)


class ToolCaseOut(ResponseModel):
    """A case both runs traced: each run's tools (first-use order, with their calls), each run's calls in
    the order made, where they first differ, and whether anything differs."""

    case_id: int
    number: int
    key: str | None
    a: list[ToolCountOut]
    b: list[ToolCountOut]
    a_sequence: list[str] | None = Field(
        description=f"A's tool calls by name, in the order made: the first {KEPT_SEQUENCE} (fewer than its "
        "calls: the rest are not kept); null for a result stored before the order was kept"
    )
    b_sequence: list[str] | None = Field(description="B's tool calls in order, as a_sequence")
    first_difference: int | None = Field(
        description="The call (from 1) where A's and B's orders first differ: another tool, or one run's "
        "calls ending there; null when they are the same, differ only past the calls kept, or an order is "
        "not kept"
    )
    a_passed: bool
    b_passed: bool
    changed: bool

    @classmethod
    def of(cls, case: ToolCase) -> ToolCaseOut:
        """The schema of a service record."""
        return cls(
            case_id=case.case_id,
            number=case.number,
            key=case.key,
            a=[ToolCountOut.of(tool) for tool in case.a],
            b=[ToolCountOut.of(tool) for tool in case.b],
            a_sequence=None if case.a_order is None else list(case.a_order.names),
            b_sequence=None if case.b_order is None else list(case.b_order.names),
            first_difference=case.first_difference,
            a_passed=case.a_passed,
            b_passed=case.b_passed,
            changed=case.changed,
        )


class ToolChangesOut(ResponseModel):
    """B's tool calls against A's over the cases both traced: changed cases first, then in case order."""

    a_id: int
    b_id: int
    shared: int = Field(description="Cases both runs hold a trajectory for")
    changed: int = Field(description="Of these, cases whose tools, numbers of calls or order of calls differ")
    cases: list[ToolCaseOut]
    next_skip: int | None = Field(description="Where the next page starts; null: this page is the last")

    @classmethod
    def of(cls, changes: ToolChanges) -> ToolChangesOut:
        """The schema of a service record."""
        return cls(
            a_id=changes.a_id,
            b_id=changes.b_id,
            shared=changes.shared,
            changed=changes.changed,
            cases=[ToolCaseOut.of(case) for case in changes.cases],
            next_skip=changes.next_skip,
        )
