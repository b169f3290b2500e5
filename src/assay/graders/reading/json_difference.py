"""Where two JSON values first differ: the json grader's comparison, and tool-args' on a call's arguments."""

from __future__ import annotations

from typing import Any, NamedTuple

from assay.graders.reading.json_reading import excerpt_json, json_equal, json_path


class Difference(NamedTuple):
    """Where two JSON values first differ (a path such as ``$.items[0].name``) and how."""

    path: str
    description: str


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "null"


def first_difference(
    expected: Any, actual: Any, *, superset: bool, path: tuple[Any, ...] = ()
) -> Difference | None:
    """Where ``actual`` first departs from ``expected`` (keys in the expected's order), else ``None``."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key, value in expected.items():
            if key not in actual:
                return Difference(json_path((*path, key)), f"the key {excerpt_json(key)} is missing")
            difference = first_difference(value, actual[key], superset=superset, path=(*path, key))
            if difference is not None:
                return difference
        if not superset:
            for key in actual:
                if key not in expected:
                    return Difference(json_path((*path, key)), f"the key {excerpt_json(key)} is not expected")
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for index, (item, other) in enumerate(zip(expected, actual, strict=False)):
            difference = first_difference(item, other, superset=superset, path=(*path, index))
            if difference is not None:
                return difference
        if len(expected) != len(actual):
            return Difference(json_path(path), f"expected {len(expected)} items, got {len(actual)}")
        return None
    if json_equal(expected, actual):
        return None
    if _kind(expected) != _kind(actual):
        wanted, got = (
            f"{_kind(expected)} ({excerpt_json(expected)})",
            f"{_kind(actual)} ({excerpt_json(actual)})",
        )
        return Difference(json_path(path), f"expected {wanted}, got {got}")
    return Difference(json_path(path), f"expected {excerpt_json(expected)}, got {excerpt_json(actual)}")
