"""One support agent's run written in every trajectory dialect Assay reads, and a builder of long ones.

The run: the user asks for a refund of order 7; the agent looks the order up, refunds 20.0, and answers
"Refunded 20.0 for order 7." Every document below holds that run, so a test can check that each dialect
reads to the same tool calls.
"""

from __future__ import annotations

import json
from typing import Any

USER = "Please refund order 7"
FINAL = "Refunded 20.0 for order 7."
LOOKUP_ARGS = {"order_id": 7}
REFUND_ARGS = {"order_id": 7, "amount": 20.0}
LOOKUP_RESULT = '{"status": "paid", "total": 20.0}'
REFUND_RESULT = '{"refunded": true}'
TOOL_NAMES = ("lookup_order", "refund")


def openai_chat(*, tools: tuple[tuple[str, dict[str, Any]], ...] | None = None) -> dict[str, Any]:
    """The run as OpenAI chat messages (``tools`` replaces the two calls: name and arguments each)."""
    calls = tools if tools is not None else (("lookup_order", LOOKUP_ARGS), ("refund", REFUND_ARGS))
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a support agent."}]
    messages.append({"role": "user", "content": USER})
    for index, (name, arguments) in enumerate(calls):
        call_id = f"call_{index}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(arguments)},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": '{"ok": true}'})
    messages.append({"role": "assistant", "content": FINAL})
    return {"messages": messages, "usage": {"prompt_tokens": 120, "completion_tokens": 30}}


OPENAI_CHAT: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": USER},
        {
            "role": "assistant",
            "content": "Let me look that up.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "lookup_order", "arguments": json.dumps(LOOKUP_ARGS)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": LOOKUP_RESULT},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "refund", "arguments": json.dumps(REFUND_ARGS)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": REFUND_RESULT}]},
        {"role": "assistant", "content": FINAL},
    ],
    "usage": {"prompt_tokens": 120, "completion_tokens": 30},
}

OPENAI_RESPONSES: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "lookup_order",
            "arguments": json.dumps(LOOKUP_ARGS),
        },
        {"type": "function_call_output", "call_id": "call_1", "output": LOOKUP_RESULT},
        {
            "type": "function_call",
            "call_id": "call_2",
            "name": "refund",
            "arguments": json.dumps(REFUND_ARGS),
        },
        {"type": "function_call_output", "call_id": "call_2", "output": REFUND_RESULT},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": FINAL}]},
    ],
    "usage": {"input_tokens": 120, "output_tokens": 30, "total_tokens": 150},
}

ANTHROPIC: list[dict[str, Any]] = [
    {"role": "user", "content": USER},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "The order must be looked up first.", "signature": "x"},
            {"type": "text", "text": "Let me look that up."},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup_order", "input": LOOKUP_ARGS},
        ],
        "usage": {"input_tokens": 50, "output_tokens": 10},
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": LOOKUP_RESULT}],
    },
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_2", "name": "refund", "input": REFUND_ARGS}],
        "usage": {"input_tokens": 60, "output_tokens": 12},
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": [{"type": "text", "text": REFUND_RESULT}],
            }
        ],
    },
    {
        "role": "assistant",
        "content": [{"type": "text", "text": FINAL}],
        "usage": {"input_tokens": 10, "output_tokens": 8},
    },
]

ATIF: dict[str, Any] = {
    "schema_version": "ATIF-v1.4",
    "session_id": "s-1",
    "agent": {"name": "support-agent", "version": "1.0.0"},
    "steps": [
        {"step_id": 1, "source": "user", "message": USER, "timestamp": "2026-01-05T10:00:00Z"},
        {
            "step_id": 2,
            "source": "agent",
            "message": "Let me look that up.",
            "timestamp": "2026-01-05T10:00:01Z",
            "tool_calls": [
                {"tool_call_id": "call_1", "function_name": "lookup_order", "arguments": LOOKUP_ARGS}
            ],
            "observation": {"results": [{"source_call_id": "call_1", "content": LOOKUP_RESULT}]},
            "metrics": {"prompt_tokens": 50, "completion_tokens": 10},
        },
        {
            "step_id": 3,
            "source": "agent",
            "message": "",
            "timestamp": "2026-01-05T10:00:02Z",
            "tool_calls": [{"tool_call_id": "call_2", "function_name": "refund", "arguments": REFUND_ARGS}],
            "observation": {"results": [{"source_call_id": "call_2", "content": REFUND_RESULT}]},
            "metrics": {"prompt_tokens": 60, "completion_tokens": 12},
        },
        {
            "step_id": 4,
            "source": "agent",
            "message": FINAL,
            "timestamp": "2026-01-05T10:00:03.500Z",
            "metrics": {"prompt_tokens": 10, "completion_tokens": 8},
        },
    ],
    "final_metrics": {"total_prompt_tokens": 120, "total_completion_tokens": 30, "total_steps": 4},
}


