"""The trajectory graders, by example: every dialect, every mode, and failing closed without a trajectory."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from assay.graders import catalog
from assay.graders.builtin.tool_args import ToolArgsGrader
from assay.graders.builtin.tool_called import ToolCalledGrader
from assay.graders.builtin.tool_sequence import ToolSequenceGrader
from assay.graders.builtin.trajectory_budget import TrajectoryBudgetGrader
from assay.graders.contract.reply import AgentReply
from assay.graders.contract.verdict import status_of
from assay.graders.reading.trajectories import TrajectoryGrader, trajectory_of
from assay.graders.trajectory.readers import read_trajectory
from assay.graders.trajectory.record import Step, ToolCall, Trajectory
from tests.support import trajectories as run

TRAJECTORY_GRADERS = ("tool-called", "tool-sequence", "tool-args", "trajectory-budget")
DIALECTS = sorted(run.DIALECT_DOCUMENTS)


def _status(grader: TrajectoryGrader, response: Any, expected: Any = None) -> str:
    return status_of(grader.grade(response, expected)).value


def _trajectory(*names: str, arguments: Any = None) -> Trajectory:
    return Trajectory(
        steps=tuple(
            Step(kind="tool_call", tool_call=ToolCall(name=name, arguments=arguments)) for name in names
        ),
        dialect="test",
    )


@pytest.mark.parametrize("dialect", DIALECTS)
def test_each_grader_reads_each_dialect_from_the_reply_text(dialect: str) -> None:
    text = json.dumps(run.DIALECT_DOCUMENTS[dialect])
    fenced = f"Here is what I did:\n```json\n{text}\n```"
    for response in (text, fenced, run.DIALECT_DOCUMENTS[dialect], AgentReply(text="Done.", raw=text)):
        assert ToolCalledGrader().grade(response, "lookup_order")["passed"], response
        assert (
            _status(ToolCalledGrader(config={"tool": "refund", "at_least": 0, "at_most": 0}), response)
            == "mismatch"
        )
        assert ToolSequenceGrader(config={"tools": ["lookup_order", "refund"], "mode": "exact"}).grade(
            response, None
        )["passed"]
        assert ToolArgsGrader(config={"tool": "refund"}).grade(response, '{"amount": 20}')["passed"]
        assert TrajectoryBudgetGrader(config={"max_tool_calls": 2, "max_tokens": 150}).grade(response, None)[
            "passed"
        ]
        assert _status(TrajectoryBudgetGrader(config={"max_tokens": 149}), response) == "mismatch"
    result = ToolCalledGrader().grade(text, "lookup_order")
    assert result["details"]["dialect"] == dialect
    assert result["details"]["count"] == 1


UNREADABLE: list[Any] = [
    None,
    "",
    "I refunded the order.",
    '{"answer": "Refunded"}',
    "[1, 2]",
    '{"messages": [{"content": "no role"}]}',
    "```json\n{not json\n```",
    AgentReply(text="Refunded."),
    AgentReply(text="Refunded.", raw='{"output": "x"}'),
    42,
    b"{}",
    {"messages": []},
]


@pytest.mark.parametrize("grader_id", TRAJECTORY_GRADERS)
def test_no_readable_trajectory_is_invalid_response_whatever_the_check(grader_id: str) -> None:
    grader_class = catalog.lookup(grader_id)
    assert grader_class is not None
    configs: list[dict[str, Any]] = [dict(preset.config) for preset in grader_class.presets.values()]
    configs += [{"tool": "refund", "at_least": 0, "at_most": 0}] if grader_id == "tool-called" else []
    configs += [{"mode": "subset", "tools": ["a"]}] if grader_id == "tool-sequence" else []
    configs += [{"mode": "schema", "schema": {}}] if grader_id == "tool-args" else []
    configs += [{"max_steps": 1_000_000}] if grader_id == "trajectory-budget" else []
    for config in configs:
        grader = grader_class(
            grader_id, {**config, "max_steps": 10} if grader_id == "trajectory-budget" else config
        )
        for response in UNREADABLE:
            result = grader.grade(response, '["refund"]' if grader_id != "tool-args" else '{"a": 1}')
            assert result["passed"] is False, (config, response)
            assert result["details"]["match_status"] == "invalid_response", (config, response)
            assert result["details"]["reason"]


def test_the_reason_says_why_there_is_no_trajectory() -> None:
    never = ToolCalledGrader(config={"tool": "refund", "at_least": 0, "at_most": 0})
    reason = never.grade('{"messages": [{"content": "no role"}]}', None)["details"]["reason"]
    assert reason == (
        "Response has no readable trajectory (read as openai-chat): it is not openai-chat at "
        "$.messages[0].role: Field required"
    )
    assert "no known dialect" in never.grade('{"answer": 1}', None)["details"]["reason"]
    assert "not JSON" in never.grade("I refunded it", None)["details"]["reason"]


def test_an_agent_reply_s_trajectory_is_read_before_its_text() -> None:
    reply = AgentReply(text="Refunded.", trajectory=_trajectory("lookup_order", "refund"), raw="not json")
    assert trajectory_of(reply) is reply.trajectory
    assert ToolSequenceGrader().grade(reply, "lookup_order, refund")["passed"]


@pytest.mark.parametrize(
    ("config", "calls", "status", "says"),
    [
        ({}, ("refund",), "match", "called 'refund' once"),
        ({}, (), "mismatch", "never called 'refund'; at least once expected"),
        ({"at_least": 2}, ("refund",), "mismatch", "at least twice expected"),
        ({"at_most": 1}, ("refund", "refund"), "mismatch", "called 'refund' twice; at most once"),
        ({"at_least": 0, "at_most": 0}, ("lookup",), "match", "never called"),
        ({"at_least": 0, "at_most": 0}, ("refund",), "mismatch", "must never be called"),
        ({"at_least": 1, "at_most": 1}, ("refund", "lookup", "refund"), "mismatch", "twice"),
    ],
)
def test_tool_called_counts(config: dict[str, Any], calls: tuple[str, ...], status: str, says: str) -> None:
    result = ToolCalledGrader(config=config).grade(_trajectory(*calls), "refund")
    assert result["details"]["match_status"] == status
    assert says in result["details"]["reason"]


def test_tool_called_refuses_a_config_that_checks_nothing_and_an_empty_name() -> None:
    assert ToolCalledGrader.config_problems({"at_least": 0})
    assert ToolCalledGrader.config_problems({"at_least": 3, "at_most": 2})
    assert ToolCalledGrader().check_expected("  ") is not None
    assert _status(ToolCalledGrader(), _trajectory("refund"), None) == "invalid_expected"
    assert ToolCalledGrader(config={"tool": "refund"}).check_expected(None) is None


SEQUENCE = ("lookup_order", "search", "refund", "notify")


@pytest.mark.parametrize(
    ("mode", "expected", "passes"),
    [
        ("exact", SEQUENCE, True),
        ("exact", ("lookup_order", "refund"), False),
        ("exact", (*SEQUENCE, "notify"), False),
        ("in_order", ("lookup_order", "refund"), True),
        ("in_order", ("refund", "lookup_order"), False),
        ("in_order", ("lookup_order", "lookup_order"), False),
        ("any_order", tuple(reversed(SEQUENCE)), True),
        ("any_order", ("lookup_order", "refund", "search"), False),
        ("any_order", (*SEQUENCE, "refund"), False),
        ("subset", (*SEQUENCE, "escalate"), True),
        ("subset", ("lookup_order", "refund", "search"), False),
        ("superset", ("refund", "lookup_order"), True),
        ("superset", ("refund", "refund"), False),
        ("superset", (), True),
        ("exact", (), False),
    ],
)
def test_tool_sequence_modes(mode: str, expected: tuple[str, ...], passes: bool) -> None:
    trajectory = _trajectory(*SEQUENCE)
    by_config = ToolSequenceGrader(config={"mode": mode, "tools": list(expected)}).grade(trajectory, None)
    assert by_config["passed"] is passes, by_config["details"]["reason"]
    if expected:  # the expected output says the same, as JSON or as a list
        by_json = ToolSequenceGrader(config={"mode": mode}).grade(trajectory, json.dumps(expected))
        by_lines = ToolSequenceGrader(config={"mode": mode}).grade(trajectory, "\n".join(expected))
        assert by_json["passed"] is by_lines["passed"] is passes
    assert by_config["details"]["normalized_actual"] == list(SEQUENCE)


def test_tool_sequence_names_the_first_departure_and_refuses_an_unreadable_list() -> None:
    grader = ToolSequenceGrader(config={"mode": "exact"})
    reason = grader.grade(_trajectory("lookup_order", "refund", "refund"), '["lookup_order", "refund"]')
    assert reason["details"]["reason"].endswith("(exact): 3 calls made, 2 expected")
    skipped = ToolSequenceGrader().grade(_trajectory("refund"), '["lookup_order", "refund"]')
    assert skipped["details"]["reason"].endswith('expected call 1, "lookup_order", is not made')
    twice = ToolSequenceGrader(config={"mode": "subset"}).grade(_trajectory("refund", "refund"), "refund")
    assert twice["details"]["reason"].endswith('"refund" is called 2 times, 1 allowed')
    for expected in ("[1, 2]", "[", "", None, '["a", ""]'):
        assert grader.check_expected(expected) is not None, expected
        assert _status(grader, _trajectory("a"), expected) == "invalid_expected"


def _calls(*arguments: Any) -> Trajectory:
    steps = tuple(Step(kind="tool_call", tool_call=ToolCall(name="refund", arguments=a)) for a in arguments)
    return Trajectory(
        steps=(*steps, Step(kind="tool_call", tool_call=ToolCall(name="search"))), dialect="test"
    )


@pytest.mark.parametrize(
    ("config", "expected", "trajectory", "passes", "says"),
    [
        ({}, '{"order_id": 7}', _calls({"order_id": 7, "amount": 20}), True, "#1 has the expected"),
        ({"mode": "equals"}, '{"order_id": 7}', _calls({"order_id": 7, "amount": 20}), False, "not expected"),
        ({"mode": "equals"}, '{"order_id": 7}', _calls({"order_id": 8}, {"order_id": 7}), True, "#2"),
        ({"call": "first"}, '{"order_id": 7}', _calls({"order_id": 8}, {"order_id": 7}), False, "$.order_id"),
        ({"call": "last"}, '{"order_id": 7}', _calls({"order_id": 8}, {"order_id": 7}), True, "last call"),
        ({"call": "all"}, '{"order_id": 7}', _calls({"order_id": 7}, {"order_id": 8}), False, "(all)"),
        ({"call": "all"}, '{"order_id": 7}', _calls({"order_id": 7}, {"order_id": 7}), True, "Every call"),
        ({}, '{"order_id": 7}', _calls("{order_id: 7"), False, "not JSON"),
        ({}, '{"order_id": 7}', _calls(), False, "never called"),
        (
            {"tool": "notify"},
            '{"order_id": 7}',
            _calls({"order_id": 7}),
            False,
            "never called the tool 'notify'",
        ),
        ({"tool": None}, '{"order_id": 7}', _calls({"order_id": 7}), True, "has the expected"),
        ({"arguments": {"amount": 20}}, "ignored", _calls({"order_id": 7, "amount": 20.0}), True, "expected"),
        (
            {"mode": "schema", "schema": {"type": "object", "required": ["amount"]}},
            None,
            _calls({"order_id": 7}),
            False,
            "'amount' is a required property",
        ),
        (
            {"mode": "schema", "schema": {"properties": {"amount": {"maximum": 50}}}},
            None,
            _calls({"amount": 20}),
            True,
            "expected",
        ),
    ],
)
def test_tool_args(
    config: dict[str, Any], expected: Any, trajectory: Trajectory, passes: bool, says: str
) -> None:
    result = ToolArgsGrader(config={"tool": "refund", **config}).grade(trajectory, expected)
    assert result["passed"] is passes, result["details"]["reason"]
    assert says in result["details"]["reason"]


def test_tool_args_uses_the_json_schema_rules_of_the_json_grader() -> None:
    assert ToolArgsGrader.config_problems({"mode": "schema"})  # no schema
    assert ToolArgsGrader.config_problems({"mode": "schema", "schema": {"pattern": "(?<=a)b"}})  # not RE2
    assert ToolArgsGrader.config_problems({"mode": "schema", "schema": {"$ref": "http://x/y"}})  # remote
    assert ToolArgsGrader.config_problems({"schema": {"type": "object"}})  # a schema the mode ignores
    assert ToolArgsGrader().check_expected("not json") is not None


def test_trajectory_budget() -> None:
    trajectory = read_trajectory(run.OTLP)
    assert isinstance(trajectory, Trajectory)
    within = TrajectoryBudgetGrader(config={"max_steps": 7, "max_seconds": 3.5, "max_input_tokens": 120})
    result = within.grade(trajectory, None)
    assert result["passed"], result["details"]["reason"]
    assert result["details"]["figures"] == {"max_steps": 7, "max_seconds": 3.5, "max_input_tokens": 120}
    over = TrajectoryBudgetGrader(config={"max_steps": 6, "max_tool_calls": 1, "max_seconds": 10})
    assert (
        over.grade(trajectory, None)["details"]["reason"]
        == "Over budget: 7 steps, at most 6; 2 tool calls, at most 1"
    )
    untimed = copy.deepcopy(run.OPENAI_CHAT)
    unknown = TrajectoryBudgetGrader(config={"max_seconds": 60}).grade(untimed, None)
    assert unknown["details"]["match_status"] == "invalid_response"
    assert unknown["details"]["reason"] == "The trajectory (openai-chat) gives no figure for: seconds"
    assert _status(TrajectoryBudgetGrader(), trajectory) == "invalid_expected"
    assert TrajectoryBudgetGrader().check_expected("anything") is not None


def test_trajectory_graders_compose_with_text_graders() -> None:
    all_grader = catalog.lookup("all")
    assert all_grader is not None
    both = all_grader(
        "all",
        {
            "graders": [
                {"grader_id": "tool-called", "config": {"tool": "refund"}},
                {"grader_id": "contains", "expected_output": "Refunded"},
            ]
        },
    )
    reply = AgentReply(text="Refunded 20.0 for order 7.", trajectory=read_trajectory(run.ANTHROPIC))  # type: ignore[arg-type]
    assert both.grade(reply, None)["passed"]
    skipped = AgentReply(text="Refunded 20.0 for order 7.", trajectory=_trajectory("lookup_order"))
    failed = both.grade(skipped, None)
    assert failed["passed"] is False
    assert [child["passed"] for child in failed["details"]["children"]] == [False, True]
    text_only = both.grade("Refunded 20.0 for order 7.", None)  # no trajectory: never a pass
    assert text_only["passed"] is False


def test_a_verdict_on_an_agent_reply_stores_its_text_as_the_answer() -> None:
    reply = AgentReply(text="Refunded.", trajectory=_trajectory("refund"), raw=json.dumps(run.OPENAI_CHAT))
    for grader in (ToolCalledGrader(), catalog.default("contains")):
        result = grader.grade(reply, "refund")
        assert result["details"]["actual_original"] == "Refunded."
        json.dumps(result, allow_nan=False)  # stored as JSON, as any verdict


def test_negating_or_weighing_a_trajectory_check_never_passes_an_unreadable_trajectory() -> None:
    never_refund = {"grader_id": "tool-called", "config": {"tool": "refund"}}
    negated = catalog.lookup("not")
    weighted = catalog.lookup("weighted")
    assert negated is not None
    assert weighted is not None
    not_refunded = negated("not", {"grader": never_refund})
    assert not_refunded.grade(_trajectory("lookup_order"), None)["passed"]
    assert not_refunded.grade(_trajectory("refund"), None)["passed"] is False
    unread = not_refunded.grade("I did not refund anything.", None)
    assert (unread["passed"], unread["details"]["match_status"]) == (False, "invalid_response")
    scored = weighted(
        "weighted",
        {
            "graders": [
                {**never_refund, "weight": 1},
                {"grader_id": "contains", "expected_output": "Refunded", "weight": 3},
            ],
            "threshold": 0.8,
        },
    )
    assert scored.grade(AgentReply(text="Refunded.", trajectory=_trajectory("refund")), None)["passed"]
    assert scored.grade("Refunded.", None)["passed"] is False  # the unjudged check counts 0: 0.75 < 0.8
