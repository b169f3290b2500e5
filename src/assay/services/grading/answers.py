"""Grading answers with any grader, making the outbound call a grader needs (a model judge's) on the way.

One path for every edge: the evaluation runner, the API's grade routes and the CLI. A grader that needs no
call is simply called. One that does (:func:`~assay.graders.contract.calls.calls_out`: a judge, or a composite
holding judges) has every endpoint checked before anything runs (:func:`check_calls`) and its calls sent by
:class:`~assay.targets.grader_calls.GraderCalls` under the process's target policy. The platform asks the
capability, never a grader's id.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

from assay.errors import Loc
from assay.graders import CallTransport, GraderInterface, grade_calling
from assay.graders.contract.calls import NO_CONTEXT, CaseContext, Endpoint, calls_out
from assay.graders.contract.verdict import GradeResult
from assay.targets import TargetPolicy

if TYPE_CHECKING:
    from assay.targets.grader_calls import GraderCalls

__all__ = [
    "GradePairs",
    "blocking_grading",
    "calls_for",
    "check_calls",
    "check_endpoints",
    "grade_answer",
    "grade_answers",
    "needs_calls",
    "open_calls",
]


def needs_calls(grader: GraderInterface) -> bool:
    """Whether grading with ``grader`` makes outbound calls (a judge, or a composite holding one)."""
    return calls_out(grader)


def check_calls(
    grader: GraderInterface, policy: TargetPolicy | None = None, *, where: Loc = ("grader", "config")
) -> None:
    """Refuse a grader whose calls could not be made under ``policy`` (a key that is not available, a URL
    refused as written): a ``ValidationError`` naming the config field under ``where`` (every endpoint of a
    composite's judges, each by its place in the tree), before any run."""
    if calls_out(grader):
        check_endpoints(grader.endpoints, policy, where=where)


def check_endpoints(
    endpoints: Sequence[Endpoint], policy: TargetPolicy | None = None, *, where: Loc = ("grader", "config")
) -> None:
    """:func:`check_calls` of the ``endpoints`` a grader (or a case's assertions) calls."""
    if not endpoints:
        return
    from assay.targets.grader_calls import check_endpoint  # loads the HTTP client: only when needed

    policy = policy if policy is not None else TargetPolicy.unrestricted()
    for endpoint in endpoints:
        check_endpoint(endpoint, policy, where=where)


def open_calls(policy: TargetPolicy | None = None, *, concurrency: int = 8) -> GraderCalls:
    """A transport for graders' calls under ``policy`` (the CLI's, unrestricted, by default)."""
    from assay.targets.grader_calls import GraderCalls

    return GraderCalls(policy, concurrency=concurrency)


@asynccontextmanager
async def calls_for(
    grader: GraderInterface,
    policy: TargetPolicy | None = None,
    *,
    concurrency: int = 8,
    cases_call: bool = False,
) -> AsyncIterator[CallTransport | None]:
    """The transport ``grader``'s calls need, its endpoints checked first; ``None`` for a grader that makes
    none (nothing is opened, not even the HTTP client loaded) unless ``cases_call`` (the cases' own assertions
    hold a judge, their endpoints checked by the caller). Closed on leaving."""
    if cases_call:
        check_calls(grader, policy)
        async with open_calls(policy, concurrency=concurrency) as calls:
            yield calls
        return
    if not needs_calls(grader):
        yield None
        return
    check_calls(grader, policy)
    async with open_calls(policy, concurrency=concurrency) as calls:
        yield calls


async def grade_answer(
    grader: GraderInterface,
    agent_response: Any,
    expected_output: Any,
    calls: CallTransport | None,
    case: CaseContext = NO_CONTEXT,
) -> GradeResult:
    """One verdict; a grader that needs a call has it made through ``calls`` (without one, it says so),
    told of the ``case`` when there is one."""
    if calls is not None and calls_out(grader):
        return await grade_calling(grader, agent_response, expected_output, calls, case)
    return grader.grade(agent_response, expected_output)


async def grade_answers(
    grader: GraderInterface,
    pairs: Sequence[tuple[Any, Any]],
    calls: CallTransport | None,
    *,
    concurrency: int = 8,
) -> list[GradeResult]:
    """Verdicts in the order of ``pairs``, with at most ``concurrency`` calls in flight."""
    if calls is None or not calls_out(grader):
        return [grader.grade(response, expected) for response, expected in pairs]
    calling = grader
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(response: Any, expected: Any) -> GradeResult:
        async with gate:
            return await grade_calling(calling, response, expected, calls)

    return list(await asyncio.gather(*(one(response, expected) for response, expected in pairs)))


GradePairs = Callable[[Sequence[tuple[Any, Any]]], list[GradeResult]]
"""Grades ``(agent_response, expected_output)`` pairs, verdicts in their order."""


@contextmanager
def blocking_grading(
    grader: GraderInterface, policy: TargetPolicy | None = None, *, concurrency: int = 8
) -> Iterator[GradePairs]:
    """Grading from synchronous code (the CLI). A grader that calls out has its endpoint checked first and
    its calls made on one event loop kept for the whole block, so the connection pool is reused."""
    if not needs_calls(grader):
        yield lambda pairs: [grader.grade(response, expected) for response, expected in pairs]
        return
    check_calls(grader, policy)
    with asyncio.Runner() as runner:
        calls = open_calls(policy, concurrency=concurrency)
        try:
            yield lambda pairs: runner.run(grade_answers(grader, pairs, calls, concurrency=concurrency))
        finally:
            runner.run(calls.aclose())
