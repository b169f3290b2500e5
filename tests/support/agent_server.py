"""A real HTTP agent for tests and benchmarks, served by uvicorn on 127.0.0.1 (loopback only).

It answers two kinds of request:

* ``POST <any path>`` with ``{"input": ...}`` → ``{"output": ...}`` (Assay's default HTTP target);
* ``POST .../chat/completions`` (OpenAI-compatible) → the answer as ``choices[0].message.content``.

The answer to an input is ``behaviour.answers[input]``, else ``behaviour.default`` (the input itself when
that is ``None``). Each answer can be delayed, and faults can be scripted per input: an HTTP status (with
``Retry-After``), a hang, a body that is not JSON, a reply without ``output``. Every request is recorded,
with when it came and when its answer was sent. A test can cap how many more requests are answered
(:meth:`AgentServer.allow`): the others wait in flight until it allows more, so a run cannot end (or move
on) before the test says so, however fast or slow the machine is.

In a test::

    with AgentServer(AgentBehaviour(answers={"2+2": "4"}, delay=0.01)) as agent:
        ...  # agent.url, agent.requests, agent.count("2+2")

In another process (benchmarks, browser tests)::

    python -m tests.support.agent_server --behaviour '{"delay": 0.1}'   # prints AGENT_URL=http://127.0.0.1:PORT
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any, Literal

import uvicorn

from tests.support.waiting import wait_for

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

FaultKind = Literal["status", "hang", "bad_json", "no_output", "hold"]
_START_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Fault:
    """A scripted failure for one input.

    Attributes:
        kind: ``status`` (reply ``status``), ``hang`` (sleep ``hang_s`` before answering), ``bad_json``
            (a 200 whose body is not JSON), ``no_output`` (a 200 JSON reply without ``output``) or ``hold``
            (answer normally once the test calls :meth:`AgentApp.release`: calls held in flight on cue).
        status: the HTTP status of a ``status`` fault.
        retry_after: seconds sent in ``Retry-After`` with a ``status`` fault.
        times: fail only the first ``times`` requests for the input, then answer; ``None`` = always.
        hang_s: how long a ``hang`` lasts.
    """

    kind: FaultKind = "status"
    status: int = 503
    retry_after: float | None = None
    times: int | None = None
    hang_s: float = 30.0


USAGE_MODEL = "agent-under-test"
"""The model a behaviour with ``usage`` names in its replies."""


@dataclass
class AgentBehaviour:
    """What the agent answers, how slowly, and where it fails."""

    answers: dict[str, Any] = field(default_factory=dict)
    default: Any = None
    delay: float = 0.0
    faults: dict[str, Fault] = field(default_factory=dict)
    echo: bool = False
    """Answer with the whole request as JSON text (its headers and body): an agent that echoes secrets."""
    usage: bool = False
    """Say what each reply spent, as OpenAI does: ``usage`` with ``prompt_tokens`` the input's length in
    characters and ``completion_tokens`` the answer's, and ``model`` :data:`USAGE_MODEL`."""
    pass_chance: dict[str, float] = field(default_factory=dict)
    """A flaky agent: the input's answer (:meth:`answer`) only with this probability, else ``wrong``. Drawn
    from a generator seeded by ``seed``, the input and how many times it was asked, so the same run gives
    the same answers whatever order concurrent requests arrive in."""
    wrong: Any = "wrong"
    seed: int = 0

    def answer_asked(self, text: str, seen: int) -> Any:
        """The answer to the ``seen``-th request (from 1) for ``text``: :meth:`answer`, or a flaky one's."""
        chance = self.pass_chance.get(text)
        if chance is not None and random.Random(f"{self.seed}:{seen}:{text}").random() >= chance:
            return self.wrong
        return self.answer(text)

    @classmethod
    def from_json(cls, text: str) -> AgentBehaviour:
        """A behaviour from JSON (the ``--behaviour`` option); faults as objects of :class:`Fault` fields."""
        data = json.loads(text)
        faults = {key: Fault(**value) for key, value in data.pop("faults", {}).items()}
        return cls(**data, faults=faults)

    def answer(self, text: str) -> Any:
        """The agent's answer to ``text``."""
        if text in self.answers:
            return self.answers[text]
        return text if self.default is None else self.default


@dataclass(frozen=True)
class RecordedRequest:
    """One request the agent received."""

    path: str
    input: str | None
    headers: dict[str, str]
    at: float
    body: bytes = b""
    client_port: int = 0
    """The caller's TCP port: which process called (``ports_to`` of :mod:`tests.support.assay_process`)."""
    ended: float | None = None
    """When the agent was done with it (answered, or cut off); ``None`` while it is in flight."""


