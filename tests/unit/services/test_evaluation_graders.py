"""Each evaluation's grader is built once per process, by what the evaluation stored, and shared."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from assay.errors import NotFoundError
from assay.graders import GraderInterface
from assay.services.evaluations.graders import EvaluationGraders
from assay.services.grading.registry import GraderService
from assay.storage.evaluations import EvaluationRow


class CountingRegistry(GraderService):
    def __init__(self) -> None:
        super().__init__(load_plugins=False)
        self.built = 0

    def build(self, grader_id: str, config: dict[str, Any] | None = None, **kwargs: Any) -> GraderInterface:
        self.built += 1
        return super().build(grader_id, config, **kwargs)


def row(config: dict[str, Any], grader_id: str = "true-false", version: str = "1") -> EvaluationRow:
    return EvaluationRow(grader_id=grader_id, grader_config=config, grader_version=version)


def test_one_build_serves_every_read_of_the_same_stored_grader() -> None:
    registry = CountingRegistry()
    graders = EvaluationGraders(registry)
    aliases = {"true": ["y"], "false": ["n"]}
    first = graders.of(row({"case_sensitive": True, "aliases": aliases}))
    again = graders.of(row({"aliases": aliases, "case_sensitive": True}))  # the same config, keys reordered
    assert again is first
    assert registry.built == 1
    assert graders.of(row({"case_sensitive": False})) is not first
    assert graders.of(row({"case_sensitive": True, "aliases": aliases}, version="2")) is not first
    assert registry.built == 3


def test_the_grader_a_creation_built_is_kept_for_its_run() -> None:
    registry = CountingRegistry()
    graders = EvaluationGraders(registry)
    built = registry.build("true-false", {"case_sensitive": True})
    spec = GraderService.spec(built)
    graders.keep(spec, built)
    assert graders.of(row(spec.config, version=spec.version)) is built
    assert registry.built == 1


def test_a_failure_is_not_kept() -> None:
    registry = CountingRegistry()
    graders = EvaluationGraders(registry)
    for _ in range(2):
        with pytest.raises(NotFoundError):
            graders.of(row({}, grader_id="no-such-grader"))
    assert registry.built == 2


def test_lanes_asking_together_build_it_once() -> None:
    registry = CountingRegistry()
    graders = EvaluationGraders(registry)
    start = threading.Barrier(8)
    found: list[GraderInterface] = []

    def ask() -> None:
        start.wait()
        found.append(graders.of(row({"case_sensitive": True})))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(found) == 8
    assert len({id(grader) for grader in found}) == 1
    assert registry.built == 1


def test_only_the_most_recently_used_are_kept() -> None:
    registry = CountingRegistry()
    graders = EvaluationGraders(registry, kept=2)
    rows = [row({"case_sensitive": True}), row({"case_sensitive": False}), row({})]
    for stored in rows:
        graders.of(stored)
    graders.of(rows[2])
    assert registry.built == 3
    graders.of(rows[0])  # dropped for the third
    assert registry.built == 4
