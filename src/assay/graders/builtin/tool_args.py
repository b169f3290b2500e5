"""The tool-args grader: were a tool's arguments right?

Which calls: those of the config's ``tool`` (null: every tool's), and of them ``any`` (the default: one call
suffices), ``all``, ``first`` or ``last``. How a call's arguments are judged (``mode``), with the json
grader's own comparison and schema machinery:

- ``equals``: the same JSON value as the expected arguments;
- ``contains`` (the default): every key and value of the expected arguments is in the call's, recursively
  (the json grader's ``superset``);
- ``schema``: valid against the config's JSON Schema (the json grader's rules: RE2 patterns, local
  ``$ref`` only, bounded size); the expected output is not used.

The expected arguments are the config's ``arguments``, or else the expected output read as JSON. A call
whose arguments are not JSON (the agent sent text that does not parse) matches nothing. No call of the tool
is a mismatch; a response without a readable trajectory is ``invalid_response``: docs/trajectories.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, ClassVar

from assay.graders.contract.base import Preset
from assay.graders.contract.config_check import ConfigProblem, ProblemKind
from assay.graders.contract.verdict import MatchStatus
from assay.graders.reading.json_difference import first_difference
from assay.graders.reading.json_reading import detail_value, json_equal, read_json
from assay.graders.reading.json_schema_check import compile_schema, first_violation, schema_problems
from assay.graders.reading.text import excerpt, is_blank, read_text
from assay.graders.reading.trajectories import Judged, TrajectoryGrader, tool_name_property
from assay.graders.trajectory.record import Trajectory


class ArgsMode(StrEnum):
    """How a call's arguments are judged."""

    EQUALS = "equals"
    CONTAINS = "contains"
    SCHEMA = "schema"


class Which(StrEnum):
    """Which of the tool's calls must pass."""

    ANY = "any"
    ALL = "all"
    FIRST = "first"
    LAST = "last"


_NO_EXPECTED = "No expected arguments: set 'arguments' or give them as the expected output (JSON)"


