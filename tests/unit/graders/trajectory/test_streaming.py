"""Streamed reading (``graders/trajectory/streaming.py``): a trajectory read from an outline of its JSON text,
its list of steps read item by item, is the record whole-document reading gives, for every dialect; a text
that does not parse is the trajectory's problem, never an exception; the caps hold in the middle of a list."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from assay.graders.trajectory import building
from assay.graders.trajectory.readers import DIALECTS, read_trajectory
from assay.graders.trajectory.record import Trajectory, TrajectoryProblem
from assay.graders.trajectory.streaming import Streamed, UnreadableJsonError, outline
from tests.support import trajectories as run
from tests.unit.graders.trajectory.test_properties import documents


def _holds_huge_integer(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_huge_integer(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_huge_integer(item) for item in value)
    return isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63


def _text(document: Any) -> bytes:
    try:
        return json.dumps(document, allow_nan=False).encode()
    except ValueError:  # an infinite float is no JSON
        assume(False)
        raise


@given(documents, st.sampled_from([None, *DIALECTS]), st.sampled_from(["", "trajectory", "reply.trajectory"]))
@example(run.DIALECT_DOCUMENTS["atif"], None, "")
@example([{"role": "user", "content": "hi"}, {"type": "function_call", "name": "f"}], None, "trajectory")
@example({"messages": [{"role": "user", "content": "hi", "n": 2**64}]}, None, "")
def test_streamed_reading_gives_the_record_whole_reading_gives(
    document: Any, dialect: str | None, path: str
) -> None:
    placed: Any = document
    for key in reversed(path.split(".") if path else []):
        placed = {key: placed, "answer": "done"}
    text = _text(placed)
    whole = read_trajectory(document, dialect)
    if _holds_huge_integer(document):  # ijson refuses it: the target then parses the reply whole
        with pytest.raises(UnreadableJsonError):
            outline(text, path or None)
        return
    outlined = outline(text, path or None)
    for key in path.split(".") if path else []:
        outlined = outlined[key]
    streamed = read_trajectory(outlined, dialect)
    assert streamed == whole
    if isinstance(whole, Trajectory):
        assert isinstance(streamed, Trajectory)
        assert streamed.steps == whole.steps  # the record's equality leaves the raw document out


@pytest.mark.parametrize("dialect", sorted(run.DIALECT_DOCUMENTS))
def test_each_dialect_leaves_its_list_of_steps_in_the_text(dialect: str) -> None:
    document = run.DIALECT_DOCUMENTS[dialect]
    outlined = outline(json.dumps({"answer": "done", "trajectory": document}).encode(), "trajectory")
    assert outlined["answer"] == "done"
    value = outlined["trajectory"]
    streamed = (
        value if isinstance(value, Streamed) else [v for v in value.values() if isinstance(v, Streamed)]
    )
    if dialect == "otlp":  # spans are nested three lists deep: read whole
        assert streamed == []
    else:
        assert streamed, f"{dialect}: no list left in the text"
    read = read_trajectory(value, None)
    assert isinstance(read, Trajectory)
    assert read == read_trajectory(document, None)


def test_a_text_that_does_not_parse_is_refused_by_the_outline() -> None:
    with pytest.raises(UnreadableJsonError):
        outline(b'{"messages": [{"role": "user"', "")
    with pytest.raises(UnreadableJsonError):
        outline(b"not json", None)


@pytest.mark.parametrize("dialect", [None, "openai-chat", "anthropic", "openai-responses"])
def test_a_truncated_or_malformed_stream_is_the_trajectorys_problem(dialect: str | None) -> None:
    for body in (
        b'[{"role": "user", "content": "hi"}, {"role": "assistant", "cont',
        b'[{"role": "user", "content": "hi"}, oops]',
        b'[{"role": "user", "content": "\xff\xfe"}]',
    ):
        read = read_trajectory(Streamed(body, ""), dialect)
        assert isinstance(read, TrajectoryProblem), body
        assert read.reason.startswith("is not JSON")


def test_the_caps_hold_in_the_middle_of_a_streamed_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(building, "MAX_STEPS", 3)
    message = json.dumps({"role": "user", "content": "hi"})
    # four messages, then text that would not parse: reading stops at the cap, before it
    body = f"[{message}, {message}, {message}, {message}, broken".encode()
    read = read_trajectory(Streamed(body, ""), "openai-chat")
    assert read == TrajectoryProblem(reason="has more than 3 messages", dialect="openai-chat")
    calls = [{"id": f"c{n}", "function": {"name": "f", "arguments": "{}"}} for n in range(4)]
    one_message = json.dumps([{"role": "assistant", "tool_calls": calls}]).encode()
    read = read_trajectory(Streamed(one_message, ""), "openai-chat")
    assert read == TrajectoryProblem(reason="has more than 3 steps", dialect="openai-chat")


def test_a_problem_names_the_streamed_items_place_as_whole_reading_does() -> None:
    document = {"messages": [{"role": "user", "content": "hi"}, {"content": "no role"}]}
    streamed = read_trajectory(outline(json.dumps(document).encode(), None), "openai-chat")
    assert streamed == read_trajectory(document, "openai-chat")
    assert isinstance(streamed, TrajectoryProblem)
    assert streamed.reason == "is not openai-chat at $.messages[1].role: Field required"
