"""A real tool-using support agent on loopback (aiohttp), answering in every trajectory dialect Assay reads.

``POST /agent`` with ``{"input": ..., "dialect": ..., "mode": ...}`` runs a tool loop: a scripted model
(no LLM: a planner reading the conversation so far) asks for tools, the agent runs them against its own
order book, hands the results back, until the model answers. The tools are real functions with effects:
``search_orders`` (by words of the item), ``lookup_order`` (by id) and ``refund`` (marks the order
refunded; a second refund of the same order fails). ``mode`` changes the model's plan:

* ``correct``: search, look the order up, refund its total, answer;
* ``skip``: search, then refund at once (the look-up skipped: a guessed amount);
* ``twice``: as ``correct``, but the refund is asked for twice (the second fails);
* ``late``: search, refund a guessed amount, then look the order up (the same calls as ``correct``, in
  another order);
* ``thorough``: as ``correct``, but the order is looked up :data:`THOROUGH_LOOKUPS` times in one turn (a
  long trajectory: more steps than a page of the case panel).

The reply holds ``answer`` (the final text), ``usage`` and the run in ``dialect``: ``openai-chat``
(``messages``), ``openai-responses`` (``output``), ``anthropic`` (``messages`` of content blocks), ``atif``
(``trajectory``), or ``otlp``: the run's spans (GenAI semantic conventions) are posted to the OTLP receiver
(``otlp_url``) under the trace id of the ``traceparent`` the request carried, before the reply is sent, as
an exporter flushing at the end of a request would.

In a test::

    with ToolAgent(otlp_url=f"{assay.url}/v1/traces") as agent:
        ...  # agent.url ("http://127.0.0.1:PORT/agent"), agent.requests
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal

import aiohttp
from aiohttp import web

Mode = Literal["correct", "skip", "twice", "late", "thorough"]
DIALECTS = ("openai-chat", "openai-responses", "anthropic", "atif", "otlp")
_START_TIMEOUT_S = 10.0

ORDERS: dict[int, dict[str, Any]] = {
    7: {"item": "blue kettle", "total": 20.0},
    8: {"item": "red teapot", "total": 35.5},
    9: {"item": "green mug", "total": 8.0},
}


@dataclass
class OrderBook:
    """The agent's orders and the refunds made (one agent, many requests: guarded by the loop)."""

    refunded: dict[int, float] = field(default_factory=dict)

    def search_orders(self, query: str) -> list[dict[str, Any]]:
        words = set(re.findall(r"[a-z]+", query.lower()))
        return [
            {"order_id": order_id, "item": order["item"]}
            for order_id, order in ORDERS.items()
            if words & set(order["item"].split())
        ]

    def lookup_order(self, order_id: int) -> dict[str, Any]:
        order = ORDERS.get(order_id)
        if order is None:
            raise KeyError(f"no order {order_id}")
        return {"order_id": order_id, **order, "refunded": order_id in self.refunded}

    def refund(self, order_id: int, amount: float) -> dict[str, Any]:
        if order_id not in ORDERS:
            raise KeyError(f"no order {order_id}")
        if order_id in self.refunded:
            raise ValueError(f"order {order_id} was already refunded")
        self.refunded[order_id] = amount
        return {"order_id": order_id, "refunded": amount}

    def run(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """The tool's result as text, and whether it failed."""
        try:
            tool = {
                "search_orders": self.search_orders,
                "lookup_order": self.lookup_order,
                "refund": self.refund,
            }
            return json.dumps(tool[name](**arguments)), False
        except (KeyError, ValueError, TypeError) as exc:
            return json.dumps({"error": str(exc)}), True


@dataclass
class Event:
    """One thing that happened in a run: a model turn (text and/or tool calls), or a tool's result."""

    kind: Literal["model", "tool"]
    text: str | None = None
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (id, name, arguments)
    call_id: str | None = None
    name: str | None = None
    result: str | None = None
    is_error: bool = False
    start_ns: int = 0
    end_ns: int = 0
    tokens: tuple[int, int] = (0, 0)


THOROUGH_LOOKUPS = 30


def _plan(question: str, history: list[Event], mode: Mode) -> Event:
    """The scripted model's next turn, from what the tools said so far."""
    results = [event for event in history if event.kind == "tool"]
    called = [name for event in history if event.kind == "model" for _, name, _ in event.calls]
    tokens = (40 + 10 * len(history), 12)
    if not called:
        query = re.sub(r"(?i)\b(please|refund|my|the|order|of|a|an)\b", " ", question).strip()
        return Event(
            "model",
            text="Let me find your order.",
            calls=[("", "search_orders", {"query": query})],
            tokens=tokens,
        )
    found = json.loads(results[0].result or "[]") if results else []
    if not found:
        return Event("model", text="I could not find that order.", tokens=tokens)
    order_id = found[0]["order_id"]
    if mode == "late" and "refund" not in called:
        return Event("model", calls=[("", "refund", {"order_id": order_id, "amount": 10.0})], tokens=tokens)
    if "lookup_order" not in called and mode != "skip":
        lookups = THOROUGH_LOOKUPS if mode == "thorough" else 1
        return Event("model", calls=[("", "lookup_order", {"order_id": order_id})] * lookups, tokens=tokens)
    refunds = called.count("refund")
    amount = next(
        (json.loads(event.result or "{}").get("total") for event in results if event.name == "lookup_order"),
        10.0,  # skipped the look-up: a guess
    )
    if refunds == 0 or (mode == "twice" and refunds == 1):
        return Event("model", calls=[("", "refund", {"order_id": order_id, "amount": amount})], tokens=tokens)
    return Event("model", text=f"Refunded {amount} for order {order_id}.", tokens=tokens)


def run_agent(book: OrderBook, question: str, mode: Mode) -> list[Event]:
    """The tool loop: ask the model, run the tools it asks for, until it answers (10 turns at most)."""
    history: list[Event] = []
    for _ in range(10):
        started = time.time_ns()
        turn = _plan(question, history, mode)
        turn.calls = [
            (f"call_{len(history)}_{n}", name, args) for n, (_, name, args) in enumerate(turn.calls)
        ]
        turn.start_ns, turn.end_ns = started, time.time_ns() + 1_000
        history.append(turn)
        if not turn.calls:
            return history
        for call_id, name, arguments in turn.calls:
            began = time.time_ns()
            result, failed = book.run(name, arguments)
            history.append(
                Event(
                    "tool",
                    call_id=call_id,
                    name=name,
                    result=result,
                    is_error=failed,
                    start_ns=began,
                    end_ns=time.time_ns() + 1_000,
                )
            )
    return history


def _final(history: list[Event]) -> str:
    return history[-1].text or ""


def _usage(history: list[Event]) -> dict[str, int]:
    spent = [event.tokens for event in history if event.kind == "model"]
    return {"input_tokens": sum(t[0] for t in spent), "output_tokens": sum(t[1] for t in spent)}


def openai_chat(question: str, history: list[Event]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for event in history:
        if event.kind == "model":
            message: dict[str, Any] = {"role": "assistant", "content": event.text}
            if event.calls:
                message["tool_calls"] = [
                    {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                    for cid, name, args in event.calls
                ]
            messages.append(message)
        else:
            messages.append({"role": "tool", "tool_call_id": event.call_id, "content": event.result})
    return messages


def openai_responses(history: list[Event]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for event in history:
        if event.kind == "tool":
            items.append({"type": "function_call_output", "call_id": event.call_id, "output": event.result})
            continue
        if event.text and not event.calls:
            items.append(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": event.text}],
                }
            )
        for cid, name, args in event.calls:
            items.append(
                {"type": "function_call", "call_id": cid, "name": name, "arguments": json.dumps(args)}
            )
    return items


def anthropic(question: str, history: list[Event]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for event in history:
        if event.kind == "model":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": event.text}] if event.text else []
            blocks += [
                {"type": "tool_use", "id": cid, "name": name, "input": args}
                for cid, name, args in event.calls
            ]
            usage = {"input_tokens": event.tokens[0], "output_tokens": event.tokens[1]}
            messages.append({"role": "assistant", "content": blocks, "usage": usage})
        else:
            result = {"type": "tool_result", "tool_use_id": event.call_id, "content": event.result}
            if event.is_error:
                result["is_error"] = True
            messages.append({"role": "user", "content": [result]})
    return messages


def atif(question: str, history: list[Event]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "message": question}]
    results = {event.call_id: event for event in history if event.kind == "tool"}
    for event in history:
        if event.kind != "model":
            continue
        step: dict[str, Any] = {
            "step_id": len(steps) + 1,
            "source": "agent",
            "message": event.text or "",
            "metrics": {"prompt_tokens": event.tokens[0], "completion_tokens": event.tokens[1]},
        }
        if event.calls:
            step["tool_calls"] = [
                {"tool_call_id": cid, "function_name": name, "arguments": args}
                for cid, name, args in event.calls
            ]
            step["observation"] = {
                "results": [
                    {"source_call_id": cid, "content": results[cid].result} for cid, _, _ in event.calls
                ]
            }
        steps.append(step)
    return {
        "schema_version": "ATIF-v1.4",
        "session_id": secrets.token_hex(4),
        "agent": {"name": "tool-agent", "version": "1"},
        "steps": steps,
    }


def _attribute(key: str, value: object) -> dict[str, Any]:
    if isinstance(value, str):
        return {"key": key, "value": {"stringValue": value}}
    return {"key": key, "value": {"intValue": str(value)}}


def otlp_spans(trace_id: str, parent_span_id: str, history: list[Event]) -> dict[str, Any]:
    """The run as OTLP JSON spans: a root ``invoke_agent`` span under Assay's parent, a ``chat`` span per
    model turn and an ``execute_tool`` span per tool call, children of the root."""
    root_id = secrets.token_hex(8)

    def span(
        span_id: str, parent: str, start: int, end: int, attributes: dict[str, object], error: bool = False
    ) -> dict[str, Any]:
        written = {
            "traceId": trace_id,
            "spanId": span_id,
            "parentSpanId": parent,
            "name": str(attributes["gen_ai.operation.name"]),
            "kind": 1,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end),
            "attributes": [_attribute(key, value) for key, value in attributes.items()],
        }
        if error:
            written["status"] = {"code": 2, "message": "tool failed"}
        return written

    spans = []
    for event in history:
        if event.kind == "model":
            attributes: dict[str, object] = {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "scripted",
                "gen_ai.usage.input_tokens": event.tokens[0],
                "gen_ai.usage.output_tokens": event.tokens[1],
            }
            if event.text:
                attributes["gen_ai.output.messages"] = json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": event.text}]}]
                )
            spans.append(span(secrets.token_hex(8), root_id, event.start_ns, event.end_ns, attributes))
        else:
            call = next(c for e in history for c in e.calls if c[0] == event.call_id)
            attributes = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": event.name or "",
                "gen_ai.tool.call.id": event.call_id or "",
                "gen_ai.tool.call.arguments": json.dumps(call[2]),
                "gen_ai.tool.call.result": event.result or "",
            }
            spans.append(
                span(secrets.token_hex(8), root_id, event.start_ns, event.end_ns, attributes, event.is_error)
            )
    root = span(
        root_id,
        parent_span_id,
        history[0].start_ns,
        history[-1].end_ns,
        {"gen_ai.operation.name": "invoke_agent"},
    )
    spans.append(root)  # the root ends last: exporters send it last
    resource = {"attributes": [_attribute("service.name", "tool-agent")]}
    return {
        "resourceSpans": [
            {"resource": resource, "scopeSpans": [{"scope": {"name": "tool-agent"}, "spans": spans}]}
        ]
    }


