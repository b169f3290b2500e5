"""A real chat agent on loopback (aiohttp) that keeps no state of its own: everything it knows comes from
the messages each request carries, so a runner that drops the history makes it answer wrongly.

It speaks two APIs: ``POST /v1/chat/completions`` (OpenAI's chat API: the answer in
``choices[0].message.content``) and ``POST /chat`` (plain JSON: ``{"messages": [...]}`` in, ``{"output"}``
out). What it answers, read from the messages:

* "My name is X." → ``Nice to meet you, X.``; "What is my name?" → ``Your name is X.`` (the last name a user
  message gave), or ``I do not know your name.``;
* "How many questions?" → ``You asked N questions.`` (user messages so far, this one included);
* a ``tool`` message answering an assistant's call → ``The tool <name> says: <content>`` (the call found by
  its id: a conversation whose ids do not match gets ``unknown call``);
* "Where is order N?" → on ``/chat``, its whole turn as OpenAI messages (a ``lookup_order`` call, its
  result, then ``Order N is shipped.``); on the chat API, that text only;
* "Which tool did you use?" → ``You used lookup_order.`` when an assistant message of the history called it,
  else ``You used no tool.``;
* a user message holding "slow" → the answer after ``slow_s`` seconds; anything else → ``ok``.

In a test::

    with ChatAgent() as agent:
        agent.url  # http://127.0.0.1:PORT ; agent.requests: every request's messages
"""

from __future__ import annotations

import asyncio
import re
import threading
from types import TracebackType
from typing import Any

from aiohttp import web

_NAME = re.compile(r"my name is (\w+)", re.IGNORECASE)
_ORDER = re.compile(r"where is order (\d+)", re.IGNORECASE)


def turn(messages: list[dict[str, Any]]) -> dict[str, Any] | str:
    """What ``/chat`` answers: the tool loop of an order question as messages, else :func:`answer`."""
    text = str(messages[-1].get("content") or "") if messages else ""
    found = _ORDER.search(text)
    if not found or messages[-1].get("role") != "user":
        return answer(messages)
    order = found.group(1)
    call = {
        "id": f"call_{order}",
        "type": "function",
        "function": {"name": "lookup_order", "arguments": f'{{"order": {order}}}'},
    }
    return {
        "messages": [
            *messages,
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": "shipped"},
            {"role": "assistant", "content": f"Order {order} is shipped."},
        ]
    }


def answer(messages: list[dict[str, Any]]) -> str:
    """What the agent says to ``messages`` (pure: the tests' oracle too)."""
    users = [m for m in messages if m.get("role") == "user"]
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        calls = {
            call["id"]: call["function"]["name"]
            for m in messages
            if m.get("role") == "assistant"
            for call in m.get("tool_calls") or ()
        }
        name = calls.get(last.get("tool_call_id"), "unknown call")
        return f"The tool {name} says: {last.get('content')}"
    text = str(last.get("content") or "")
    found = _NAME.search(text)
    if found:
        return f"Nice to meet you, {found.group(1)}."
    if "what is my name" in text.lower():
        names = [match.group(1) for m in users if (match := _NAME.search(str(m.get("content") or "")))]
        return f"Your name is {names[-1]}." if names else "I do not know your name."
    found_order = _ORDER.search(text)
    if found_order:
        return f"Order {found_order.group(1)} is shipped."
    if "which tool did you use" in text.lower():
        used = [
            call["function"]["name"]
            for m in messages
            if m.get("role") == "assistant"
            for call in m.get("tool_calls") or ()
        ]
        return f"You used {', '.join(used)}." if used else "You used no tool."
    if "how many questions" in text.lower():
        return f"You asked {len(users)} questions."
    return "ok"


class ChatAgent:
    """The agent served on 127.0.0.1 by an aiohttp runner in its own thread and event loop."""

    def __init__(self, *, slow_s: float = 3.0) -> None:
        self.slow_s = slow_s
        self.requests: list[list[dict[str, Any]]] = []
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    async def _reply(self, messages: list[dict[str, Any]], *, plain: bool = False) -> Any:
        self.requests.append(messages)
        if any("slow" in str(m.get("content") or "") for m in messages[-1:]):
            await asyncio.sleep(self.slow_s)
        return turn(messages) if plain else answer(messages)

    async def _openai(self, request: web.Request) -> web.Response:
        body = await request.json()
        text = await self._reply(body["messages"])
        return web.json_response(
            {
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
                "model": "chat-agent",
            }
        )

    async def _plain(self, request: web.Request) -> web.Response:
        body = await request.json()
        return web.json_response({"output": await self._reply(body["messages"], plain=True)})

    async def _start(self) -> str:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._openai)
        app.router.add_post("/chat", self._plain)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return f"http://127.0.0.1:{port}"

    def __enter__(self) -> ChatAgent:
        self._thread.start()
        self.url = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
