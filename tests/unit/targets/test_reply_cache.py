"""The reply cache: a second asking of one target with one input is answered from it; errors never are."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from assay.graders.trajectory.record import Step, ToolCall, Trajectory, TrajectoryProblem
from assay.targets import Target, TargetCase, parse_target_spec, reply_cache
from assay.targets.cached import CachedTarget, CacheMode, CacheUse
from assay.targets.reasons import ErrorReason, TargetCallError
from assay.targets.reply_cache import CachedReply, ReplyCache, pack_trajectory, reply_key, unpack_trajectory


class CountingAgent(Target):
    """An agent in the process: answers the input upper-cased, fails inputs starting with 'fail'."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    async def call(self, case: TargetCase) -> str | None:
        self.calls.append(case.input)
        if case.input.startswith("fail"):
            raise TargetCallError(ErrorReason.TARGET_ERROR.value, "down")
        return None if case.input == "silence" else case.input.upper()


def test_keys_differ_by_target_input_and_repeat_and_cannot_be_spliced() -> None:
    assert reply_key("t", "a") == reply_key("t", "a")
    assert len({reply_key("t", "a"), reply_key("u", "a"), reply_key("t", "b"), reply_key("t", "a", 1)}) == 4
    assert reply_key("ab", "c") != reply_key("a", "bc")  # length-prefixed parts


def test_a_fingerprint_ignores_how_a_call_is_tried_not_what_is_asked() -> None:
    base = {"type": "http", "url": "http://agent.test/answer"}
    plain = parse_target_spec(base).fingerprint()
    assert parse_target_spec({**base, "timeout": 5, "max_attempts": 1}).fingerprint() == plain
    assert parse_target_spec({**base, "url": "http://agent.test/other"}).fingerprint() != plain
    templated = parse_target_spec({**base, "body_template": {"q": "{{input}}"}}).fingerprint()
    assert templated != plain
    secret = {**base, "headers": {"Authorization": "Bearer {{secret.ASSAY_SECRET_KEY}}"}}
    assert "ASSAY_SECRET_KEY" in parse_target_spec(secret).fingerprint()  # the name, never a value


def test_the_cache_keeps_the_first_reply_and_survives_reopening(tmp_path: Path) -> None:
    cache = ReplyCache(tmp_path / "c")
    cache.put(b"k", CachedReply("first", 12.5))
    cache.put(b"k", CachedReply("second", 1.0))
    cache.put(b"n", CachedReply(None, 3.0))
    cache.close()
    reopened = ReplyCache(tmp_path / "c")
    assert reopened.get(b"k") == CachedReply("first", 12.5)
    assert reopened.get(b"n") == CachedReply(None, 3.0)
    assert reopened.get(b"missing") is None
    assert reopened.stats().replies == 2
    assert reopened.clear() == 2
    assert reopened.stats().replies == 0
    reopened.close()


async def test_record_calls_once_per_input_and_never_keeps_an_error(tmp_path: Path) -> None:
    cache = ReplyCache(tmp_path)
    agent = CountingAgent()
    target = CachedTarget(agent, cache, "fp", CacheMode.RECORD)
    first = [
        await target.respond(TargetCase(n, text)) for n, text in enumerate(["a", "b", "fail", "silence"])
    ]
    again = [
        await target.respond(TargetCase(n, text)) for n, text in enumerate(["a", "b", "fail", "silence"])
    ]
    assert agent.calls == ["a", "b", "fail", "silence", "fail"]  # only the error is asked again
    assert [reply.output for reply in first] == ["A", "B", None, None]
    assert [reply.cached for reply in first] == [False] * 4
    assert [(reply.output, reply.cached) for reply in again] == [
        ("A", True),
        ("B", True),
        (None, False),
        (None, True),
    ]
    assert again[2].error == ErrorReason.TARGET_ERROR.value
    assert again[0].latency_ms == first[0].latency_ms  # the agent's own latency, not the lookup's
    assert again[0].attempts == 0


async def test_replay_never_calls_the_agent_and_fails_closed_on_a_miss(tmp_path: Path) -> None:
    cache = ReplyCache(tmp_path)
    cache.put(reply_key("fp", "known"), CachedReply("stored", 4.0))
    agent = CountingAgent()
    target = CachedTarget(agent, cache, "fp", CacheMode.REPLAY)
    hit = await target.respond(TargetCase(1, "known"))
    miss = await target.respond(TargetCase(2, "unknown"))
    other_target = await CachedTarget(agent, cache, "other", CacheMode.REPLAY).respond(TargetCase(1, "known"))
    assert agent.calls == []
    assert (hit.output, hit.cached) == ("stored", True)
    assert (miss.output, miss.error, miss.cached) == (None, ErrorReason.CACHE_MISS.value, False)
    assert other_target.error == ErrorReason.CACHE_MISS.value


