"""The public names keep working at their documented paths, whatever the layout behind them: the graders'
exports, the grader registry, the targets, the CLI's entry point, and third-party graders registered
through the entry-point group ``assay.graders``."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

import assay.graders
import assay.targets
from tests.support.plugins import install_plugin

ROOT = Path(__file__).resolve().parents[2]


def test_every_grader_export_resolves() -> None:
    from assay.graders import GraderInterface, StringMatchGrader, TrueFalseGrader

    assert issubclass(StringMatchGrader, GraderInterface)
    assert issubclass(TrueFalseGrader, GraderInterface)
    for name in assay.graders.__all__:
        assert getattr(assay.graders, name) is not None, name
    assert {grader.default_id for grader in assay.graders.BUILTIN_GRADERS} >= {"string-match", "true-false"}


def test_the_grader_registry_is_at_its_documented_path() -> None:
    from assay.services.grader_service import GraderService
    from assay.services.grading.registry import ENTRY_POINT_GROUP
    from assay.services.grading.registry import GraderService as Registry

    assert GraderService is Registry
    registry = GraderService(load_plugins=False)
    assert isinstance(registry.graders, dict)
    assert registry.graders["true-false"] is registry.get("true-false")
    assert registry.build("true-false", {"case_sensitive": True}).config["case_sensitive"] is True
    assert registry.plugin_errors == []
    assert ENTRY_POINT_GROUP == "assay.graders"


def test_every_target_export_resolves() -> None:
    from assay.targets import RecordedTargetSpec, TargetSpec, parse_target_spec

    for name in assay.targets.__all__:
        assert getattr(assay.targets, name) is not None, name
    spec = parse_target_spec({"type": "recorded", "responses": {"1": "yes"}})
    assert isinstance(spec, RecordedTargetSpec)
    assert TargetSpec is not None


def test_the_cli_entry_point_is_assay_cli_main() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["assay"] == "assay.cli.main:main"
    module, _, name = scripts["assay"].partition(":")
    assert callable(getattr(importlib.import_module(module), name))


def test_a_third_party_grader_registered_through_the_entry_point_group_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.services.grader_service import GraderService

    install_plugin(tmp_path, "[assay.graders]\nnon-empty = assay_test_plugin:NonEmptyGrader\n", monkeypatch)
    registry = GraderService()
    assert registry.plugin_errors == []
    assert "non-empty" in registry.graders
    assert registry.build("non-empty").grade("hi", "")["passed"] is True
    assert registry.build("not", {"grader": {"grader_id": "non-empty"}}).grade("hi", "")["passed"] is False
