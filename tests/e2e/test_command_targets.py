"""Command targets: a shell command run as a process per case, its standard input, output and exit status;
and what a test of one keeps (its raw output and exit status, the answer read from it, the verdict)."""

from __future__ import annotations

import sys

from assay.graders.builtin.true_false import TrueFalseGrader
from assay.services.execution.case_results import RunCase
from assay.services.execution.target_trial import try_target
from assay.targets import TargetCase, build_target, parse_target_spec

CASE = RunCase(TargetCase(41, "Is ice cold?", {"answer": True}, number=3, key="q-3"), "true")


def case(text: str, case_id: int = 1, **metadata: object) -> TargetCase:
    return TargetCase(case_id, text, metadata)


async def ask(spec: dict[str, object], target_case: TargetCase):  # type: ignore[no-untyped-def]
    async with build_target(parse_target_spec(spec)) as target:
        return await target.respond(target_case)


async def test_command_reads_stdin_and_fails_on_nonzero_exit() -> None:
    echo = f'{sys.executable} -c "import sys; print(sys.stdin.read()[::-1])"'
    assert (await ask({"type": "command", "command": echo}, case("abc"))).output == "cba"
    failing = await ask({"type": "command", "command": "echo oops >&2; exit 3"}, case("x"))
    assert failing.error == "command_failed"
    assert failing.error_detail is not None
    assert "exit status 3" in failing.error_detail


async def test_command_timeout_kills_it() -> None:
    reply = await ask({"type": "command", "command": "sleep 5", "timeout": 0.2, "max_attempts": 1}, case("x"))
    assert reply.error == "timeout_after_retries"


def test_a_command_keeps_its_standard_output_and_exit_status() -> None:
    echo = f"{sys.executable} -c \"import os; print('YES', os.environ['ASSAY_CASE_KEY'])\""
    trial = try_target(
        parse_target_spec({"type": "command", "command": echo}), CASE, grader=TrueFalseGrader()
    )
    assert trial.raw is not None
    assert (trial.raw.source, trial.raw.text) == (
        "standard output of the command (exit status 0)",
        "YES q-3\n",
    )
    assert (trial.number, trial.key, trial.answer, trial.error) == (3, "q-3", "YES q-3", None)
    assert trial.verdict is not None
    assert trial.verdict.match_status == "invalid_response"
