"""Parts shared by the runner's tests (recorded targets in the unit tier, a loopback agent in the API tier):
a sink that keeps its batches, graders that note where they grade, numbered cases."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any, ClassVar

from assay.graders import GraderInterface
from assay.graders.contract.verdict import GradeResult, MatchStatus, Verdict
from assay.services.execution.case_results import CaseResult, RunCase
from assay.services.grader_service import GraderService
from assay.targets import TargetCase

GRADER = GraderService(load_plugins=False).get("true-false")


class ListSink:
    """Keeps every batch; can be told to fail."""

    def __init__(self, fail: bool = False) -> None:
        self.batches: list[list[CaseResult]] = []
        self.fail = fail
        self.threads: set[str] = set()

    def write(self, results: Sequence[CaseResult]) -> None:
        self.threads.add(threading.current_thread().name)
        if self.fail:
            raise OSError("disk full")
        self.batches.append(list(results))

    @property
    def results(self) -> list[CaseResult]:
        return [result for batch in self.batches for result in batch]


class ThreadWatchingGrader(GraderInterface):
    """Passes "yes"; notes the thread each ``grade()`` runs on. "boom" makes it raise (a plugin's bug)."""

    default_id: ClassVar[str] = "thread-watching"
    name: ClassVar[str] = "Thread watching"
    description: ClassVar[str] = "A test grader"
    type: ClassVar[str] = "test"
    version: ClassVar[str] = "1.0.0"
    config_schema: ClassVar[dict[str, Any]] = {"type": "object", "additionalProperties": False}
    scoring_guide: ClassVar[dict[str, str]] = {"1.0": "yes", "0.0": "anything else"}

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        self.threads.append(threading.get_ident())
        self.wait()
        if agent_response == "boom":
            raise RuntimeError("a grader bug")
        status = MatchStatus.MATCH if agent_response == "yes" else MatchStatus.MISMATCH
        return Verdict(status, "test", expected_output, agent_response).result()

    def wait(self) -> None:
        """What the grader does besides (nothing, for a cheap one)."""


class LoopWatchingGrader(ThreadWatchingGrader):
    """A CPU-bound grader whose every ``grade()`` lasts until the event loop has turned (a heartbeat task
    sets ``tick``): graded on the loop, no answer could ever see it turn."""

    cpu_bound: ClassVar[bool] = True

    def __init__(self) -> None:
        super().__init__()
        self.tick = threading.Event()
        self.loop_turned: list[bool] = []

    def wait(self) -> None:
        if self.loop_turned and not self.loop_turned[-1]:
            self.loop_turned.append(False)  # the loop is already known to be held: fail fast
            return
        self.tick.clear()
        self.loop_turned.append(self.tick.wait(timeout=5))


async def heartbeat(tick: threading.Event) -> None:
    while True:
        tick.set()
        await asyncio.sleep(0.001)


def cases(count: int, expected: str = "true") -> list[RunCase]:
    return [RunCase(TargetCase(i, f"question {i}", {}), expected) for i in range(1, count + 1)]