class AgentApp:
    """The ASGI application behind :class:`AgentServer`."""

    def __init__(self, behaviour: AgentBehaviour) -> None:
        self.behaviour = behaviour
        self.requests: list[RecordedRequest] = []
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.in_flight = 0
        """Requests being answered now."""
        self.max_in_flight = 0
        """The most requests ever answered at once."""
        self._released = threading.Event()
        # The gate of :meth:`allow`: requests take tickets in the order they reach it, and ticket t is
        # answered once t < _granted (None: no cap), so the calls waiting longest are answered first.
        self._tickets = 0
        self._passed = 0
        self._granted: int | None = None
        self._at_gate = 0
        # Waiting requests sleep until the test changes the gate or releases held calls (a wake-up from its
        # thread), not on a timer: hundreds of calls polling every 10 ms kept a core busy while they waited.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None

    def allow(self, replies: int | None) -> None:
        """Answer only ``replies`` more requests, longest waiting first (``None``: every one); the others wait
        until allowed."""
        with self._lock:
            if replies is None:
                self._granted = None
            else:
                committed = self._tickets if self._granted is None else min(self._granted, self._tickets)
                self._granted = committed + replies
        self._wake_waiters()

    def _wake_waiters(self) -> None:
        """Let every waiting request look again (from any thread)."""
        with self._lock:
            loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the server has stopped: nobody waits any more
                loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        # On the server's loop, so no waiter can take the event between its check and its wait.
        changed, self._changed = self._changed, asyncio.Event()
        if changed is not None:
            changed.set()

    def _change(self) -> asyncio.Event:
        """The event set at the next change of the gate (called on the server's loop)."""
        with self._lock:
            self._loop = asyncio.get_running_loop()
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    @property
    def allowance(self) -> int | None:
        """How many more requests may be answered (``None``: no cap)."""
        with self._lock:
            return None if self._granted is None else self._granted - self._passed

    @property
    def is_still(self) -> bool:
        """Whether the agent answers nothing until allowed more: every request in flight waits at the gate,
        and no more are allowed."""
        with self._lock:
            return (
                self._granted is not None
                and self._passed == self._granted
                and self.in_flight == self._at_gate
            )

    async def _allowed(self) -> None:
        with self._lock:
            ticket = self._tickets
            self._tickets += 1
            self._at_gate += 1
        try:
            while True:
                changed = self._change()  # before the check: a change after it sets this event
                with self._lock:
                    if self._granted is None or ticket < self._granted:
                        self._passed += 1
                        return
                await changed.wait()
        finally:
            with self._lock:
                self._at_gate -= 1

    def release(self) -> None:
        """Answer the requests ``hold`` faults keep waiting, and those to come."""
        self._released.set()
        self._wake_waiters()

    def count(self, text: str) -> int:
        """How many requests asked about ``text``."""
        with self._lock:
            return self._counts[text]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path = scope["path"]
        is_chat = path.endswith("/chat/completions")
        text = _input_of(body, is_chat)
        headers = {key.decode("latin-1"): value.decode("latin-1") for key, value in scope["headers"]}
        with self._lock:
            index = len(self.requests)
            client = scope.get("client")
            port = int(client[1]) if client else 0
            self.requests.append(RecordedRequest(path, text, headers, time.monotonic(), body, port))
            self._counts[text or ""] += 1
            seen = self._counts[text or ""]
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.behaviour.echo:
                echoed = json.dumps({"headers": headers, "body": body.decode(errors="replace")})
                await self._reply(echoed, is_chat, send)
            else:
                await self._answer(text, seen, is_chat, send)
        finally:
            with self._lock:
                self.in_flight -= 1
                self.requests[index] = replace(self.requests[index], ended=time.monotonic())

    async def _answer(self, text: str | None, seen: int, is_chat: bool, send: Send) -> None:
        behaviour = self.behaviour
        if behaviour.delay:
            await asyncio.sleep(behaviour.delay)
        await self._allowed()
        fault = behaviour.faults.get(text or "")
        if fault is not None and fault.kind == "hold":
            while True:
                changed = self._change()
                if self._released.is_set():
                    break
                await changed.wait()
        elif fault is not None and (fault.times is None or seen <= fault.times):
            await _send_fault(fault, send)
            return
        await self._reply(behaviour.answer_asked(text or "", seen), is_chat, send, asked=text or "")

    async def _reply(self, answer: Any, is_chat: bool, send: Send, asked: str | None = None) -> None:
        if is_chat:
            reply: Any = {"choices": [{"index": 0, "message": {"role": "assistant", "content": answer}}]}
        else:
            reply = {"output": answer}
        if self.behaviour.usage and asked is not None:
            reply["model"] = USAGE_MODEL
            reply["usage"] = {"prompt_tokens": len(asked), "completion_tokens": len(str(answer))}
        await _send(send, 200, json.dumps(reply).encode())


def _input_of(body: bytes, is_chat: bool) -> str | None:
    try:
        data = json.loads(body) if body else {}
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if is_chat:
        users = [
            message.get("content") for message in data.get("messages", []) if message.get("role") == "user"
        ]
        return str(users[-1]) if users else None
    value = data.get("input")
    return None if value is None else str(value)


