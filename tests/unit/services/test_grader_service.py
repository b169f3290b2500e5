"""GraderService: the registry of graders, configured graders, and third-party graders via entry points."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import ConfigError, GraderRegistrationError, NotFoundError
from assay.graders import BUILTIN_GRADERS, GraderInterface, StringMatchGrader, TrueFalseGrader
from assay.graders.contract import catalog
from assay.services.grading.registry import GraderService
from tests.support.plugins import install_plugin


def test_graders_dict_holds_default_instances() -> None:
    service = GraderService()
    assert isinstance(service.graders["string-match"], StringMatchGrader)
    assert isinstance(service.graders["true-false"], TrueFalseGrader)
    assert service.graders["true-false"].config == TrueFalseGrader().config
    assert service.get("true-false") is service.graders["true-false"]
    listed = [grader.grader_id for grader in service.list()]
    assert listed == [grader.default_id for grader in BUILTIN_GRADERS]
    assert listed[:2] == ["string-match", "true-false"]


def test_unknown_grader_is_not_found() -> None:
    with pytest.raises(NotFoundError, match="Grader not found"):
        GraderService().get("nonexistent")
    with pytest.raises(NotFoundError):
        GraderService().build("nonexistent", {})


def test_build_configured_grader_and_share_default() -> None:
    service = GraderService()
    strict = service.build("true-false", {"case_sensitive": True})
    assert isinstance(strict, TrueFalseGrader)
    assert strict.case_sensitive is True
    assert service.build("true-false", None) is service.graders["true-false"]
    assert service.build("true-false", {}) is not strict


def test_build_lists_every_problem() -> None:
    service = GraderService()
    with pytest.raises(ConfigError) as info:
        service.build("true-false", {"case_sensitve": True, "aliases": {"true": [], "false": [3]}})
    problems = info.value.problems
    assert len(problems) == 3
    assert any("case_sensitve" in p.message for p in problems)
    assert {p.loc for p in problems} == {
        ("config",),
        ("config", "aliases", "true"),
        ("config", "aliases", "false", 0),
    }
    assert any(str(p).startswith("config.aliases.false[0]: ") for p in problems)
    assert info.value.code == "VALIDATION_ERROR"


def test_semantic_problem_reported_by_build() -> None:
    with pytest.raises(ConfigError, match="both true and false"):
        GraderService().build("true-false", {"aliases": {"true": ["ok"], "false": ["OK"]}})


def test_problems_empty_for_valid_config() -> None:
    assert GraderService().problems("string-match", {"case_sensitive": True}) == []


def test_spec_records_id_config_and_version() -> None:
    service = GraderService()
    spec = service.spec(service.build("true-false", {"case_sensitive": True}))
    assert spec.grader_id == "true-false"
    assert spec.config["case_sensitive"] is True
    assert spec.version == TrueFalseGrader.version


def test_duplicate_registration_refused() -> None:
    service = GraderService()
    with pytest.raises(GraderRegistrationError, match="already registered"):
        service.register(TrueFalseGrader)


def test_non_grader_refused() -> None:
    with pytest.raises(GraderRegistrationError):
        GraderService().register(dict)  # type: ignore[arg-type]


def test_plugin_from_entry_point_is_registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(tmp_path, "[assay.graders]\nnon-empty = assay_test_plugin:NonEmptyGrader\n", monkeypatch)
    service = GraderService()
    plugin = service.get("non-empty")
    assert isinstance(plugin, GraderInterface)
    assert plugin.grade("hi", "")["passed"] is True
    assert service.plugin_errors == []
    assert GraderService(load_plugins=False).graders.keys() == {
        grader.default_id for grader in BUILTIN_GRADERS
    }


def test_plugin_with_taken_id_is_refused_others_survive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path,
        "[assay.graders]\ndup = assay_test_plugin:DuplicateGrader\nbroken = assay_test_plugin:Missing\n",
        monkeypatch,
    )
    service = GraderService()
    assert isinstance(service.get("true-false"), TrueFalseGrader)
    assert len(service.plugin_errors) == 2
    assert any("already registered" in error for error in service.plugin_errors)


def test_registered_classes_join_the_catalog_composites_build_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(tmp_path, "[assay.graders]\nnon-empty = assay_test_plugin:NonEmptyGrader\n", monkeypatch)
    service = GraderService()
    plugin = service.get("non-empty")  # plugins load on first need: before it, the catalog may lack the class
    assert catalog.lookup("non-empty") is type(plugin)
    negated = service.build("not", {"grader": {"grader_id": "non-empty"}})
    assert negated.grade("hi", "x")["passed"] is False
    GraderService()  # the same classes again: idempotent


def test_another_class_under_an_id_the_catalog_holds_is_refused() -> None:
    class Impostor(StringMatchGrader):
        default_id = "string-match"
        __slots__ = ()

    service = GraderService(load_plugins=False)
    service.graders.pop("string-match")  # as a fresh registry in the same process would be
    with pytest.raises(GraderRegistrationError, match="already names"):
        service.register(Impostor)
    assert catalog.lookup("string-match") is StringMatchGrader


def test_builtin_ids_name_their_classes() -> None:
    for grader_id in catalog.BUILTIN:
        assert catalog.builtin_class(grader_id).default_id == grader_id


def test_a_composite_config_may_name_a_plugin_not_yet_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(tmp_path, "[assay.graders]\nnon-empty = assay_test_plugin:NonEmptyGrader\n", monkeypatch)
    negated = GraderService().build("not", {"grader": {"grader_id": "non-empty"}})
    assert negated.grade("hi", "x")["passed"] is False


def test_a_plugin_cannot_take_a_builtin_id_before_the_builtin_is_loaded() -> None:
    class Impostor(StringMatchGrader):
        default_id = "choice"
        __slots__ = ()

    service = GraderService(load_plugins=False)
    with pytest.raises(GraderRegistrationError, match="'choice' already names"):
        service.register(Impostor)
    assert type(service.get("choice")).__name__ == "ChoiceGrader"


def test_one_registry_the_catalog_holds_what_every_service_lists() -> None:
    first, second = GraderService(load_plugins=False), GraderService(load_plugins=False)
    assert first.get("regex") is catalog.default("regex") is second.graders["regex"]
    assert type(first.get("regex")) is catalog.lookup("regex")


def test_a_class_whose_default_instance_has_another_id_is_refused() -> None:
    class Renamed(StringMatchGrader):  # StringMatchGrader's constructor names its own id
        default_id = "renamed-match"
        __slots__ = ()

    service = GraderService(load_plugins=False)
    with pytest.raises(GraderRegistrationError, match="default instance has the id 'string-match'"):
        service.register(Renamed)
    assert catalog.lookup("renamed-match") is None
    assert "renamed-match" not in service.graders
