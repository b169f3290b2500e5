"""The tool-sequence grader: do the agent's tool calls follow the expected list of tools?

The expected tools are the config's ``tools``, or else the expected output: a JSON array of names, or names
separated by commas or lines. The agent's calls are compared, by name, in a ``mode``:

- ``exact``: the same calls in the same order, nothing more;
- ``in_order`` (the default): the expected calls occur in this order, other calls allowed between them
  (looked the order up *before* refunding it);
- ``any_order``: the same calls, each as many times, in any order;
- ``subset``: the agent called only expected tools, each at most as many times as listed (a second payment
  call fails); calling none passes;
- ``superset``: the agent made every expected call (as many times as listed), in any order, and maybe more.

A response without a readable trajectory is ``invalid_response``, never a pass: docs/trajectories.md.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, ClassVar

from assay.graders.contract.base import Preset
from assay.graders.contract.verdict import MatchStatus
from assay.graders.reading.json_reading import parse_json
from assay.graders.reading.text import read_text
from assay.graders.reading.trajectories import Judged, TrajectoryGrader
from assay.graders.trajectory.building import MAX_NAME_CHARS
from assay.graders.trajectory.record import Trajectory

MAX_EXPECTED_TOOLS = 1_000
_SHOWN = 200
"""Of a long sequence, the details keep this many names (the reason says where it departs)."""
_SEPARATORS = re.compile(r"[,\n]")


class Mode(StrEnum):
    """How the agent's calls are compared with the expected tools."""

    EXACT = "exact"
    IN_ORDER = "in_order"
    ANY_ORDER = "any_order"
    SUBSET = "subset"
    SUPERSET = "superset"


def _names(value: object) -> list[str] | str:
    """The expected tools an expected output gives, or why it gives none."""
    text = read_text(value).strip()
    if not text:
        return (
            "No tools are expected: set 'tools' or give them as the expected output (a JSON array of names)"
        )
    if text.startswith("["):
        parsed, problem = parse_json(text)
        if problem is not None:
            return f"Expected output {problem}"
        if not isinstance(parsed, list) or not all(isinstance(name, str) and name for name in parsed):
            return "Expected output is not a JSON array of tool names"
        names = parsed
    else:
        names = [name.strip() for name in _SEPARATORS.split(text) if name.strip()]
    if len(names) > MAX_EXPECTED_TOOLS:
        return f"Expected output names more than {MAX_EXPECTED_TOOLS:,} tools"
    if any(len(name) > MAX_NAME_CHARS for name in names):
        return f"Expected output names a tool longer than {MAX_NAME_CHARS} characters"
    return names


_encode = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode
"""Names as JSON in a reason, by an encoder built once (``json.dumps`` with options builds one a call)."""


def _quote(names: Sequence[str]) -> str:
    shown = _encode(list(names[:8]))
    return shown if len(names) <= 8 else shown[:-1] + f", … ({len(names)} calls)]"


def _missing(expected: Counter[str], actual: Counter[str]) -> str | None:
    short = expected - actual
    if not short:
        return None
    name = next(iter(short))
    return f"{_encode(name)} is called {actual[name]} of {expected[name]} expected times"


def _extra(expected: Counter[str], actual: Counter[str]) -> str | None:
    over = actual - expected
    if not over:
        return None
    name = next(iter(over))
    quoted = _encode(name)
    return f"{quoted} is called {actual[name]} times, {expected[name]} allowed"


def _in_order(expected: Sequence[str], actual: Sequence[str]) -> str | None:
    """Why ``expected`` is not a subsequence of ``actual``, else ``None``."""
    position = 0
    for index, name in enumerate(expected):
        try:
            position = actual.index(name, position) + 1
        except ValueError:
            after = f" after call {position}" if position else ""
            return f"expected call {index + 1}, {_encode(name)}, is not made{after}"
    return None


