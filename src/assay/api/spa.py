"""Serves the built web UI (``src/assay/web/dist``) as the app's fallback for every unmatched path.

Installed as the router's default handler, so real routes always win, an unknown ``/api/...`` path still
gets the JSON 404 envelope, and a wrong method on a real route still gets a 405. UI routes such as
``/evaluations/42`` get ``index.html`` so that a refresh works.
"""

from __future__ import annotations

import stat as stat_mode
from pathlib import Path

from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from assay.errors import MethodNotAllowedError, NotFoundError

DIST = Path(__file__).resolve().parent.parent / "web" / "dist"
IMMUTABLE = "public, max-age=31536000, immutable"

MISSING_BUNDLE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Assay: web UI not built</title></head>
<body>
<h1>The Assay web UI bundle is missing</h1>
<p>The API is running (see <a href="/docs">/docs</a>), but <code>{dist}</code> holds no
<code>index.html</code>.</p>
<p>Build it with <code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>,
then reload this page.</p>
</body></html>
"""


class SinglePageApp:
    """An ASGI app: a file of the bundle if one matches, else ``index.html``; never for ``/api``."""

    def __init__(self, dist: Path = DIST) -> None:
        self.dist = dist
        self.files = StaticFiles(directory=dist, check_dir=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one unmatched request."""
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        if path == "/api" or path.startswith("/api/"):
            raise NotFoundError("Not found")
        if scope["method"] not in ("GET", "HEAD"):
            raise MethodNotAllowedError(allowed=("GET", "HEAD"))
        response = await self._response(path, scope)
        await response(scope, receive, send)

    async def _response(self, path: str, scope: Scope) -> Response:
        index = self.dist / "index.html"
        if not index.is_file():
            return HTMLResponse(
                MISSING_BUNDLE_PAGE.format(dist=self.dist), headers={"Cache-Control": "no-cache"}
            )
        relative = path.lstrip("/")
        if relative and relative != "index.html":
            full_path, found = self.files.lookup_path(relative)
            if found is not None and full_path and stat_mode.S_ISREG(found.st_mode):
                response = self.files.file_response(full_path, found, scope)
                cache = IMMUTABLE if relative.startswith("assets/") else "no-cache"
                response.headers["Cache-Control"] = cache
                return response
            if relative.startswith("assets/"):
                raise NotFoundError("Not found")  # a stale hashed file: index.html would be wrong here
        return FileResponse(index, media_type="text/html", headers={"Cache-Control": "no-cache"})