class ToolArgsGrader(TrajectoryGrader):
    """Passes when the chosen calls' arguments equal, contain, or satisfy the schema of what is expected."""

    default_id: ClassVar[str] = "tool-args"
    name: ClassVar[str] = "Tool arguments"
    description: ClassVar[str] = (
        "A tool call's arguments equal, contain (every expected key and value), or are valid against a JSON "
        "Schema; for any, all, the first or the last call of the tool"
    )
    type: ClassVar[str] = "trajectory"
    version: ClassVar[str] = "1.0.0"
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "tool": tool_name_property("The tool whose calls are judged; null: every tool's calls"),
            "mode": {
                "type": "string",
                "enum": [mode.value for mode in ArgsMode],
                "description": (
                    "equals: the same JSON; contains: every expected key and value is in the arguments; "
                    "schema: valid against 'schema'"
                ),
                "default": ArgsMode.CONTAINS.value,
            },
            "arguments": {
                "description": (
                    "The expected arguments (any JSON value); null reads them from the expected output"
                ),
                "default": None,
            },
            "schema": {
                "type": ["object", "null"],
                "maxProperties": 1_000,
                "description": (
                    "For mode 'schema': the JSON Schema the arguments must satisfy (the json grader's rules)"
                ),
                "default": None,
            },
            "call": {
                "type": "string",
                "enum": [which.value for which in Which],
                "description": "Which calls must pass: any one, all of them, the first or the last",
                "default": Which.ANY.value,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "The chosen call(s) of the tool have the expected arguments",
        "0.0": (
            "No call of the tool, arguments that differ or break the schema (the reason says where), or no "
            "readable trajectory"
        ),
    }
    presets: ClassVar[Mapping[str, Preset]] = {
        "equals": Preset("Some call's arguments are exactly the expected JSON", {"mode": "equals"}),
        "every-call": Preset("Every call of the tool holds the expected arguments", {"call": "all"}),
        "last-call": Preset("The tool's last call holds the expected arguments", {"call": "last"}),
    }

    __slots__ = ("_arguments", "_call", "_contains", "_mode", "_tool", "_validator")

    def __init__(self, grader_id: str = "tool-args", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._tool: str | None = self._config["tool"]
        self._mode = ArgsMode(self._config["mode"])
        self._contains = self._mode is ArgsMode.CONTAINS
        self._arguments: Any = self._config["arguments"]
        schema = self._config["schema"]
        self._validator: Any = None if schema is None else compile_schema(schema)
        self._call = Which(self._config["call"])
        self._freeze()

    @classmethod
    def semantic_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """Mode 'schema' needs a usable schema, and only that mode takes one."""
        schema = config.get("schema")
        if config.get("mode") == ArgsMode.SCHEMA:
            if schema is None:
                return [ConfigProblem("schema", "mode 'schema' needs a 'schema'", ProblemKind.VALUE)]
            return [
                ConfigProblem("schema", message, ProblemKind.VALUE) for message in schema_problems(schema)
            ]
        if schema is not None:
            return [ConfigProblem("schema", "'schema' is used by mode 'schema' only", ProblemKind.VALUE)]
        return []

    def read_expected(self, expected_output: Any) -> tuple[Any, str | None]:
        """The expected arguments (none for mode 'schema')."""
        if self._mode is ArgsMode.SCHEMA or self._arguments is not None:
            return self._arguments, None
        text = read_text(expected_output)
        if is_blank(text):
            return None, _NO_EXPECTED
        value, problem, _, _ = read_json(text, allow_fenced=True)
        return (None, f"Expected output {problem}") if problem is not None else (value, None)

    def _holds(self, arguments: Any, expected: Any) -> bool:
        """Whether a call's arguments pass: the quick test, on every chosen call."""
        if self._validator is not None:
            return first_violation(self._validator, arguments) is None
        if type(arguments) is str and type(expected) is not str:
            return False
        if self._contains and type(expected) is dict and type(arguments) is dict:
            # equal values pass at once; a nested value only containing the expected one takes the slow path
            for key, value in expected.items():
                if key not in arguments or not json_equal(value, arguments[key]):
                    break
            else:
                return True
        elif json_equal(expected, arguments):
            return True
        return first_difference(expected, arguments, superset=self._contains) is None

    def _problem(self, arguments: Any, expected: Any) -> str:
        """Why a call's arguments fail (called once, on the call a failing verdict names)."""
        if self._validator is not None:
            violation = first_violation(self._validator, arguments)
            where = f"{violation.path}: {violation.message}" if violation else "$"
            return f"its arguments break the schema at {where}"
        if type(arguments) is str and type(expected) is not str:
            return f"its arguments are not JSON ({excerpt(arguments)})"
        difference = first_difference(expected, arguments, superset=self._contains)
        where = f"{difference.path}: {difference.description}" if difference else "$"
        return f"its arguments differ at {where}"

    def judge(self, trajectory: Trajectory, expected: Any) -> Judged:
        """Judge the chosen calls of the tool."""
        tool = self._tool
        calls = trajectory.tool_calls() if tool is None else trajectory.calls_of(tool)
        named = f"the tool {excerpt(tool)}" if tool is not None else "any tool"
        wanted = detail_value(expected)
        extra = {"calls": len(calls)}
        if not calls:
            return Judged(MatchStatus.MISMATCH, f"The agent never called {named}", wanted, None, extra)
        which = self._call
        chosen = calls[:1] if which is Which.FIRST else calls[-1:] if which is Which.LAST else calls
        holds = self._holds
        if which is Which.ANY:
            for index, call in enumerate(chosen):
                if holds(call.arguments, expected):
                    found = f"The call of {excerpt(call.name)} #{index + 1} has the expected arguments"
                    return Judged(MatchStatus.MATCH, found, wanted, detail_value(call.arguments), extra)
            failing = chosen[0]
        else:
            broken = next((call for call in chosen if not holds(call.arguments, expected)), None)
            if broken is None:
                which_calls = "every call" if which is Which.ALL else f"the {which._value_} call"
                reason = f"{which_calls.capitalize()} of {named} has the expected arguments"
                return Judged(MatchStatus.MATCH, reason, wanted, detail_value(chosen[-1].arguments), extra)
            failing = broken
        problem = self._problem(failing.arguments, expected)
        if which is Which.ANY and len(chosen) > 1:
            reason = (
                f"None of the {len(chosen)} calls of {named} has the expected arguments; the first: {problem}"
            )
        else:
            reason = f"The call of {excerpt(failing.name)} ({which._value_}) fails: {problem}"
        # Where the failing call is among all the calls (from 1): the UI marks that step. Looked for only
        # on a failure, by identity (the record keeps each call once).
        at_call = next(
            (place for place, call in enumerate(trajectory.tool_calls(), 1) if call is failing), None
        )
        if at_call is not None:
            extra["at_call"] = at_call
        return Judged(MatchStatus.MISMATCH, reason, wanted, detail_value(failing.arguments), extra)
