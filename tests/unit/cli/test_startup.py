"""The ``assay`` command group finds each command by name without importing any (what start-up costs is
held to a budget in tests/e2e/cli/test_startup.py)."""

from __future__ import annotations

import click
from click.testing import CliRunner

from assay.cli.main import COMMANDS, app


def test_each_command_is_found_under_its_name() -> None:
    context = click.Context(app)
    assert [app.get_command(context, name).name for name in app.list_commands(context)] == list(COMMANDS)
    assert app.get_command(context, "no-such-command") is None


def test_a_mistyped_command_is_told_the_nearest_one_though_none_is_loaded() -> None:
    result = CliRunner().invoke(app, ["rn"])
    assert result.exit_code == 2
    assert "Did you mean 'run'?" in result.output
