"""The interface every grader implements, with its metadata and shared configuration handling."""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from assay.graders.contract.config_check import (
    ConfigProblem,
    fill_defaults,
    non_finite_problems,
    schema_problems,
)
from assay.graders.contract.verdict import GradeResult, VerdictReport
from assay.logs import LazyLogger

logger = LazyLogger(__name__)


@dataclass(frozen=True, slots=True)
class Preset:
    """A named configuration a grader publishes (a locale pack, a stricter variant...)."""

    description: str
    config: Mapping[str, Any]


_UNSET: Any = object()


class GraderInterface(ABC):
    """A measuring instrument: turns an (agent_response, expected_output) pair into a verdict.

    Subclasses declare their metadata as class attributes and implement :meth:`grade`. Configuration is
    checked against ``config_schema`` (plus :meth:`semantic_problems`) before the grader exists, so a
    constructed grader is always valid and never changes afterwards.
    """

    default_id: ClassVar[str]
    name: ClassVar[str]
    description: ClassVar[str]
    type: ClassVar[str]
    version: ClassVar[str]
    """Changes whenever a verdict of this grader could change; stored with every result."""
    config_schema: ClassVar[dict[str, Any]]
    scoring_guide: ClassVar[dict[str, str]]
    report: ClassVar[VerdictReport] = VerdictReport.PASS_FAIL
    """What the verdicts support beyond pass/fail (a confusion matrix, a score distribution)."""
    presets: ClassVar[Mapping[str, Preset]] = {}
    """Named configurations, each valid for ``config_schema``; listed and offered by the API and UI."""
    fresh_results: ClassVar[bool] = False
    """Whether every ``grade()`` call returns a new, well-formed result dict (a known ``match_status`` and a
    ``reason`` in its details) the grader keeps no reference to, which the caller may add keys to: a composite
    then puts a child's result in its tree as it is, rather than a copy, and checks only its status. Never set
    it on a grader that returns a shared or remembered dict."""
    cpu_bound: ClassVar[bool] = False
    """Whether ``grade()`` costs real CPU time per answer (a model's inference: milliseconds), so that an
    evaluation grades with it on a worker thread, several answers per hop, never on the event loop (which
    must stay free for health checks and every other request). Cheap graders leave it unset and are called
    inline: a thread hop would cost more than their verdict. Set it only on a grader whose ``grade()`` is
    safe to call from a thread other than the one that built it."""

    __slots__ = ("_config", "_frozen", "_grader_id")

    def __init__(self, grader_id: str | None = None, config: dict[str, Any] | None = None) -> None:
        if grader_id is None:
            grader_id = self.default_id
        if not isinstance(grader_id, str):
            raise TypeError(f"grader_id must be a string, got {type(grader_id).__name__}")
        if not grader_id.strip():
            raise ValueError("grader_id must not be empty")
        problems = self.config_problems(config)
        if problems:
            raise problems[0].as_exception()
        self._grader_id = grader_id
        self._config = fill_defaults(self.config_schema, config)

    def __setattr__(self, name: str, value: object) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"{type(self).__name__} is immutable after construction")
        object.__setattr__(self, name, value)

    def _freeze(self) -> None:
        """Called by subclasses at the end of ``__init__``; from then on no attribute can change."""
        object.__setattr__(self, "_frozen", True)

    @property
    def grader_id(self) -> str:
        """The id this grader is registered and stored under."""
        return self._grader_id

    @property
    def id(self) -> str:
        """Alias of :attr:`grader_id`, the metadata field name."""
        return self._grader_id

    @property
    def config(self) -> dict[str, Any]:
        """The effective configuration, defaults filled in (a copy: changing it changes nothing)."""
        return copy.deepcopy(self._config)

    @classmethod
    def semantic_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """Rules a JSON Schema cannot say; called only on a config that passed the schema."""
        return []

    @classmethod
    def config_problems(cls, config: object) -> list[ConfigProblem]:
        """Every problem of ``config`` for this grader (empty when valid). Never raises."""
        problems = schema_problems(cls.config_schema, config)
        if not problems and isinstance(config, dict):
            problems = cls.semantic_problems(config) or non_finite_problems(cls.config_schema, config)
        return problems

    def validate_config(self, config: object = _UNSET) -> bool:
        """Whether ``config`` (by default this grader's own) is valid; logs each problem. Never raises."""
        try:
            problems = self.config_problems(self._config if config is _UNSET else config)
        except Exception:  # a grader's own rule failing is a bad config, not a crash
            logger.warning("grader %r: config could not be checked", self._grader_id, exc_info=True)
            return False
        for problem in problems:
            logger.warning("grader %r: %s", self._grader_id, problem.message)
        return not problems

    def unavailable_reason(self) -> str | None:
        """Why this grader cannot grade on this machine (an optional package not installed), else ``None``.

        Listings show it and the grader service refuses to build such a grader, so the reason should say
        how to fix it (the install command). The default is always available; an override must never raise.
        """
        return None

    def metadata(self) -> dict[str, Any]:
        """The description of this grader that listings (API, CLI, UI) show."""
        reason = why_unavailable(self)
        return {
            "id": self._grader_id,
            "name": self.name,
            "description": self.description,
            "type": self.type,
            "version": self.version,
            "config_schema": copy.deepcopy(self.config_schema),
            "scoring_guide": dict(self.scoring_guide),
            "report": self.report.value,
            "presets": {
                name: {"description": preset.description, "config": copy.deepcopy(dict(preset.config))}
                for name, preset in self.presets.items()
            },
            "available": reason is None,
            "unavailable_reason": reason,
        }

    @property
    def verdict_labels(self) -> tuple[str, ...]:
        """For a ``binary`` report: every label a verdict can name (the matrix's rows and columns)."""
        return ()

    def report_labels(self, details: Mapping[str, Any]) -> tuple[str | None, str | None]:
        """For a ``binary`` report: the (expected, actual) labels a verdict's details name, else ``None``s."""
        return None, None

    def check_expected(self, expected_output: Any) -> str | None:
        """Preflight: why ``expected_output`` can never be matched by this grader, else ``None``.

        Judged before any agent call, so a suite that cannot pass is refused before it costs anything.
        The default finds nothing; a grader that overrides it must never raise (callers still guard it).
        """
        return None

    @abstractmethod
    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response; returns ``{"passed", "score", "details"}`` and never raises."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(grader_id={self._grader_id!r}, config={self._config!r})"


def why_unavailable(grader: GraderInterface) -> str | None:
    """``grader.unavailable_reason()``, failing closed: a check that raises makes the grader unavailable."""
    try:
        reason = grader.unavailable_reason()
    except Exception as exc:  # a plugin's bug: the grader is not offered rather than trusted blindly
        logger.warning("grader %r: unavailable_reason raised", grader.grader_id, exc_info=True)
        return f"its availability check failed ({type(exc).__name__})"
    return reason if isinstance(reason, str) and reason else None
