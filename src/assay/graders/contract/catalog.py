"""The one registry of graders: each grader class by id, and its default-configured instance.

The built-in classes are listed in :data:`BUILTIN` and each is imported when it is first asked for (a
command grading with one grader does not load the others' patterns and libraries); a third-party class is
added by ``GraderService.register``, after the service's checks. Composite graders build and check their
children from here (the graders layer cannot ask the service, a higher layer); the service lists, gets and
builds from here. An id names one class for the life of the process: adding the same class again is a
no-op, another class under a taken id is refused.
"""

from __future__ import annotations

import threading
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.graders.contract.base import GraderInterface

__all__ = ["BUILTIN", "add", "builtin_class", "default", "is_builtin", "known_ids", "lookup"]

BUILTIN: dict[str, str] = {
    "string-match": "assay.graders.builtin.string_match:StringMatchGrader",
    "true-false": "assay.graders.builtin.true_false:TrueFalseGrader",
    "contains": "assay.graders.builtin.contains:ContainsGrader",
    "regex": "assay.graders.builtin.regex:RegexGrader",
    "choice": "assay.graders.builtin.choice:ChoiceGrader",
    "numeric": "assay.graders.builtin.numeric:NumericGrader",
    "json": "assay.graders.builtin.json_answer:JsonGrader",
    "fuzzy": "assay.graders.builtin.fuzzy:FuzzyGrader",
    "overlap": "assay.graders.builtin.overlap:OverlapGrader",
    "semantic": "assay.graders.semantic.grader:SemanticGrader",
    "tool-called": "assay.graders.builtin.tool_called:ToolCalledGrader",
    "tool-sequence": "assay.graders.builtin.tool_sequence:ToolSequenceGrader",
    "tool-args": "assay.graders.builtin.tool_args:ToolArgsGrader",
    "trajectory-budget": "assay.graders.builtin.trajectory_budget:TrajectoryBudgetGrader",
    "not": "assay.graders.composite.combinators:NotGrader",
    "all": "assay.graders.composite.combinators:AllGrader",
    "any": "assay.graders.composite.combinators:AnyGrader",
    "at-least": "assay.graders.composite.combinators:AtLeastGrader",
    "weighted": "assay.graders.composite.combinators:WeightedGrader",
    "extract": "assay.graders.extract.grader:ExtractGrader",
    "llm-judge": "assay.graders.judge.grader:LLMJudgeGrader",
}
"""The graders that ship with Assay: id → ``module:class``, in listing order (a test ties each id to its
class's ``default_id``)."""

_classes: dict[str, type[GraderInterface]] = {}
_defaults: dict[str, GraderInterface] = {}
"""Each id's default-configured instance, built on first use (graders are immutable: one serves all)."""
_lock = threading.Lock()


def builtin_class(grader_id: str) -> type[GraderInterface]:
    """The built-in grader class with this id (``KeyError`` for another id), imported on first use."""
    module, _, name = BUILTIN[grader_id].partition(":")
    held = _classes.get(grader_id)
    if held is not None:
        return held
    grader_class: type[GraderInterface] = getattr(import_module(module), name)
    _add(grader_class)
    return grader_class


def is_builtin(grader_class: type[GraderInterface]) -> bool:
    """Whether ``grader_class`` is the built-in grader of its id (a plugin's class never is)."""
    return grader_class.default_id in BUILTIN and _classes.get(grader_class.default_id) is grader_class


def add(grader_class: type[GraderInterface], default: GraderInterface | None = None) -> None:
    """Make ``grader_class`` buildable by its ``default_id``, with ``default`` as its default instance if
    it has none yet (one built by whoever checked the class); ``ValueError`` if the id names another class."""
    if grader_class.default_id in BUILTIN:
        builtin_class(grader_class.default_id)  # a built-in id is the built-in's, even before it is loaded
    _add(grader_class)
    if default is not None and type(default) is grader_class:
        with _lock:
            _defaults.setdefault(grader_class.default_id, default)


def default(grader_id: str) -> GraderInterface:
    """The default-configured instance of the class under ``grader_id`` (``KeyError`` for an id that names
    none), built on first use; whatever its constructor raises, it raises."""
    held = _defaults.get(grader_id)
    if held is not None:
        return held
    grader_class = lookup(grader_id)
    if grader_class is None:
        raise KeyError(grader_id)
    built = grader_class()
    with _lock:
        return _defaults.setdefault(grader_id, built)


def _add(grader_class: type[GraderInterface]) -> None:
    grader_id = grader_class.default_id
    with _lock:
        held = _classes.setdefault(grader_id, grader_class)
    if held is not grader_class:
        raise ValueError(
            f"the grader id '{grader_id}' already names {held.__module__}.{held.__qualname__}, "
            f"not {grader_class.__module__}.{grader_class.__qualname__}"
        )


def lookup(grader_id: object) -> type[GraderInterface] | None:
    """The class registered under ``grader_id``, else ``None`` (also for a value that is no id at all)."""
    if not isinstance(grader_id, str):
        return None
    held = _classes.get(grader_id)
    if held is None and grader_id in BUILTIN:
        return builtin_class(grader_id)
    return held


def known_ids() -> list[str]:
    """Every id a composite may name: the built-ins, then the classes added since, in the order added."""
    return list(dict.fromkeys([*BUILTIN, *_classes]))
