"""The grader registry: the single source of every grader listing (API, CLI, UI).

Built-in graders and third-party ones (entry-point group ``assay.graders``) go through the same
:meth:`GraderService.register`, with the same checks; an id can be registered only once.

Graders are loaded when first needed, so that a command grading with one grader starts fast: a built-in
when its id is asked for; the plugins (reading every installed package's entry points takes longer than
Assay's own start-up) when an id that is not built in is asked for, a config is checked (a composite may
name a plugin), or every grader is listed. A server loads everything at start-up (:meth:`load_all`).
"""

from __future__ import annotations

import builtins
import copy
import threading
from typing import TYPE_CHECKING, Any

from assay.errors import (
    ConfigError,
    GraderRegistrationError,
    GraderUnavailableError,
    Loc,
    NotFoundError,
    Problem,
)
from assay.graders import GraderInterface, why_unavailable
from assay.graders.contract import catalog
from assay.logs import LazyLogger

if TYPE_CHECKING:
    from assay.domain import GraderSpec

logger = LazyLogger(__name__)

ENTRY_POINT_GROUP = "assay.graders"
_REQUIRED_METADATA = ("name", "description", "type", "version", "config_schema", "scoring_guide")


def _check_grader_class(grader_class: object, *, check_schema: bool = True) -> type[GraderInterface]:
    if not (isinstance(grader_class, type) and issubclass(grader_class, GraderInterface)):
        raise GraderRegistrationError(f"{grader_class!r} is not a GraderInterface subclass")
    missing = [attr for attr in _REQUIRED_METADATA if not getattr(grader_class, attr, None)]
    if missing:
        raise GraderRegistrationError(f"grader {grader_class.__name__} lacks metadata: {', '.join(missing)}")
    schema = grader_class.config_schema
    if check_schema:
        import jsonschema

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
        self._graders: dict[str, GraderInterface] = {}
        self._plugin_errors: builtins.list[str] = []
        self._unloaded = dict.fromkeys(catalog.BUILTIN)
        """Built-in ids not registered yet (an ordered set)."""
        self._plugins_pending = load_plugins
        self._loading = threading.RLock()

    @property
    def graders(self) -> dict[str, GraderInterface]:
        """Every registered grader by id (all loaded): the built-ins in catalogue order, then plugins."""
        self.load_all()
        return self._graders

    @property
    def plugin_errors(self) -> builtins.list[str]:
        """Why each refused plugin was refused (the plugins are loaded first)."""
        self._load_plugins()
        return self._plugin_errors

    def load_all(self) -> None:
        """Import and register every grader now: a server does at start-up, so that a broken plugin is
        logged then and no request waits for an import."""
        if not self._unloaded and not self._plugins_pending:
            return  # all loaded: no lock to take (every listing request asks)
        with self._loading:
            for grader_id in builtins.list(self._unloaded):
                self._load_builtin(grader_id)
            self._load_plugins()
            ordered = {grader_id: self._graders[grader_id] for grader_id in catalog.BUILTIN}
            self._graders = ordered | self._graders

    def register(self, grader_class: type[GraderInterface]) -> GraderInterface:
        """Check and add a grader class under its default id; a duplicate id is refused."""
        with self._loading:
            grader_id = getattr(grader_class, "default_id", None)
            if grader_id in self._unloaded:  # a built-in id is the built-in's, loaded or not
                self._load_builtin(grader_id)
            return self._register(grader_class, check_schema=True)

    def _register(self, grader_class: type[GraderInterface], *, check_schema: bool) -> GraderInterface:
        checked = _check_grader_class(grader_class, check_schema=check_schema)
        try:
            grader = checked()
        except Exception as exc:  # a plugin that cannot build its default is refused, not half-registered
            raise GraderRegistrationError(f"grader {checked.__name__} cannot be built: {exc}") from exc
        if grader.grader_id in self._graders:
            raise GraderRegistrationError(f"a grader with id '{grader.grader_id}' is already registered")
        try:  # composite graders build their children from the catalog, plugins included
            catalog.add(checked)
        except ValueError as exc:  # another class took the id in this process (another registry)
            raise GraderRegistrationError(f"grader {checked.__name__} cannot be registered: {exc}") from exc
        self._graders[grader.grader_id] = grader
        return grader

    def _load_builtin(self, grader_id: str) -> None:
        # A built-in's config schema is checked against the JSON Schema meta-schema by the grader contract
        # tests, not at every start: the check loads jsonschema's meta-schemas (a tenth of a second).
        del self._unloaded[grader_id]
        self._register(catalog.builtin_class(grader_id), check_schema=False)

    def _load_plugins(self) -> None:
        with self._loading:
            if not self._plugins_pending:
                return
            self._plugins_pending = False
            from importlib.metadata import entry_points

            for entry_point in entry_points(group=ENTRY_POINT_GROUP):
                try:
                    self.register(entry_point.load())
                except Exception as exc:  # one broken plugin must not take the others (or the server) down
                    message = f"grader plugin '{entry_point.name}' ({entry_point.value}) refused: {exc}"
                    logger.error(message)
                    self._plugin_errors.append(message)

    def _find(self, grader_id: str) -> GraderInterface | None:
        """The registered grader with this id, loading it (a built-in) or the plugins when need be."""
        grader = self._graders.get(grader_id)
        if grader is not None:
            return grader
        with self._loading:
            if grader_id in self._unloaded:
                self._load_builtin(grader_id)
            else:
                self._load_plugins()
            return self._graders.get(grader_id)

    def get(self, grader_id: str) -> GraderInterface:
        """The registered grader with its default config; ``NotFoundError`` for an unknown id."""
        grader = self._find(grader_id)
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
        import difflib  # only here: a lookup that failed

        shown = grader_id if len(grader_id) <= 100 else f"{grader_id[:100]}…"
        close = difflib.get_close_matches(grader_id[:100], self.graders, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        return f"no grader has the id '{shown}' ({hint}registered: {', '.join(self.graders)})"

    def problems(self, grader_id: str, config: object, *, where: Loc = ("config",)) -> builtins.list[Problem]:
        """Every problem of ``config`` for this grader, located under ``where``; empty when it is valid."""
        grader = self.get(grader_id)
        self._load_plugins()  # a composite's config may name a plugin
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
        from assay.domain import GraderSpec  # not loaded by `assay run`, which stores no spec

        return GraderSpec(grader.grader_id, grader.config, grader.version)

    def list(self) -> builtins.list[GraderInterface]:
        """Every registered grader: the built-ins in catalogue order, then the plugins."""
        return builtins.list(self.graders.values())
