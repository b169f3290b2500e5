"""A fake of GitHub's REST API for issue comments, served for real on loopback (run it with
:class:`~tests.support.agent_server.AgentServer`): it lists (paged), creates and updates a pull request's
comments, checks the bearer token, and records every request.

    with AgentServer(app=GitHubApi(token="t")) as github:
        ...  # GITHUB_API_URL=github.url; github.app.comments, github.app.requests
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


@dataclass(frozen=True)
class GitHubRequest:
    """One request as the fake saw it."""

    method: str
    path: str
    authorization: str


@dataclass
class Comment:
    """A stored comment."""

    id: int
    issue: int
    body: str


@dataclass
class GitHubApi:
    """The ASGI app: ``/repos/{owner}/{repo}/issues/{number}/comments`` (GET, POST) and
    ``/repos/{owner}/{repo}/issues/comments/{id}`` (PATCH)."""

    token: str
    repository: str = "team/agent"
    comments: list[Comment] = field(default_factory=list)
    requests: list[GitHubRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._app = Starlette(
            routes=[
                Route(
                    "/repos/{owner}/{repo}/issues/{number:int}/comments", self._issue, methods=["GET", "POST"]
                ),
                Route("/repos/{owner}/{repo}/issues/comments/{comment:int}", self._update, methods=["PATCH"]),
            ]
        )

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self._app(scope, receive, send)

    def _refused(self, request: Request) -> JSONResponse | None:
        authorization = request.headers.get("authorization", "")
        self.requests.append(GitHubRequest(request.method, request.url.path, authorization))
        if authorization != f"Bearer {self.token}":
            return JSONResponse({"message": "Bad credentials"}, status_code=401)
        if f"{request.path_params['owner']}/{request.path_params['repo']}" != self.repository:
            return JSONResponse({"message": "Not Found"}, status_code=404)
        return None

    def _json(self, comment: Comment) -> dict[str, Any]:
        return {
            "id": comment.id,
            "body": comment.body,
            "html_url": f"https://github.example/{self.repository}/pull/{comment.issue}#issuecomment-{comment.id}",
        }

    async def _issue(self, request: Request) -> JSONResponse:
        if (refused := self._refused(request)) is not None:
            return refused
        number = request.path_params["number"]
        if request.method == "POST":
            body = (await request.json())["body"]
            comment = Comment(id=1000 + len(self.comments), issue=number, body=body)
            self.comments.append(comment)
            return JSONResponse(self._json(comment), status_code=201)
        per_page = int(request.query_params.get("per_page", 30))
        page = int(request.query_params.get("page", 1))
        mine = [comment for comment in self.comments if comment.issue == number]
        shown = mine[(page - 1) * per_page : page * per_page]
        return JSONResponse([self._json(comment) for comment in shown])

    async def _update(self, request: Request) -> JSONResponse:
        if (refused := self._refused(request)) is not None:
            return refused
        for comment in self.comments:
            if comment.id == request.path_params["comment"]:
                comment.body = (await request.json())["body"]
                return JSONResponse(self._json(comment))
        return JSONResponse({"message": "Not Found"}, status_code=404)

    def posts(self, method: str) -> int:
        """How many requests of ``method`` it answered."""
        return sum(1 for request in self.requests if request.method == method)
