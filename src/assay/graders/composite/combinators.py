"""The five compositions of graders: ``not``, ``all``, ``any``, ``at-least`` and ``weighted``.

Three-valued (Kleene) logic: a child that could not judge the answer (``invalid_response``) is "unknown",
and a composite is unknown too unless the known children already decide. A child's ``invalid_expected`` has
made the composite ``invalid_expected`` before any of these rules run (see
:mod:`assay.graders.composite.tree`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from assay.graders.composite.cannot_fail import always_passing
from assay.graders.composite.children import (
    INVALID_RESPONSE,
    MATCH,
    MAX_CHILDREN,
    MISMATCH,
    child_list_schema,
    child_spec_schema,
)
from assay.graders.composite.tree import CompositeGrader, Decision
from assay.graders.contract.config_check import ConfigProblem, ProblemKind
from assay.graders.contract.verdict import VerdictReport

__all__ = ["AllGrader", "AnyGrader", "AtLeastGrader", "NotGrader", "WeightedGrader"]

_SCHEMA = "https://json-schema.org/draft/2020-12/schema"
_CHILD = child_spec_schema("A child grader")
_CHILDREN = child_list_schema(
    "The child graders, each with its config and optionally its own expected output", _CHILD
)
_MAX_WEIGHT = 1_000_000
_SCORE_TOLERANCE = 1e-9
_MAX_REMEMBERED = 1024
"""Reasons a weighted grader keeps by score (each a short line)."""
"""A weighted score this close under the threshold reaches it: float sums must not fail a perfect answer."""


def _graders(count: int) -> str:
    return "1 grader" if count == 1 else f"{count} graders"


def _cannot_fail(config: dict[str, Any], key: str) -> list[ConfigProblem]:
    specs = config.get(key)
    why = always_passing(specs) if isinstance(specs, list) else None
    if why is None:
        return []
    message = f"this composition passes every answer its children can judge: {why}"
    return [ConfigProblem(key, message, ProblemKind.VALUE)]


class NotGrader(CompositeGrader):
    """Passes when its child does not match; a child unable to judge leaves it unjudged."""

    default_id: ClassVar[str] = "not"
    name: ClassVar[str] = "Not"
    description: ClassVar[str] = "Negation of another grader: passes when the child grader does not match"
    type: ClassVar[str] = "not"
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": _SCHEMA,
        "type": "object",
        "additionalProperties": False,
        "properties": {"grader": child_spec_schema("The grader to negate (default: string-match)")},
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "The child grader judged the response and it did not match",
        "0.0": "The child matched, could not judge the response (empty, ambiguous) or refused the expected",
    }
    _spec_key: ClassVar[str] = "grader"

    __slots__ = ("_matched", "_on_invalid", "_on_match", "_on_mismatch", "_passed", "_unjudged")

    def __init__(self, grader_id: str = "not", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        label = self._labels[0]
        self._on_match = f"{label} matched, so the negation fails: "
        self._on_mismatch = f"{label} did not match, so the negation passes: "
        self._on_invalid = f"{label} could not judge the response, so neither can the negation: "
        self._passed = self._decided_by(MATCH)[0]
        self._matched = self._decided_by(MISMATCH)[0]
        self._unjudged = self._decided_by(INVALID_RESPONSE)[0]
        self._freeze()

    def _decide(self, statuses: list[str], children: list[dict[str, Any]]) -> Decision:
        status, reason = statuses[0], children[0]["details"]["reason"]
        if status == MISMATCH:
            return True, self._passed, f"{self._on_mismatch}{reason}", 1.0
        if status == MATCH:
            return False, self._matched, f"{self._on_match}{reason}", 0.0
        return False, self._unjudged, f"{self._on_invalid}{reason}", 0.0


class AllGrader(CompositeGrader):
    """Passes when every child matches; one mismatch fails it, else an unjudging child leaves it unjudged."""

    default_id: ClassVar[str] = "all"
    name: ClassVar[str] = "All"
    description: ClassVar[str] = "Conjunction: passes when every child grader matches"
    type: ClassVar[str] = "all"
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": _SCHEMA,
        "type": "object",
        "additionalProperties": False,
        "properties": {"graders": _CHILDREN},
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "Every child grader matched",
        "0.0": "A child did not match, or could not judge the response while no child failed it",
    }
    _spec_key: ClassVar[str] = "graders"

    __slots__ = ("_all_matched", "_failed", "_failed_at", "_passed", "_unjudged", "_unjudged_at")

    def __init__(self, grader_id: str = "all", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        count = len(self._children)
        self._all_matched = f"{self._labels[0]} matched" if count == 1 else f"All {count} graders matched"
        self._failed = tuple(f"{label} did not match: " for label in self._labels)
        self._unjudged = tuple(f"{label} could not judge the response: " for label in self._labels)
        self._passed = self._undecided(MATCH)
        self._failed_at = self._decided_by(MISMATCH)
        self._unjudged_at = self._decided_by(INVALID_RESPONSE)
        self._freeze()

    def _settled_by(self, statuses: Sequence[str]) -> bool:
        """One child failed: the others' calls would not change the verdict."""
        return MISMATCH in statuses

    def _decide(self, statuses: list[str], children: list[dict[str, Any]]) -> Decision:
        if MISMATCH in statuses:
            index = statuses.index(MISMATCH)
            reason = children[index]["details"]["reason"]
            return False, self._failed_at[index], self._failed[index] + reason, 0.0
        if INVALID_RESPONSE in statuses:
            index = statuses.index(INVALID_RESPONSE)
            reason = children[index]["details"]["reason"]
            return False, self._unjudged_at[index], self._unjudged[index] + reason, 0.0
        return True, self._passed, self._all_matched, 1.0