@dataclass
class Request:
    """A request the agent served: its input, dialect, mode and the trace it was sent."""

    input: str
    dialect: str
    mode: str
    traceparent: str | None
    tools: list[str]


class ToolAgent:
    """The agent served on 127.0.0.1 in a thread of its own (see the module's notes)."""

    def __init__(self, *, otlp_url: str | None = None, otlp_headers: dict[str, str] | None = None) -> None:
        self.otlp_url = otlp_url
        self.otlp_headers = otlp_headers or {}
        self.requests: list[Request] = []
        self.otlp_statuses: list[int] = []
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="tool-agent")
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        question, dialect = str(body.get("input", "")), str(body.get("dialect", "openai-chat"))
        mode: Mode = body.get("mode") or "correct"
        history = run_agent(OrderBook(), question, mode)
        traceparent = request.headers.get("traceparent")
        tools = [name for event in history for _, name, _ in event.calls]
        self.requests.append(Request(question, dialect, mode, traceparent, tools))
        reply: dict[str, Any] = {"answer": _final(history), "usage": _usage(history)}
        if dialect == "openai-chat":
            reply["messages"] = openai_chat(question, history)
        elif dialect == "openai-responses":
            reply["output"] = openai_responses(history)
        elif dialect == "anthropic":
            reply["messages"] = anthropic(question, history)
        elif dialect == "atif":
            reply["trajectory"] = atif(question, history)
        elif dialect == "otlp" and traceparent and self.otlp_url and self._session is not None:
            _, trace_id, parent, _ = traceparent.split("-")
            spans = otlp_spans(trace_id, parent, history)
            async with self._session.post(self.otlp_url, json=spans, headers=self.otlp_headers) as posted:
                self.otlp_statuses.append(posted.status)
        return web.json_response(reply)

    async def _start(self) -> str:
        app = web.Application(client_max_size=1024**2)
        app.router.add_post("/agent", self._handle)
        self._session = aiohttp.ClientSession()
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        return f"http://127.0.0.1:{port}/agent"

    async def _stop(self) -> None:
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def __enter__(self) -> ToolAgent:
        self._thread.start()
        self.url = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(_START_TIMEOUT_S)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(_START_TIMEOUT_S)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_START_TIMEOUT_S)
        self._loop.close()