class MetadataAgent(Target):
    """An agent in the process answering what its body template would send: the input and the case's mode."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, object]] = []

    async def call(self, case: TargetCase) -> str | None:
        mode = case.metadata.get("mode")
        self.calls.append((case.input, mode))
        return f"{case.input}/{mode}"


async def test_cases_asking_one_text_with_other_template_values_are_other_replies(tmp_path: Path) -> None:
    spec = parse_target_spec(
        {
            "type": "http",
            "url": "http://agent.test/answer",
            "body_template": {
                "q": "{{input}}",
                "mode": "{{metadata.mode}}",
                "key": "{{secret.ASSAY_SECRET_K}}",
            },
        }
    )
    cases = [
        TargetCase(1, "refund?", metadata={"mode": "correct"}),
        TargetCase(2, "refund?", metadata={"mode": "twice"}),
        TargetCase(3, "refund?", metadata={}),  # the template's error, not another case's reply
    ]
    agent = MetadataAgent()
    recording = CacheUse(ReplyCache(tmp_path), CacheMode.RECORD).around(agent, spec)
    first = [(await recording.respond(case)).output for case in cases]
    replaying = CacheUse(ReplyCache(tmp_path), CacheMode.REPLAY).around(MetadataAgent(), spec)
    again = [(await replaying.respond(case)).output for case in cases]
    assert agent.calls == [("refund?", "correct"), ("refund?", "twice"), ("refund?", None)]
    assert first == again == ["refund?/correct", "refund?/twice", "refund?/None"]
    # A field the template does not send keeps one reply for one text.
    plain = parse_target_spec({"type": "http", "url": "http://agent.test/answer"})
    counting = CountingAgent()
    target = CacheUse(ReplyCache(tmp_path / "plain"), CacheMode.RECORD).around(counting, plain)
    for case in cases:
        await target.respond(case)
    assert counting.calls == ["refund?"]


def test_recorded_answers_are_never_put_behind_the_cache(tmp_path: Path) -> None:
    from assay.targets import build_target

    spec = parse_target_spec({"type": "recorded", "responses": {"1": "yes"}})
    recorded = build_target(spec)
    assert CacheUse(ReplyCache(tmp_path), CacheMode.RECORD).around(recorded, spec) is recorded


def _trajectory(calls: int) -> Trajectory:
    steps = [Step(kind="message", role="user", text="refund order 7")]
    for number in range(calls):
        call = ToolCall(
            name="lookup_order", arguments={"order": number, "note": f"look-up {number}"}, call_id=str(number)
        )
        steps.append(Step(kind="tool_call", role="assistant", tool_call=call))
        steps.append(
            Step(kind="tool_result", role="tool", call_id=str(number), text=f"order {number} is paid")
        )
    steps.append(Step(kind="message", role="assistant", text="Refunded."))
    return Trajectory(
        steps=tuple(steps), dialect="openai-chat", final_text="Refunded.", input_tokens=12, seconds=1.5
    )


def test_a_trajectory_is_packed_bounded_and_unpacked_as_it_was_or_as_the_problem_it_has() -> None:
    trajectory = _trajectory(3)
    packed = pack_trajectory(trajectory)
    assert packed is not None
    assert unpack_trajectory(packed) == trajectory
    assert pack_trajectory(TrajectoryProblem(reason="no spans came")) is None  # a problem is not kept
    assert pack_trajectory(None) is None
    unread = unpack_trajectory(b"not zlib")
    assert isinstance(unread, TrajectoryProblem)
    assert "does not read" in unread.reason


def test_a_trajectory_past_the_cap_is_not_packed(monkeypatch: pytest.MonkeyPatch) -> None:
    small = pack_trajectory(_trajectory(3))
    assert small is not None
    monkeypatch.setattr(reply_cache, "MAX_TRAJECTORY_BYTES", len(small))
    assert pack_trajectory(_trajectory(3)) == small
    assert pack_trajectory(_trajectory(50)) is None


def test_a_cache_file_keeps_a_trajectory_and_one_written_before_gains_the_column(tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    with sqlite3.connect(old / "replies.sqlite3") as db:  # the schema before replies kept trajectories
        db.execute(
            "CREATE TABLE replies (key BLOB PRIMARY KEY, output TEXT, latency_ms REAL,"
            " stored_at REAL NOT NULL) WITHOUT ROWID"
        )
        db.execute("INSERT INTO replies VALUES (?, 'yes', 12.0, 0)", (b"k1",))
    db.close()
    cache = ReplyCache(old)
    try:
        assert cache.get(b"k1") == CachedReply("yes", 12.0)
        packed = pack_trajectory(_trajectory(2))
        cache.put(b"k2", CachedReply("Refunded.", 40.0, packed))
        assert cache.get(b"k2") == CachedReply("Refunded.", 40.0, packed)
    finally:
        cache.close()
