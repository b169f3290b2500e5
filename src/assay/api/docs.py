"""The interactive API docs, Swagger UI at ``/docs`` and ReDoc at ``/redoc``, served from the package.

A self-hosted tool must document itself without the internet: the pages load Swagger UI and ReDoc from
the assets that the ``fastapi-offline`` package ships (no CDN), and start them without inline script, so
the docs keep a CSP that allows scripts from this origin only.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

ASSETS_PATH = "/docs-assets"
DOCS_PATHS = frozenset({"/docs", "/redoc"})

_SWAGGER_INIT = """\
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
"""

_SWAGGER_PAGE = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Assay API · Swagger UI</title>
<link rel="icon" href="{ASSETS_PATH}/favicon.png">
<link rel="stylesheet" href="{ASSETS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="{ASSETS_PATH}/swagger-init.js"></script>
</body>
</html>
"""

_REDOC_PAGE = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Assay API · ReDoc</title>
<link rel="icon" href="{ASSETS_PATH}/favicon.png">
</head>
<body>
<redoc spec-url="/openapi.json"></redoc>
<script src="{ASSETS_PATH}/redoc.standalone.js"></script>
</body>
</html>
"""

router = APIRouter(include_in_schema=False)


@router.get("/docs")
async def swagger_ui() -> HTMLResponse:
    """Swagger UI over this server's OpenAPI document."""
    return HTMLResponse(_SWAGGER_PAGE)


@router.get("/redoc")
async def redoc() -> HTMLResponse:
    """ReDoc over this server's OpenAPI document."""
    return HTMLResponse(_REDOC_PAGE)


@router.get(f"{ASSETS_PATH}/swagger-init.js")
async def swagger_init() -> Response:
    """The script that starts Swagger UI (a file, not inline, for the CSP)."""
    return Response(_SWAGGER_INIT, media_type="text/javascript")


def install_docs(app: FastAPI) -> None:
    """Serve the docs pages and their assets (Swagger UI and ReDoc as ``fastapi-offline`` ships them)."""
    app.include_router(router)
    static = Path(str(files("fastapi_offline") / "static"))
    app.mount(ASSETS_PATH, StaticFiles(directory=static), name="docs-assets")
