"""The grader registry: the single source of every grader listing (API, CLI, UI).

Built-in graders and third-party ones (entry-point group ``assay.graders``) go through the same
:meth:`GraderService.register`, with the same checks; an id can be registered only once.
"""

from __future__ import annotations

import builtins
import copy
import difflib
import logging
from importlib.metadata import entry_points
from typing import Any

import jsonschema

from assay.domain import GraderSpec
from assay.errors import (
    ConfigError,
    GraderRegistrationError,
    GraderUnavailableError,
    Loc,
    NotFoundError,
    Problem,
)
from assay.graders import BUILTIN_GRADERS, GraderInterface, catalog, why_unavailable

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "assay.graders"
_REQUIRED_METADATA = ("name", "description", "type", "version", "config_schema", "scoring_guide")


def _check_grader_class(grader_class: object) -> type[GraderInterface]:
    if not (isinstance(grader_class, type) and issubclass(grader_class, GraderInterface)):
        raise GraderRegistrationError(f"{grader_class!r} is not a GraderInterface subclass")
    missing = [attr for attr in _REQUIRED_METADATA if not getattr(grader_class, attr, None)]
    if missing:
        raise GraderRegistrationError(f"grader {grader_class.__name__} lacks metadata: {', '.join(missing)}")
    schema = grader_class.config_schema
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise GraderRegistrationError(
            f"grader {grader_class.__name__}: bad config_schema: {exc.message}"
        ) from exc
    if schema.get("additionalProperties") is not False:
        raise GraderRegistrationError(
            f"grader {grader_class.__name__}: config_schema must set additionalProperties to false"
        )
    if set(grader_class.scoring_guide) < {"1.0", "0.0"}:
        raise GraderRegistrationError(f"grader {grader_class.__name__}: scoring_guide needs '1.0' and '0.0'")
    return grader_class


def _usable(grader: GraderInterface) -> GraderInterface:
    """``grader``, or ``GraderUnavailableError`` with its reason when it cannot grade on this machine."""
    reason = why_unavailable(grader)
    if reason is None:
        return grader
    raise GraderUnavailableError(
        f"Grader '{grader.grader_id}' is not available here: {reason}", problems=[Problem((), reason)]
    )


class GraderService:
    """Registered graders by id, each with its default configuration, and configured copies on demand."""

    def __init__(self, *, load_plugins: bool = True) -> None:
        self.graders: dict[str, GraderInterface] = {}
        self.plugin_errors: builtins.list[str] = []
        for grader_class in BUILTIN_GRADERS:
            self.register(grader_class)
        if load_plugins:
            self._load_plugins()

    def register(self, grader_class: type[GraderInterface]) -> GraderInterface:
        """Check and add a grader class under its default id; a duplicate id is refused."""
        checked = _check_grader_class(grader_class)
        try:
            grader = checked()
        except Exception as exc:  # a plugin that cannot build its default is refused, not half-registered
            raise GraderRegistrationError(f"grader {checked.__name__} cannot be built: {exc}") from exc
        if grader.grader_id in self.graders:
            raise GraderRegistrationError(f"a grader with id '{grader.grader_id}' is already registered")
        try:  # composite graders build their children from the catalog, plugins included
            catalog.add(checked)
        except ValueError as exc:  # another class took the id in this process (another registry)
            raise GraderRegistrationError(f"grader {checked.__name__} cannot be registered: {exc}") from exc
        self.graders[grader.grader_id] = grader
        return grader

    def _load_plugins(self) -> None:
        for entry_point in entry_points(group=ENTRY_POINT_GROUP):
            try:
                self.register(entry_point.load())
            except Exception as exc:  # one broken plugin must not take the others (or the server) down
                message = f"grader plugin '{entry_point.name}' ({entry_point.value}) refused: {exc}"
                logger.error(message)
                self.plugin_errors.append(message)

    def get(self, grader_id: str) -> GraderInterface:
        """The registered grader with its default config; ``NotFoundError`` for an unknown id."""
        grader = self.graders.get(grader_id)
        if grader is None:
            unknown = Problem(("grader_id",), self._unknown(grader_id))
            raise NotFoundError(f"Grader not found: {unknown.message}", problems=[unknown])
        return grader

    def preset(self, grader_id: str, name: str) -> dict[str, Any]:
        """The config of a grader's named preset; ``NotFoundError`` naming the presets it has."""
        presets = self.get(grader_id).presets
        preset = presets.get(name)
        if preset is None:
            known = ", ".join(presets) or "none"
            shown = name if len(name) <= 100 else f"{name[:100]}…"
            unknown = Problem(
                ("preset",), f"grader '{grader_id}' has no preset '{shown}' (its presets: {known})"
            )
            raise NotFoundError(f"Preset not found: {unknown.message}", problems=[unknown])
        return copy.deepcopy(dict(preset.config))

    def _unknown(self, grader_id: str) -> str:
        """Says which id was not found, the closest registered one, and every registered id."""
        shown = grader_id if len(grader_id) <= 100 else f"{grader_id[:100]}…"
        close = difflib.get_close_matches(grader_id[:100], self.graders, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        return f"no grader has the id '{shown}' ({hint}registered: {', '.join(self.graders)})"

    def problems(self, grader_id: str, config: object, *, where: Loc = ("config",)) -> builtins.list[Problem]:
        """Every problem of ``config`` for this grader, located under ``where``; empty when it is valid."""
        grader = self.get(grader_id)
        return [
            Problem((*where, *problem.parts), problem.message)
            for problem in type(grader).config_problems(config)
        ]

    def build(
        self, grader_id: str, config: dict[str, Any] | None = None, *, where: Loc = ("config",)
    ) -> GraderInterface:
        """A grader configured with ``config``; ``ConfigError`` listing every problem when it is invalid,
        ``GraderUnavailableError`` when it cannot grade here (a composite: when a child cannot).

        ``where`` is where the config sits in the request (``grader_config`` of a new evaluation)."""
        default = self.get(grader_id)
        if config is None or config == default.config:
            return _usable(default)  # graders are immutable, so the default instance can be shared
        problems = self.problems(grader_id, config, where=where)
        if problems:
            shown = "; ".join(problem.message for problem in problems)
            raise ConfigError(f"Invalid config for grader '{grader_id}': {shown}", problems=problems)
        try:
            grader = type(default)(grader_id, config)
        except (TypeError, ValueError) as exc:  # a rule the checks above missed still ends as a clear error
            raise ConfigError(
                f"Invalid config for grader '{grader_id}': {exc}", problems=[Problem(where, str(exc))]
            ) from exc
        return _usable(grader)

    @staticmethod
    def spec(grader: GraderInterface) -> GraderSpec:
        """What to store with a result so that it can always say exactly what graded it."""
        return GraderSpec(grader.grader_id, grader.config, grader.version)

    def list(self) -> builtins.list[GraderInterface]:
        """Every registered grader, in registration order."""
        return builtins.list(self.graders.values())
