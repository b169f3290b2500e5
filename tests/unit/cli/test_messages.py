"""What the CLI says when it meets a bug (its whole messages, run as a real process: tests/e2e/cli)."""

from __future__ import annotations

import sys

import pytest

from assay.cli.main import main
from assay.services.grader_service import GraderService


def test_an_unexpected_error_exits_three_never_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug is not a verdict: exit 3 with its trace, where 1 would read as "the gate was missed"."""

    def broken(self: GraderService) -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(GraderService, "list", broken)
    monkeypatch.setattr(sys, "argv", ["assay", "graders"])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 3
    stderr = capsys.readouterr().err
    assert "RuntimeError: boom" in stderr  # the trace, to report
    assert stderr.rstrip().endswith(
        "error: assay stopped on an unexpected RuntimeError (a bug; please report it)"
    )
