"""A scripted model judge for tests: a real HTTP server on 127.0.0.1 speaking OpenAI chat completions.

It answers ``POST .../chat/completions``. The reply to a request is chosen by the ``agent_response`` the
llm-judge grader put in its user message (a JSON document): ``script[agent_response]``, else ``default``.
A script entry is one :class:`JudgeReply` or a list of them, used in turn (the last one repeating), so
"429 twice, then a verdict" is ``[JudgeReply(status=429, retry_after=0), ..., JudgeReply(content=...)]``.
Every request is recorded with its JSON body and headers.

    with JudgeServer({"Paris": verdict(True, 0.9)}) as judge:
        config = {"base_url": judge.base_url, "api_key_env": None, "model": "judge"}

In another process (benchmarks): ``python -m tests.support.judge_server --delay 0.1`` prints
``JUDGE_URL=http://127.0.0.1:PORT/v1`` and passes every answer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from tests.support.agent_server import AgentServer, Receive, Scope, Send, _send


@dataclass(frozen=True)
class JudgeReply:
    """One scripted reply.

    Attributes:
        content: the assistant message's content (a verdict as JSON text, or anything malformed); the text
            ``{{authorization}}`` in it is replaced by the request's Authorization header (an echo).
        body: a raw body sent instead of a chat completion (``content`` is then ignored).
        status: the HTTP status.
        retry_after: seconds sent in ``Retry-After``.
        hang_s: seconds to wait before answering.
        finish_reason: the choice's finish reason.
        refusal: the message's refusal.
        headers: extra response headers (``location`` for a redirect).
    """

    content: str | None = None
    body: bytes | None = None
    status: int = 200
    retry_after: float | None = None
    hang_s: float = 0.0
    finish_reason: str = "stop"
    refusal: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


def verdict(passed: bool, score: float, explanation: str = "scripted") -> JudgeReply:
    """A well-formed rubric verdict."""
    return JudgeReply(json.dumps({"explanation": explanation, "pass": passed, "score": score}))


def label(name: str, explanation: str = "scripted") -> JudgeReply:
    """A well-formed classification."""
    return JudgeReply(json.dumps({"explanation": explanation, "label": name}))


@dataclass(frozen=True)
class JudgeRequest:
    """One request the judge received."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def agent_response(self) -> str | None:
        """The answer the grader asked about (from its JSON user message)."""
        value = self._field("agent_response")
        return None if value is None else str(value)

    @property
    def input(self) -> str | None:
        """The case's input the grader showed the judge (``None``: none, or no such field)."""
        value = self._field("input")
        return None if value is None else str(value)

    def _field(self, key: str) -> Any:
        try:
            return json.loads(self.body["messages"][-1]["content"])[key]
        except (KeyError, IndexError, TypeError, ValueError):
            return None


USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
"""What a scripted judge's reply says it spent, unless told otherwise."""


class JudgeApp:
    """The ASGI application behind :class:`JudgeServer`."""

    def __init__(self, script: dict[str, JudgeReply | list[JudgeReply]], default: JudgeReply) -> None:
        self.script = dict(script)  # a test may change it: never the caller's dict
        self.default = default
        self.requests: list[JudgeRequest] = []
        self.usage: dict[str, int] | None = USAGE
        """What every reply says it spent (``None``: the replies leave ``usage`` out)."""
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()

    def _choose(self, key: str | None) -> JudgeReply:
        entry = self.script.get(key, self.default) if key is not None else self.default
        if isinstance(entry, JudgeReply):
            return entry
        with self._lock:
            index = self._seen[key or ""]
            self._seen[key or ""] += 1
        return entry[min(index, len(entry) - 1)]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        headers = {key.decode("latin-1"): value.decode("latin-1") for key, value in scope["headers"]}
        request = JudgeRequest(scope["path"], body if isinstance(body, dict) else {}, headers)
        with self._lock:
            self.requests.append(request)
        reply = self._choose(request.agent_response)
        if reply.hang_s:
            await asyncio.sleep(reply.hang_s)
        echo = headers.get("authorization", "")
        if reply.body is not None:
            payload = reply.body.replace(b"{{authorization}}", echo.encode())
        else:
            content = reply.content.replace("{{authorization}}", echo) if reply.content is not None else None
            payload = json.dumps(
                {
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion",
                    "model": f"{body.get('model', 'judge')}-scripted",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content, "refusal": reply.refusal},
                            "finish_reason": reply.finish_reason,
                        }
                    ],
                    **({"usage": self.usage} if self.usage is not None else {}),
                }
            ).encode()
        extra = [(key.encode(), value.encode()) for key, value in reply.headers.items()]
        if reply.retry_after is not None:
            extra.append((b"retry-after", f"{reply.retry_after:g}".encode()))
        await _send(send, reply.status, payload, extra)


class JudgeServer(AgentServer):
    """The scripted judge on 127.0.0.1 in a background thread; a context manager."""

    def __init__(
        self,
        script: dict[str, JudgeReply | list[JudgeReply]] | None = None,
        default: JudgeReply | None = None,
    ) -> None:
        self.judge = JudgeApp(script or {}, default or verdict(True, 1.0))
        super().__init__(app=self.judge)

    @property
    def base_url(self) -> str:
        """What the llm-judge grader's ``base_url`` is set to."""
        return f"{self.url}/v1"

    @property
    def judged(self) -> list[JudgeRequest]:
        """Every request received so far."""
        return self.judge.requests


def main(argv: list[str] | None = None) -> None:
    """Serve in the foreground, passing every answer after ``--delay`` seconds (for other processes)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args(argv)
    app = JudgeApp(
        {}, JudgeReply(json.dumps({"explanation": "fine", "pass": True, "score": 1}), hang_s=args.delay)
    )
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", lifespan="off", ws="none", access_log=False, backlog=2048)
    )
    print(f"JUDGE_URL=http://127.0.0.1:{sock.getsockname()[1]}/v1", flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main(sys.argv[1:])
