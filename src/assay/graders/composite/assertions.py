"""Per-case assertions: a list of grader specs a case (or its suite) carries, graded as one composite.

A list is the children of ``all`` (every assertion must pass) or, with a ``threshold``, of ``weighted``
(the weighted mean of their scores must reach it), so its verdict is that composite's and each assertion's
verdict is one of its ``children``, named. The rules are in docs/assertions.md; the composite's in
docs/composition.md. A suite's default list and its rules by metadata pick a list for the cases that
carry none (:meth:`SuiteAssertions.for_case`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from assay.domain import Assertion, AssertionRule, Assertions, SuiteAssertions
from assay.graders.composite.children import MAX_CHILDREN, child_spec_schema
from assay.graders.composite.combinators import AllGrader, WeightedGrader
from assay.graders.composite.tree import CompositeGrader
from assay.graders.contract.calls import CallTransport, CaseContext, Endpoint, grade_calling
from assay.graders.contract.config_check import ConfigProblem, ProblemKind, schema_problems
from assay.graders.contract.verdict import GradeResult

__all__ = [
    "ASSERTION_LIST_SCHEMA",
    "MAX_ASSERTIONS",
    "MAX_ASSERTIONS_JSON",
    "MAX_RULES",
    "RULE_LIST_SCHEMA",
    "AssertionVerdict",
    "AssertionsGrader",
    "InvalidAssertionsError",
    "assertion_verdicts",
    "composite_of",
    "read_assertions",
    "read_suite_assertions",
]

MAX_ASSERTIONS = MAX_CHILDREN
"""Assertions in one list: the composite's cap on children."""
MAX_ASSERTIONS_JSON = 64 * 1024
"""Characters of one list's JSON (a case's, a rule's or a suite's defaults)."""
MAX_RULES = 50
"""Rules of one suite."""
MAX_NAME_LENGTH = 100

_ITEM = child_spec_schema(
    "An assertion: a grader, its config, its own expected output, a weight and a name",
    weight={"type": "number", "exclusiveMinimum": 0, "maximum": 1_000_000, "default": 1},
    name={"type": "string", "minLength": 1, "maxLength": MAX_NAME_LENGTH, "pattern": r"\S"},
)
_LIST = {"type": "array", "minItems": 1, "maxItems": MAX_ASSERTIONS, "items": _ITEM}
_THRESHOLD = {"type": ["number", "null"], "exclusiveMinimum": 0, "maximum": 1}
_WHEN = {
    "type": "object",
    "minProperties": 1,
    "maxProperties": 20,
    "additionalProperties": {"type": ["string", "number", "boolean", "null"]},
}
_RULE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["when", "assert"],
    "properties": {"when": _WHEN, "assert": _LIST, "threshold": _THRESHOLD},
}
_RULES = {"type": "array", "maxItems": MAX_RULES, "items": _RULE}


class InvalidAssertionsError(ValueError):
    """Assertions that cannot grade: every problem, each with its path (``assert[1].config.k``)."""

    def __init__(self, problems: Sequence[ConfigProblem]) -> None:
        super().__init__(problems[0].message if problems else "invalid assertions")
        self.problems = list(problems)


def composite_of(assertions: Assertions) -> tuple[type[CompositeGrader], dict[str, Any]]:
    """The composite that grades a list and its config: ``all``, or ``weighted`` with a threshold."""
    if assertions.threshold is None:
        return AllGrader, {"graders": [_child(item, weighted=False) for item in assertions.items]}
    graders = [_child(item, weighted=True) for item in assertions.items]
    return WeightedGrader, {"graders": graders, "threshold": assertions.threshold}


