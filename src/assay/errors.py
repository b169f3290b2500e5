"""The one exception tree of Assay.

Each class carries the envelope ``code``, the HTTP status and the CLI exit code it stands for, so the two
edges that translate errors (the API's envelope handler and the CLI's top-level handler) need no table.
These classes are every code the API can answer with: the framework's own errors (an unknown route, a wrong
method) are mapped onto them at the edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self

Loc = tuple[str | int, ...]
"""Where a problem is: keys and list indexes into the input (``("target", "url")``, ``("config",
"labels", 2)``), or a line or case of a file (``("line", 4)``, ``("case", 3)``); empty for the whole input."""

_NUMBERED = {"line": "line ", "case": "case #"}
"""Parts followed by a number people read as one: ``line 4``, ``case #3`` (as every surface names a case)."""


def location(loc: Loc) -> str:
    """``loc`` as people read it: ``target.url``, ``config.labels[2]``, ``line 4``, ``case #3``."""
    text, previous = "", None
    for part in loc:
        if isinstance(part, int) and isinstance(previous, str) and previous in _NUMBERED:
            text = text[: -len(previous)] + f"{_NUMBERED[previous]}{part}"
        elif isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
        previous = part
    return text


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input: where it is and what is wrong there."""

    loc: Loc
    message: str

    def __str__(self) -> str:
        where = location(self.loc)
        return f"{where}: {self.message}" if where else self.message


class AssayError(Exception):
    """Base of every error Assay raises on purpose."""

    code: str = "INTERNAL_ERROR"
    http_status: int = 500
    exit_code: int = 3
    """The CLI's: 1 is kept for "graded, and the gate was not met" (``assay.cli.gate``), 2 for a mistake in
    the command or its settings, 3 for anything that stopped the command otherwise."""

    def __init__(self, message: str, *, problems: Sequence[Problem] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.problems: list[Problem] = list(problems)

    @classmethod
    def of(cls, problem: Problem) -> Self:
        """The error of one problem, which is also its message."""
        return cls(str(problem), problems=[problem])


class NotFoundError(AssayError):
    """A named thing (grader, suite, evaluation) does not exist."""

    code = "NOT_FOUND"
    http_status = 404
    exit_code = 2


class ValidationError(AssayError):
    """Input is malformed or breaks a rule; ``problems`` lists every one found."""

    code = "VALIDATION_ERROR"
    http_status = 422
    exit_code = 2


class ConfigError(ValidationError):
    """A grader configuration is invalid."""


class GraderUnavailableError(ValidationError):
    """A registered grader cannot grade on this machine (an optional package is missing); ``problems``
    says why and how to install it."""

    code = "GRADER_UNAVAILABLE"


class ConflictError(AssayError):
    """The request conflicts with the current state (a duplicate id, a finished run)."""

    code = "CONFLICT"
    http_status = 409
    exit_code = 2


class UnauthorizedError(AssayError):
    """A request lacks valid credentials."""

    code = "UNAUTHORIZED"
    http_status = 401
    exit_code = 2


class PayloadTooLargeError(AssayError):
    """A request body is over its size limit."""

    code = "PAYLOAD_TOO_LARGE"
    http_status = 413
    exit_code = 2


class UnsupportedMediaTypeError(AssayError):
    """A request body in a format the route does not read (OTLP protobuf at the JSON-only receiver)."""

    code = "UNSUPPORTED_MEDIA_TYPE"
    http_status = 415
    exit_code = 2


class MethodNotAllowedError(AssayError):
    """A route exists at the path, but not for the request's method; ``allowed`` names the methods it has."""

    code = "METHOD_NOT_ALLOWED"
    http_status = 405
    exit_code = 2

    def __init__(self, message: str = "Method not allowed", *, allowed: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.allowed = list(allowed)


class HttpError(AssayError):
    """Any other refusal by the HTTP framework (a 4xx with no class of its own); carries its status."""

    code = "HTTP_ERROR"
    http_status = 400
    exit_code = 2

    def __init__(self, message: str, *, http_status: int) -> None:
        super().__init__(message)
        self.http_status = http_status


class BusyError(AssayError):
    """The database stayed busy (another writer) past the wait; nothing was changed, try again."""

    code = "BUSY"
    http_status = 503
    exit_code = 3


class UnavailableError(AssayError):
    """Something the server needs does not answer (its database, for the health check); try again later."""

    code = "UNAVAILABLE"
    http_status = 503
    exit_code = 3


class SettingsError(AssayError):
    """A server setting (an ``ASSAY_*`` variable) is invalid or names something that cannot be reached."""

    exit_code = 2


class GraderRegistrationError(ConflictError):
    """A grader cannot be registered (duplicate id, bad metadata)."""
