"""Each evaluation's grader, built once per process and shared by its creation, lane plan and recounts.

An evaluation stores what graded it (id, config, version) and never changes it, and graders are immutable
and thread-safe: the one instance built for it serves every shard and every recount of it in this process.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.domain import GraderSpec
    from assay.graders import GraderInterface
    from assay.services.grading.registry import GraderService
    from assay.storage.evaluations import EvaluationRow

KEPT = 64
"""Graders kept (the most recently used): a process runs and counts a few evaluations at a time."""

_Key = tuple[str, str, str]


def _key(grader_id: str, config: dict[str, Any] | None, version: str) -> _Key | None:
    """What names a built grader: id, config (canonical JSON) and version; ``None`` for a config that
    has no canonical JSON (it is then built each time, as before)."""
    try:
        canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return None
    return grader_id, canonical, version


class EvaluationGraders:
    """The graders of the evaluations this process creates, runs and counts, by what each one stored."""

    def __init__(self, registry: GraderService, *, kept: int = KEPT) -> None:
        self.registry = registry
        self._kept = kept
        self._built: OrderedDict[_Key, GraderInterface] = OrderedDict()
        self._lock = threading.Lock()  # plans and recounts run in worker threads
        self._building: dict[_Key, threading.Lock] = {}

    def keep(self, spec: GraderSpec, grader: GraderInterface) -> None:
        """Remember ``grader`` (just built for a new evaluation) as the one its stored ``spec`` names."""
        key = _key(spec.grader_id, spec.config, spec.version)
        if key is not None:
            self._remember(key, grader)

    def of(self, row: EvaluationRow) -> GraderInterface:
        """The evaluation's grader, built on first use: ``AssayError`` when it cannot be built here
        (unregistered, an invalid config, unavailable); a failure is not kept, the next call tries again."""
        key = _key(row.grader_id, row.grader_config, row.grader_version)
        if key is None:
            return self.registry.build(row.grader_id, row.grader_config)
        grader = self._held(key)
        if grader is not None:
            return grader
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        try:
            with building:  # lanes starting together build it once
                grader = self._held(key)
                if grader is None:
                    grader = self.registry.build(row.grader_id, row.grader_config)
                    self._remember(key, grader)
        finally:
            with self._lock:
                self._building.pop(key, None)
        return grader

    def _held(self, key: _Key) -> GraderInterface | None:
        with self._lock:
            grader = self._built.get(key)
            if grader is not None:
                self._built.move_to_end(key)
            return grader

    def _remember(self, key: _Key, grader: GraderInterface) -> None:
        with self._lock:
            self._built[key] = grader
            self._built.move_to_end(key)
            while len(self._built) > self._kept:
                self._built.popitem(last=False)
