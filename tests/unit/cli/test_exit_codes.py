"""The one exit-code rule of every command (docs/cli.md#exit-codes): 0 done or gate held, 1 gate missed,
2 usage or configuration, 3 a bug. ``serve`` and ``worker`` are held to it in
tests/e2e/cli/test_serve_settings.py and tests/e2e/test_workers.py."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from assay.cli.main import app
from tests.support.cli import invoke


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "suite.jsonl").write_text(json.dumps({"input": "q", "expected_output": "true"}) + "\n")
    for name, answer in (("yes", "yes"), ("no", "no")):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps({"agent_response": answer}) + "\n")
        rows = json.dumps({"agent_response": answer, "expected_output": "true"}) + "\n"
        (tmp_path / f"rows-{name}.jsonl").write_text(rows)
        target = f"{{type: responses, path: {name}.jsonl}}"
        (tmp_path / f"eval-{name}.yaml").write_text(
            f"suites: [suite.jsonl]\ntarget: {target}\ngrader: {{id: true-false}}\n"
        )
    return tmp_path


CASES = [
    ("graders", [], 0),
    ("graders", ["--nope"], 2),
    ("grade", ["-g", "true-false", "--expected", "true", "--response", "yes"], 0),
    ("grade", ["-g", "true-false", "--expected", "true", "--response", "no"], 1),
    ("grade", ["-g", "no-such-grader", "--expected", "true", "--response", "no"], 2),
    ("grade-file", ["{d}/rows-yes.jsonl", "-g", "true-false"], 0),
    ("grade-file", ["{d}/rows-no.jsonl", "-g", "true-false"], 1),
    ("grade-file", ["{d}/missing.jsonl", "-g", "true-false"], 2),
    ("run", ["{d}/suite.jsonl", "-g", "true-false", "--responses", "{d}/yes.jsonl"], 0),
    ("run", ["{d}/suite.jsonl", "-g", "true-false", "--responses", "{d}/no.jsonl"], 1),
    ("run", ["{d}/suite.jsonl", "-g", "true-false", "--responses", "{d}/yes.jsonl", "--limit", "0"], 2),
    ("history", ["s"], 2),
    ("breakdown", ["1"], 2),
    ("failures", ["1"], 2),
    ("import", ["{d}/missing.json", "--from", "promptfoo"], 2),
    ("compare", ["{d}/missing.jsonl", "{d}/suite.jsonl"], 2),  # 0 and 1: tests/unit/cli/test_compare.py
    ("push", ["{d}/missing.jsonl", "--server", "http://127.0.0.1:9"], 2),
    ("eval", ["{d}/eval-yes.yaml"], 0),
    ("eval", ["{d}/eval-no.yaml"], 1),
    ("eval", ["{d}/missing.yaml"], 2),
    ("init", ["{d}/suite.jsonl"], 2),  # a file, not a folder
    ("schema", ["config"], 0),
    ("schema", ["nope"], 2),
]


@pytest.mark.parametrize(("command", "args", "code"), CASES, ids=[f"{c}-{x}" for c, _, x in CASES])
def test_each_command_keeps_the_exit_code_rule(files: Path, command: str, args: list[str], code: int) -> None:
    database = f"sqlite:///{files / 'none.db'}"  # the views find no database: a configuration error
    done = invoke(command, *(arg.format(d=files) for arg in args), env={"ASSAY_DATABASE_URL": database})
    assert done.code == code, done.stderr
    assert "Traceback" not in done.stderr


def test_an_unforeseen_error_is_exit_3_not_a_missed_gate() -> None:
    @click.command("explode")
    def explode() -> None:
        raise RuntimeError("boom")

    app.add_command(explode)
    try:
        done = invoke("explode")
    finally:
        del app.commands["explode"]
    assert done.code == 3
    assert "assay stopped on an unexpected RuntimeError (a bug; please report it)" in done.stderr
