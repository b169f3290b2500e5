"""``{{var}}`` templates as promptfoo and OpenAI Evals write them, rendered exactly or refused.

Only a plain substitution is rendered (``{{ name }}``, ``{{ item.a.b }}``); any other template syntax
(filters, tags, comments) would need the source tool's engine, so it is refused rather than guessed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping

from assay.services.suites.imports.records import UnsupportedError

__all__ = ["js_string", "render"]

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}")
_OTHER_SYNTAX = ("{{", "{%", "{#")


def js_string(value: object) -> str:
    """``value`` as JavaScript's ``String()`` writes a scalar: ``3.0`` is ``3``, ``True`` is ``true``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, (int, float, str)):
        return str(value)
    if value is None:
        return ""
    raise TypeError(type(value).__name__)


def render(template: str, lookup: Callable[[str], object], what: str) -> str:
    """``template`` with each ``{{ name }}`` replaced by ``lookup(name)`` (``KeyError`` when absent)."""
    out, end = [], 0
    for match in _PLACEHOLDER.finditer(template):
        literal = template[end : match.start()]
        _check_literal(literal, what)
        out.append(literal)
        name = match.group(1)
        try:
            value = lookup(name)
        except KeyError:
            raise UnsupportedError(
                what, f"its template names '{name}', which this case does not give"
            ) from None
        try:
            out.append(js_string(value))
        except TypeError:
            shown = json.dumps(value, ensure_ascii=False)[:60]
            raise UnsupportedError(
                what, f"'{name}' is not text ({shown}); its rendering is the source tool's own"
            ) from None
        end = match.end()
    _check_literal(template[end:], what)
    out.append(template[end:])
    return "".join(out)


def _check_literal(text: str, what: str) -> None:
    if any(mark in text for mark in _OTHER_SYNTAX):
        raise UnsupportedError(what, "its template uses syntax beyond {{name}} (a filter, tag or comment)")


def path_lookup(values: Mapping[str, object]) -> Callable[[str], object]:
    """A lookup of dotted names (``item.a.b``) in nested objects."""

    def lookup(name: str) -> object:
        current: object = values
        for part in name.split("."):
            if not isinstance(current, Mapping) or part not in current:
                raise KeyError(name)
            current = current[part]
        return current

    return lookup
