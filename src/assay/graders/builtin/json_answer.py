"""The json grader: is the answer JSON, valid against a schema, and equal to (or a superset of) the expected?

What is compared (``compare``):

- ``auto`` (the default): ``equal`` when the expected output is given; when it is empty, the schema alone
  judges the answer, and with no schema either there is nothing to judge (``invalid_expected``), so a
  missing expected output never turns into "any JSON passes".
- ``equal``: the same JSON value (``1`` equals ``1.0``; ``true`` is not ``1``; strings exactly).
- ``superset``: every key and value of the expected object is in the answer, recursively; the answer may
  hold more keys. Lists compare item by item and must have the same length (each item by the same rule),
  because an answer's list order is usually part of the answer.
- ``none``: the expected output is ignored; the answer must be JSON (and valid against the schema).

The schema applies to the whole answer (its format); ``pick``, a JMESPath expression, then selects the
part of the answer compared with the expected output. A pick finding nothing (JMESPath's null) is a
mismatch, so an expected ``null`` cannot be used with a pick (``invalid_expected``).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, ClassVar

import jmespath
import jmespath.functions

from assay.graders.contract.base import GraderInterface, Preset
from assay.graders.contract.config_check import ConfigProblem, ProblemKind
from assay.graders.contract.verdict import EMPTY_RESPONSE_REASON, GradeResult, MatchStatus, verdict_result
from assay.graders.reading.json_difference import first_difference
from assay.graders.reading.json_reading import (
    MAX_GROWTH,
    detail_value,
    excerpt_text,
    json_equal,
    may_hold_booleans,
    read_json,
)
from assay.graders.reading.json_schema_check import compile_schema, first_violation, schema_problems
from assay.graders.reading.text import is_blank, read_text

MAX_PICK_CHARS = 1_000
MAX_PICK_DEPTH = 50
"""Levels of the parsed tree, so the interpreter (recursive, a few frames a level) stays far from Python's
limit; a dotted chain ``a.b.c`` or an index chain ``a[0][1]`` is one level of many children, not deep."""
MAX_PICK_FANOUT = 64
"""Bound on how much larger than the answer a pick's result can grow (multi-selects and functions)."""


class Comparison(StrEnum):
    """How the answer's JSON is compared with the expected JSON."""

    AUTO = "auto"
    NONE = "none"
    EQUAL = "equal"
    SUPERSET = "superset"


