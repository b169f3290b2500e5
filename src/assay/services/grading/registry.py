"""The grader registry: the single source of every grader listing (API, CLI, UI).

The graders themselves are held by :mod:`assay.graders.contract.catalog`, the one registry (class and
default instance by id): the built-ins are listed there (their metadata and schemas are checked by the
grader contract tests), and third-party graders (entry-point group ``assay.graders``) are added there by
:meth:`GraderService.register`, after its checks; an id names one class.

Graders are loaded when first needed, so that a command grading with one grader starts fast: a built-in
when its id is asked for; the plugins (reading every installed package's entry points takes longer than
Assay's own start-up) when an id that is not built in is asked for, a config is checked (a composite may
name a plugin), or every grader is listed. A server or a worker loads the plugins at start-up
(:meth:`load_plugins`), so that a broken one is logged then; a built-in when it is first asked for.
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
_REQUIRED_METADATA = (
    "default_id",
    "name",
    "description",
    "type",
    "version",
    "config_schema",
    "scoring_guide",
)


def _check_grader_class(grader_class: object) -> type[GraderInterface]:
    if not (isinstance(grader_class, type) and issubclass(grader_class, GraderInterface)):
        raise GraderRegistrationError(f"{grader_class!r} is not a GraderInterface subclass")
    missing = [attr for attr in _REQUIRED_METADATA if not getattr(grader_class, attr, None)]
    if missing:
        raise GraderRegistrationError(f"grader {grader_class.__name__} lacks metadata: {', '.join(missing)}")
    schema = grader_class.config_schema
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
    """The registered graders by id, each with its default configuration, and configured copies on demand.

    The one registry is :mod:`assay.graders.contract.catalog` (class and default instance by id); this
    service keeps no map of its own: it checks and adds classes there, loads the plugins, and lists, gets
    and builds from there. What it keeps is which plugins it admitted (a registry made with
    ``load_plugins=False`` lists the built-ins only) and why it refused others.
    """

    def __init__(self, *, load_plugins: bool = True) -> None:
        self._plugins: dict[str, None] = {}
        """The ids of the plugins this registry admitted, in order (an ordered set)."""
        self._plugin_errors: builtins.list[str] = []
        self._all_loaded = False
        self._plugins_pending = load_plugins
        self._loading = threading.RLock()
        self._generation = 0

    @property
    def graders(self) -> dict[str, GraderInterface]:
        """Every registered grader by id (all loaded): the built-ins in catalogue order, then plugins."""
        self.load_all()
        return {grader_id: catalog.default(grader_id) for grader_id in self._ids()}

    @property
    def generation(self) -> int:
        """A number that changes whenever the listing changes (every grader loaded, a grader registered):
        what is derived from the listing is rebuilt when it differs, not on every request."""
        self.load_all()
        return self._generation

    @property
    def plugin_errors(self) -> builtins.list[str]:
        """Why each refused plugin was refused (the plugins are loaded first)."""
        self.load_plugins()
        return self._plugin_errors

    def _ids(self) -> builtins.list[str]:
        return [*catalog.BUILTIN, *self._plugins]

    def load_all(self) -> None:
        """Import and register every grader now (what a listing needs)."""
        if self._all_loaded:
            return  # no lock to take (every listing request asks)
        with self._loading:
            for grader_id in catalog.BUILTIN:
                catalog.default(grader_id)
            self.load_plugins()
            self._all_loaded = True
            self._generation += 1

    def register(self, grader_class: type[GraderInterface]) -> GraderInterface:
        """Check and add a grader class under its default id; an id taken by this or another class is
        refused."""
        with self._loading:
            checked = _check_grader_class(grader_class)
            try:
                grader = checked()
            except Exception as exc:  # a plugin that cannot build its default is refused, not half-registered
                raise GraderRegistrationError(f"grader {checked.__name__} cannot be built: {exc}") from exc
            grader_id = checked.default_id
            held = catalog.lookup(grader_id)  # a built-in id is the built-in's, loaded or not
            if held is checked and (grader_id in catalog.BUILTIN or grader_id in self._plugins):
                raise GraderRegistrationError(f"a grader with id '{grader_id}' is already registered")
            if held is not None and held is not checked:
                taken, other = (f"{c.__module__}.{c.__qualname__}" for c in (held, checked))
                raise GraderRegistrationError(
                    f"grader {checked.__name__} cannot be registered, a grader with id '{grader_id}' is "
                    f"already registered: the grader id '{grader_id}' already names {taken}, not {other}"
                )
            if grader.grader_id != grader_id:
                raise GraderRegistrationError(
                    f"grader {checked.__name__}: its default instance has the id '{grader.grader_id}', "
                    f"not its default_id '{grader_id}'"
                )
            try:
                catalog.add(checked, grader)
            except ValueError as exc:  # another class took the id meanwhile (another registry)
                raise GraderRegistrationError(
                    f"grader {checked.__name__} cannot be registered: {exc}"
                ) from exc
            self._plugins[grader_id] = None
            self._generation += 1
            return catalog.default(grader_id)

    def load_plugins(self) -> None:
        """Import and register the installed plugins, once: a broken one is logged and left out."""
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
        """The registered grader with this id, importing it (a built-in) or the plugins when need be."""
        if grader_id in catalog.BUILTIN:
            return catalog.default(grader_id)
        if grader_id not in self._plugins:
            self.load_plugins()
        return catalog.default(grader_id) if grader_id in self._plugins else None

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
        self.load_plugins()  # a composite's config may name a plugin
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

        return GraderSpec(grader_id=grader.grader_id, config=grader.config, version=grader.version)

    def list(self) -> builtins.list[GraderInterface]:
        """Every registered grader: the built-ins in catalogue order, then the plugins."""
        return builtins.list(self.graders.values())
