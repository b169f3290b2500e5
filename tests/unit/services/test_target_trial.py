"""A test of a target: the raw reply each kind of target keeps, the answer read from it, the verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.services.execution.case_results import RunCase
from assay.services.execution.target_trial import try_target
from assay.targets import TargetCase, parse_target_spec
from assay.targets.raw import MAX_RAW_CHARS, RawReply, capturing_raw, keep_raw

CASE = RunCase(TargetCase(41, "Is ice cold?", {"answer": True}, number=3, key="q-3"), "true")


def test_a_python_callable_keeps_what_it_returned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "trial_agent.py").write_text("def answer(text):\n    return {'ok': True}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    trial = try_target(parse_target_spec({"type": "python", "callable": "trial_agent:answer"}), CASE)
    assert trial.raw == RawReply(source="return value of trial_agent:answer", text="{'ok': True}")
    assert (trial.answer, trial.verdict) == ('{"ok":true}', None)


def test_recorded_from_metadata_is_shown_as_json() -> None:
    trial = try_target(parse_target_spec({"type": "recorded", "metadata_key": "answer"}), CASE)
    assert trial.raw == RawReply(source="metadata['answer']", text="true")
    assert trial.answer == "true"


def test_replies_are_kept_only_while_captured_and_cut() -> None:
    keep_raw(lambda: pytest.fail("built outside a capture"))
    with capturing_raw() as kept:
        keep_raw(lambda: RawReply.of("here", "x" * (MAX_RAW_CHARS + 1)))
    assert [(raw.truncated, len(raw.text or "")) for raw in kept] == [(True, MAX_RAW_CHARS)]
