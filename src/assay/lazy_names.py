"""Names a package exports on first use (PEP 562): importing the package does not import the modules that
define them, so a command loads only what it names (start-up time, issue 11)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from importlib import import_module
from typing import Any


class LazyNames:
    """A package's ``__getattr__`` and ``__dir__`` for names defined in its modules, each imported when first
    asked for and then kept in the package's namespace (found directly from then on)."""

    __slots__ = ("_homes", "_namespace", "_public")

    def __init__(self, namespace: dict[str, Any], homes: Mapping[str, str], public: Iterable[str]) -> None:
        self._namespace = namespace
        self._homes = homes
        self._public = tuple(public)

    def load(self, name: str) -> Any:
        """The value of ``name`` from the module ``homes`` gives it (``AttributeError`` for another name)."""
        home = self._homes.get(name)
        if home is None:
            raise AttributeError(f"module {self._namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(import_module(home), name)
        self._namespace[name] = value
        return value

    def names(self) -> list[str]:
        """What ``dir()`` lists: the namespace's names and every public one, loaded or not."""
        return sorted({*self._namespace, *self._public})
