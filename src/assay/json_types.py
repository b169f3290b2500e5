"""The JSON types of values the user or a grader wrote: what travels as JSON, typed as JSON.

Use :data:`JsonObject` where a value truly is JSON (a grader's ``details``, a stored column, a file's line),
and a typed record everywhere else. mypy checks the recursive form; at run time the aliases stand for any
value, so pydantic and SQLAlchemy read an annotation with them as they read ``Any`` (an API schema's
``object`` stays ``object``) and no check is paid on a hot path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

__all__ = ["JsonObject", "JsonValue"]

if TYPE_CHECKING:
    JsonValue: TypeAlias = str | int | float | bool | list["JsonValue"] | dict[str, "JsonValue"] | None
    """Any JSON value."""
    JsonObject: TypeAlias = dict[str, JsonValue]
    """A JSON object."""
else:
    JsonValue = Any
    JsonObject = dict[str, JsonValue]
