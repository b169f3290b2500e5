"""JSON rendering that never fails on text an agent produced."""

from __future__ import annotations

import json
from typing import Any

import orjson
from fastapi.responses import JSONResponse


def json_bytes(content: Any) -> bytes:
    """``content`` as UTF-8 JSON bytes, via orjson; text holding lone surrogates (which UTF-8 cannot carry)
    goes out ``\\u``-escaped."""
    try:
        return orjson.dumps(content)
    except TypeError:  # lone surrogates or a type orjson does not know
        return json.dumps(content, ensure_ascii=True, separators=(",", ":"), default=str).encode("ascii")


class SafeJSONResponse(JSONResponse):
    """JSON rendered by :func:`json_bytes`."""

    def render(self, content: Any) -> bytes:
        """``content`` as UTF-8 JSON bytes."""
        return json_bytes(content)
