"""The README documents every setting, CLI command and API error code: an undocumented one fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.cli.main import COMMANDS
from assay.config import Settings
from assay.errors import AssayError, HttpError

ROOT = Path(__file__).parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SRC = ROOT / "src" / "assay"


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_in_the_readme(name: str) -> None:
    assert f"`ASSAY_{name.upper()}`" in README


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_is_in_the_readme(command: str) -> None:
    assert f"assay {command}" in README


def _error_classes() -> list[type[AssayError]]:
    import assay.api.app  # noqa: F401  (every module the API loads: any error class it defines)

    classes: list[type[AssayError]] = [AssayError]
    for cls in classes:
        classes.extend(cls.__subclasses__())
    return classes


def _codes_in_source() -> set[str]:
    """Every ``code = "..."`` written anywhere in the package: a code set outside the tree shows here."""
    pattern = re.compile(r"\bcode\s*(?::\s*str\s*)?=\s*\"([A-Z][A-Z_]+)\"")
    return {code for path in SRC.rglob("*.py") for code in pattern.findall(path.read_text(encoding="utf-8"))}


def _documented_codes() -> set[str]:
    section = README.split("## REST API", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`([A-Z][A-Z_]+)` \(", section))


def test_the_error_tree_holds_every_code_in_the_source() -> None:
    assert _codes_in_source() <= {cls.code for cls in _error_classes()}


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_code_is_in_the_readme_with_its_status(cls: type[AssayError]) -> None:
    section = README.split("## REST API", 1)[1].split("\n## ", 1)[0]
    status = "any other 4xx" if cls is HttpError else str(cls.http_status)
    assert f"`{cls.code}` ({status}" in section


def test_the_readme_lists_no_code_the_api_cannot_answer() -> None:
    assert _documented_codes() == {cls.code for cls in _error_classes()}
