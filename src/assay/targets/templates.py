"""Filling a JSON body template with a case: ``{{input}}``, ``{{case_id}}``, ``{{metadata.key}}``."""

from __future__ import annotations

import re
from typing import Any

import orjson

from assay.targets.base import TargetCase
from assay.targets.reasons import ErrorReason, TargetCallError

_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")


def _lookup(name: str, case: TargetCase) -> Any:
    if name == "input":
        return case.input
    if name == "case_id":
        return case.case_id
    value: Any = case.metadata
    for key in name.split(".")[1:]:
        if not isinstance(value, dict) or key not in value:
            raise TargetCallError(ErrorReason.TEMPLATE_ERROR.value, f"case has no {name}")
        value = value[key]
    return value


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def render(template: Any, case: TargetCase) -> Any:
    """``template`` with its placeholders filled from ``case``.

    A string that is exactly one placeholder becomes the value itself (so a number stays a number);
    placeholders inside longer strings are replaced by the value as text.
    """
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole:
            return _lookup(whole.group(1), case)
        return _PLACEHOLDER.sub(lambda match: _as_text(_lookup(match.group(1), case)), template)
    if isinstance(template, dict):
        return {key: render(value, case) for key, value in template.items()}
    if isinstance(template, list):
        return [render(item, case) for item in template]
    return template
