"""Secrets by name: which environment variables a target may read, and the one answer for every other.

On a server, a target gets a variable only when its name starts with ``ASSAY_SECRET_`` or is listed in
``ASSAY_TARGET_SECRETS``; a name that is refused and an allowed name that is unset get the same message, so
an API caller learns nothing about the server's environment. The CLI runs as its user and may read any
variable it is told to. Values are read when a target is built (never stored) and used in headers, body
templates (``{{secret.NAME}}``) and the OpenAI target's key.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from assay.errors import Loc, Problem, ValidationError

SECRET_PREFIX = "ASSAY_SECRET_"


@dataclass(frozen=True, slots=True, kw_only=True)
class SecretPolicy:
    """Which variables targets may read; values come from ``environ`` (the process environment)."""

    listed: frozenset[str] = frozenset()
    any_name: bool = False
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ, compare=False, repr=False)

    @classmethod
    def unrestricted(cls) -> SecretPolicy:
        """Any variable: for the CLI, which runs as its user."""
        return cls(any_name=True)

    @classmethod
    def for_server(cls, listed: str) -> SecretPolicy:
        """The policy of a server: the prefix, and the names listed (comma-separated)."""
        return cls(listed=frozenset(name.strip() for name in listed.split(",") if name.strip()))

    def is_allowed(self, name: str) -> bool:
        """Whether a target may read the variable ``name`` (set or not)."""
        return self.any_name or name.startswith(SECRET_PREFIX) or name in self.listed

    def available_names(self) -> frozenset[str]:
        """The names a target may read here that are set: what the processes of a deployment must share
        (names only; a value never leaves the process)."""
        return frozenset(name for name, value in self.environ.items() if value and self.is_allowed(name))

    def value(self, name: str, *, where: Loc) -> str:
        """The value of ``name``; a ``ValidationError`` that says the same whether refused or unset."""
        value = self.environ.get(name) if self.is_allowed(name) else None
        if not value:
            message = (
                f"secret '{name}' is not available to targets (set it in the server's environment, "
                f"named {SECRET_PREFIX}… or listed in ASSAY_TARGET_SECRETS)"
            )
            if self.any_name:
                message = f"environment variable {name} is not set"
            raise ValidationError.of(Problem(where, message))
        return value

    def values(self, names: Iterable[str], *, where: Loc) -> dict[str, str]:
        """The value of every name (each checked as :meth:`value` does)."""
        return {name: self.value(name, where=where) for name in sorted(set(names))}
