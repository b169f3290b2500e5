"""The pull request a GitHub Actions job runs for, from the job's environment.

GitHub gives it in the event file (``GITHUB_EVENT_PATH``, the webhook's payload): ``pull_request.number``,
its base and head branches. ``GITHUB_REPOSITORY`` names the repository, ``GITHUB_BASE_REF`` the base branch
of a ``pull_request`` event when the file lacks it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from assay.errors import SettingsError

__all__ = ["PullRequest"]

MAX_EVENT_BYTES = 25 * 1024 * 1024
"""GitHub's webhook payloads are capped at 25 MB."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PullRequest:
    """A pull request: where its comments go, and the branch it merges into."""

    repository: str
    """``owner/name``."""
    number: int
    base_branch: str | None
    head_branch: str | None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> PullRequest:
        """The job's pull request; ``SettingsError`` when the job is not one's (no number in its event)."""
        repository = environ.get("GITHUB_REPOSITORY", "")
        if repository.count("/") != 1 or not all(repository.split("/")):
            raise SettingsError("GITHUB_REPOSITORY must name the repository as owner/name")
        event = _event(environ.get("GITHUB_EVENT_PATH"))
        pull = event.get("pull_request")
        number = pull.get("number") if isinstance(pull, dict) else event.get("number")
        if type(number) is not int or number < 1:
            raise SettingsError(
                "the job's event names no pull request (GITHUB_EVENT_PATH): comment from a pull_request job"
            )
        base = _branch(pull, "base") or environ.get("GITHUB_BASE_REF") or None
        head = _branch(pull, "head") or environ.get("GITHUB_HEAD_REF") or None
        return cls(repository=repository, number=number, base_branch=base, head_branch=head)


def _event(path: str | None) -> dict[str, object]:
    """The event file's JSON object (``SettingsError`` when there is none to read)."""
    if not path:
        raise SettingsError("GITHUB_EVENT_PATH is not set: run in a GitHub Actions job of a pull request")
    try:
        with Path(path).open("rb") as stream:
            content = stream.read(MAX_EVENT_BYTES + 1)
    except OSError as exc:
        raise SettingsError(f"cannot read GITHUB_EVENT_PATH {path}: {exc.strerror}") from None
    try:
        event = json.loads(content) if len(content) <= MAX_EVENT_BYTES else None
    except ValueError:
        event = None
    if not isinstance(event, dict):
        raise SettingsError(f"GITHUB_EVENT_PATH {path} does not hold a JSON object under 25 MB")
    return event


def _branch(pull: object, side: str) -> str | None:
    ref = pull.get(side) if isinstance(pull, dict) else None
    name = ref.get("ref") if isinstance(ref, dict) else None
    return name if isinstance(name, str) and name else None
