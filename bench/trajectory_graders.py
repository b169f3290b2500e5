"""Benchmark: the trajectory graders on a 200-step trajectory already read, and reading it in each dialect.

Run: ``.venv/bin/python bench/trajectory_graders.py [--steps 200] [--calls 2000] [--repeats 7]``.

One support agent's run of ``--steps`` steps (a user message, then tool calls of four tools in turn, each
with its result and a line of the assistant's text) is written in every dialect. Printed: µs of CPU time
per ``grade()`` of each grader on an ``AgentReply`` holding the trajectory (the runner's case: read once),
for a few configurations each; then µs per ``read_trajectory`` of each dialect's parsed document, and per
read of the reply's JSON text (parse and read: what a grader does with a recorded answer, before its
cache). Medians of ``--repeats`` passes. Target: ≤ 50 µs per grade (issue 26).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from assay.graders import catalog
from assay.graders.contract.reply import AgentReply
from assay.graders.reading.json_reading import parse_json
from assay.graders.trajectory.readers import read_trajectory
from assay.graders.trajectory.record import Trajectory

TOOLS = ("lookup_order", "search", "refund", "notify")
TARGET_US = 50.0


def _calls(steps: int) -> list[tuple[str, str, dict[str, Any], str, str]]:
    """``(call id, tool, arguments, result, assistant text)`` per round of three steps."""
    return [
        (
            f"call_{n}",
            TOOLS[n % 4],
            {"order_id": n, "note": "x" * 20},
            f'{{"ok": true, "n": {n}}}',
            f"Step {n} done.",
        )
        for n in range(max(1, (steps - 1) // 3))
    ]


def documents(steps: int) -> dict[str, Any]:
    """The run in each dialect."""
    calls = _calls(steps)
    chat: list[dict[str, Any]] = [{"role": "user", "content": "Refund order 7"}]
    responses: list[dict[str, Any]] = []
    anthropic: list[dict[str, Any]] = [{"role": "user", "content": "Refund order 7"}]
    atif_steps: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "message": "Refund order 7"}]
    spans: list[dict[str, Any]] = []
    for n, (call_id, name, arguments, result, text) in enumerate(calls):
        encoded = json.dumps(arguments)
        function = {"name": name, "arguments": encoded}
        chat += [
            {
                "role": "assistant",
                "content": text,
                "tool_calls": [{"id": call_id, "type": "function", "function": function}],
            },
            {"role": "tool", "tool_call_id": call_id, "content": result},
        ]
        responses += [
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]},
            {"type": "function_call", "call_id": call_id, "name": name, "arguments": encoded},
            {"type": "function_call_output", "call_id": call_id, "output": result},
        ]
        anthropic += [
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": text},
                    {"type": "tool_use", "id": call_id, "name": name, "input": arguments},
                ],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": result}]},
        ]
        atif_steps.append(
            {
                "step_id": n + 2,
                "source": "agent",
                "message": text,
                "tool_calls": [{"tool_call_id": call_id, "function_name": name, "arguments": arguments}],
                "observation": {"results": [{"source_call_id": call_id, "content": result}]},
                "metrics": {"prompt_tokens": 100, "completion_tokens": 10},
            }
        )
        start = 1_767_607_200_000_000_000 + n * 10_000_000
        output = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}])
        spans += [
            {
                "name": "chat",
                "startTimeUnixNano": str(start),
                "endTimeUnixNano": str(start + 4_000_000),
                "attributes": [
                    {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                    {"key": "gen_ai.output.messages", "value": {"stringValue": output}},
                    {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "100"}},
                    {"key": "gen_ai.usage.output_tokens", "value": {"intValue": "10"}},
                ],
            },
            {
                "name": f"execute_tool {name}",
                "startTimeUnixNano": str(start + 5_000_000),
                "endTimeUnixNano": str(start + 9_000_000),
                "attributes": [
                    {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                    {"key": "gen_ai.tool.name", "value": {"stringValue": name}},
                    {"key": "gen_ai.tool.call.id", "value": {"stringValue": call_id}},
                    {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": encoded}},
                    {"key": "gen_ai.tool.call.result", "value": {"stringValue": result}},
                ],
            },
        ]
    return {
        "openai-chat": {"messages": chat, "usage": {"prompt_tokens": 9000, "completion_tokens": 900}},
        "openai-responses": {"output": responses, "usage": {"input_tokens": 9000, "output_tokens": 900}},
        "anthropic": anthropic,
        "atif": {
            "schema_version": "ATIF-v1.4",
            "session_id": "s",
            "agent": {"name": "a", "version": "1"},
            "steps": atif_steps,
        },
        "otlp": {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]},
    }


GRADINGS: list[tuple[str, dict[str, Any], str | None]] = [
    ("tool-called", {"tool": "refund"}, None),
    ("tool-called", {"at_least": 0, "at_most": 0}, "delete_account"),
    ("tool-sequence", {"mode": "in_order"}, '["lookup_order", "refund", "notify"]'),
    ("tool-sequence", {"mode": "any_order", "tools": ["lookup_order", "refund"]}, None),
    ("tool-sequence", {"mode": "subset", "tools": list(TOOLS)}, None),
    ("tool-args", {"tool": "refund"}, '{"order_id": 2}'),
    ("tool-args", {"tool": "refund", "call": "all", "arguments": {"note": "x" * 20}}, None),
    (
        "tool-args",
        {"tool": "notify", "mode": "schema", "schema": {"required": ["order_id"]}, "call": "last"},
        None,
    ),
    ("trajectory-budget", {"max_steps": 500, "max_tool_calls": 100, "max_tokens": 20_000}, None),
]


def per_call_us(work: Callable[[], object], calls: int, repeats: int) -> float:
    """Median over ``repeats`` passes of the CPU µs one call of ``work`` takes."""
    passes = []
    for _ in range(repeats):
        started = time.process_time_ns()
        for _ in range(calls):
            work()
        passes.append((time.process_time_ns() - started) / calls / 1000)
    return statistics.median(passes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    written = documents(args.steps)
    read = read_trajectory(written["openai-chat"])
    assert isinstance(read, Trajectory)
    reply = AgentReply(text=read.final_text or "", trajectory=read)
    print(f"a trajectory of {len(read.steps)} steps, {len(read.tool_calls())} tool calls")
    print(f"{'grader':<18} {'config':<78} {'µs/grade':>9} {'verdict':>9}")
    for grader_id, config, expected in GRADINGS:
        grader_class = catalog.lookup(grader_id)
        assert grader_class is not None
        grader = grader_class(grader_id, config)
        verdict = grader.grade(reply, expected)["details"]["match_status"]
        us = per_call_us(
            lambda grader=grader, expected=expected: grader.grade(reply, expected), args.calls, args.repeats
        )
        flag = "" if us <= TARGET_US else f"  over {TARGET_US:g} µs"
        shown = json.dumps(config)
        print(f"{grader_id:<18} {shown[:78]:<78} {us:>9.1f} {verdict:>9}{flag}")
    print(f"\n{'dialect':<18} {'steps':>6} {'µs/read (parsed)':>17} {'µs/read (text)':>15} {'KB':>6}")
    reads = max(20, args.calls // 20)
    for dialect, document in written.items():
        text = json.dumps(document)
        trajectory = read_trajectory(document)
        assert isinstance(trajectory, Trajectory), trajectory
        parsed_us = per_call_us(lambda document=document: read_trajectory(document), reads, args.repeats)
        text_us = per_call_us(lambda text=text: read_trajectory(parse_json(text)[0]), reads, args.repeats)
        kb = len(text) / 1024
        print(f"{dialect:<18} {len(trajectory.steps):>6} {parsed_us:>17.0f} {text_us:>15.0f} {kb:>6.0f}")


if __name__ == "__main__":
    main()
