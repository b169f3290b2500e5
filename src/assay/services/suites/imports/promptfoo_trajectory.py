"""promptfoo's ``trajectory:*`` assertions as Assay's trajectory graders (docs/imports.md).

promptfoo reads tool calls from a test's trace (OpenTelemetry spans) and matches a tool by a glob, ignoring
case; Assay's trajectory graders read the agent's trajectory in any dialect (docs/trajectories.md) and name a
tool exactly. So a name is mapped as written, a glob (``*``, ``?``) is refused, and the line says names are
compared exactly. What has no Assay equivalent is refused, saying why: span kinds other than tools, a count
of every span, argument ``defaults`` and ``ignore``, a lower bound on the number of all tool calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assay.services.suites.imports import checks
from assay.services.suites.imports.records import Assertion, UnsupportedError

__all__ = ["NAME_NOTE", "TRAJECTORY_TYPES", "trajectory_builder"]

TRAJECTORY_TYPES = frozenset(
    {
        "trajectory:tool-used",
        "trajectory:tool-sequence",
        "trajectory:tool-args-match",
        "trajectory:step-count",
    }
)
NAME_NOTE = "tool names are compared exactly (promptfoo ignores their case)"

_MATCHER_KEYS = frozenset({"name", "pattern", "type"})
_COUNT_KEYS = _MATCHER_KEYS | {"min", "max"}
_ARGS_KEYS = _MATCHER_KEYS | {"args", "arguments", "mode", "defaults", "ignore"}
_SEQUENCE_KEYS = frozenset({"mode", "steps"})
_ARGS_MODES = {"partial": "contains", "exact": "equals"}


def trajectory_builder(base: str, value: Any, negated: bool, label: str) -> Callable[[], Assertion]:
    """The builder of the Assay assertion deciding as promptfoo's ``base`` (``not-`` when ``negated``)."""
    if base == "trajectory:tool-used":
        return _tool_used(value, negated, label)
    if base == "trajectory:tool-sequence":
        made = _tool_sequence(value, label)
    elif base == "trajectory:tool-args-match":
        made = _tool_args(value, label)
    else:
        made = _step_count(value, label)
    return (lambda: checks.negate(made())) if negated else made


def _keys(value: Mapping[str, Any], allowed: frozenset[str], label: str) -> None:
    unknown = set(value) - allowed
    if unknown:
        listed = ", ".join(sorted(map(str, unknown)))
        read = ", ".join(sorted(allowed))
        why = f"its value has key(s) promptfoo does not read here: {listed} (it reads {read})"
        raise UnsupportedError(label, why)


def _tool(matcher: object, label: str) -> str:
    """The tool a promptfoo step matcher names: a string, or ``{name | pattern, type?}`` (a tool step)."""
    if isinstance(matcher, dict):
        kind = matcher.get("type")
        if kind is not None and kind != "tool" and kind != ["tool"]:
            raise UnsupportedError(
                label,
                f"it matches steps of type {kind!r}; Assay's trajectories hold tool calls and messages, not "
                "promptfoo's other span kinds",
            )
        matcher = matcher.get("pattern") or matcher.get("name")  # promptfoo's own precedence
    if not isinstance(matcher, str) or not matcher.strip():
        raise UnsupportedError(label, "a tool must be named by a non-empty name or pattern")
    if "*" in matcher or "?" in matcher:
        raise UnsupportedError(
            label, f"{matcher!r} is a glob pattern; Assay's trajectory graders name a tool exactly"
        )
    return matcher  # as written: promptfoo anchors its pattern, so spaces count


def _bound(value: Mapping[str, Any], key: str, label: str) -> int | None:
    bound = value.get(key)
    if bound is None:
        return None
    if isinstance(bound, bool) or not isinstance(bound, int) or bound < 0:
        raise UnsupportedError(label, f"its {key} must be a whole number ≥ 0")
    return bound


def _called(tool: str, at_least: int, at_most: int | None) -> Assertion:
    return Assertion(grader_id="tool-called", config={"tool": tool, "at_least": at_least, "at_most": at_most})


