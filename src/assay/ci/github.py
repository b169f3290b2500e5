"""The one comment Assay keeps on a pull request, through GitHub's REST API (aiohttp, as the CLI's other
clients): found among the pull request's comments by a hidden marker, then updated; created when none has it.

The token (``GITHUB_TOKEN``) goes in the ``Authorization`` header only: no message, log or error names it.
Every way GitHub cannot be used is a :class:`~assay.errors.SettingsError` (exit 2), with GitHub's message.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.ci.pull_request import PullRequest
from assay.errors import SettingsError

__all__ = ["CommentTarget", "PostedComment", "upsert_comment"]

DEFAULT_API_URL = "https://api.github.com"
PER_PAGE = 100
MAX_PAGES = 50
"""Comments read at most 5,000: past them the comment is created anew rather than searched for longer."""
TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True, kw_only=True)
class CommentTarget:
    """Where the comment goes and with what authority."""

    api_url: str
    token: str
    pull_request: PullRequest

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], pull_request: PullRequest) -> CommentTarget:
        """``GITHUB_API_URL`` (GitHub's when unset) and ``GITHUB_TOKEN`` (``SettingsError`` without one)."""
        token = environ.get("GITHUB_TOKEN", "")
        if not token.strip():
            raise SettingsError("GITHUB_TOKEN is not set: the comment needs a token that may write issues")
        api_url = environ.get("GITHUB_API_URL") or DEFAULT_API_URL
        if not api_url.startswith(("http://", "https://")):
            raise SettingsError(f"GITHUB_API_URL must be an http:// or https:// URL, got {api_url!r}")
        return cls(api_url=api_url.rstrip("/"), token=token.strip(), pull_request=pull_request)


@dataclass(frozen=True, slots=True, kw_only=True)
class PostedComment:
    """The comment as GitHub keeps it, and whether this call created it (``False``: updated it)."""

    id: int
    url: str
    created: bool


def _failure(status: int, body: bytes, where: str) -> SettingsError:
    try:
        said = json.loads(body).get("message")
    except (ValueError, AttributeError):
        said = None
    message = said if isinstance(said, str) else body[:200].decode(errors="replace")
    hint = "; the token needs the pull-requests: write permission" if status in (401, 403, 404) else ""
    return SettingsError(f"GitHub refused {where} (HTTP {status}): {message}{hint}")


class _GitHub:
    """Calls to GitHub's REST API in one session."""

    def __init__(self, session: Any, target: CommentTarget) -> None:
        self._session = session
        self._target = target
        pull = target.pull_request
        self.comments_path = f"/repos/{pull.repository}/issues/{pull.number}/comments"

    async def call(self, method: str, path: str, body: object = None) -> Any:
        import aiohttp

        headers = {
            "authorization": f"Bearer {self._target.token}",
            "accept": "application/vnd.github+json",
            "x-github-api-version": "2022-11-28",
        }
        where = f"{method} {path}"
        try:
            async with self._session.request(
                method, f"{self._target.api_url}{path}", json=body, headers=headers
            ) as reply:
                data = await reply.read()
                if not 200 <= reply.status < 300:
                    raise _failure(reply.status, data, where)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise SettingsError(
                f"cannot reach GitHub at {self._target.api_url}: {type(exc).__name__}"
            ) from None
        try:
            return json.loads(data)
        except ValueError:
            raise SettingsError(f"GitHub answered {where} with something that is not JSON") from None

    async def find(self, marker: str) -> dict[str, Any] | None:
        """The pull request's first comment holding ``marker``, oldest first."""
        for page in range(1, MAX_PAGES + 1):
            comments = await self.call("GET", f"{self.comments_path}?per_page={PER_PAGE}&page={page}")
            if not isinstance(comments, list):
                raise SettingsError(f"GitHub listed the comments of {self.comments_path} as no list")
            for comment in comments:
                if isinstance(comment, dict) and marker in str(comment.get("body") or ""):
                    return comment
            if len(comments) < PER_PAGE:
                return None
        return None


def _posted(comment: object, *, created: bool) -> PostedComment:
    if not isinstance(comment, dict) or type(comment.get("id")) is not int:
        raise SettingsError("GitHub answered with a comment without an id")
    return PostedComment(id=comment["id"], url=str(comment.get("html_url") or ""), created=created)


async def _upsert(target: CommentTarget, marker: str, body: str) -> PostedComment:
    import aiohttp

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT_S)) as session:
        github = _GitHub(session, target)
        found = await github.find(marker)
        if found is None:
            return _posted(await github.call("POST", github.comments_path, {"body": body}), created=True)
        path = f"/repos/{target.pull_request.repository}/issues/comments/{found['id']}"
        return _posted(await github.call("PATCH", path, {"body": body}), created=False)


def upsert_comment(target: CommentTarget, marker: str, body: str) -> PostedComment:
    """Update the pull request's comment holding ``marker`` to ``body`` (which must hold the marker too), or
    create it when there is none: one comment per marker, however often a job runs."""
    if marker not in body:
        raise ValueError("the comment's body must hold its marker, or the next run cannot find it")
    return asyncio.run(_upsert(target, marker, body))
