"""A JSON Schema taken from a grader's config: checked once, then run on answers safely.

A schema comes from API callers, so it is bounded and made harmless before it runs:

- at most ``MAX_SCHEMA_CHARS`` characters as JSON and ``MAX_SCHEMA_DEPTH`` levels deep;
- ``pattern`` and ``patternProperties`` (and ``additionalProperties`` beside them) run with RE2, in linear
  time, instead of Python's backtracking engine, so no pattern can stall a worker; a pattern RE2 cannot
  compile (lookaround, backreferences) is a config problem. ``unevaluatedProperties`` together with
  ``patternProperties`` is refused: jsonschema evaluates that pair with Python's engine;
- ``$ref`` must point inside the schema (``#...``): nothing is ever fetched from the network;
- ``format`` is an annotation and is not checked (the default of JSON Schema 2020-12).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple
from urllib.parse import unquote

import jsonschema
import re2
import referencing
from jsonschema.exceptions import SchemaError, ValidationError

from assay.graders.reading.json_reading import json_path

MAX_SCHEMA_CHARS = 100_000
MAX_SCHEMA_DEPTH = 100
MAX_PATTERNS = 50
_RE2_MAX_MEM = 1 << 20  # per pattern: RE2's lazily built automaton stays within this budget
_INSTANCE_DATA = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are answers, not schemas: a "pattern" key inside one is data."""


class Violation(NamedTuple):
    """Where an answer first breaks the schema (a JSON path such as ``$.items[0]``) and how."""

    path: str
    message: str


def _depth_exceeded(schema: Any) -> bool:
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            return True
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)
    return False


def _keywords(schema: Mapping[str, Any]) -> Iterator[tuple[str, Any, bool]]:
    """Every ``(key, value, is_root)`` of the schema's objects, outside instance data."""
    stack: list[tuple[Any, bool]] = [(schema, True)]
    while stack:
        node, is_root = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                yield key, value, is_root
                if key not in _INSTANCE_DATA:
                    stack.append((value, False))
        elif isinstance(node, list):
            stack.extend((child, False) for child in node)


def _patterns(schema: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()
    for key, value, _ in _keywords(schema):
        if key == "pattern" and isinstance(value, str):
            found.add(value)
        elif key == "patternProperties" and isinstance(value, dict):
            found.update(value)
    return found


def _compile_pattern(pattern: str) -> Any:
    options = re2.Options()
    options.log_errors = False  # a bad pattern is a config problem, not a line on the server's stderr
    options.max_mem = _RE2_MAX_MEM
    options.never_capture = True
    return re2.compile(pattern, options)


def _re2_message(error: Exception) -> str:
    detail = error.args[0] if error.args else ""
    return detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)


