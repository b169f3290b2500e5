"""What the ``assay`` command loads: each command imports what it needs, when it runs (start-up time)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from assay.cli.main import COMMANDS, app
from assay.graders.contract import catalog

SERVER_STACK = ("sqlalchemy", "alembic", "uvicorn", "fastapi", "starlette", "pydantic_settings", "assay.api")
HTTP_CLIENTS = ("aiohttp", "httpx2")
OTHER_GRADERS = tuple(
    path.partition(":")[0] for grader_id, path in catalog.BUILTIN.items() if grader_id != "true-false"
)

_LOADED = """
import json, sys
sys.argv = ["assay", *json.loads(sys.argv[1])]
try:
    from assay.cli.main import main
    if len(sys.argv) > 1:
        main()
except SystemExit:
    pass
finally:
    print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def loaded_by(*args: str) -> set[str]:
    """The modules a fresh ``assay`` process has loaded when it exits (``import assay.cli.main`` alone
    without arguments)."""
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, json.dumps(args)], capture_output=True, text=True, check=True
    )
    modules: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return set(modules)


def _any_of(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(name for name in modules if name.split(".")[0] in packages or name.startswith(packages))


def test_importing_the_cli_loads_no_server_stack_no_grader_and_no_package_metadata() -> None:
    loaded = loaded_by()
    assert _any_of(loaded, SERVER_STACK + HTTP_CLIENTS + ("jsonschema",)) == []
    assert _any_of(loaded, (*OTHER_GRADERS, "assay.graders.builtin.true_false")) == []
    assert "importlib.metadata" not in loaded
    assert _any_of(loaded, ("rich", "typer")) == []
    # Each command's module is imported when that command runs or help lists it.
    assert _any_of(loaded, tuple(path.partition(":")[0] for path in COMMANDS.values())) == []


def test_each_command_is_found_under_its_name() -> None:
    context = click.Context(app)
    assert [app.get_command(context, name).name for name in app.list_commands(context)] == list(COMMANDS)
    assert app.get_command(context, "no-such-command") is None


def test_a_mistyped_command_is_told_the_nearest_one_though_none_is_loaded() -> None:
    result = CliRunner().invoke(app, ["rn"])
    assert result.exit_code == 2
    assert "Did you mean 'run'?" in result.output


def test_a_recorded_run_loads_one_grader_and_no_server_stack(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text('{"input": "Is 1 odd?", "expected_output": "true"}\n')
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"agent_response": "yes"}\n')
    loaded = loaded_by("run", str(suite), "-g", "true-false", "--responses", str(answers))
    assert "assay.graders.builtin.true_false" in loaded  # it ran
    assert _any_of(loaded, SERVER_STACK + HTTP_CLIENTS + ("jsonschema", *OTHER_GRADERS)) == []
    # Not on a terminal (here: a pipe): no progress bar, and the summary is plain text, so no Rich at all.
    assert _any_of(loaded, ("rich", "typer")) == []
    # Nothing is waited for: graded in a plain loop, without an event loop, the runner or the target specs
    # (pydantic models).
    assert (
        _any_of(loaded, ("asyncio", "assay.services.execution.runner", "assay.targets.specs", "pydantic"))
        == []
    )
    # Nor what only a grader that makes calls needs, nor the records stored by a server.
    assert _any_of(loaded, ("assay.graders.contract.calls", "assay.domain", "logging")) == []