def _pick_problems(expression: str) -> list[str]:
    """Why ``expression`` is not a usable pick: not JMESPath, an unknown function, or unbounded growth."""
    try:
        tree: dict[str, Any] = dict(jmespath.compile(expression).parsed)
    except RecursionError:  # the parser recurses once per level: hundreds of "!" or "(" exhaust it
        return [f"'pick' is nested deeper than {MAX_PICK_DEPTH} levels"]
    except Exception as exc:  # ParseError, LexerError: not JMESPath
        detail = (str(exc).splitlines() or [type(exc).__name__])[0].removesuffix(", for expression:")
        return [f"'pick' is not a JMESPath expression: {excerpt_text(detail, 150)}"]
    functions = jmespath.functions.Functions.FUNCTION_TABLE
    problems: list[str] = []
    fanout = 1
    stack: list[tuple[dict[str, Any], int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_PICK_DEPTH:
            return [f"'pick' is nested deeper than {MAX_PICK_DEPTH} levels"]
        kind = node.get("type")
        children = [child for child in node.get("children", []) if isinstance(child, dict)]
        if kind in ("multi_select_list", "multi_select_dict"):
            fanout *= max(1, len(children))
        elif kind == "function_expression":
            fanout *= 2
            name = node.get("value")
            if name not in functions:
                problems.append(f"'pick' calls an unknown function {name}()")
            else:
                signature = functions[name]["signature"]
                variadic = bool(signature) and bool(signature[-1].get("variadic"))
                if len(children) < len(signature) or (not variadic and len(children) > len(signature)):
                    problems.append(f"'pick' calls {name}() with {len(children)} arguments")
        stack.extend((child, depth + 1) for child in children)
    if fanout > MAX_PICK_FANOUT:
        problems.append(
            f"'pick' could grow its result {fanout} times over (at most {MAX_PICK_FANOUT}: fewer "
            "multi-select items or function calls)"
        )
    return problems


_Expected = tuple[Comparison, Any, str | None, int]
"""``(comparison, value, problem, chars)``: what ``AUTO`` came to for this expected output (``EQUAL``,
``SUPERSET`` or ``NONE``), its JSON value (``chars`` long as text) or why it has none."""


_MATCH, _MISMATCH = MatchStatus.MATCH, MatchStatus.MISMATCH
_INVALID_RESPONSE, _INVALID_EXPECTED = MatchStatus.INVALID_RESPONSE, MatchStatus.INVALID_EXPECTED
_NO_SCHEMA_NOR_EXPECTED = "Expected output is empty and no schema is configured: there is nothing to check"
_EMPTY_EXPECTED = "Expected output is empty: there is no JSON to compare with"
_NULL_WITH_PICK = "Expected output is null, which a pick finding nothing would equal"


class JsonGrader(GraderInterface):
    """Passes when the answer is JSON, valid against the schema, and equal to (or holds) the expected JSON."""

    default_id: ClassVar[str] = "json"
    name: ClassVar[str] = "JSON"
    description: ClassVar[str] = (
        "The answer is JSON (whole, or one ```json block), optionally valid against a JSON Schema, and "
        "equal to or a superset of the expected JSON, optionally after a JMESPath pick"
    )
    type: ClassVar[str] = "json"
    version: ClassVar[str] = "1.1.0"
    fresh_results: ClassVar[bool] = True
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "allow_fenced": {
                "type": "boolean",
                "description": (
                    "Also read the JSON from one fenced block (```json or unlabelled) when the whole "
                    "answer is not JSON; blocks holding different values are invalid"
                ),
                "default": True,
            },
            "schema": {
                "type": ["object", "null"],
                "maxProperties": 1_000,
                "description": (
                    "A JSON Schema (draft 2020-12 unless its $schema says otherwise) the whole answer must "
                    "satisfy: at most 100,000 characters as JSON and 100 levels deep, $ref only inside it "
                    "('#...'), patterns in RE2 syntax; null for none"
                ),
                "default": None,
            },
            "compare": {
                "type": "string",
                "enum": [comparison.value for comparison in Comparison],
                "description": (
                    "auto: equal when an expected output is given, else the schema alone; equal: the same "
                    "JSON value; superset: every expected key and value is in the answer (lists item by "
                    "item, same length); none: ignore the expected output"
                ),
                "default": Comparison.AUTO.value,
            },
            "pick": {
                "type": ["string", "null"],
                "maxLength": MAX_PICK_CHARS,
                "description": (
                    "A JMESPath expression selecting the part of the answer compared with the expected "
                    "output (e.g. 'result.items[0].name'); null compares the whole answer"
                ),
                "default": None,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "The answer is JSON, valid against the schema, and matches the expected JSON as configured",
        "0.0": (
            "The answer is not JSON (or holds several different JSON blocks), breaks the schema, or differs "
            "from the expected JSON"
        ),
    }

    presets: ClassVar[Mapping[str, Preset]] = {
        "any-json": Preset(
            "The answer is JSON (whole, or one fenced block); the expected output is ignored",
            {"compare": Comparison.NONE.value},
        ),
        "contains-expected": Preset(
            "The answer holds every key and value of the expected JSON; extra keys are allowed",
            {"compare": Comparison.SUPERSET.value},
        ),
        "whole-answer": Preset(
            "The whole answer must be JSON: a fenced block inside prose is invalid",
            {"allow_fenced": False},
        ),
    }

    __slots__ = ("_allow_fenced", "_comparison", "_pick", "_pick_expression", "_pick_label", "_validator")

    def __init__(self, grader_id: str = "json", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._allow_fenced: bool = self._config["allow_fenced"]
        self._comparison = Comparison(self._config["compare"])
        schema = self._config["schema"]
        self._validator: Any = None if schema is None else compile_schema(schema)
        self._pick_expression: str | None = self._config["pick"]
        self._pick: Any = None if self._pick_expression is None else jmespath.compile(self._pick_expression)
        self._pick_label = repr(excerpt_text(self._pick_expression or "", 60))
        self._freeze()

    @classmethod
    def semantic_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """The schema must be a usable JSON Schema and the pick a bounded JMESPath expression."""
        problems: list[ConfigProblem] = []
        try:
            schema = config.get("schema")
            if schema is not None:
                problems += [ConfigProblem("schema", m, ProblemKind.VALUE) for m in schema_problems(schema)]
            pick = config.get("pick")
            if pick is not None:
                problems += [ConfigProblem("pick", m, ProblemKind.VALUE) for m in _pick_problems(pick)]
                if config.get("compare") == Comparison.NONE:
                    message = (
                        "'pick' selects what is compared, so it needs a comparison ('compare' is 'none')"
                    )
                    problems.append(ConfigProblem("pick", message, ProblemKind.VALUE))
        except Exception as exc:  # never raise: a config that cannot be checked is refused
            problems.append(
                ConfigProblem("", f"config could not be checked ({type(exc).__name__})", ProblemKind.VALUE)
            )
        return problems

    def _expected(self, expected_output: Any) -> _Expected:
        """What this expected output asks for: the comparison and the JSON value, or why it cannot."""
        if self._comparison is Comparison.NONE:
            return Comparison.NONE, None, None, 0
        text = read_text(expected_output)
        if is_blank(text):
            if self._comparison is not Comparison.AUTO:
                return self._comparison, None, _EMPTY_EXPECTED, 0
            if self._validator is None:
                return Comparison.NONE, None, _NO_SCHEMA_NOR_EXPECTED, 0
            return Comparison.NONE, None, None, 0
        comparison = Comparison.EQUAL if self._comparison is Comparison.AUTO else self._comparison
        value, problem, _, chars = read_json(text, allow_fenced=self._allow_fenced)
        if problem is not None:
            return comparison, None, f"Expected output {problem}", 0
        if self._pick is not None and value is None:
            return comparison, None, _NULL_WITH_PICK, 0
        return comparison, value, None, chars

    def check_expected(self, expected_output: Any) -> str | None:
        """Why this expected output can never be matched (not JSON; empty with nothing else to check)."""
        return self._expected(expected_output)[2]

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response; details give the values read, the pick's result and where they differ."""
        comparison, expected, expected_problem, expected_chars = self._expected(expected_output)
        response_text = read_text(agent_response)
        actual: Any = None
        actual_chars = 0
        source = picked = difference_path = schema_error = None
        if expected_problem is not None:
            status, reason = _INVALID_EXPECTED, expected_problem
        elif is_blank(response_text):
            status, reason = _INVALID_RESPONSE, EMPTY_RESPONSE_REASON
        else:
            actual, problem, source, actual_chars = read_json(response_text, allow_fenced=self._allow_fenced)
            violation = None
            if problem is not None:
                status, reason = _INVALID_RESPONSE, f"Response {problem}"
            elif self._validator is not None and (violation := first_violation(self._validator, actual)):
                schema_error = violation._asdict()
                status = _MISMATCH
                reason = f"Response JSON breaks the schema at {violation.path}: {violation.message}"
            elif comparison is Comparison.NONE:
                status = _MATCH
                reason = "Response is JSON" + (" valid against the schema" if self._validator else "")
            else:
                booleans = (
                    self._pick is not None  # a pick can make a boolean of any answer
                    or may_hold_booleans(response_text)
                    or may_hold_booleans(read_text(expected_output))
                )
                status, reason, picked, difference_path = self._compare(
                    comparison, expected, actual, booleans
                )
        return verdict_result(
            status,
            reason,
            expected_output,
            agent_response,
            detail_value(expected, expected_chars),
            detail_value(actual, actual_chars),
            extra={
                "source": source,
                "compare": comparison._value_,
                # without a pick the answer itself was compared: its text bounds its written length
                "picked": detail_value(picked, actual_chars * MAX_GROWTH if picked is actual else None),
                "difference_path": difference_path,
                "schema_error": schema_error,
            },
        )

    def _compare(
        self, comparison: Comparison, expected: Any, actual: Any, booleans: bool
    ) -> tuple[MatchStatus, str, Any, str | None]:
        """(status, reason, the pick's result, the path of the first difference) for a JSON answer;
        ``booleans`` is false when neither value can hold true or false (then ``==`` is JSON equality)."""
        picked = actual
        after = ""
        if self._pick is not None:
            label = self._pick_label
            after = f" after the pick {label}"
            try:
                picked = self._pick.search(actual)
            except Exception as exc:  # a function given the wrong type by this answer: it lacks the shape
                reason = f"Response JSON does not fit the pick {label}: {excerpt_text(str(exc), 150)}"
                return _MISMATCH, reason, None, None
            if picked is None:
                return _MISMATCH, f"Response JSON has nothing at the pick {label}", None, None
        superset = comparison is Comparison.SUPERSET
        # the common case first, without building paths: Python's == is a fast necessary condition
        if not superset and expected == picked and (not booleans or json_equal(expected, picked)):
            difference = None
        else:
            difference = first_difference(expected, picked, superset=superset)
        if difference is None:
            agreed = "contains the expected JSON" if superset else "equals the expected JSON"
            return _MATCH, f"Response JSON {agreed}{after}", picked, None
        reason = (
            f"Response JSON{after} differs from the expected at {difference.path}: {difference.description}"
        )
        return _MISMATCH, reason, picked, difference.path
