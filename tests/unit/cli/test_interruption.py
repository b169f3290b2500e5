"""What an interrupted run says: how to finish it, and with a server, how to store what it kept."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from assay.cli.interruption import report_interrupted


def test_an_interrupted_run_with_a_server_says_how_to_push_what_it_kept(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        report_interrupted(signal.SIGTERM, 9, 12, Path("out.jsonl"), "http://assay.example")
    assert exited.value.code == 143
    said = capsys.readouterr().err
    assert "interrupted by SIGTERM: 9 of 12 cases have a result" in said
    assert "run again with --resume to run the other 3 (then pushed)" in said
    assert "`assay push out.jsonl --server http://assay.example --partial`" in said


def test_without_a_server_it_says_nothing_of_a_push(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        report_interrupted(signal.SIGINT, 1, 2, Path("out.jsonl"))
    assert "assay push" not in capsys.readouterr().err