async def _send(send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": body})


async def _send_fault(fault: Fault, send: Send) -> None:
    if fault.kind == "status":
        extra = [(b"retry-after", f"{fault.retry_after:g}".encode())] if fault.retry_after is not None else []
        await _send(send, fault.status, b'{"error": "scripted failure"}', extra)
    elif fault.kind == "hang":
        await asyncio.sleep(fault.hang_s)
        await _send(send, 200, b'{"output": "too late"}')
    elif fault.kind == "bad_json":
        await _send(send, 200, b"<html>not json</html>")
    else:
        await _send(send, 200, b'{"answer": "no output field"}')


def most_at_once(spans: Iterable[tuple[float, float]]) -> int:
    """The most of the ``(start, end)`` spans that overlap at one moment (one ending as another starts does
    not overlap it)."""
    edges = sorted(edge for start, end in spans for edge in ((start, 1), (end, -1)))
    most = current = 0
    for _, step in edges:
        current += step
        most = max(most, current)
    return most


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class _PromptServer(uvicorn.Server):
    """uvicorn's server, stopped as soon as it is told to: uvicorn checks ``should_exit`` every 0.1 s and then
    sleeps 0.1 s for its connections to close, 0.2 s of idle at the end of every test with an agent.

    Only a forced exit is prompt (:meth:`AgentServer.stop` always forces: hanging requests are cut off).
    """

    _loop: asyncio.AbstractEventLoop | None = None
    _stopping: asyncio.Event | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        await super().startup(sockets=sockets)

    async def main_loop(self) -> None:
        assert self._stopping is not None
        # on_tick(0) as uvicorn's once a second: the Date header refreshed, should_exit read.
        while not await self.on_tick(0):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), timeout=1.0)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if not self.force_exit:
            await super().shutdown(sockets=sockets)
            return
        # uvicorn's shutdown when forced, its fixed 0.1 s sleep for the connections to close cut to the time
        # they take (an answer in flight keeps its connection: then 0.1 s, as uvicorn waits).
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 0.1
        while self.server_state.connections and loop.time() < deadline:
            await asyncio.sleep(0.005)
        for server in self.servers:
            await server.wait_closed()

    def wake(self) -> None:
        """End the main loop now, from another thread (once ``should_exit`` is set)."""
        if self._loop is not None and self._stopping is not None:
            with contextlib.suppress(RuntimeError):  # the loop already closed: nothing left to wake
                self._loop.call_soon_threadsafe(self._stopping.set)


class AgentServer:
    """Runs :class:`AgentApp` (or another ASGI ``app``) with uvicorn in a background thread on 127.0.0.1;
    a context manager."""

    def __init__(self, behaviour: AgentBehaviour | None = None, *, app: Any = None) -> None:
        self.app = app if app is not None else AgentApp(behaviour or AgentBehaviour())
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.port: int = self._socket.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            lifespan="off",
            ws="none",
            access_log=False,
            timeout_graceful_shutdown=1,
            backlog=1024,
        )
        self._server = _PromptServer(config)
        self._thread = threading.Thread(target=self._serve, name=f"agent-server-{self.port}", daemon=True)

    def _serve(self) -> None:
        self._server.run(sockets=[self._socket])

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:43121``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def behaviour(self) -> AgentBehaviour:
        """The behaviour in force; changing its fields changes the answers at once."""
        return self.app.behaviour

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far."""
        return self.app.requests

    def count(self, text: str) -> int:
        """How many requests asked about ``text``."""
        return self.app.count(text)

    def release(self) -> None:
        """Answer the requests held by ``hold`` faults."""
        self.app.release()

    def allow(self, replies: int | None) -> None:
        """Answer only ``replies`` more requests (``None``: every one); the others wait in flight until
        allowed (a run that cannot end, or move on, before the test says so)."""
        self.app.allow(replies)

    @property
    def allowance(self) -> int | None:
        """How many more requests may be answered (``None``: no cap)."""
        return self.app.allowance

    @property
    def is_still(self) -> bool:
        """Whether the agent answers nothing until allowed more (every request in flight waits for it)."""
        return self.app.is_still

    @property
    def max_in_flight(self) -> int:
        """The most requests the agent answered at once."""
        return self.app.max_in_flight

    def start(self) -> AgentServer:
        """Start serving; returns once the server accepts connections."""
        self._thread.start()

        def started() -> bool:
            if not self._thread.is_alive():
                raise RuntimeError("the agent server did not start: its thread ended")
            return bool(self._server.started)

        wait_for(started, _START_TIMEOUT_S, what="the agent server to start", every=0.01)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread (hanging requests are cut off)."""
        self._server.should_exit = True
        self._server.force_exit = True
        self._server.wake()
        self._thread.join(timeout=_START_TIMEOUT_S)
        self._socket.close()

    def __enter__(self) -> AgentServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    """Serve in the foreground, printing ``AGENT_URL=...`` once ready (for other processes)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--behaviour", default="{}", help="AgentBehaviour as JSON")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    app = AgentApp(AgentBehaviour.from_json(args.behaviour))
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(2048)  # listening before the URL is printed, so the first request cannot be refused
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", lifespan="off", ws="none", access_log=False, backlog=2048)
    )
    print(f"AGENT_URL=http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main(sys.argv[1:])
