"""The one exception tree of Assay.

Each class carries the envelope ``code``, the HTTP status and the CLI exit code it stands for, so the two
edges that translate errors (the API's envelope handler and the CLI's top-level handler) need no table.
"""

from __future__ import annotations

from collections.abc import Sequence


class AssayError(Exception):
    """Base of every error Assay raises on purpose."""

    code: str = "INTERNAL_ERROR"
    http_status: int = 500
    exit_code: int = 1

    def __init__(self, message: str, *, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.problems: list[str] = list(problems)


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


class BusyError(AssayError):
    """The database stayed busy (another writer) past the wait; nothing was changed, try again."""

    code = "BUSY"
    http_status = 503
    exit_code = 1


class SettingsError(AssayError):
    """A server setting (an ``ASSAY_*`` variable) is invalid or names something that cannot be reached."""

    exit_code = 2


class GraderRegistrationError(ConflictError):
    """A grader cannot be registered (duplicate id, bad metadata)."""