def _search(regexp: Any, text: str) -> bool:
    try:
        return regexp.search(text) is not None
    except UnicodeEncodeError:  # RE2 reads UTF-8: an unpaired surrogate is read as U+FFFD
        return regexp.search(text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")) is not None


def _resolves(schema: Mapping[str, Any], reference: str) -> bool:
    """Whether a local ``#...`` reference names a part of ``schema`` (a JSON pointer or an anchor)."""
    fragment = unquote(reference[1:])
    if not fragment.startswith("/"):
        anchors = {value for key, value, _ in _keywords(schema) if key in ("$anchor", "$dynamicAnchor")}
        return not fragment or fragment in anchors
    node: Any = schema
    for part in fragment[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


def schema_problems(schema: dict[str, Any]) -> list[str]:
    """Why ``schema`` cannot be used (each a sentence about the config's ``schema``); empty when usable."""
    if _depth_exceeded(schema):
        return [f"'schema' is nested deeper than {MAX_SCHEMA_DEPTH} levels"]
    try:
        written = json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return [f"'schema' must hold only JSON values ({exc})"]
    if len(written) > MAX_SCHEMA_CHARS:
        return [f"'schema' is longer than {MAX_SCHEMA_CHARS:,} characters as JSON"]
    declared = schema.get("$schema")
    if declared is not None and (
        not isinstance(declared, str) or jsonschema.validators.validator_for(schema, default=None) is None  # type: ignore[arg-type]
    ):
        return [f"'schema' declares an unknown $schema {declared!r}"]
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return [f"'schema' is not a valid JSON Schema at {exc.json_path}: {exc.message}"]
    problems: list[str] = []
    keys = list(_keywords(schema))
    nested_ids = any(key == "$id" and not is_root for key, _, is_root in keys)
    for key, value, _ in keys:
        if key not in ("$ref", "$dynamicRef") or not isinstance(value, str):
            continue
        if not value.startswith("#"):
            problems.append(
                f"'schema' refers outside itself ({key} {value!r}); only '#...' references are read"
            )
        elif not nested_ids and not _resolves(schema, value):
            problems.append(f"'schema' has a {key} {value!r} that names nothing in it")
    if {"patternProperties", "unevaluatedProperties"} <= {key for key, _, _ in keys}:
        problems.append(
            "'schema' uses unevaluatedProperties with patternProperties, which would run its patterns "
            "outside RE2; use additionalProperties instead"
        )
    patterns = _patterns(schema)
    if len(patterns) > MAX_PATTERNS:
        problems.append(f"'schema' has more than {MAX_PATTERNS} different patterns")
    for pattern in sorted(patterns):
        try:
            _compile_pattern(pattern)
        except re2.error as exc:
            problems.append(
                f"'schema' pattern {pattern[:100]!r} is not RE2 syntax (no lookaround or backreferences): "
                f"{_re2_message(exc)}"
            )
        except UnicodeEncodeError:
            problems.append(f"'schema' pattern {pattern[:100]!r} holds an unpaired surrogate")
    return problems


def _re2_keywords(regexps: Mapping[str, Any]) -> dict[str, Any]:
    """jsonschema's pattern keywords, as it writes them, with RE2 searching instead of ``re``."""

    def search(pattern: str, text: str) -> bool:
        regexp = regexps.get(pattern)
        return _search(regexp if regexp is not None else _compile_pattern(pattern), text)

    def pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
        if validator.is_type(instance, "string") and not search(pattern, instance):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")

    def pattern_properties(
        validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        for expression, subschema in patterns.items():
            for key, value in instance.items():
                if search(expression, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=expression)

    def additional_properties(
        validator: Any, additional: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        properties = schema.get("properties", {})
        expressions = list(schema.get("patternProperties", {}))
        extras = [
            key
            for key in instance
            if key not in properties and not any(search(expression, key) for expression in expressions)
        ]
        if validator.is_type(additional, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], additional, path=extra)
        elif not additional and extras:
            listed = ", ".join(repr(extra) for extra in sorted(extras))
            if expressions:
                yield ValidationError(f"{listed} do not match any of the regexes: {', '.join(expressions)}")
            else:
                yield ValidationError(f"Additional properties are not allowed ({listed} unexpected)")

    return {
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
    }


def compile_schema(schema: Mapping[str, Any]) -> Any:
    """A validator for a schema :func:`schema_problems` found usable (RE2 patterns, no remote fetching)."""
    base = jsonschema.validators.validator_for(schema)
    regexps = {pattern: _compile_pattern(pattern) for pattern in _patterns(schema)}
    validator_class = jsonschema.validators.extend(base, _re2_keywords(regexps))  # type: ignore[no-untyped-call]
    return validator_class(schema, registry=referencing.Registry())


def first_violation(validator: Any, value: Any) -> Violation | None:
    """Where ``value`` first breaks the schema, else ``None``. Never raises."""
    try:
        error = next(iter(validator.iter_errors(value)), None)
    except Exception as exc:  # an unresolvable reference reached only by this answer: never a pass
        return Violation("$", f"the schema could not be applied ({type(exc).__name__})")
    if error is None:
        return None
    message = error.message if len(error.message) <= 300 else error.message[:300] + "…"
    return Violation(json_path(error.absolute_path), message)