TARGET_PATHS: dict[str, tuple[str, str]] = {
    "openai-chat": ("messages", "openai-chat"),
    "openai-responses": ("output", "openai-responses"),
    "anthropic": ("messages", "anthropic"),
    "atif": ("trajectory", "atif"),
}
"""Where the agent's reply holds the run, and its dialect, for a target reading it from the reply."""


def target(url: str, dialect: str, *, grace_s: float = 5.0) -> dict[str, Any]:
    """An HTTP target spec asking the agent in ``dialect``, the mode from each case's ``mode`` metadata."""
    body = {"input": "{{input}}", "dialect": dialect, "mode": "{{metadata.mode}}"}
    if dialect == "otlp":
        trajectory: dict[str, Any] = {"from": "otlp", "grace_s": grace_s}
    else:
        path, named = TARGET_PATHS[dialect]
        trajectory = {"from": "reply", "path": path, "dialect": named}
    return {
        "type": "http",
        "url": url,
        "body_template": body,
        "response_path": "answer",
        "max_attempts": 1,
        "trajectory": trajectory,
    }


EXPECTED_TOOLS = ["search_orders", "lookup_order", "refund"]
CHECKS: list[dict[str, Any]] = [
    {"grader_id": "contains", "name": "answer", "expected_output": "Refunded"},
    {"grader_id": "tool-sequence", "name": "sequence", "config": {"tools": EXPECTED_TOOLS, "mode": "exact"}},
    {
        "grader_id": "tool-called",
        "name": "one refund",
        "config": {"tool": "refund", "at_least": 1, "at_most": 1},
    },
    {
        "grader_id": "tool-args",
        "name": "full amount",
        "config": {"tool": "refund", "mode": "contains", "arguments": {"amount": 20.0}, "call": "all"},
    },
    {"grader_id": "trajectory-budget", "name": "budget", "config": {"max_tool_calls": 3}},
]
"""The support suite's assertions: the answer, and four trajectory checks."""

VERDICTS: dict[str, dict[str, bool]] = {
    "correct": {"answer": True, "sequence": True, "one refund": True, "full amount": True, "budget": True},
    "skip": {"answer": True, "sequence": False, "one refund": True, "full amount": False, "budget": True},
    "twice": {"answer": True, "sequence": False, "one refund": False, "full amount": True, "budget": False},
}
"""What each mode of the agent must get from each check."""


def support_suite(name: str) -> dict[str, Any]:
    """The support suite as ``POST /api/suites`` takes it: a case per mode, graded by :data:`CHECKS`."""
    cases = [
        {"input": "Please refund my blue kettle", "expected_output": "Refunded", "metadata": {"mode": mode}}
        for mode in VERDICTS
    ]
    return {"name": name, "assert": CHECKS, "cases": cases}