def _attribute(key: str, value: object) -> dict[str, Any]:
    if isinstance(value, str):
        return {"key": key, "value": {"stringValue": value}}
    return {"key": key, "value": {"intValue": str(value)}}  # OTLP JSON writes 64-bit integers as strings


def _span(
    span_id: str, start_s: float, end_s: float, attributes: dict[str, object], **extra: Any
) -> dict[str, Any]:
    origin = 1_767_607_200_000_000_000
    return {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": span_id,
        "name": " ".join(
            str(attributes[key]) for key in ("gen_ai.operation.name", "gen_ai.tool.name") if key in attributes
        ),
        "startTimeUnixNano": str(origin + int(start_s * 1e9)),
        "endTimeUnixNano": str(origin + int(end_s * 1e9)),
        "attributes": [_attribute(key, value) for key, value in attributes.items()],
        **extra,
    }


def _chat(
    span_id: str, start_s: float, end_s: float, text: str | None, tokens: tuple[int, int]
) -> dict[str, Any]:
    attributes: dict[str, object] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.usage.input_tokens": tokens[0],
        "gen_ai.usage.output_tokens": tokens[1],
    }
    if text is not None:
        attributes["gen_ai.output.messages"] = json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": text}], "finish_reason": "stop"}]
        )
    return _span(span_id, start_s, end_s, attributes)


def _tool(
    span_id: str, start_s: float, end_s: float, name: str, call_id: str, arguments: object, result: str
) -> dict[str, Any]:
    return _span(
        span_id,
        start_s,
        end_s,
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": json.dumps(arguments),
            "gen_ai.tool.call.result": result,
        },
    )


OTLP: dict[str, Any] = {
    "resourceSpans": [
        {
            "resource": {"attributes": [_attribute("service.name", "support-agent")]},
            "scopeSpans": [
                {
                    "scope": {"name": "agent"},
                    # written out of order: the reader orders spans by their start
                    "spans": [
                        _chat("s5", 2.5, 3.5, FINAL, (10, 8)),
                        _tool("s4", 2.0, 2.4, "refund", "call_2", REFUND_ARGS, REFUND_RESULT),
                        _span(
                            "s0",
                            0.0,
                            3.5,
                            {"gen_ai.operation.name": "invoke_agent", "gen_ai.usage.input_tokens": 999},
                        ),
                        _chat("s1", 0.0, 1.0, "Let me look that up.", (50, 10)),
                        _tool("s2", 1.0, 1.3, "lookup_order", "call_1", LOOKUP_ARGS, LOOKUP_RESULT),
                        _chat("s3", 1.4, 1.9, None, (60, 12)),
                    ],
                }
            ],
        }
    ]
}

DIALECT_DOCUMENTS: dict[str, Any] = {
    "openai-chat": OPENAI_CHAT,
    "openai-responses": OPENAI_RESPONSES,
    "anthropic": ANTHROPIC,
    "atif": ATIF,
    "otlp": OTLP,
}
"""The run in each dialect, by the dialect's name."""


def long_chat(steps: int) -> dict[str, Any]:
    """An OpenAI chat run of about ``steps`` steps: tool calls and results of four tools in turn."""
    names = ("lookup_order", "search", "refund", "notify")
    calls = tuple(
        (names[index % 4], {"order_id": index, "note": "x" * 20}) for index in range(max(0, steps - 3) // 2)
    )
    return openai_chat(tools=calls)
