"""The README documents every setting and every CLI command: an undocumented one fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.cli.main import app
from assay.config import Settings

README = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_in_the_readme(name: str) -> None:
    assert f"`ASSAY_{name.upper()}`" in README


@pytest.mark.parametrize("command", [info.name for info in app.registered_commands])
def test_every_command_is_in_the_readme(command: str | None) -> None:
    assert f"assay {command}" in README


def _error_codes() -> set[str]:
    from assay.api.envelope import _HTTP_CODES
    from assay.errors import AssayError

    classes: list[type[AssayError]] = [AssayError]
    for cls in classes:
        classes.extend(cls.__subclasses__())
    return {cls.code for cls in classes} | set(_HTTP_CODES.values()) | {"HTTP_ERROR"}


@pytest.mark.parametrize("code", sorted(_error_codes()))
def test_every_error_code_is_in_the_readme(code: str) -> None:
    assert f"`{code}`" in README