def _exact(expected: Sequence[str], actual: Sequence[str]) -> str | None:
    for index, (wanted, made) in enumerate(zip(expected, actual, strict=False)):
        if wanted != made:
            quoted = _encode(wanted), _encode(made)
            return f"call {index + 1} is {quoted[1]}, {quoted[0]} expected"
    if len(expected) != len(actual):
        return f"{len(actual)} calls made, {len(expected)} expected"
    return None


class ToolSequenceGrader(TrajectoryGrader):
    """Passes when the agent's tool calls match the expected tools in the configured mode."""

    default_id: ClassVar[str] = "tool-sequence"
    name: ClassVar[str] = "Tool sequence"
    description: ClassVar[str] = (
        "The agent's tool calls match the expected list of tools: exactly, in order (others between), in any "
        "order, only expected tools (subset), or every expected tool (superset)"
    )
    type: ClassVar[str] = "trajectory"
    version: ClassVar[str] = "1.0.0"
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "tools": {
                "type": ["array", "null"],
                "items": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
                "maxItems": MAX_EXPECTED_TOOLS,
                "description": (
                    "The expected tools, in order (a name twice: two calls); null reads them from the "
                    "expected output (a JSON array, or names separated by commas or lines)"
                ),
                "default": None,
            },
            "mode": {
                "type": "string",
                "enum": [mode.value for mode in Mode],
                "description": (
                    "exact: the same calls in order; in_order: these calls in this order, others between; "
                    "any_order: the same calls in any order; subset: only expected calls; superset: every "
                    "expected call, maybe more"
                ),
                "default": Mode.IN_ORDER.value,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "The agent's tool calls match the expected tools in the configured mode",
        "0.0": "They do not (the reason names the first departure), or there is no readable trajectory",
    }
    presets: ClassVar[Mapping[str, Preset]] = {
        "exact": Preset(
            "Exactly these calls in this order, nothing else (LangSmith's strict)", {"mode": "exact"}
        ),
        "any-order": Preset("The same calls in any order (LangSmith's unordered)", {"mode": "any_order"}),
        "subset": Preset("Only the expected tools, each at most as often as listed", {"mode": "subset"}),
        "superset": Preset("Every expected call, in any order, maybe more", {"mode": "superset"}),
    }

    __slots__ = ("_mode", "_tools")

    def __init__(self, grader_id: str = "tool-sequence", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        tools = self._config["tools"]
        self._tools: tuple[str, ...] | None = None if tools is None else tuple(tools)
        self._mode = Mode(self._config["mode"])
        self._freeze()

    def read_expected(self, expected_output: Any) -> tuple[Any, str | None]:
        """The expected tools: the config's, else the expected output's."""
        if self._tools is not None:
            return self._tools, None
        names = _names(expected_output)
        return (None, names) if isinstance(names, str) else (tuple(names), None)

    def judge(self, trajectory: Trajectory, expected: Any) -> Judged:
        """Compare the calls' names with the expected tools in this grader's mode."""
        actual = trajectory.tool_names()
        mode = self._mode
        if mode is Mode.EXACT:
            departure = _exact(expected, actual)
        elif mode is Mode.IN_ORDER:
            departure = _in_order(expected, actual)
        else:
            wanted, made = Counter(expected), Counter(actual)
            if mode is Mode.ANY_ORDER:
                departure = _missing(wanted, made) or _extra(wanted, made)
            elif mode is Mode.SUBSET:
                departure = _extra(wanted, made)
            else:
                departure = _missing(wanted, made)
        shown = list(actual[:_SHOWN])
        extra = {"mode": mode._value_, "tool_calls": len(actual)}
        if departure is None:
            reason = f"The agent's calls {_quote(actual)} match {_quote(expected)} ({mode._value_})"
            return Judged(MatchStatus.MATCH, reason, list(expected), shown, extra)
        calls, listed = _quote(actual), _quote(expected)
        reason = f"The agent's calls {calls} do not match {listed} ({mode._value_}): {departure}"
        return Judged(MatchStatus.MISMATCH, reason, list(expected), shown, extra)