def _child(item: Assertion, *, weighted: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {"grader_id": item.grader_id, "config": item.config}
    if item.expected_output is not None:
        spec["expected_output"] = item.expected_output
    if weighted:
        spec["weight"] = item.weight
    return spec


class AssertionsGrader:
    """Grades with a list's composite and names each child's verdict (``name``, in the ``children`` entries).

    Built once per distinct list (by its ``key``) and shared: immutable, thread-safe, like the composite.
    """

    __slots__ = ("assertions", "composite", "grader_id", "names")

    def __init__(self, assertions: Assertions) -> None:
        composite_class, config = composite_of(assertions)
        self.assertions = assertions
        self.composite: CompositeGrader = composite_class(composite_class.default_id, config)
        self.grader_id: str = self.composite.grader_id
        self.names = assertions.names

    def check_expected(self, expected_output: Any) -> str | None:
        """Preflight: the first assertion (``assert[i]``) refusing the expected output it gets, and why."""
        reason = self.composite.check_expected(expected_output)
        return reason.replace(" by graders[", " by assert[", 1) if reason is not None else None

    @property
    def makes_calls(self) -> bool:
        """Whether an assertion calls out (a model judge): grade with :meth:`grade_calling` then."""
        return self.composite.makes_calls

    @property
    def endpoints(self) -> tuple[Endpoint, ...]:
        """Every judge's endpoint, its fields named as the list says them (``assert[1].config.base_url``)."""
        return tuple(
            replace(
                endpoint,
                url_field=_as_listed(endpoint.url_field),
                key_field=_as_listed(endpoint.key_field),
            )
            for endpoint in self.composite.endpoints
        )

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """The composite's verdict, each child entry named and the list's own place said ``assert[i]`` (as
        the case's file says it) rather than ``graders[i]``. Never raises (the composite never does); a judge
        among the assertions is unjudged (no call is made: see :meth:`grade_calling`)."""
        return self._named(self.composite.grade(agent_response, expected_output))

    async def grade_calling(
        self, agent_response: Any, expected_output: Any, transport: CallTransport, case: CaseContext
    ) -> GradeResult:
        """:meth:`grade` with the judges' calls made through ``transport`` (the one exchange,
        :func:`~assay.graders.contract.calls.grade_calling`)."""
        return self._named(
            await grade_calling(self.composite, agent_response, expected_output, transport, case)
        )

    def _named(self, result: GradeResult) -> GradeResult:
        details = result["details"]
        children = details.get("children")
        if isinstance(children, list):
            for entry, name in zip(children, self.names, strict=False):
                if isinstance(entry, dict):
                    entry["name"] = name
        reason, decided_by = details.get("reason"), details.get("decided_by")
        if isinstance(reason, str):  # the first place named is the list's own (a nested one's comes after)
            details["reason"] = _as_listed(reason)
        if isinstance(decided_by, str):
            details["decided_by"] = _as_listed(decided_by)
        return result


def _as_listed(path: str) -> str:
    """A path in the composite (``graders[1]...``) as the list says it (``assert[1]...``)."""
    return path.replace("graders[", "assert[", 1)


@dataclass(frozen=True, slots=True)
class AssertionVerdict:
    """One assertion's verdict as a result stores it (a ``children`` entry with a ``name``)."""

    name: str
    grader_id: str
    passed: bool
    score: float
    match_status: str
    reason: str | None


def assertion_verdicts(details: object) -> list[AssertionVerdict] | None:
    """The named assertions' verdicts a result's details hold; ``None`` for a result not graded by them."""
    if not isinstance(details, Mapping):
        return None
    children = details.get("children")
    if not isinstance(children, list) or not children:
        return None
    verdicts: list[AssertionVerdict] = []
    for entry in children:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            return None
        inner = entry.get("details")
        inner = inner if isinstance(inner, Mapping) else {}
        status = entry.get("match_status", inner.get("match_status"))
        reason = inner.get("reason")
        score = entry.get("score")
        verdicts.append(
            AssertionVerdict(
                name=entry["name"],
                grader_id=str(entry.get("grader_id", "")),
                passed=entry.get("passed") is True,
                score=float(score) if isinstance(score, int | float) else 0.0,
                match_status=status if isinstance(status, str) else "mismatch",
                reason=reason if isinstance(reason, str) else None,
            )
        )
    return verdicts


def _located(problems: Sequence[ConfigProblem], where: str, inner: str = "") -> list[ConfigProblem]:
    """``problems`` of a document (``inner``: of the composite's ``graders``), placed under ``where``."""
    placed = []
    for problem in problems:
        path, message = problem.path, problem.message
        if inner and path.startswith(inner):
            path = where + path[len(inner) :]
            message = message.replace(f"{inner}[", f"{where}[")
        elif where:
            path = f"{where}.{path}" if path else where
        if path and path not in message:
            message = f"'{path}': {message}"
        placed.append(ConfigProblem(path, message, problem.kind))
    return placed


def _problem(path: str, message: str) -> ConfigProblem:
    return ConfigProblem(path, f"'{path}': {message}", ProblemKind.VALUE)


_CASE = {
    "type": "object",
    "properties": {"assert": _LIST, "threshold": _THRESHOLD},
}


def read_assertions(raw: object, threshold: object = None, *, where: str = "") -> Assertions:
    """A list of assertions from its JSON (``raw`` ``None``: none, for a threshold alone), checked as the
    composite that grades it checks its config. :class:`InvalidAssertionsError` lists every problem, each
    path under ``where`` (``rules[2]``): ``assert[1].config.k``, ``threshold``."""
    at = f"{where}.assert" if where else "assert"
    document: dict[str, Any] = {"threshold": threshold}
    if raw is not None:
        document["assert"] = raw
        try:
            size = len(json.dumps(raw, ensure_ascii=False))
        except (TypeError, ValueError, RecursionError):
            raise InvalidAssertionsError([_problem(at, "must be a JSON list of assertions")]) from None
        if size > MAX_ASSERTIONS_JSON:
            raise InvalidAssertionsError([_problem(at, f"is longer than {MAX_ASSERTIONS_JSON} characters")])
    problems = _located(schema_problems(_CASE, document), where)
    if problems:
        raise InvalidAssertionsError(problems)
    if raw is None:
        return Assertions.of((), _number(threshold))
    assert isinstance(raw, list)  # the schema says so
    names = [spec["name"] for spec in raw if "name" in spec]
    for index, spec in enumerate(raw):
        if "name" in spec and names.count(spec["name"]) > 1:
            problems.append(_problem(f"{at}[{index}].name", f"the name '{spec['name']}' is used twice"))
        if not math.isfinite(spec.get("weight", 1)):
            problems.append(_problem(f"{at}[{index}].weight", "must be a number greater than 0"))
    if not math.isfinite(_number(threshold) or 0.5):
        problems.append(_problem("threshold", "must be a number in (0, 1]"))
    if problems:
        raise InvalidAssertionsError(problems)
    assertions = Assertions.from_json({"assert": raw, "threshold": _number(threshold)})
    composite_class, config = composite_of(assertions)
    found = composite_class.config_problems(config)
    if found:
        raise InvalidAssertionsError(_located(found, at, "graders"))
    return assertions


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def read_suite_assertions(raw_assert: object, threshold: object, raw_rules: object) -> SuiteAssertions:
    """A suite's defaults and rules from their JSON; :class:`InvalidAssertionsError` lists every problem."""
    problems: list[ConfigProblem] = []
    defaults: Assertions | None = None
    if raw_assert is not None or threshold is not None:
        try:
            defaults = read_assertions(raw_assert, threshold)
        except InvalidAssertionsError as exc:
            problems += exc.problems
        if defaults is not None and not defaults.items:
            problems.append(_problem("threshold", "needs the suite's 'assert' list"))
    rules: list[AssertionRule] = []
    if raw_rules is not None:
        shape = _located(
            schema_problems({"type": "object", "properties": {"rules": _RULES}}, {"rules": raw_rules}), ""
        )
        if shape:
            raise InvalidAssertionsError(problems + shape)
        assert isinstance(raw_rules, list)  # the schema says so
        for index, rule in enumerate(raw_rules):
            try:
                listed = read_assertions(rule["assert"], rule.get("threshold"), where=f"rules[{index}]")
            except InvalidAssertionsError as exc:
                problems += exc.problems
                continue
            rules.append(AssertionRule(dict(rule["when"]), listed))
    if problems:
        raise InvalidAssertionsError(problems)
    return SuiteAssertions(defaults, tuple(rules))


ASSERTION_LIST_SCHEMA = _LIST
"""The JSON Schema of a list of assertions (what :func:`read_assertions` checks), for files that hold one."""
RULE_LIST_SCHEMA = _RULES
"""The JSON Schema of a suite's rules by metadata."""
