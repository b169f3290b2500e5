"""Checks a grader configuration against its JSON Schema, once, for every grader.

Every grader declares its options as a JSON Schema; this module turns schema violations into
:class:`ConfigProblem` records with plain-language messages, so constructors, ``validate_config()``,
the service, the API and the CLI all report the same problems in the same words.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when a config is first checked: a grader's defaults need no validator
    import jsonschema
    from jsonschema.exceptions import ValidationError as SchemaViolation


class ProblemKind(Enum):
    """Whether a problem is a wrong type (raised as ``TypeError``) or a wrong value (``ValueError``)."""

    TYPE = "type"
    VALUE = "value"


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """One thing wrong with a configuration."""

    path: str
    message: str
    kind: ProblemKind

    @property
    def parts(self) -> tuple[str | int, ...]:
        """``path`` as keys and list indexes: ``graders[1].weight`` is ``("graders", 1, "weight")``."""
        return tuple(int(index) if index else key for index, key in _PATH_PART.findall(self.path))

    def as_exception(self) -> TypeError | ValueError:
        """The built-in exception a constructor raises for this problem."""
        return TypeError(self.message) if self.kind is ProblemKind.TYPE else ValueError(self.message)


_PATH_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")
"""One step of a path as :func:`_format_path` writes it: ``[index]`` or a key between dots."""

_JSON_TYPE_NAMES = {
    "object": "an object (dict)",
    "array": "a list",
    "string": "a string",
    "boolean": "a boolean (true or false)",
    "integer": "an integer",
    "number": "a number",
}


def _format_path(parts: Any) -> str:
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _describe(violation: SchemaViolation, schema_at: Mapping[str, Any]) -> ConfigProblem:
    path = _format_path(violation.absolute_path)
    where = f"'{path}'" if path else "config"
    instance: Any = violation.instance
    validator: Any = violation.validator
    rule: Any = violation.validator_value
    if validator == "type":
        names = [rule] if isinstance(rule, str) else list(rule)
        wanted = " or ".join(_JSON_TYPE_NAMES.get(n, n) for n in names)
        return ConfigProblem(
            path, f"{where} must be {wanted}, got {type(instance).__name__}", ProblemKind.TYPE
        )
    if validator == "additionalProperties":
        accepted = sorted(schema_at.get("properties", {}))
        unknown = sorted(k for k in instance if k not in accepted)
        keys = ", ".join(f"'{k}'" for k in unknown)
        noun = "key" if len(unknown) == 1 else "keys"
        place = f"unknown config {noun}" if not path else f"unknown {noun} in '{path}'"
        message = f"{place} {keys}; accepted keys: {', '.join(accepted) or '(none)'}"
        return ConfigProblem(path, message, ProblemKind.VALUE)
    if validator == "required":
        missing = [k for k in rule if k not in instance]
        return ConfigProblem(
            path, f"{where} must have the key(s) {', '.join(map(repr, missing))}", ProblemKind.VALUE
        )
    if validator == "minItems":
        wanted = "a non-empty list" if rule == 1 else f"a list of at least {rule} items"
        return ConfigProblem(path, f"{where} must be {wanted}", ProblemKind.VALUE)
    if validator == "pattern":
        return ConfigProblem(path, f"{where} must not be empty or blank", ProblemKind.VALUE)
    return ConfigProblem(path, f"{where}: {violation.message}", ProblemKind.VALUE)


@lru_cache(maxsize=64)
def _validator_for(schema_json: str) -> jsonschema.protocols.Validator:
    import json

    import jsonschema

    schema = json.loads(schema_json)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator: jsonschema.protocols.Validator = validator_class(schema)
    return validator


def _schema_key(schema: Mapping[str, Any]) -> str:
    import json

    return json.dumps(schema, sort_keys=True)


def _subschema(schema: Mapping[str, Any], path: Any) -> Mapping[str, Any]:
    node: Mapping[str, Any] = schema
    for part in path:
        if isinstance(part, int):
            node = node.get("items", {})
        else:
            node = node.get("properties", {}).get(part, {})
    return node


def schema_problems(schema: Mapping[str, Any], config: object) -> list[ConfigProblem]:
    """Every way ``config`` breaks ``schema``; ``None`` means "all defaults" and is always fine."""
    if config is None:
        return []
    if not isinstance(config, dict):
        message = f"config must be a dict or None, got {type(config).__name__}"
        return [ConfigProblem("", message, ProblemKind.TYPE)]
    validator = _validator_for(_schema_key(schema))
    problems = [
        _describe(violation, _subschema(schema, violation.absolute_path))
        for violation in validator.iter_errors(config)
    ]
    # Shallow problems first: an unknown top-level key explains more than a detail inside it.
    problems.sort(key=lambda p: (p.path.count(".") + p.path.count("["), p.path, p.message))
    return problems


def non_finite_problems(schema: Mapping[str, Any], config: object) -> list[ConfigProblem]:
    """The first NaN or infinite number in ``config``, however deep, as a problem: every numeric option of
    every grader is finite. Checked once for all graders (after the schema, which a NaN passes: ``NaN < 0``
    and ``NaN > 1`` are both false, so a ``threshold`` or ``temperature`` of NaN meets every bound)."""
    stack: list[tuple[object, tuple[str | int, ...]]] = [(config, ())]
    while stack:  # a loop, not recursion: a config may nest deeper than the interpreter's stack
        value, path = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            where = f"'{_format_path(path)}'" if path else "config"
            described = _subschema(schema, path).get("description")
            rule = f": {described}" if isinstance(described, str) else ""
            message = f"{where} must be a number, not {value}{rule}"
            return [ConfigProblem(_format_path(path), message, ProblemKind.VALUE)]
        if isinstance(value, dict):
            stack.extend((item, (*path, str(key))) for key, item in value.items())
        elif isinstance(value, list | tuple):
            stack.extend((item, (*path, index)) for index, item in enumerate(value))
    return []


def fill_defaults(schema: Mapping[str, Any], config: Mapping[str, Any] | None) -> dict[str, Any]:
    """``config`` with every top-level property the schema gives a default for filled in (deep copies)."""
    filled: dict[str, Any] = {}
    for key, spec in schema.get("properties", {}).items():
        if config is not None and key in config:
            filled[key] = copy.deepcopy(config[key])
        elif "default" in spec:
            filled[key] = copy.deepcopy(spec["default"])
    return filled