class AnyGrader(CompositeGrader):
    """Passes when a child matches; with none, a child that cannot judge leaves it unjudged, else it fails."""

    default_id: ClassVar[str] = "any"
    name: ClassVar[str] = "Any"
    description: ClassVar[str] = "Disjunction: passes when at least one child grader matches"
    type: ClassVar[str] = "any"
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": _SCHEMA,
        "type": "object",
        "additionalProperties": False,
        "properties": {"graders": _CHILDREN},
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "At least one child grader matched",
        "0.0": "No child matched (or none matched and one could not judge the response)",
    }
    _spec_key: ClassVar[str] = "graders"

    __slots__ = (
        "_failed",
        "_matched",
        "_matched_at",
        "_none_matched",
        "_single",
        "_unjudged",
        "_unjudged_at",
    )

    def __init__(self, grader_id: str = "any", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        count = len(self._children)
        self._single = count == 1
        self._none_matched = (
            f"{self._labels[0]} did not match" if count == 1 else f"None of the {count} graders matched"
        )
        self._matched = tuple(f"{label} matched: " for label in self._labels)
        self._unjudged = tuple(
            f"No grader matched and {label} could not judge the response: " for label in self._labels
        )
        self._matched_at = self._decided_by(MATCH)
        self._unjudged_at = self._decided_by(INVALID_RESPONSE)
        self._failed = self._decided_by(MISMATCH)[0] if self._single else self._undecided(MISMATCH)
        self._freeze()

    @classmethod
    def _own_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """A disjunction that cannot fail is refused, as llm-judge refuses ``pass_labels`` of every label."""
        return _cannot_fail(config, "graders")

    def _settled_by(self, statuses: Sequence[str]) -> bool:
        """One child matched: the others' calls would not change the verdict."""
        return MATCH in statuses

    def _decide(self, statuses: list[str], children: list[dict[str, Any]]) -> Decision:
        if MATCH in statuses:
            index = statuses.index(MATCH)
            reason = children[index]["details"]["reason"]
            return True, self._matched_at[index], self._matched[index] + reason, 1.0
        if INVALID_RESPONSE in statuses:
            index = statuses.index(INVALID_RESPONSE)
            reason = children[index]["details"]["reason"]
            return False, self._unjudged_at[index], self._unjudged[index] + reason, 0.0
        if self._single:
            return False, self._failed, f"{self._none_matched}: {children[0]['details']['reason']}", 0.0
        return False, self._failed, self._none_matched, 0.0


class AtLeastGrader(CompositeGrader):
    """Passes when at least ``k`` children match; unjudged when the unjudging children could decide."""

    default_id: ClassVar[str] = "at-least"
    name: ClassVar[str] = "At Least k"
    description: ClassVar[str] = "Passes when at least k of the child graders match"
    type: ClassVar[str] = "at-least"
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": _SCHEMA,
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "graders": _CHILDREN,
            "k": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_CHILDREN,
                "description": "How many child graders must match (1 to the number of graders)",
                "default": 1,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "At least k child graders matched",
        "0.0": "Fewer than k matched (or too few matched and enough could not judge the response to decide)",
    }
    _spec_key: ClassVar[str] = "graders"

    __slots__ = (
        "_count",
        "_failed",
        "_k",
        "_passed",
        "_reached",
        "_short",
        "_undecided_reasons",
        "_unjudged_at",
    )

    def __init__(self, grader_id: str = "at-least", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._k: int = int(self._config["k"])
        self._config["k"] = self._k
        count = self._count = len(self._children)
        # Every reason but the child's own words, by how many matched (and could not judge): read, not built.
        needed = f"at least {self._k} needed"
        self._reached = tuple(
            f"{matched} of {count} graders matched, {needed}" for matched in range(count + 1)
        )
        self._short = tuple(
            f"Only {matched} of {count} graders matched, {needed}" for matched in range(count + 1)
        )
        self._undecided_reasons = tuple(
            tuple(
                f"{matched} of {count} graders matched and {unjudged} could not judge the response, "
                f"{needed}; "
                for unjudged in range(count + 1)
            )
            for matched in range(count + 1)
        )
        self._passed = self._undecided(MATCH)
        self._failed = self._undecided(MISMATCH)
        self._unjudged_at = self._decided_by(INVALID_RESPONSE)
        self._freeze()

    @property
    def k(self) -> int:
        """How many children must match."""
        return self._k

    @classmethod
    def _own_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """``k`` cannot exceed the number of children: such a grader could never pass; with ``k`` 1 it is a
        disjunction, refused when it cannot fail."""
        count = len(config.get("graders", cls.config_schema["properties"]["graders"]["default"]))
        k = config.get("k", 1)
        if k <= count:
            return _cannot_fail(config, "graders") if k == 1 else []
        message = (
            f"'k' is {k} but there {'is' if count == 1 else 'are'} {_graders(count)}; k must be 1 to {count}"
        )
        return [ConfigProblem("k", message, ProblemKind.VALUE)]

    def _decide(self, statuses: list[str], children: list[dict[str, Any]]) -> Decision:
        matched = statuses.count(MATCH)
        if matched >= self._k:
            return True, self._passed, self._reached[matched], 1.0
        unjudged = statuses.count(INVALID_RESPONSE)
        if matched + unjudged < self._k:
            return False, self._failed, self._short[matched], 0.0
        index = statuses.index(INVALID_RESPONSE)
        why = children[index]["details"]["reason"]
        reason = f"{self._undecided_reasons[matched][unjudged]}{self._labels[index]}: {why}"
        return False, self._unjudged_at[index], reason, 0.0


class WeightedGrader(CompositeGrader):
    """Weighted mean of the children's scores against a threshold; children that cannot judge count 0 or 1."""

    default_id: ClassVar[str] = "weighted"
    name: ClassVar[str] = "Weighted"
    description: ClassVar[str] = "Weighted mean of child graders' scores, passing at a threshold"
    type: ClassVar[str] = "weighted"
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": _SCHEMA,
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "graders": child_list_schema(
                "The child graders, each with a weight, its config and optionally its own expected output",
                child_spec_schema(
                    "A child grader and its weight",
                    weight={
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "maximum": _MAX_WEIGHT,
                        "description": "Weight of this grader's score in the mean (greater than 0)",
                        "default": 1,
                    },
                ),
            ),
            "threshold": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 1,
                "description": "Weighted score at or above which the response passes (in (0, 1])",
                "default": 0.5,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "Every child grader scored 1 (children that could not judge the response count 0)",
        "0.5": "Half of the total weight scored (passes at the default threshold 0.5)",
        "0.0": "No child scored, or the response was empty or the expected output refused",
    }
    report: ClassVar[VerdictReport] = VerdictReport.SCORE
    _spec_key: ClassVar[str] = "graders"

    __slots__ = (
        "_below",
        "_could_reach",
        "_failed",
        "_passed",
        "_reaches",
        "_reaching",
        "_threshold",
        "_total",
        "_unjudged_at",
        "_weights",
    )

    def __init__(self, grader_id: str = "weighted", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._weights: tuple[float, ...] = tuple(float(spec["weight"]) for spec in self._config["graders"])
        total = 0.0
        for weight in self._weights:  # summed in grade()'s order, so all children at 1 give exactly 1.0
            total += weight
        self._total = total
        self._threshold: float = float(self._config["threshold"])
        # the lowest score that reaches it: the tolerance never brings it to 0 (a threshold of 1e-10 must not
        # pass a score of 0, and a score of 0 never passes)
        self._reaching = self._threshold - min(_SCORE_TOLERANCE, self._threshold / 2)
        # Reasons by score, remembered: a composite's scores take few values (weighted sums of its children's)
        # and printing a float costs more than the rest of the node. Thread-safe: a dict's get and set are
        # atomic, and two threads printing one score write the same text.
        self._reaches: dict[float, str] = {}
        self._below: dict[float, str] = {}
        self._could_reach = tuple(
            f", but {label} could not judge the response and could have reached it: "
            for label in self._labels
        )
        self._passed = self._undecided(MATCH)
        self._failed = self._undecided(MISMATCH)
        self._unjudged_at = self._decided_by(INVALID_RESPONSE)
        self._freeze()

    @property
    def threshold(self) -> float:
        """The weighted score a response must reach."""
        return self._threshold

    @property
    def weights(self) -> tuple[float, ...]:
        """Each child's weight, in config order."""
        return self._weights

    def _decide(self, statuses: list[str], children: list[dict[str, Any]]) -> Decision:
        weights = self._weights
        scored = 0.0
        unjudged = 0.0
        # Indexed rather than zipped: a zip of three costs a third of the node (one length by construction),
        # and enumerate() a tenth.
        index = 0
        for child in children:
            status = statuses[index]
            if status == INVALID_RESPONSE:
                unjudged += weights[index]
            else:
                score = child["score"]
                if not 0.0 <= score <= 1.0:  # a plugin's out-of-range or NaN score counts as its verdict
                    score = 1.0 if status == MATCH else 0.0
                scored += weights[index] * score
            index += 1  # noqa: SIM113
        low = scored / self._total
        if low > 1.0:  # float sums; min() costs a call
            low = 1.0
        threshold = self._reaching
        # Subscripts, not .get(): a method call costs more than the rare miss's exception.
        if low >= threshold:
            try:
                reason = self._reaches[low]
            except KeyError:
                reason = _remember(
                    self._reaches, low, f"Weighted score {low:.3f} reaches the threshold {self._threshold:g}"
                )
            return True, self._passed, reason, low
        try:
            below = self._below[low]
        except KeyError:
            below = _remember(
                self._below, low, f"Weighted score {low:.3f} is below the threshold {self._threshold:g}"
            )
        if (scored + unjudged) / self._total < threshold:
            return False, self._failed, below, low
        index = statuses.index(INVALID_RESPONSE)
        return (
            False,
            self._unjudged_at[index],
            below + self._could_reach[index] + children[index]["details"]["reason"],
            low,
        )


def _remember(texts: dict[float, str], score: float, text: str) -> str:
    """``text``, kept in ``texts`` under ``score`` while they hold fewer than _MAX_REMEMBERED."""
    if len(texts) < _MAX_REMEMBERED:
        texts[score] = text
    return text