def _tool_used(value: Any, negated: bool, label: str) -> Callable[[], Assertion]:
    """A tool, or each of a list, is used (never, negated); an object bounds one tool's calls."""
    if isinstance(value, str) or (isinstance(value, list) and all(isinstance(item, str) for item in value)):
        tools = [_tool(item, label) for item in ([value] if isinstance(value, str) else value)]
        if not tools:
            raise UnsupportedError(label, "it names no tool")
        # promptfoo's negation of a list passes only when none of the tools is used: each never called.
        called = [_called(tool, 0, 0) if negated else _called(tool, 1, None) for tool in tools]
        if len(called) == 1:
            return lambda: called[0]
        return lambda: Assertion(grader_id="all", config={"graders": [item.spec() for item in called]})
    if not isinstance(value, dict):
        raise UnsupportedError(label, "its value must be a tool, a list of tools or {name, min?, max?}")
    _keys(value, _COUNT_KEYS, label)
    tool = _tool(value, label)
    at_least, at_most = _bound(value, "min", label), _bound(value, "max", label)
    made = _called(tool, 1 if at_least is None else at_least, at_most)
    return (lambda: checks.negate(made)) if negated else (lambda: made)


def _tool_sequence(value: Any, label: str) -> Callable[[], Assertion]:
    """The tools in this order, others allowed between (``in_order``), or exactly these (``exact``)."""
    mode: object = "in_order"
    if isinstance(value, dict):
        _keys(value, _SEQUENCE_KEYS, label)
        mode, value = value.get("mode") or "in_order", value.get("steps")
    if mode not in ("in_order", "exact"):
        raise UnsupportedError(label, f"its mode {mode!r} is not promptfoo's exact or in_order")
    if not isinstance(value, list) or not value:
        raise UnsupportedError(label, "its value must be a non-empty list of steps, or {mode?, steps}")
    tools = []
    for item in value:
        if isinstance(item, dict):
            _keys(item, _MATCHER_KEYS, label)
        tools.append(_tool(item, label))
    return lambda: Assertion(grader_id="tool-sequence", config={"tools": tools, "mode": mode})


def _tool_args(value: Any, label: str) -> Callable[[], Assertion]:
    """Some call of the tool has these arguments: containing them (``partial``) or exactly (``exact``)."""
    if not isinstance(value, dict):
        raise UnsupportedError(label, "its value must be {name, args, mode?}")
    _keys(value, _ARGS_KEYS, label)
    for key in ("defaults", "ignore"):
        if key in value:
            raise UnsupportedError(
                label, f"its {key!r} has no Assay equivalent (tool-args compares every argument)"
            )
    tool = _tool(value, label)
    expected = value["args"] if "args" in value else value.get("arguments")
    if expected is None:
        raise UnsupportedError(label, "it needs the expected arguments (args or arguments, not null)")
    mode = _ARGS_MODES.get(value.get("mode") or "partial")
    if mode is None:
        raise UnsupportedError(label, "its mode must be partial or exact")
    config = {"tool": tool, "arguments": expected, "mode": mode, "call": "any"}
    return lambda: Assertion(grader_id="tool-args", config=config)


def _step_count(value: Any, label: str) -> Callable[[], Assertion]:
    """The number of a tool's calls within bounds, or at most so many tool calls in all."""
    if not isinstance(value, dict):
        raise UnsupportedError(label, "its value must be {type: tool, name?, min?, max?}")
    _keys(value, _COUNT_KEYS, label)
    at_least, at_most = _bound(value, "min", label), _bound(value, "max", label)
    if at_least is None and at_most is None:
        raise UnsupportedError(label, "it needs a min or a max")
    if value.get("type") not in ("tool", ["tool"]):
        raise UnsupportedError(
            label,
            "it counts trace spans of every kind; Assay counts a trajectory's tool calls (type: tool) only",
        )
    if value.get("name") is not None or value.get("pattern") is not None:
        tool = _tool(value, label)
        made = _called(tool, at_least or 0, at_most)
        return lambda: made
    if at_least:
        raise UnsupportedError(label, "a lower bound on all tool calls has no Assay grader (name the tool)")
    return lambda: Assertion(grader_id="trajectory-budget", config={"max_tool_calls": at_most})
