"""Calls from the CLI to an Assay server's REST API (``--server URL``), with aiohttp (the client the
targets already use), the key from ``ASSAY_API_KEY``.

Every way the server cannot be used is one line and exit 2 (a configuration error): not reachable, a key
refused, an answer that is not Assay's envelope; the server's own errors keep its message.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from assay.errors import AssayError, NotFoundError, SettingsError, ValidationError

TIMEOUT_S = 60.0
KEY_VARIABLE = "ASSAY_API_KEY"


def _base(server: str) -> str:
    if not server.startswith(("http://", "https://")):
        raise ValidationError(f"--server must be an http:// or https:// URL, got {server!r}")
    return server.rstrip("/")


def _headers() -> dict[str, str]:
    key = os.environ.get(KEY_VARIABLE)
    return {"authorization": f"Bearer {key}"} if key else {}


def _failure(status: int, body: bytes, where: str) -> AssayError:
    """The error of a reply that is not a success, with the server's message when it sent one."""
    try:
        error = json.loads(body).get("error") or {}
        message = f"{error.get('code')}: {error.get('message')}"
    except (ValueError, AttributeError):
        message = body[:200].decode(errors="replace")
    if status == 404:
        return NotFoundError(f"{where}: {message}")
    if status in (401, 403):
        return SettingsError(f"{where}: the server refused the key (HTTP {status}); set {KEY_VARIABLE}")
    return ValidationError(f"{where}: HTTP {status}: {message}")


async def _call(method: str, url: str, body: Any) -> Any:
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=TIMEOUT_S)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.request(method, url, json=body, headers=_headers()) as reply,
        ):
            data = await reply.read()
            if not 200 <= reply.status < 300:
                raise _failure(reply.status, data, f"{method} {url}")
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise SettingsError(f"cannot reach the Assay server at {url}: {exc or type(exc).__name__}") from None
    try:
        return json.loads(data)["data"]
    except (ValueError, KeyError, TypeError):
        raise SettingsError(f"{url} did not answer as an Assay server (no JSON envelope)") from None


def check_server(server: str) -> None:
    """Refuse, before a run, a server that cannot be used: not an http(s) URL, not reachable, or refusing
    the key (one cheap authenticated read)."""
    call(server, "GET", "/suites?limit=1")


def call(server: str, method: str, path: str, body: Any = None) -> Any:
    """``method`` ``path`` on the server: the ``data`` of its envelope."""
    return asyncio.run(_call(method, f"{_base(server)}/api{path}", body))
