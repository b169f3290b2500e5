"""Filling a JSON body template with a case: ``{{input}}``, ``{{messages}}`` (its conversation in OpenAI's
chat format; a string input as one user message), ``{{case_number}}``, ``{{case_key}}`` (the case as users
name it), ``{{case_id}}`` (the database's id), ``{{metadata.key}}``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import orjson

from assay.targets.base import TargetCase
from assay.targets.reasons import ErrorReason, TargetCallError

_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
_NO_SECRETS: Mapping[str, str] = {}


def _lookup(name: str, case: TargetCase, secrets: Mapping[str, str]) -> Any:
    if name == "input":
        return case.input
    if name == "messages":
        return case.chat()
    if name == "case_id":
        return case.case_id
    if name == "case_number":
        return case.place
    if name == "case_key":
        return case.key  # null in a suite without keys
    if name.startswith("secret."):
        secret = secrets.get(name.removeprefix("secret."))
        if secret is None:
            raise TargetCallError(
                ErrorReason.TEMPLATE_ERROR.value, f"{name} was not read when the target was built"
            )
        return secret
    value: Any = case.metadata
    for key in name.split(".")[1:]:
        if not isinstance(value, dict) or key not in value:
            raise TargetCallError(ErrorReason.TEMPLATE_ERROR.value, f"case has no {name}")
        value = value[key]
    return value


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def render(template: Any, case: TargetCase, secrets: Mapping[str, str] = _NO_SECRETS) -> Any:
    """``template`` with its placeholders filled from ``case`` and ``secrets`` (read at build time).

    A string that is exactly one placeholder becomes the value itself (so a number stays a number);
    placeholders inside longer strings are replaced by the value as text.
    """
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole:
            return _lookup(whole.group(1), case, secrets)
        return _PLACEHOLDER.sub(lambda match: _as_text(_lookup(match.group(1), case, secrets)), template)
    if isinstance(template, dict):
        return {key: render(value, case, secrets) for key, value in template.items()}
    if isinstance(template, list):
        return [render(item, case, secrets) for item in template]
    return template


def asked_text(case: TargetCase, fields: tuple[str, ...]) -> str:
    """What a target sends of ``case`` as one text that tells any two requests apart (the reply cache's
    key): what the case asks, then the values of the other ``fields`` its template sends
    (:func:`~assay.targets.specs.case_fields`) as canonical JSON, a field the case lacks as its error."""
    if not fields:
        return case.asked
    values: list[Any] = []
    for name in fields:
        try:
            values.append(_lookup(name, case, _NO_SECRETS))
        except TargetCallError as error:
            values.append({"missing": str(error)})
    return case.asked + "\0" + orjson.dumps(values, option=orjson.OPT_SORT_KEYS).decode()


def fill_secrets(text: str, secrets: Mapping[str, str]) -> str:
    """A header value with its ``{{secret.NAME}}`` placeholders filled (the only ones a header may hold)."""
    return _PLACEHOLDER.sub(lambda match: _as_text(secrets[match.group(1).removeprefix("secret.")]), text)
